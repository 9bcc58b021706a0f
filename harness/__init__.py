"""Runs any corpus in the standard ONNX test-data layout against a backend and reports per case."""

__version__ = "0.1.0"
