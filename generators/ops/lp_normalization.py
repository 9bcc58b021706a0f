"""LpNormalization: output = input / Lp_norm(input, axis), p 1 or 2; a zero norm gives zero."""

import mpmath
import numpy as np

from onnx_conformance.generators.case import Declared, Operator
from onnx_conformance.generators.norm_family import data, documented, ex, magnitude, mp, rounded, tolerance
from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.rounding import PREC
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("LpNormalization")

DOC_3D = [[[1.0, 2.0, 2.0], [3.0, 4.0, 0.0]], [[0.0, 5.0, 5.0], [6.0, 8.0, 0.0]]]
DOC_2D = [[3.0, 4.0], [6.0, 8.0]]


P_RULE = "The order of the normalization, only 1 or 2 are supported."


def normalized(v, x, attrs: dict) -> tuple[np.ndarray, int]:
    """input / Lp_norm(input, axis) in mpmath at PREC bits (the norm's sum exact), p default 2, axis
    default -1; 'When the Lp norm is zero ... the output is defined to be zero'. Also the axis length."""
    p, axis = attr(attrs, "p", 2), attr(attrs, "axis", -1)
    if p not in (1, 2):
        raise Rejected(P_RULE)
    if x.ndim == 0 or not -x.ndim <= axis < x.ndim:
        raise Rejected(f"axis {axis} names no axis of an input of rank {x.ndim}")
    a = axis % x.ndim
    xe = ex(x)
    with mpmath.workprec(PREC):
        if p == 1:
            norm = np.sum(np.vectorize(lambda e: abs(e), otypes=[object])(xe), axis=a, keepdims=True)
            norm = np.vectorize(mp, otypes=[object])(norm)
        else:
            norm = np.vectorize(lambda e: mpmath.sqrt(mp(e)), otypes=[object])(np.sum(xe * xe, axis=a, keepdims=True))
        y = np.vectorize(lambda e, n: mpmath.mpf(0) if n == 0 else mp(e) / n, otypes=[object])(xe, norm)
    return np.asarray(y, dtype=object).reshape(x.shape), x.shape[a]


@OPERATOR.semantics
def lp_normalization(v, attrs, inputs):
    """output = input / Lp_norm(input, axis), p 1 (sum of |x|) or 2, rounded once to T."""
    x = inputs["input"]
    y, _ = normalized(v, x, attrs)
    return {"output": rounded(y, name_of_numpy(x.dtype))}


def lp_norm(v, t, x, p=None, axis=None):
    """The case: the attributes given, the semantics' output, the tolerance of the axis' sum, the root and
    the division for this data."""
    attrs = {k: val for k, val in (("p", p), ("axis", axis)) if val is not None}
    y, n = normalized(v, x, attrs)
    after = (budget("div", t.dtype) or {"ulp": 0})["ulp"]
    if (2 if p is None else p) == 2:
        after += (budget("sqrt", t.dtype) or {"ulp": 0})["ulp"]
    return OPERATOR.expect(v, {"input": x}, attrs, tolerance=tolerance([t.dtype], n, magnitude(y), after=after))


@OPERATOR.example
def l2normalization_axis_0(v, t, rng):
    """onnx's example: p 2 along axis 0, one all-zero column (its output is zero)."""
    return lp_norm(v, t, documented(DOC_3D, t.dtype), p=2, axis=0)


@OPERATOR.example
def l2normalization_axis_1(v, t, rng):
    return lp_norm(v, t, documented(DOC_2D, t.dtype), p=2, axis=1)


@OPERATOR.example
def l1normalization_axis_0(v, t, rng):
    return lp_norm(v, t, documented([3.0, 4.0], t.dtype), p=1, axis=0)


@OPERATOR.example
def l1normalization_axis_1(v, t, rng):
    return lp_norm(v, t, documented(DOC_2D, t.dtype), p=1, axis=1)


@OPERATOR.example
def l1normalization_axis_last(v, t, rng):
    return lp_norm(v, t, documented(DOC_3D, t.dtype), p=1, axis=-1)


@OPERATOR.example
def default(v, t, rng):
    """No attributes: p 2, axis -1."""
    return lp_norm(v, t, documented(DOC_3D, t.dtype))


@OPERATOR.example
def l2_random_axis_1(v, t, rng):
    """Random signed data, (3, 7, 2), p 2 along the middle axis."""
    return lp_norm(v, t, data(t.dtype, (3, 7, 2), rng), p=2, axis=1)


@OPERATOR.example
def l1_random_negative_axis(v, t, rng):
    """Random signed data, (4, 5), p 1 along axis -2."""
    return lp_norm(v, t, data(t.dtype, (4, 5), rng), p=1, axis=-2)


@OPERATOR.example
def zero_norm(v, t, rng):
    """Rows all zero (signed zeros too) next to ordinary ones: 'the output is defined to be zero'."""
    x = np.array([[0.0, -0.0, 0.0], [1.0, -2.0, 2.0], [-0.0, -0.0, -0.0]]).astype(t.np())
    return lp_norm(v, t, x, p=1, axis=1)


@OPERATOR.rejection
def p_not_1_or_2(v, t, rng):
    x = documented(DOC_2D, t.dtype)
    return OPERATOR.reject(v, {"input": x}, {"p": 3}, {"output": Declared(t.dtype, x.shape)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^(l1_random_negative_axis|zero_norm) \w+: .*values differ",
    "the evaluator's norm is (sum x^p)^(1/p) without absolute values, so its L1 norm of signed data is the "
    "plain sum; the L1 norm is the sum of |x| (onnxruntime agrees with ours)",
)
OPERATOR.reference_differs(
    r"^p_not_1_or_2 \w+: reference evaluator returned outputs",
    "the evaluator computes any p; the spec supports 'only 1 or 2'",
)
