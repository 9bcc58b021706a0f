"""Trilu: the upper or lower triangle of each [N, M] matrix (diagonal k and beyond), every other element zero."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data, declared
from onnx_conformance.generators.semantics import Rejected, Undefined, attr

OPERATOR = Operator("Trilu")

NO_ZERO_STRING = ("the elements outside the triangle 'are set to zero', and the spec defines "
                  "no zero string: only examples that keep every element run in string")


@OPERATOR.semantics
def trilu(v, attrs, inputs):
    """Each [N, M] matrix of an input [*, N, M] keeps the elements on and above (upper, the default) or on and
    below diagonal k (default 0); 'All other elements in the matrix are set to zero'."""
    x = inputs["input"]
    if x.ndim < 2:
        raise Rejected(v.sentence(r"takes one input tensor of shape"))
    k = 0
    if inputs.get("k") is not None:
        if np.size(inputs["k"]) != 1:
            raise Rejected(" ".join(v.schema.inputs[1].description.split()))
        k = int(np.asarray(inputs["k"]).reshape(-1)[0])
    n, m = x.shape[-2:]
    # j - i lies in [-(n - 1), m - 1]: a k beyond [-n, m] keeps the same elements, and numpy's own index
    # arithmetic overflows near INT64_MIN (and wraps, keeping the wrong ones, a few steps above it)
    k = max(-n, min(m, k))
    kept = np.triu(np.ones((n, m), bool), k) if attr(attrs, "upper", 1) else np.tril(np.ones((n, m), bool), k)
    out = x.copy()
    if x.dtype.kind in "OUS" and x.size and not kept.all():
        raise Undefined(NO_ZERO_STRING)
    # 0 in the type, False for bool.
    out[..., ~kept] = np.zeros((), dtype=x.dtype)[()]
    return {"output": out}


def _trilu(v, t, shape, upper: bool, k, rng):
    x = data(t, shape, rng)
    inputs = {"input": x, "k": None if k is None else np.array(k, dtype=np.int64)}
    try:
        return OPERATOR.expect(v, inputs, {} if upper else {"upper": 0})
    except Undefined as e:
        return NotApplicable(e.reason)


# onnx's documented examples: name -> (shape, upper, k); k None leaves the optional input out.
DOCUMENTED = {
    "triu": ((4, 5), True, None),
    "triu_neg": ((4, 5), True, -1),
    "triu_out_neg_out": ((4, 5), True, -7),
    "triu_pos": ((4, 5), True, 2),
    "triu_out_pos": ((4, 5), True, 6),
    "triu_square": ((2, 3, 3), True, None),
    "triu_square_neg": ((2, 3, 3), True, -1),
    "triu_one_row": ((3, 1, 5), True, 1),
    "triu_zero": ((0, 5), True, 6),
    "tril": ((4, 5), False, None),
    "tril_neg": ((4, 5), False, -1),
    "tril_out_neg": ((4, 5), False, -7),
    "tril_pos": ((4, 5), False, 2),
    "tril_out_pos": ((4, 5), False, 6),
    "tril_square": ((2, 3, 3), False, None),
    "tril_square_neg": ((2, 3, 3), False, -1),
    "tril_one_row_neg": ((3, 1, 5), False, None),
    "tril_zero": ((3, 0, 5), False, 6),
}


def _documented(shape, upper, k):
    return lambda v, t, rng: _trilu(v, t, shape, upper, k, rng)


for _name, (_shape, _upper, _k) in DOCUMENTED.items():
    OPERATOR.example(_documented(_shape, _upper, _k), name=_name)


@OPERATOR.example
def triu_tall_batched(v, t, rng):
    """A tall [5, 3] matrix under two batch dimensions, k = 0 given explicitly as the input."""
    return _trilu(v, t, (1, 2, 5, 3), True, 0, rng)


@OPERATOR.rejection
def rank1_input(v, t, rng):
    """Rejection: a 1-D input has no matrix."""
    return OPERATOR.reject(v, {"input": data(t, (5,), rng), "k": None}, {}, {"output": declared(t.dtype, 1)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    'returned outputs for an expect-error case',
    "the evaluator does not check the input's rank",
)
