"""EyeLike: ones on diagonal k of a matrix shaped like the input, zeros elsewhere, of type dtype or else the input's."""

import re

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data, declared
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import elem_type_of, name_of, numpy_of

# T2 follows T1: 'If 'dtype' is not specified, then the type of input tensor is used.'
OPERATOR = Operator("EyeLike", primary="T1", defaults={"T2": lambda v, binding: binding["T1"]})


def _only_2d(v) -> str:
    return re.search(r"Only 2D tensors are supported, i\.e\. [^.]*\.", v.doc).group(0)


@OPERATOR.semantics
def eye_like(v, attrs, inputs):
    """Ones on diagonal k (default 0: 'this op sets T2[i, i+k] = 1') of a matrix shaped like the rank-2 input,
    zeros elsewhere, of type dtype (default: the input's type)."""
    x = inputs["input"]
    if x.ndim != 2:
        raise Rejected(_only_2d(v))
    out_type = np.dtype(x.dtype) if attrs.get("dtype") is None else None
    if out_type is None:
        try:
            name = name_of(attrs["dtype"])
        except ValueError:  # no DataType of that number
            name = None
        if name not in v.type_params["T2"]:
            raise Rejected(v.sentence(r"The 'dtype' argument must be one of"))
        out_type = numpy_of(name)
    # 0 and 1 are exact in every allowed type.
    return {"output": np.eye(x.shape[0], x.shape[1], attr(attrs, "k", 0), dtype=np.float64).astype(out_type)}


def _case(v, t, shape, k=None, with_dtype=True, rng=None):
    x = data(t, shape, rng, "T1")
    attrs = {}
    if with_dtype:
        attrs["dtype"] = elem_type_of(t["T2"])
    if k is not None:
        attrs["k"] = k
    return OPERATOR.expect(v, {"input": x}, attrs)


@OPERATOR.example
def without_dtype(v, t, rng):
    """onnx's test_eyelike_without_dtype: 4 x 4, the output typed like the input."""
    if t["T2"] != t["T1"]:
        return NotApplicable("without dtype 'the type of input tensor is used': T2 is T1")
    return _case(v, t, (4, 4), with_dtype=False, rng=rng)


@OPERATOR.example
def with_dtype(v, t, rng):
    """onnx's test_eyelike_with_dtype: 3 x 4, the output of type dtype."""
    return _case(v, t, (3, 4), rng=rng)


@OPERATOR.example
def populate_off_main_diagonal(v, t, rng):
    """onnx's test_eyelike_populate_off_main_diagonal: 4 x 5, k = 1."""
    return _case(v, t, (4, 5), k=1, rng=rng)


@OPERATOR.example
def negative_k(v, t, rng):
    """A lower diagonal, k = -2, on a tall 5 x 3 matrix (15 elements, odd)."""
    return _case(v, t, (5, 3), k=-2, rng=rng)


@OPERATOR.example
def k_beyond(v, t, rng):
    """k past the last column: no T2[i, i+k] exists, all zeros."""
    return _case(v, t, (3, 4), k=4, rng=rng)


@OPERATOR.example
def negative_k_beyond(v, t, rng):
    """k below the last row: all zeros."""
    return _case(v, t, (3, 4), k=-3, rng=rng)


@OPERATOR.example
def empty(v, t, rng):
    """A zero-row input: a zero-row output."""
    return _case(v, t, (0, 3), rng=rng)


@OPERATOR.rejection
def rank3_input(v, t, rng):
    """Rejection: an input of rank 3."""
    return OPERATOR.reject(v, {"input": data(t, (2, 2, 2), rng, "T1")}, {}, {"output": declared(t["T2"], 3)})
