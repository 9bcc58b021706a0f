"""Trilu: the upper or lower triangle of each [N, M] matrix (diagonal k and beyond), every other element zero."""

import numpy as np

from onnx_conformance.generators.case import Case, NotApplicable, Operator
from onnx_conformance.generators.movement import data, declared

OPERATOR = Operator("Trilu")


def _zero(t):
    """'All other elements in the matrix are set to zero': 0 in the type, False for bool."""
    return np.zeros((), dtype=t.np())[()]


def _trilu(t, shape, upper: bool, k, rng):
    x = data(t, shape, rng)
    n, m = shape[-2], shape[-1]
    kept = np.triu(np.ones((n, m), bool), 0 if k is None else k) if upper else \
        np.tril(np.ones((n, m), bool), 0 if k is None else k)
    out = x.copy()
    if t.dtype == "string" and x.size and not kept.all():
        return NotApplicable("the elements outside the triangle 'are set to zero', and the spec defines "
                             "no zero string: only examples that keep every element run in string")
    out[..., ~kept] = _zero(t)
    inputs = {"input": x, "k": None if k is None else np.array(k, dtype=np.int64)}
    return Case(inputs, {"output": out}, {} if upper else {"upper": 0})


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
    return lambda v, t, rng: _trilu(t, shape, upper, k, rng)


for _name, (_shape, _upper, _k) in DOCUMENTED.items():
    OPERATOR.example(_documented(_shape, _upper, _k), name=_name)


@OPERATOR.example
def triu_tall_batched(v, t, rng):
    """A tall [5, 3] matrix under two batch dimensions, k = 0 given explicitly as the input."""
    return _trilu(t, (1, 2, 5, 3), True, 0, rng)


@OPERATOR.rejection
def rank1_input(v, t, rng):
    """Rejection: a 1-D input has no matrix."""
    return Case({"input": data(t, (5,), rng), "k": None}, {"output": declared(t.dtype, 1)},
                error=v.sentence(r"takes one input tensor of shape"))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    'returned outputs for an expect-error case',
    "the evaluator does not check the input's rank",
)
