"""NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: one exact oracle for the loss and its reductions.

loss[n][d...] = -input[n][c][d...] * weight[c] with c = target[n][d...], and 0 where the target
equals ignore_index; reduction 'none' keeps that tensor, 'sum' adds it, 'mean' divides the sum by
the sum of the weights taken (weight[c] over the targets not ignored; 1 each without a weight).
Without a weight, the text's "mean(loss)" leaves open whether ignored targets count; the schema's
function body (ReduceSum(loss) / ReduceSum(Where(mask, 0, 1))) and onnx's examples divide by the
targets not ignored, and so does this oracle.

SoftmaxCrossEntropyLoss feeds the same loss with y = Log(Softmax(scores)) along axis 1, computed
in mpmath at PREC bits. Everything is exact (Fraction) or high precision until one rounding.

The documented examples draw their data from numpy's legacy generator seeded with 0 (input by
rand, target by randint(0, C), weight by rand or a stated list), then set one target to the
ignore_index: DOC_DATA rebuilds that data, so our cases carry the same inputs as onnx's node tests.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from onnx_conformance.generators import accuracy
from onnx_conformance.generators.case import NotApplicable
from onnx_conformance.generators.rounding import PREC, round_many, round_to
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.generators.softmax_family import log_softmax_row
from onnx_conformance.harness.dtypes import name_of_numpy, numpy_of

REDUCTIONS = ("none", "sum", "mean")


def doc_data(shape, weight=None, ii_at=None, ii=None, seed=0):
    """(input, target, weight) as onnx's examples build them: RandomState(0).rand(shape),
    randint(0, C, target shape) as int64, then the weight: 'rand' (rand(C)), a list, or None."""
    r = np.random.RandomState(seed)
    x = r.rand(*shape).astype(np.float32)
    n, c = shape[0], shape[1]
    target = r.randint(0, high=c, size=(n, *shape[2:])).astype(np.int64)
    if ii_at is not None:
        target[ii_at] = ii
    if isinstance(weight, str):
        w = r.rand(c).astype(np.float32)
    elif weight is not None:
        w = np.array(weight, dtype=np.float32)
    else:
        w = None
    return x, target, w


def log_softmax_axis1(x: np.ndarray) -> list:
    """Log(Softmax(x)) along axis 1 at PREC bits, as nested [n][c][flat d] lists of mpf (shared:
    read them, never change them).

    An example and its _log_prob twin feed the same scores: the last few results are kept."""
    flat = np.asarray(x).astype(np.float64)
    key = (flat.shape, flat.tobytes())
    if key not in _LOG_SOFTMAX:
        if len(_LOG_SOFTMAX) >= 4:
            _LOG_SOFTMAX.pop(next(iter(_LOG_SOFTMAX)))
        _LOG_SOFTMAX[key] = _log_softmax_axis1(flat)
    return _LOG_SOFTMAX[key]


_LOG_SOFTMAX: dict = {}


def _log_softmax_axis1(x: np.ndarray) -> list:
    n, c = x.shape[0], x.shape[1]
    flat = x.reshape(n, c, int(np.prod(x.shape[2:])))
    out = [[[None] * flat.shape[2] for _ in range(c)] for _ in range(n)]
    with mpmath.workprec(PREC):
        for i in range(n):
            for d in range(flat.shape[2]):
                # LogSoftmax's own row: NaN where the row holds NaN or only -inf, no value with +inf
                row = log_softmax_row([mpmath.mpf(float(v)) for v in flat[i, :, d]])
                for k in range(c):
                    out[i][k][d] = row[k]
    return out


def _value(v):
    """An element as loss() computes with it: exact (Fraction) where finite, NaN and the infinities as floats."""
    f = float(v)
    return Fraction(f) if math.isfinite(f) else f


def _ieee(q) -> float:
    """q in IEEE 754 arithmetic beside NaN or an infinity, where only a finite value's sign counts."""
    return q if isinstance(q, float) else 0.0 if q == 0 else math.copysign(1.0, q)


def _times(a, b):
    """a * b: exact where both are finite, else as IEEE 754 (inf * 0 is NaN, inf * -x is -inf)."""
    return a * b if not isinstance(a, float) and not isinstance(b, float) else _ieee(a) * _ieee(b)


def _total(terms: list):
    """The exact sum, or where NaN or an infinity is among the terms, theirs alone (IEEE 754: no finite
    term changes it; inf + -inf is NaN)."""
    nonfinite = [t for t in terms if isinstance(t, float)]
    return sum(nonfinite) if nonfinite else sum(terms, Fraction(0))


def _mpf(q):
    return mpmath.mpf(q) if isinstance(q, float) else mpmath.mpf(q.numerator) / q.denominator


def _finite(q) -> bool:
    return mpmath.isfinite(q) if isinstance(q, mpmath.mpf) else not isinstance(q, float) or math.isfinite(q)


def loss(x, target, weight, reduction, ignore_index, type_name, log_prob=None, tolerance=True):
    """(the loss rounded once to type_name, its tolerance).

    log_prob: None for NegativeLogLikelihoodLoss (the input is y), else y as log_softmax_axis1 gives it.
    tolerance=False: the tolerance is None, not computed (the semantics need only the value).
    NaN and the infinities in the input or the weight follow IEEE 754 through the spec's products, sums and
    the mean's division (its function body: Mul, ReduceSum, Div); an ignored target's term stays 0 (Where)."""
    n, c = x.shape[0], x.shape[1]
    flat_t = target.reshape(n, int(np.prod(target.shape[1:])))
    dsize = flat_t.shape[1]
    if log_prob is None:
        xs = x.reshape(n, c, int(np.prod(x.shape[2:])))
        y = lambda i, k, d: _value(xs[i, k, d])  # noqa: E731
    else:
        y = lambda i, k, d: log_prob[i][k][d]  # noqa: E731
    w = None if weight is None else [_value(v) for v in weight]
    terms, taken = [], []
    with mpmath.workprec(PREC):
        for i in range(n):
            for d in range(dsize):
                t = int(flat_t[i, d])
                if ignore_index is not None and t == ignore_index:
                    terms.append(0)
                    taken.append(Fraction(0))
                    continue
                wt = Fraction(1) if w is None else w[t]
                v = y(i, t, d)
                terms.append(-v * _mpf(wt) if log_prob is not None else -_times(v, wt))
                taken.append(wt)
        if reduction == "none":
            out = round_many(terms, type_name).reshape(target.shape)
            if not tolerance:
                return out, None
            tol = _tolerance(type_name, 1, max((abs(float(v)) for v in terms if _finite(v)), default=0.0),
                             log_prob is not None)
            return out, tol
        total = mpmath.fsum(terms) if log_prob is not None else _total(terms)
        if not tolerance:
            magnitude = None
        else:
            magnitude = float(sum(abs(mpmath.mpf(v) if not isinstance(v, Fraction)
                                      else mpmath.mpf(v.numerator) / v.denominator) for v in terms if _finite(v)))
        if reduction == "sum":
            if not tolerance:
                return round_to(total, type_name), None
            return round_to(total, type_name), _tolerance(type_name, len(terms), magnitude, log_prob is not None)
        wsum = _total(taken)
        if wsum == 0:
            return None, None
        if log_prob is not None:
            value = total / _mpf(wsum)
        elif isinstance(total, float) or isinstance(wsum, float):
            value = _ieee(total) / _ieee(wsum)
        else:
            value = total / wsum
        if not tolerance:
            return round_to(value, type_name), None
        if not (_finite(value) and _finite(wsum)):
            return round_to(value, type_name), _tolerance(type_name, len(terms), magnitude, log_prob is not None,
                                                          after=3)
        # the sum's error over the weights' sum, plus the weights' sum's own (relative) error
        scale = (magnitude + abs(float(value)) * float(sum(abs(v) for v in taken))) / float(wsum)
        return round_to(value, type_name), _tolerance(type_name, len(terms), scale, log_prob is not None, after=3)


def _tolerance(type_name, n, magnitude, transcendental, after=0):
    """Accumulation over n terms (accuracy.accumulation); a Log(Softmax) term adds its own budget."""
    extra = accuracy.budget("composite", type_name)["ulp"] if transcendental else 0
    tol = accuracy.accumulation(type_name, n, magnitude, after=after + extra)
    if transcendental:
        # each term y = (x - max) - log(sum exp) carries a few epsilon of its own magnitude
        eps = accuracy.EPSILON["float" if type_name in ("float16", "bfloat16") else type_name]
        tol["atol"] = tol.get("atol", 0.0) + 8 * eps * magnitude
    return tol


def log_prob_array(lp, shape, type_name):
    n, c = shape[0], shape[1]
    flat = np.empty((n, c, int(np.prod(shape[2:]))), dtype=numpy_of(type_name))  # lp may be empty
    for i in range(n):
        for k in range(c):
            flat[i, k] = round_many(lp[i][k], type_name)
    return flat.reshape(shape)


def log_prob_tolerance(type_name, x):
    """Each y = (x - max) - log(sum exp(x - max)): the composite budget, and a few epsilon of
    |x - max| + log(C) absolute where the difference cancels."""
    tol = dict(accuracy.budget("composite", type_name))
    eps = accuracy.EPSILON["float" if type_name in ("float16", "bfloat16") else type_name]
    finite = x.astype(np.float64)[np.isfinite(x.astype(np.float64))]  # none in an empty x; NaN, inf are exact
    spread = (float(np.ptp(finite)) if finite.size else 0.0) + float(np.log(max(2, x.shape[1])))
    tol["atol"] = 8 * eps * spread
    return tol


def checked(v, attrs: dict, x: np.ndarray, target: np.ndarray, weight, rank_rule: str) -> tuple[str, int | None]:
    """(reduction, ignore_index) after the rules both losses state: x of shape (N, C, d...) (`rank_rule`, the
    input's description), the target of shape (N, d...) 'in range of [0, C)' or at ignore_index, a weight of size C;
    reduction 'none', 'sum' or 'mean' (the default)."""
    if x.ndim < 2:
        raise Rejected(f"{rank_rule} (given rank {x.ndim})")
    target_rule = v.schema.inputs[1].description
    if target.shape != (x.shape[0], *x.shape[2:]):
        raise Rejected(f"{target_rule} (input {x.shape}, target {target.shape})")
    ignore_index = attrs.get("ignore_index") if v.has_attribute("ignore_index") else None
    t = target.astype(np.int64)
    outside = (t < 0) | (t >= x.shape[1])
    if ignore_index is not None:
        outside &= t != ignore_index
    if outside.any():
        raise Rejected(target_rule)
    if weight is not None and weight.shape != (x.shape[1],):
        raise Rejected(v.schema.inputs[2].description)
    reduction = attr(attrs, "reduction", "mean")
    if reduction not in REDUCTIONS:
        raise Rejected(f"reduction: {v.schema.attributes['reduction'].description} (given {reduction!r})")
    return reduction, ignore_index


def reduced(x, target, weight, reduction, ignore_index, log_prob=None) -> np.ndarray:
    """The loss in x's type (`loss`); 'mean' over a zero sum of the weights taken (every target ignored, or
    zero weights) divides zero by zero: no value."""
    out, _ = loss(x, target.astype(np.int64), weight, reduction, ignore_index, name_of_numpy(x.dtype), log_prob,
                  tolerance=False)
    if out is None:
        raise Undefined("'mean' with every target ignored (or weighted 0): the sum of the weights taken is 0")
    return out


def loss_tolerance(x, target, weight, reduction, ignore_index, log_prob=None) -> dict:
    """The tolerance `loss` gives the same value."""
    _, tol = loss(x, target.astype(np.int64), weight, reduction, ignore_index, name_of_numpy(x.dtype), log_prob)
    return tol


def typed(t, x, target, weight):
    """The example's data in the binding's types (T for input and weight, Tind for target)."""
    tt, ti = t["T"], t["Tind"]
    return (np.asarray(x).astype(numpy_of(tt)), np.asarray(target).astype(numpy_of(ti)),
            None if weight is None else np.asarray(weight).astype(numpy_of(tt)))


def loss_attrs(v, reduction, ignore_index, explicit=False) -> dict | NotApplicable:
    """The attributes of an example: reduction stated unless it is the default 'mean' (`explicit`: stated anyway,
    as onnx's examples do), ignore_index where given (and the version has it)."""
    if ignore_index is not None and not v.has_attribute("ignore_index"):
        return NotApplicable(f"{v.op}-{v.since_version} has no ignore_index")
    attrs = {}
    if reduction != "mean" or explicit:
        attrs["reduction"] = reduction
    if ignore_index is not None:
        attrs["ignore_index"] = int(ignore_index)
    return attrs


ALL_IGNORED = "every target is ignored: 'mean' divides by a zero sum of weights"


def rank1_data():
    """A 1-D input (breaking 'shape (N, C) or (N, C, d1, d2, ..., dk)') and a target of one element."""
    return np.zeros(5, np.float32), np.zeros(1, np.int64)


def doc_types(t):
    """The documented examples run in float with int64 targets, their own types."""
    if t["T"] != "float" or t["Tind"] != "int64":
        return NotApplicable("documented examples run in their own types (float, int64 targets); "
                             "every type is covered by the typed_* examples")
    return None


def typed_data(t, rng, shape=(2, 4, 3)):
    """Small N-d data for every type: scores in [-2, 2] on a grid the narrow types hold exactly,
    targets over every class with one ignore_index value (-1), weights in (0, 1]."""
    n, c = shape[0], shape[1]
    x = (rng.integers(-64, 65, size=shape) / 32.0).astype(np.float64)
    target = rng.integers(0, c, size=(n, *shape[2:])).astype(np.int64)
    target.reshape(-1)[1] = -1
    weight = (rng.integers(1, 17, size=c) / 16.0).astype(np.float64)
    return x, target, weight
