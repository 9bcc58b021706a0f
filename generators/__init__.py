"""Emits the conformance corpus: every documented example, at every opset version, in every dtype."""
