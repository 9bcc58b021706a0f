"""ScatterND: writes (or, from version 16, reduces) update slices into a copy of data at k-tuple indices."""

from onnx_conformance.generators import scatter_family as sf
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("ScatterND", primary="T")

OPERATOR.example(sf.scatternd)
OPERATOR.example(sf.add)
OPERATOR.example(sf.multiply)
OPERATOR.example(sf.nd_max, name="max")
OPERATOR.example(sf.nd_min, name="min")
OPERATOR.example(sf.max_with_element_indices)
OPERATOR.example(sf.min_with_element_indices)
OPERATOR.example(sf.nd_negative_indices, name="negative_indices")
OPERATOR.example(sf.nd_empty_indices, name="empty_indices")
OPERATOR.example(sf.nd_out_of_range_indices, name="out_of_range_indices")
