"""What the ai.onnx.ml operators share: FLOAT attributes as the float32 they hold, the 'one and only one
of' attribute rule, the scores' post transforms, the SVM kernels, exact linear algebra over attribute weights,
one rounding to the output type."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.rounding import PREC, exact, round_to
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.harness.dtypes import numpy_of

ML = "ai.onnx.ml"


def ml_operator(name: str, **kw) -> Operator:
    return Operator(name, domain=ML, **kw)


def one_of(attrs: dict, names, sentence: str) -> str:
    """The one attribute of `names` the node sets; the spec's 'One and only one of ...' (sentence) otherwise."""
    given = [n for n in names if attrs.get(n) is not None]
    if len(given) != 1:
        raise Rejected(sentence)
    return given[0]


def f32(x) -> Fraction:
    """A FLOAT attribute's value: the float32 nearest the written number, exactly."""
    return Fraction(float(np.float32(x)))


def floats(xs) -> list[float]:
    """Values written into a FLOATS attribute: float32-representable, so the attribute holds them exactly."""
    return [float(np.float32(x)) for x in xs]


def exact_of(x) -> list:
    """An input array's elements as exact values (ints for integer types), flat in C order."""
    x = np.asarray(x)
    if x.dtype.kind in "iu":
        return [Fraction(int(e)) for e in x.reshape(-1)]
    return [exact(float(e)) for e in x.reshape(-1)]


def data(type_name: str, shape, rng: np.random.Generator, low: int = -4, high: int = 4) -> np.ndarray:
    """Input data: small integers, or floats on a grid of quarters (exact in every float type)."""
    if values.is_int(type_name):
        return rng.integers(low, high + 1, size=shape).astype(numpy_of(type_name))
    return (rng.integers(low * 4, high * 4 + 1, size=shape) / 4).astype(numpy_of(type_name))


def rounded(exact_values, type_name: str, shape) -> np.ndarray:
    flat = [round_to(v, type_name) for v in exact_values]
    return np.array(flat, dtype=numpy_of(type_name)).reshape(shape)


def transform_row(row: list, kind: str) -> list:
    """The post transform of one row of scores, exact (NONE) or at mpmath's PREC bits.

    SOFTMAX: exp(s_i - max) / sum_j exp(s_j - max); LOGISTIC: 1 / (1 + exp(-s_i)); SOFTMAX_ZERO:
    softmax over the non-zero scores, zero scores stay 0 (a row of zeros: Undefined); PROBIT: the standard
    normal quantile of s_i, sqrt(2) * erfinv(2 s_i - 1)."""
    if kind == "NONE":
        return list(row)
    with mpmath.workprec(PREC):
        m = [mpmath.mpf(x) if isinstance(x, (float, mpmath.mpf)) else mpmath.mpf(x.numerator) / x.denominator
             for x in row]
        if kind == "LOGISTIC":
            return [1 / (1 + mpmath.exp(-x)) for x in m]
        if kind == "PROBIT":
            return [mpmath.sqrt(2) * mpmath.erfinv(2 * x - 1) for x in m]
        keep = [True] * len(m) if kind == "SOFTMAX" else [x != 0 for x in row]
        if not any(keep) and m:
            raise Undefined("SOFTMAX_ZERO of a row of zeros: the schemas name the transform without defining it, "
                            "and its softmax over no non-zero score is 0 / 0 (onnx's reference evaluator gives 0.5)")
        top = max((x for x, k in zip(m, keep) if k), default=mpmath.mpf(0))
        e = [mpmath.exp(x - top) if k else mpmath.mpf(0) for x, k in zip(m, keep)]
        s = sum(e)
        return [x / s for x in e]


def post_transformed(v, attrs: dict, rows: list[list]) -> list[list]:
    """post_transform (default 'NONE'), 'One of 'NONE,' 'SOFTMAX,' 'LOGISTIC,' 'SOFTMAX_ZERO,' or 'PROBIT'', over
    each row of scores; PROBIT, the normal quantile, has no value for a score outside [0, 1]."""
    kind = attr(attrs, "post_transform", "NONE")
    if kind not in ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"):
        raise Rejected(f"post_transform: {v.schema.attributes['post_transform'].description} (given {kind!r})")
    if kind == "PROBIT" and any(not 0 <= x <= 1 for row in rows for x in row):
        raise Undefined("PROBIT of a score outside [0, 1]: the normal quantile of a probability has no value there")
    return [transform_row(row, kind) for row in rows]


def svm_kernel(kind: str, x: list, sv: list, gamma, coef0, degree: int):
    """kernel_params are 'gamma, coef0, and degree, in that order': LINEAR x.sv, POLY (gamma x.sv + coef0)^degree,
    RBF exp(-gamma |x - sv|^2), SIGMOID tanh(gamma x.sv + coef0) (libsvm's kernels, whose fields the attributes
    name); exact (Fraction) for LINEAR and POLY, at mpmath's working precision for RBF and SIGMOID."""
    dot = sum((a * b for a, b in zip(x, sv)), Fraction(0))
    if kind == "LINEAR":
        return dot
    if kind == "POLY":
        return (gamma * dot + coef0) ** degree
    q = (lambda f: mpmath.mpf(f.numerator) / f.denominator)
    if kind == "RBF":
        return mpmath.exp(-q(gamma) * q(sum((a - b) ** 2 for a, b in zip(x, sv))))
    return mpmath.tanh(q(gamma * dot + coef0))


def svm_kernel_params(v, attrs: dict) -> tuple[str, Fraction, Fraction, int]:
    """kernel_type (default 'LINEAR', 'one of 'LINEAR,' 'POLY,' 'RBF,' 'SIGMOID'') and kernel_params as the float32
    they hold ('Zero if unused for the kernel'; left out: zeros); a non-integral degree has no stated power."""
    kind = attr(attrs, "kernel_type", "LINEAR")
    if kind not in ("LINEAR", "POLY", "RBF", "SIGMOID"):
        raise Rejected(f"kernel_type: {v.schema.attributes['kernel_type'].description} (given {kind!r})")
    params = list(attr(attrs, "kernel_params", [0.0, 0.0, 0.0]))
    if len(params) != 3:
        raise Rejected(f"kernel_params: {v.schema.attributes['kernel_params'].description}")
    gamma, coef0, degree = (f32(e) for e in params)
    if kind == "POLY" and degree.denominator != 1:
        raise Undefined(f"POLY with the non-integral degree {float(degree)}: no power is stated")
    return kind, gamma, coef0, int(degree)


def top_class(row: list) -> int | None:
    """The index of the largest score, None on a tie (no classifier's schema names a label for a tie)."""
    best = max(row)
    return row.index(best) if sum(1 for e in row if e == best) == 1 else None


def rows_of(v, x: np.ndarray) -> np.ndarray:
    """X as [N, C]: a [C] X is one row; 'Data to be classified/regressed' of another rank is rejected."""
    if x.ndim == 1:
        return x.reshape(1, -1)
    if x.ndim != 2:
        raise Rejected(f"X: {v.schema.inputs[0].description.rstrip('.')}: [N, C] or [C] (given rank {x.ndim})")
    return x


def transform_tolerance(kind: str, type_name: str, n: int, magnitude: float) -> dict | None:
    """The scores are sums of n products (any order); a transform adds the composite budget
    (exp, erfinv); SOFTMAX's and LOGISTIC's results lie in [0, 1]."""
    from onnx_conformance.generators.accuracy import accumulation

    acc = accumulation(type_name, n, magnitude) or {}
    if kind == "NONE":
        return acc or None
    tol = budget("composite", type_name) or {}
    out = {"ulp": acc.get("ulp", 0) + tol.get("ulp", 0)}
    # the sum's absolute error, carried through a transform of slope at most 1 (SOFTMAX, LOGISTIC)
    # or 1 / phi(q) (PROBIT, whose inputs here stay in [0.0625, 0.9375]: slope below 10)
    if "atol" in acc:
        out["atol"] = acc["atol"] * (10 if kind == "PROBIT" else 1)
    return out


def linear(x: np.ndarray, coefficients: list, intercepts: list | None, k: int) -> list[list]:
    """Each row of X against k contiguous coefficient sets, plus the intercepts: exact scores."""
    n, c = x.shape
    ex = exact_of(x)
    w = [f32(e) for e in coefficients]
    b = [f32(e) for e in intercepts] if intercepts else [Fraction(0)] * k
    return [[sum(ex[r * c + j] * w[i * c + j] for j in range(c)) + b[i] for i in range(k)] for r in range(n)]


def magnitude(x: np.ndarray, coefficients: list, intercepts: list | None, k: int) -> float:
    """The largest sum of |terms| of any score (accuracy.accumulation's magnitude)."""
    n, c = x.shape
    ex = exact_of(x)
    w = [abs(f32(e)) for e in coefficients]
    b = [abs(f32(e)) for e in intercepts] if intercepts else [0] * k
    return float(max(sum(abs(ex[r * c + j]) * w[i * c + j] for j in range(c)) + b[i]
                     for r in range(n) for i in range(k)))


# coefficients small enough that PROBIT's scores stay in (0, 1) for inputs in [-4, 4]
PROBIT_COEFFICIENTS = [0.03125, -0.0625, 0.015625]


PROBIT_REASON = ("PROBIT is the standard normal quantile, sqrt(2) erfinv(2p - 1); the evaluator's erf_inv is "
                 "Winitzki's closed-form approximation (a = 0.147), off by ~2e-4 here")
