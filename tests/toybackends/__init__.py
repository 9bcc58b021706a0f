"""Purpose-built adapters that misbehave on request, to prove the runner survives each failure."""
