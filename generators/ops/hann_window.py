"""HannWindow: a cosine-sum window of `size` points, periodic or symmetric, in output_datatype (signal_family)."""

from onnx_conformance.generators.signal_family import WindowOp

OPERATOR = WindowOp("HannWindow")
