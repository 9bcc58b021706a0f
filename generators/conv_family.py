"""What Conv, ConvTranspose, DeformConv and CausalConvWithState share (and ConvInteger, QLinearConv import): exact convolutions.

The geometry is stated once: the attributes' shared rules (`attributes`), the pads in effect and the output
size (`convolve_args`, `out_shape`, `transposed_size`), and the examples' attributes and rejections.

Every oracle here sums exact products: inputs are `linalg_family.exact_array` values (Python ints
for integer data, Fractions for finite floats, NaN and the infinities as `linalg_family.NonFinite`,
whose arithmetic with a Fraction follows IEEE 754: 0 * inf is NaN, inf + -inf is NaN, even past
float's range), and the result
is rounded once to the output type by the caller (`linalg_family.to_type`).

Padding: the spec pads the input with zeros ("the number of pixels added to the beginning and
end"). A padded position is left out of the sum here rather than multiplied by zero: the two are
equal for finite weights, and a runtime skips padding, so cases keep NaN and infinities out of
the weights where a window reaches padding.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import Declared, NotApplicable
from onnx_conformance.generators.linalg_family import absorbing, exact_array, plain, to_type
from onnx_conformance.generators.semantics import Rejected, attr
from onnx_conformance.harness.dtypes import name_of_numpy


def exact(x) -> np.ndarray:
    """x as an object array of exact values (already exact object arrays pass through)."""
    x = np.asarray(x)
    return x if x.dtype == object else exact_array(x)


def out_size(size: int, kernel: int, stride: int, dilation: int, begin: int, end: int) -> int:
    """Conv's output length along one axis: floor((size + begin + end - dilation*(kernel-1) - 1) / stride) + 1."""
    return (size + begin + end - dilation * (kernel - 1) - 1) // stride + 1


def out_shape(spatial, kernel, strides, dilations, pads) -> list[int]:
    """Conv's output length along every spatial axis (`out_size`), pads [x1_begin, x2_begin, ..., x1_end, ...]."""
    n = len(spatial)
    return [out_size(spatial[i], kernel[i], strides[i], dilations[i], pads[i], pads[n + i]) for i in range(n)]


def transposed_size(size: int, kernel: int, stride: int, dilation: int, output_padding: int, begin: int,
                    end: int) -> int:
    """ConvTranspose's output length along one axis: 'stride[i] * (input_size[i] - 1) + output_padding[i] +
    ((kernel_shape[i] - 1) * dilations[i] + 1) - pads[start_i] - pads[end_i]'."""
    return stride * (size - 1) + output_padding + (kernel - 1) * dilation + 1 - begin - end


def filled(n: int, strides=None, dilations=None, pads=None) -> tuple[list[int], list[int], list[int]]:
    """strides and dilations (default 1 per axis) and pads (default 0 at both ends) over n spatial axes."""
    return list(strides or [1] * n), list(dilations or [1] * n), list(pads or [0] * (2 * n))


def auto_pads(in_shape, kernel, strides, dilations, mode: str) -> list[int] | None:
    """The pads [x1_begin, x2_begin, ..., x1_end, x2_end, ...] Conv's auto_pad `mode` means for the
    spatial `in_shape` (no N, C), or None for NOTSET (explicit `pads` apply).

    SAME_UPPER / SAME_LOWER: 'pad the input so that output_shape[i] = ceil(input_shape[i] /
    strides[i])'; the total padding is what the dilated kernel needs for that many outputs,
    '(output - 1) * stride + dilation * (kernel - 1) + 1 - input' (never negative), 'split between
    the two sides equally or almost equally', the odd one 'at the end for SAME_UPPER and at the
    beginning for SAME_LOWER'. VALID: no padding."""
    n = len(in_shape)
    strides, dilations, _ = filled(n, strides, dilations)
    if mode in ("NOTSET", "", None):
        return None
    if mode == "VALID":
        return [0] * (2 * n)
    if mode not in ("SAME_UPPER", "SAME_LOWER"):
        raise ValueError(f"auto_pad {mode!r}")
    begins, ends = [], []
    for size, k, s, d in zip(in_shape, kernel, strides, dilations):
        out = -(-size // s)
        total = max(0, (out - 1) * s + d * (k - 1) + 1 - size)
        small, large = total // 2, total - total // 2
        b, e = (small, large) if mode == "SAME_UPPER" else (large, small)
        begins.append(b)
        ends.append(e)
    return begins + ends


PADS_WITH_AUTO_PAD = "pads: 'This attribute cannot be used simultaneously with auto_pad attribute.'"
NEGATIVE_PADS = "pads: 'it can take any value greater than or equal to 0'"
AUTO_PAD_VALUES = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


class Attributes(NamedTuple):
    """A convolution node's spatial attributes, defaults applied."""

    strides: list[int]
    dilations: list[int]
    pads: list[int] | None  # the explicit pads; None where left out
    auto_pad: str
    group: int


def attributes(v, attrs: dict, x_shape, w_shape, shapes: str) -> Attributes:
    """strides, dilations (default 1 per axis), explicit pads (None where left out), auto_pad (default
    NOTSET) and group (default 1) of a convolution node on X and W of these shapes, checked against the
    operators' shared rules: X of rank 3 or more and W of X's rank (else Rejected(shapes), the operator's
    words), 'auto_pad must be either NOTSET, SAME_UPPER, SAME_LOWER or VALID', pads 'can take any value
    greater than or equal to 0' and 'cannot be used simultaneously with auto_pad attribute', kernel_shape
    'should be inferred from input W' (a kernel_shape that W contradicts is rejected)."""
    if len(x_shape) < 3 or len(w_shape) != len(x_shape):
        raise Rejected(shapes)
    n, kernel = len(x_shape) - 2, list(w_shape[2:])
    strides = list(attr(attrs, "strides", [1] * n))
    dilations = list(attr(attrs, "dilations", [1] * n))
    pads = attrs.get("pads")
    auto_pad = attr(attrs, "auto_pad", "NOTSET")
    if auto_pad not in AUTO_PAD_VALUES:
        raise Rejected("auto_pad: 'auto_pad must be either NOTSET, SAME_UPPER, SAME_LOWER or VALID.'")
    if pads is not None and auto_pad != "NOTSET":
        raise Rejected(PADS_WITH_AUTO_PAD)
    if pads is not None and any(p < 0 for p in pads):
        raise Rejected(NEGATIVE_PADS)
    if len(strides) != n or len(dilations) != n or (pads is not None and len(pads) != 2 * n):
        raise Rejected("strides, dilations: one value 'along each spatial axis'; pads: "
                       "'[x1_begin, x2_begin...x1_end, x2_end,...]'")
    if any(s < 1 for s in strides) or any(d < 1 for d in dilations):
        raise Rejected("strides and dilations: a step of at least 1 'along each spatial axis'")
    given = attrs.get("kernel_shape")
    if given is not None and list(given) != list(kernel):
        raise Rejected("kernel_shape: 'The shape of the convolution kernel. If not present, should be inferred "
                       "from input W.' (W's kernel differs)")
    return Attributes(strides, dilations, None if pads is None else list(pads), auto_pad, attr(attrs, "group", 1))


def convolve_args(a: Attributes, x_shape, w_shape, empty: str) -> dict:
    """convolve()'s keyword arguments: the pads in effect (auto_pad's, else the explicit ones, else none),
    where every output axis keeps an element (else Rejected(empty): the operator's words for a dilated
    kernel wider than the padded input)."""
    n = len(x_shape) - 2
    pads = auto_pads(x_shape[2:], w_shape[2:], a.strides, a.dilations, a.auto_pad) or a.pads or [0] * (2 * n)
    if any(o < 1 for o in out_shape(x_shape[2:], w_shape[2:], a.strides, a.dilations, pads)):
        raise Rejected(empty)
    return dict(strides=a.strides, pads=pads, dilations=a.dilations, group=a.group)


def convolve(x, w, *, strides=None, pads=None, dilations=None, group: int = 1) -> np.ndarray:
    """Conv's exact result without bias: an object array of shape (N, M, o1, ..., on).

    x: (N, C, d1, ..., dn); w: (M, C/group, k1, ..., kn); any n >= 1. Values: numpy arrays of any
    numeric type (made exact here) or object arrays of exact values (ints, Fractions, NaN/inf floats).
    strides, dilations: n ints (default 1); pads: 2n ints [x1_begin, x2_begin, ..., x1_end, x2_end, ...]
    (default 0); group: input and output channels are split into `group` groups, output channel m
    reading input channels (m // (M/group)) * C/group onward (depthwise: group == C).

    Y[b, m, o] = sum over c < C/group and kernel offsets k of
                 x[b, g*C/group + c, o*stride - pad_begin + k*dilation] * w[m, c, k],
    padded positions (outside x) left out of the sum. Raises ValueError where the shapes break the
    spec's rules (X.shape[1] == W.shape[1] * group, M mod group == 0, an empty output)."""
    xe, we = absorbing(exact(x)), absorbing(exact(w))
    n = xe.ndim - 2
    if n < 1 or we.ndim != xe.ndim:
        raise ValueError(f"convolve: X rank {xe.ndim}, W rank {we.ndim}")
    strides, dilations, pads = filled(n, strides, dilations, pads)
    batch, channels = xe.shape[:2]
    m_out, cg = we.shape[:2]
    kernel = we.shape[2:]
    if channels != cg * group or m_out % group:
        raise ValueError(f"convolve: C={channels}, W.shape[1]={cg}, M={m_out}, group={group}")
    outs = out_shape(xe.shape[2:], kernel, strides, dilations, pads)
    if any(o < 1 for o in outs):
        raise ValueError(f"convolve: empty output {outs}")

    def term(b, m, ch, c, o, _, k):
        pos = tuple(o[i] * strides[i] - pads[i] + k[i] * dilations[i] for i in range(n))
        if all(0 <= p < xe.shape[2 + i] for i, p in enumerate(pos)):
            return xe[(b, ch, *pos)] * we[(m, c, *k)]
        return None

    return plain(grouped_sums(batch, m_out, group, cg, outs, kernel, term))


def grouped_sums(batch: int, m_out: int, group: int, cg: int, outs, kernel, term) -> np.ndarray:
    """A grouped convolution's sums, an object array of shape (N, M, o1, ..., on): y[b, m, o] sums, over the
    group's input channels ch = (m // (M/group)) * C/group + c for c < C/group and the kernel offsets k
    (row-major, the kk-th), term(b, m, ch, c, o, kk, k) in that order; a None term (padding) is left out."""
    per_group = m_out // group
    offsets = list(enumerate(np.ndindex(*kernel)))
    y = np.empty((batch, m_out, *outs), dtype=object)
    for b in range(batch):
        for m in range(m_out):
            base = (m // per_group) * cg
            for o in np.ndindex(*outs):
                acc = 0
                for c in range(cg):
                    for kk, k in offsets:
                        t = term(b, m, base + c, c, o, kk, k)
                        if t is not None:
                            acc = acc + t
                y[(b, m, *o)] = acc
    return y


def add_bias(y: np.ndarray, bias) -> np.ndarray:
    """y (N, M, ...) plus a 1-D bias of M exact values, broadcast over every other axis."""
    if bias is None:
        return y
    be = absorbing(exact(bias))
    out = absorbing(y)
    for idx in np.ndindex(*y.shape):
        out[idx] = out[idx] + be[idx[1]]
    return plain(out)


# |e| of an exact value, a NaN counted as 0: what bounds a sum's rounding error
_absolute = np.vectorize(lambda e: 0 if isinstance(e, float) and math.isnan(e) else abs(e), otypes=[object])


def largest_sum(oracle, x, w, bias=None, **conv) -> float:
    """The largest finite sum of |terms| (+|b|) over the output elements of `oracle` (convolve or
    conv_transpose; another's keywords pass through): `accuracy.accumulation`'s magnitude."""
    y = oracle(_absolute(exact(x)), _absolute(exact(w)), **conv)
    if bias is not None:
        y = add_bias(y, _absolute(exact(bias)))
    return max((float(e) for e in y.reshape(-1) if not (isinstance(e, float) and not math.isfinite(e))), default=0.0)


def magnitude(x, w, bias=None, **conv) -> float:
    """Conv's: the largest sum of |x*w| (+|b|) over output elements."""
    return largest_sum(convolve, x, w, bias, **conv)


# ---------------------------------------------------------------------------------------------
# ConvTranspose


def transpose_pads(in_shape, kernel, strides, dilations, output_padding, output_shape, upper: bool) -> list[int]:
    """ConvTranspose-11's pads where output_shape is given (or implied by SAME_*): 'total_padding[i] =
    stride[i] * (input_size[i] - 1) + output_padding[i] + ((kernel_shape[i] - 1) * dilations[i] + 1) -
    output_shape[i]; If (auto_pads == SAME_UPPER): pads[start_i] = total_padding[i]/2; pads[end_i] =
    total_padding[i] - (total_padding[i]/2) Else: pads[start_i] = total_padding[i] - (total_padding[i]/2);
    pads[end_i] = (total_padding[i]/2)'. A negative total (an output_shape beyond the computed output)
    is no padding: the extra elements go to the higher-index side, as output_padding's do (pads 'can
    take any value greater than or equal to 0')."""
    begins, ends = [], []
    for i in range(len(in_shape)):
        total = transposed_size(in_shape[i], kernel[i], strides[i], dilations[i], output_padding[i], 0, 0) \
            - output_shape[i]
        if total < 0:
            b, e = 0, total
        elif upper:
            b, e = total // 2, total - total // 2
        else:
            b, e = total - total // 2, total // 2
        begins.append(b)
        ends.append(e)
    return begins + ends


def conv_transpose(x, w, *, strides=None, pads=None, dilations=None, group: int = 1, output_padding=None) -> np.ndarray:
    """ConvTranspose's exact result without bias, shape (N, W.shape[1] * group, o1, ..., on) with
    o_i = stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - pad_begin - pad_end.

    x: (N, C, d1, ..., dn); w: (C, M/group, k1, ..., kn). Input position i with kernel offset k lands
    on the full output's position i*stride + k*dilation; output o is the full output's o + pad_begin
    (a negative end pad, or output_padding, adds elements no input reaches: zero)."""
    xe, we = absorbing(exact(x)), absorbing(exact(w))
    n = xe.ndim - 2
    strides, dilations, pads = filled(n, strides, dilations, pads)
    output_padding = list(output_padding or [0] * n)
    batch, channels = xe.shape[:2]
    if we.shape[0] != channels or channels % group:
        raise ValueError(f"conv_transpose: C={channels}, W.shape[0]={we.shape[0]}, group={group}")
    mg = we.shape[1]
    kernel = we.shape[2:]
    outs = [transposed_size(xe.shape[2 + i], kernel[i], strides[i], dilations[i], output_padding[i], pads[i],
                            pads[n + i]) for i in range(n)]
    if any(o < 1 for o in outs):
        raise ValueError(f"conv_transpose: empty output {outs}")
    cg = channels // group
    y = np.empty((batch, mg * group, *outs), dtype=object)
    y[...] = 0
    offsets = list(np.ndindex(*kernel))
    for b in range(batch):
        for c in range(channels):
            g = c // cg
            for i in np.ndindex(*xe.shape[2:]):
                xv = xe[(b, c, *i)]
                for k in offsets:
                    o = tuple(i[a] * strides[a] + k[a] * dilations[a] - pads[a] for a in range(n))
                    if all(0 <= o[a] < outs[a] for a in range(n)):
                        for m in range(mg):
                            y[(b, g * mg + m, *o)] = y[(b, g * mg + m, *o)] + xv * we[(c, m, *k)]
    return plain(y)


# ---------------------------------------------------------------------------------------------
# DeformConv


def sample(channel: np.ndarray, position) -> object:
    """channel (an n-d object array) at a fractional `position` (n exact coordinates), by linear
    interpolation along every axis ('Use linear interpolation for fractional offset values'): the
    2^n integer neighbours weighted by the product of (1 - distance) per axis; a neighbour outside
    the input is zero ('Sampling locations outside of the padded input tensor gives zero'; the
    padding is zeros too). Neighbours of weight zero are left out."""
    from fractions import Fraction

    floors = [math.floor(p) for p in position]
    fracs = [Fraction(p) - f for p, f in zip(position, floors)]
    acc = 0
    for corner in np.ndindex(*([2] * len(position))):
        weight = Fraction(1)
        for c, fr in zip(corner, fracs):
            weight *= fr if c else 1 - fr
        if weight == 0:
            continue
        idx = tuple(f + c for f, c in zip(floors, corner))
        if all(0 <= j < s for j, s in zip(idx, channel.shape)):
            acc = acc + weight * channel[idx]
    return acc


def deform_convolve(x, w, offset, mask=None, *, strides=None, pads=None, dilations=None, group: int = 1,
                    offset_group: int = 1) -> np.ndarray:
    """DeformConv's exact result without bias: shape (N, oC, o1, ..., on), the output shape Conv's.

    offset: (N, offset_group * k1*...*kn * n, o1, ..., on), per offset group, per kernel position
    (row-major), the n coordinate offsets; mask: (N, offset_group * k1*...*kn, o...) or None (ones).
    Input channel c belongs to offset group c // (C / offset_group). Kernel element k of output o
    samples x at o*stride - pad_begin + k*dilation + offset, times the mask, times w."""
    xe, we, oe = exact(x), exact(w), exact(offset)
    me = exact(mask) if mask is not None else None
    n = xe.ndim - 2
    strides, dilations, pads = filled(n, strides, dilations, pads)
    batch, channels = xe.shape[:2]
    m_out, cg = we.shape[:2]
    kernel = we.shape[2:]
    if channels != cg * group or m_out % group or channels % offset_group:
        raise ValueError(f"deform_convolve: C={channels}, W={we.shape}, group={group}, offset_group={offset_group}")
    outs = out_shape(xe.shape[2:], kernel, strides, dilations, pads)
    kn = int(np.prod(kernel))
    if list(oe.shape) != [batch, offset_group * kn * n, *outs]:
        raise ValueError(f"deform_convolve: offset shape {oe.shape}, expected {[batch, offset_group * kn * n, *outs]}")
    per_offset = channels // offset_group

    def term(b, m, ch, c, o, kk, k):
        row = (ch // per_offset) * kn + kk
        pos = [o[i] * strides[i] - pads[i] + k[i] * dilations[i] + oe[(b, row * n + i, *o)] for i in range(n)]
        v = sample(xe[b, ch], pos)
        if me is not None:
            v = v * me[(b, row, *o)]
        return v * we[(m, c, *k)]

    return grouped_sums(batch, m_out, group, cg, outs, kernel, term)


def deform_magnitude(x, w, offset, mask=None, bias=None, **conv) -> float:
    """The largest sum of |sampled x * mask * w| (+|b|): each sample bounded by its neighbours' |x|."""
    return largest_sum(deform_convolve, x, w, bias, offset=offset,
                       mask=None if mask is None else _absolute(exact(mask)), **conv)


def rounded_like(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Exact results rounded once to x's element type (the operators' T)."""
    return to_type(y, name_of_numpy(np.asarray(x).dtype))


def padding_meets_nonfinite(x_shape, w, *, strides, pads, dilations, **_) -> bool:
    """Whether a NaN or infinite weight ever lands on a padded position of Conv's input: there the
    spec's zero padding gives 0 * inf = NaN while leaving padding out (as `convolve` and runtimes do)
    gives no term, so the spec's value is in doubt."""
    w = np.asarray(w)
    if not values.is_float(name_of_numpy(w.dtype)) or np.isfinite(w.astype(np.float64)).all():
        return False
    n = len(x_shape) - 2
    outs = out_shape(x_shape[2:], w.shape[2:], strides, dilations, pads)
    for k in {tuple(idx[2:]) for idx in zip(*np.nonzero(~np.isfinite(w.astype(np.float64))))}:
        for i in range(n):
            pos = [o * strides[i] - pads[i] + k[i] * dilations[i] for o in range(outs[i])]
            if any(not 0 <= p < x_shape[2 + i] for p in pos):
                return True
    return False


# ---------------------------------------------------------------------------------------------
# test data and tolerances of the float operators


def operand(t, shape, rng: np.random.Generator, scale: int = 8) -> np.ndarray:
    """Distinct signed values of the type in [-64/scale, 64/scale] (a power-of-two scale keeps them
    exact): sums of a few dozen products stay far inside float16's range."""
    return (values.sample(t.dtype, shape, rng, specials=False) / scale).astype(t.np())


def documented(t, rows) -> np.ndarray:
    """Documented data (small integers and a few fractions) cast once to the type."""
    return np.array(rows, dtype=np.float64).astype(t.np())


def tolerance(t, n: int, magnitude_: float, after: int = 0) -> dict | None:
    """accumulation(type, n = C/group * prod(kernel), magnitude = the largest sum of |terms|)."""
    from onnx_conformance.generators.accuracy import accumulation

    return accumulation(t.dtype, n, magnitude_, after=after)


def specials(t, shape, rng: np.random.Generator) -> np.ndarray:
    """operand data with NaN, +inf and -inf at three random places (IEEE 754 arithmetic applies)."""
    x = operand(t, shape, rng).astype(np.float64).reshape(-1)
    for p, s in zip(rng.permutation(x.size)[:3], (math.nan, math.inf, -math.inf)):
        x[p] = s
    return x.reshape(shape).astype(t.np())


GEOMETRY_TYPES = ("float", "float16")


def geometry_only(covered_by: str, what: str = "window"):
    """A decorator for an example about where the window or kernel lands (`what`: DeformConv's samples), not
    about arithmetic: it runs in float and float16 only; `covered_by` names the examples that carry every type."""

    def decorate(example):
        def wrapped(v, t, rng):
            if t.dtype not in GEOMETRY_TYPES:
                return NotApplicable(f"{what}-geometry examples run in float and float16; the type's arithmetic is "
                                     f"covered by {covered_by}")
            return example(v, t, rng)

        wrapped.__name__ = example.__name__
        wrapped.__doc__ = example.__doc__
        return wrapped

    return decorate


def given(w, kernel_shape: bool = False, **attrs) -> dict:
    """The attributes an example sets, in the order named (None leaves one out); kernel_shape=True writes
    W's kernel shape first."""
    out = {"kernel_shape": list(w.shape[2:])} if kernel_shape else {}
    out.update((name, value) for name, value in attrs.items() if value is not None)
    return out


def rejected(op, v, t, x, w, offset=None, **attrs):
    """An expect-error case of a convolution: the semantics' rejection of X and W (and DeformConv's offset)
    with these attributes, Y declared of X's rank."""
    inputs = {"X": x, "W": w} if offset is None else {"X": x, "W": w, "offset": offset}
    return op.reject(v, inputs, attrs, {"Y": Declared(t.dtype, [None] * x.ndim)})


def pads_with_auto_pad(op, x_shape, w_shape):
    """The rejection of pads given with auto_pad SAME_UPPER ('This attribute cannot be used simultaneously
    with auto_pad attribute'), on X and W of these shapes."""

    def example(v, t, rng):
        return rejected(op, v, t, operand(t, x_shape, rng), operand(t, w_shape, rng), auto_pad="SAME_UPPER",
                        pads=[1, 1, 1, 1])

    return example


# Where onnx's ReferenceEvaluator (1.23) differs from Conv's and ConvTranspose's value alike, and why ours stands
# (cases/crosscheck.md): OPERATOR.reference_differs(*each).
HALF_SUMS = (r" float16: .*values differ",
             "the evaluator accumulates float16 products in float16 (numpy on float16 arrays), rounding every partial "
             "sum; ours is the exact sum rounded once, and the tolerance allows a float accumulation")
AUTO_PAD_OVER_PADS = (r"^pads_with_auto_pad .*returned outputs",
                      "the evaluator does not check that pads and auto_pad are not both set: it applies auto_pad")

