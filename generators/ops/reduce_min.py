"""ReduceMin: the smallest element of each group (False < True for tensor(bool), schema version 20)."""

import numpy as np

from onnx_conformance.generators.ops._shared import MIN_MAX_DATA, order_pairs
from onnx_conformance.generators.reduce_family import ReduceOp, nan_propagating

OPERATOR = ReduceOp(
    name="ReduceMin",
    step=nan_propagating(np.minimum),
    example_data=MIN_MAX_DATA,
    range_pairs=order_pairs,
)
