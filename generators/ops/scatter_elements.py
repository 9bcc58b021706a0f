"""ScatterElements: writes (or, from version 16, reduces) updates into a copy of data along axis at the given indices."""

from onnx_conformance.generators import scatter_family as sf
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("ScatterElements", primary="T", defaults={"Tind": "int64"})
OPERATOR.semantics(sf.scatter_elements)

for _example in (sf.without_axis, sf.with_axis, sf.with_negative_indices, sf.negative_axis, sf.empty_indices,
                 sf.with_duplicate_indices, sf.with_reduction_mul, sf.with_reduction_max, sf.with_reduction_min,
                 sf.out_of_range_indices):
    OPERATOR.example(sf.bound(OPERATOR, _example))
