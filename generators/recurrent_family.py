"""RNN, GRU and LSTM: the documented equations run step by step in mpmath, each output rounded once.

Oracle: every input element is exact (a float type's value is a dyadic rational), the attributes
alpha, beta and clip are FLOAT attributes (the float32 nearest the written value), and the
recurrence runs in mpmath at rounding.PREC bits: gates in the schema's order (RNN: i; GRU: z, r,
h; LSTM: i, o, f, c), activations per direction (the list's first half for forward, the second
for reverse), clip applied to the input of every activation ('Clipping bounds the elements of a
tensor in the range of [-threshold, +threshold] and is applied to the input of activations').
Y, Y_h and Y_c are rounded once to the element type at the end.

sequence_lens: a batch entry of length L is processed over its first L steps only (reverse: from
step L-1 down to 0), and Y_h/Y_c are its state after them. The docs do not say what Y holds past
a sequence's length, so a case whose sequence_lens leaves steps out asks for Y_h/Y_c only.

R in versions 1 (and GRU-3): their equations write Ht-1*Ri where later versions write
Ht-1*(Ri^T). The R these versions get is symmetric within each gate's [hidden, hidden] block
(mirrored from its upper triangle, exactly), so both readings give the same result.

alpha/beta: 'consumed in the order of activation functions'. Whether an activation that takes no
alpha consumes one is not said, so each example lists activations that all take alpha (and beta)
or none of them: both readings coincide. An activation given no value takes 'the same as of
corresponding ONNX operators' (the operator schema's default: LeakyRelu's alpha 0.01, ...).

Tolerance rule (per case, all outputs): accumulation(type, n, magnitude, after) with
n = steps * (input_size + hidden_size + 3) (a step's pre-activation sums the X.W and H.R dot
products, the two biases and a peephole term, and every step's error carries into the next),
magnitude = the sum over steps of the largest sum of |terms| of any pre-activation at that step,
and after = the budget() steps of the activations one step chains (RNN: f; GRU: f, g; LSTM: f, g, h).
"""

from __future__ import annotations

import re

import mpmath
import numpy as np
import onnx.defs
from mpmath.libmp import from_float

from onnx_conformance.generators.accuracy import accumulation, budget
from onnx_conformance.generators.case import Declared, NotApplicable, type_of
from onnx_conformance.generators.rounding import PREC, decided, round_many
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, described, recall, remember

_make_mpf = mpmath.mp.make_mpf
TAKES_ALPHA = {"Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu"}
TAKES_BETA = {"Affine", "ScaledTanh", "HardSigmoid"}


def f32(x) -> mpmath.mpf:
    """A FLOAT attribute's value: the float32 nearest the written one, exactly."""
    return mpmath.mpf(float(np.float32(x)))


def filled(v, names: list, given, which: str, takes: set) -> list | None:
    """activation_alpha (or _beta) with one value per activation that takes one, in order: the given ones,
    then 'Default values are the same as of corresponding ONNX operators' (the operator's schema default).
    Undefined where the version states no default (GRU-1) or onnx.defs has no such operator (Affine and
    ScaledTanh, experimental operators since removed) or no default for it."""
    rest = list(given or [])
    out = []
    for name in names:
        if name not in takes:
            continue
        if rest:
            out.append(rest.pop(0))
            continue
        if "Default values are the same as of corresponding ONNX operators" not in described(v, f"activation_{which}"):
            raise Undefined(f"{name} without activation_{which}: {v.op}-{v.since_version} states no default for it")
        schema = onnx.defs.get_schema(name) if onnx.defs.has(name) else None
        default = schema.attributes.get(which) if schema is not None else None
        if default is None or not default.default_value.HasField("f"):
            raise Undefined(f"{name} without activation_{which}: the default is 'the same as of corresponding ONNX "
                            f"operators', and onnx.defs has no operator {name} with a default {which}")
        out.append(default.default_value.f)
    return out or None


def activation(name: str, alpha=None, beta=None):
    """The doc's activation list, in mpmath."""
    a, b = alpha, beta
    table = {
        "Relu": lambda x: x if x > 0 else mpmath.mpf(0),
        "Tanh": mpmath.tanh,
        "Sigmoid": lambda x: 1 / (1 + mpmath.exp(-x)),
        "Affine": lambda x: a * x + b,
        "LeakyRelu": lambda x: x if x >= 0 else a * x,
        "ThresholdedRelu": lambda x: x if x >= a else mpmath.mpf(0),
        "ScaledTanh": lambda x: a * mpmath.tanh(b * x),
        "HardSigmoid": lambda x: min(max(a * x + b, mpmath.mpf(0)), mpmath.mpf(1)),
        "Elu": lambda x: x if x >= 0 else a * (mpmath.exp(x) - 1),
        "Softsign": lambda x: x / (1 + abs(x)),
        "Softplus": lambda x: mpmath.log(1 + mpmath.exp(x)),
    }
    return table[name]


def _mp(x) -> np.ndarray:
    """mpmath.mpf(float(e)) of each element (a float's 53 bits: exact at any precision), built directly."""
    x = np.asarray(x)
    out = np.empty(x.size, dtype=object)
    for i, e in enumerate(np.asarray(x, dtype=np.float64).reshape(-1).tolist()):
        out[i] = _make_mpf(from_float(e))
    return out.reshape(x.shape)


def _round(r: np.ndarray, type_name: str) -> np.ndarray:
    return round_many(list(r.reshape(-1)), type_name).reshape(r.shape)


def symmetric_blocks(R: np.ndarray, G: int, H: int) -> np.ndarray:
    """R with each gate's [H, H] block mirrored from its upper triangle (exact in every type)."""
    R = np.array(R, copy=True)
    for d in range(R.shape[0]):
        for g in range(G):
            block = R[d, g * H:(g + 1) * H, :]
            upper = np.triu(block)
            R[d, g * H:(g + 1) * H, :] = upper + np.triu(block, 1).T
    return R


def plain_r(v) -> bool:
    """Whether the version's equations write Ht-1*Ri (no transpose): RNN-1, GRU-1, GRU-3, LSTM-1."""
    return re.search(r"\(R\w\^T\)", v.doc) is None


# ---------------------------------------------------------------------------------------------
# the recurrence: what the three operators share; each operator's module gives its cell


class Step:
    """One step of one batch entry in one direction: what a cell reads (input, state, weights, its
    direction's activations, the attributes) and where it records the magnitude of its pre-activations."""

    def __init__(self, weights: tuple, d: int, shape: tuple, x, h, c, act, f, attrs: dict, clip, step_mag, k: int):
        self.w, self.r, self.b, self.p = weights
        self.d, (self.G, self.H, self.I) = d, shape
        self.x, self.h, self.c = x, h, c
        self.act, self.f, self.attrs, self.clip = act, f, attrs, clip
        self._mag, self._k = step_mag, k

    def mag(self, terms) -> None:
        """A pre-activation's terms: the step's largest sum of their magnitudes feeds the tolerance. Kept
        as they are (magnitudes() sums them when an example asks): the semantics alone never needs them."""
        self._mag[self._k].append(terms)

    def linear(self, g: int, j: int, hv) -> tuple[list, list, object, object]:
        """Gate g's row j: the X.W terms, the H.R terms (with hv as the state), its W and R biases."""
        G = self.G
        xw = [self.x[i] * self.w[self.d, g * self.H + j, i] for i in range(self.I)]
        hr = [hv[i] * self.r[self.d, g * self.H + j, i] for i in range(self.H)]
        return xw, hr, self.b[self.d, g * self.H + j], self.b[self.d, (G + g) * self.H + j]


class Cell:
    """What one recurrent operator is: its gate count, default activations, and one step of its equations
    (`step(s: Step) -> (new h, new c or None)`)."""

    def __init__(self, gates: int, activations: list[str], step, cell_state: bool = False, fast=None):
        self.gates, self.activations, self.step, self.cell_state = gates, activations, step, cell_state
        self.fast = fast  # the same step in float64 with error bounds (FastStep), where the module gives one


def recurrence(cell: Cell, v, attrs: dict, inputs: dict) -> dict:
    """Y, Y_h (and Y_c) of one recurrent node, in mpmath at PREC bits, rounded once to X's type.

    Y is an Undefined value (raised only where asked for) when sequence_lens leaves steps out: the docs
    do not say what Y holds past a sequence's length."""
    X, W, R = (np.asarray(inputs[k]) for k in ("X", "W", "R"))
    H = attrs.get("hidden_size")
    direction = attr(attrs, "direction", "forward")
    layout = attr(attrs, "layout", 0)
    dirs = 2 if direction == "bidirectional" else 1
    G = cell.gates
    if H is None or W.shape[:2] != (dirs, G * H) or R.shape != (dirs, G * H, H):
        raise Rejected(_w_sentence(v))
    if plain_r(v) and not np.array_equal(R, symmetric_blocks(R, G, H)):
        raise Undefined(f"{v.op}-{v.since_version}'s equations write Ht-1*Ri where later versions write "
                        "Ht-1*(Ri^T): the two readings differ for an R whose gate blocks are not symmetric")
    names = list(attr(attrs, "activations", None) or cell.activations * dirs)
    alpha, beta = attrs.get("activation_alpha"), attrs.get("activation_beta")
    if (alpha and 0 < sum(n in TAKES_ALPHA for n in names) < len(names)) or \
            (beta and 0 < sum(n in TAKES_BETA for n in names) < len(names)):
        raise Undefined("alpha/beta are 'consumed in the order of activation functions': whether an activation "
                        "that takes none consumes one is not said")
    alpha, beta = filled(v, names, alpha, "alpha", TAKES_ALPHA), filled(v, names, beta, "beta", TAKES_BETA)
    per = len(cell.activations)
    fast = cell.fast and _fast(cell, attrs, inputs, names, alpha, beta, dirs, H, layout, direction)
    if fast:
        result, S, I = fast
        pending = lambda: _exact(cell, attrs, inputs, names, alpha, beta, dirs, H, layout, direction)[1]  # noqa: E731
    else:
        result, pending, S, I, per = _exact(cell, attrs, inputs, names, alpha, beta, dirs, H, layout, direction)
    remember(v, attrs, inputs, (pending, S, I, H, per))
    return result


def _exact(cell: Cell, attrs: dict, inputs: dict, names: list, alpha, beta, dirs: int, H: int, layout, direction):
    """(outputs, each step's pre-activations' terms, steps, input size, activations per direction): the
    documented equations in mpmath at PREC bits, each output rounded once."""
    X, W, R = (np.asarray(inputs[k]) for k in ("X", "W", "R"))
    G = cell.gates
    B, P = inputs.get("B"), inputs.get("P")
    initial_h, initial_c, lens_in = inputs.get("initial_h"), inputs.get("initial_c"), inputs.get("sequence_lens")
    with mpmath.workprec(PREC):
        x = _mp(X)
        if layout:
            x = x.transpose(1, 0, 2)
        S, N, I = x.shape
        w, r = _mp(W), _mp(R)
        b = _mp(B) if B is not None else np.full((dirs, 2 * G * H), mpmath.mpf(0), dtype=object)
        p = _mp(P) if P is not None else np.full((dirs, 3 * H), mpmath.mpf(0), dtype=object)
        zero = np.full((dirs, N, H), mpmath.mpf(0), dtype=object)
        h0 = zero if initial_h is None else _mp(initial_h).transpose(1, 0, 2) if layout else _mp(initial_h)
        c0 = zero if initial_c is None else _mp(initial_c).transpose(1, 0, 2) if layout else _mp(initial_c)
        lens = [S] * N if lens_in is None else [int(e) for e in np.asarray(lens_in)]
        al = list(alpha or [])[::-1]
        be = list(beta or [])[::-1]
        fns = []
        for name in names:
            a_ = f32(al.pop()) if name in TAKES_ALPHA and al else None
            b_ = f32(be.pop()) if name in TAKES_BETA and be else None
            fns.append(activation(name, a_, b_))
        per = len(cell.activations)
        clip = attrs.get("clip")
        cl = f32(clip) if clip is not None else None

        def act(fn, z):
            if cl is not None:
                z = min(max(z, -cl), cl)
            return fn(z)

        Y = np.full((S, dirs, N, H), mpmath.mpf(0), dtype=object)
        Yh = np.empty((dirs, N, H), dtype=object)
        Yc = np.empty((dirs, N, H), dtype=object)
        step_mag = [[] for _ in range(S)]  # each step's pre-activations' terms, for magnitudes()
        for d in range(dirs):
            f = fns[d * per:(d + 1) * per]
            reverse = direction == "reverse" or d == 1
            for n in range(N):
                h = list(h0[d, n])
                c = list(c0[d, n])
                order = range(lens[n] - 1, -1, -1) if reverse else range(lens[n])
                for k, t_ in enumerate(order):
                    s = Step((w, r, b, p), d, (G, H, I), x[t_, n], h, c, act, f, attrs, cl, step_mag, k)
                    h, c_new = cell.step(s)
                    c = c_new if c_new is not None else c
                    Y[t_, d, n] = h
                Yh[d, n] = h
                Yc[d, n] = c
        out_type = type_of(X)
        outs = {"Y": Y, "Y_h": Yh, "Y_c": Yc}
        if layout:
            outs = {"Y": Y.transpose(2, 0, 1, 3), "Y_h": Yh.transpose(1, 0, 2), "Y_c": Yc.transpose(1, 0, 2)}
        formal = ["Y", "Y_h"] + (["Y_c"] if cell.cell_state else [])
        result = {k_: _round(outs[k_], out_type) for k_ in formal}
    if any(L < S for L in lens):
        result["Y"] = Undefined("the docs do not say what Y holds past a sequence's length")
    return result, step_mag, S, I, per


# ---------------------------------------------------------------------------------------------
# The float64 path: the same recurrence on arrays (every active batch entry of a direction at once),
# each value carried with a bound on its error; rounded where the bound decides (rounding.decided),
# else the mpmath path answers. U: eight units in the last place of a double, charged per rounded
# float64 step (a dot product's terms in any order included); LIBM: numpy's exp, tanh and log, a
# few ULP at most, charged 2^-44 relative; TINY: an absolute floor (an exp that underflowed).
# Every activation is Lipschitz (its constant multiplies the error it is given) except
# ThresholdedRelu, whose jump is decided only where the input's bound keeps clear of it.

U = 2.0 ** -50
LIBM = 2.0 ** -44
TINY = 2.0 ** -1000
NARROW = ("float", "float16", "bfloat16")


class Undecided(Exception):
    """The float64 bounds cannot decide a value (a jump inside the bound, a clip it may pass)."""


def fast_activation(name: str, a, b):
    """The activation on (x, bound) arrays -> (f(x), bound), or None where it needs an alpha/beta not given."""
    ab = abs(a) if a is not None else None
    if name == "Relu":
        return lambda x, e: (np.where(x > 0, x, 0.0), e)
    if name == "Tanh":
        def tanh(x, e):
            y = np.tanh(x)
            return y, e + np.abs(y) * LIBM
        return tanh
    if name == "Sigmoid":
        def sigmoid(x, e):
            y = 1 / (1 + np.exp(-x))
            return y, e / 4 + y * (LIBM + 4 * U) + TINY
        return sigmoid
    if name == "Softsign":
        def softsign(x, e):
            y = x / (1 + np.abs(x))
            return y, e + np.abs(y) * 3 * U
        return softsign
    if name == "Softplus":
        def softplus(x, e):
            y = np.log(1 + np.exp(x))
            return y, e + 1.01 * (LIBM + U) + np.abs(y) * LIBM + TINY
        return softplus
    if a is None or (name in TAKES_BETA and b is None):
        return None
    if name == "Affine":
        def affine(x, e):
            y = a * x + b
            return y, ab * e + (np.abs(a * x) + np.abs(y)) * U
        return affine
    if name == "LeakyRelu":
        def leaky(x, e):
            y = np.where(x >= 0, x, a * x)
            return y, max(1.0, ab) * e + np.abs(y) * U
        return leaky
    if name == "ThresholdedRelu":
        def thresholded(x, e):
            if np.any(np.abs(x - a) <= e + np.abs(x) * U + TINY):
                raise Undecided("an input within its bound of the threshold")
            above = x >= a
            return np.where(above, x, 0.0), np.where(above, e, 0.0)
        return thresholded
    if name == "ScaledTanh":
        def scaled_tanh(x, e):
            t = np.tanh(b * x)
            y = a * t
            return y, ab * (abs(b) * e + np.abs(b * x) * U + np.abs(t) * LIBM) + np.abs(y) * U
        return scaled_tanh
    if name == "HardSigmoid":
        def hard_sigmoid(x, e):
            ax = a * x
            y = np.minimum(np.maximum(ax + b, 0.0), 1.0)
            return y, ab * e + (np.abs(ax) + np.abs(ax + b)) * U
        return hard_sigmoid
    if name == "Elu":
        def elu(x, e):
            ex = np.exp(np.minimum(x, 0.0))
            y = np.where(x >= 0, x, a * (ex - 1))
            ev = np.where(x >= 0, 0.0, ab * (ex * LIBM + np.abs(ex - 1) * U) + np.abs(y) * U)
            return y, max(1.0, ab) * e + ev + TINY
        return elu
    return None


class FastStep:
    """What a cell's float64 step reads, for the active batch entries of direction d at one step:
    x [n, I], the state h, c [n, H] and their bounds eh, ec; the direction's weights; act(k, z, e), the
    direction's k-th activation (after clip); gate(g, hv, ehv, peep, epeep): gate g's pre-activation."""

    def __init__(self, d, x, h, eh, c, ec, weights, shape, f, cl, attrs):
        self.x, self.h, self.eh, self.c, self.ec = x, h, eh, c, ec
        w, r, b, p = weights
        self.G, self.H, self.I = shape
        self.w, self.r, self.b, self.p = w[d], r[d], b[d], p[d]
        self.f, self.clip, self.attrs = f, cl, attrs
        self.ax = np.abs(x)

    def act(self, k: int, z, e):
        if self.clip is not None:  # clip is 1-Lipschitz and exact
            z = np.clip(z, -self.clip, self.clip)
        return self.f[k](z, e)

    def rows(self, g: int) -> slice:
        return slice(g * self.H, (g + 1) * self.H)

    def wb(self, g: int):
        return self.b[self.rows(g)]

    def rb(self, g: int):
        return self.b[self.rows(self.G + g)]

    def xw(self, g: int):
        """X.W_g^T, its bound, and the sum of its terms' magnitudes."""
        w = self.w[self.rows(g)]
        a = self.ax @ np.abs(w).T
        return self.x @ w.T, a * ((self.I + 2) * U), a

    def hr(self, g: int, hv, ehv):
        """hv.R_g^T (hv carrying the bound ehv), its bound, and the sum of its terms' magnitudes."""
        r = self.r[self.rows(g)]
        ar = np.abs(r).T
        a = np.abs(hv) @ ar
        return hv @ r.T, (ehv @ ar) * 1.01 + a * ((self.H + 2) * U), a

    def gate(self, g: int, hv, ehv, peep=None, epeep=None):
        """X.W_g^T + hv.R_g^T + Wb_g + Rb_g (+ peep), and its bound."""
        xw, exw, axw = self.xw(g)
        hr, ehr, ahr = self.hr(g, hv, ehv)
        wb, rb = self.wb(g), self.rb(g)
        pre = xw + hr + wb + rb
        err = exw + ehr + (axw + ahr + np.abs(wb) + np.abs(rb)) * (4 * U) + TINY
        if peep is not None:
            pre = pre + peep
            err = err + epeep + (np.abs(pre) + np.abs(peep)) * U
        return pre, err


def _fast(cell: Cell, attrs: dict, inputs: dict, names: list, alpha, beta, dirs: int, H: int, layout, direction):
    """(outputs, steps, input size) from the float64 path, or None where it does not apply (a double type, NaN
    or infinite data, shapes the mpmath path would refuse) or does not decide every value."""
    X, W, R = (np.asarray(inputs[k]) for k in ("X", "W", "R"))
    out_type = type_of(X)
    if out_type not in NARROW or X.ndim != 3:
        return None
    G = cell.gates
    B, P = inputs.get("B"), inputs.get("P")
    initial_h, initial_c, lens_in = inputs.get("initial_h"), inputs.get("initial_c"), inputs.get("sequence_lens")
    x = np.asarray(X, dtype=np.float64)
    if layout:
        x = x.transpose(1, 0, 2)
    S, N, I = x.shape
    w, r = np.asarray(W, dtype=np.float64), np.asarray(R, dtype=np.float64)
    b = np.asarray(B, dtype=np.float64) if B is not None else np.zeros((dirs, 2 * G * H))
    p = np.asarray(P, dtype=np.float64) if P is not None else np.zeros((dirs, 3 * H))

    def state(v):
        if v is None:
            return np.zeros((dirs, N, H))
        v = np.asarray(v, dtype=np.float64)
        return v.transpose(1, 0, 2) if layout and v.ndim == 3 else v

    h0, c0 = state(initial_h), state(initial_c)
    h0, c0 = np.where(h0 == 0, 0.0, h0), np.where(c0 == 0, 0.0, c0)  # mpmath has no -0: a zero is +0
    if (w.shape != (dirs, G * H, I) or b.shape != (dirs, 2 * G * H) or p.shape != (dirs, 3 * H)
            or h0.shape != (dirs, N, H) or c0.shape != (dirs, N, H)):
        return None
    if not all(np.isfinite(v).all() for v in (x, w, r, b, p, h0, c0)):
        return None
    lens = np.full(N, S) if lens_in is None else np.asarray(lens_in).reshape(-1).astype(np.int64)
    if lens.shape != (N,) or (lens < 0).any() or (lens > S).any():
        return None
    al, be = list(alpha or [])[::-1], list(beta or [])[::-1]
    fns = []
    for name in names:
        a_ = float(np.float32(al.pop())) if name in TAKES_ALPHA and al else None
        b_ = float(np.float32(be.pop())) if name in TAKES_BETA and be else None
        fn = fast_activation(name, a_, b_)
        if fn is None:
            return None
        fns.append(fn)
    per = len(cell.activations)
    if len(fns) < dirs * per:
        return None
    clip = attrs.get("clip")
    cl = float(np.float32(clip)) if clip is not None else None
    Y, eY = np.zeros((S, dirs, N, H)), np.zeros((S, dirs, N, H))
    Yh, eYh, Yc, eYc = (np.zeros((dirs, N, H)) for _ in range(4))
    try:
        with np.errstate(over="ignore", under="ignore"):
            for d in range(dirs):
                f = fns[d * per:(d + 1) * per]
                reverse = direction == "reverse" or d == 1
                h, c = h0[d].copy(), c0[d].copy()
                eh, ec = np.zeros_like(h), np.zeros_like(c)
                for k in range(S):
                    idx = np.flatnonzero(k < lens)
                    if not idx.size:
                        break
                    t = lens[idx] - 1 - k if reverse else np.full(idx.size, k)
                    s = FastStep(d, x[t, idx], h[idx], eh[idx], c[idx], ec[idx], (w, r, b, p), (G, H, I), f, cl,
                                 attrs)
                    hn, ehn, cn, ecn = cell.fast(s)
                    h[idx], eh[idx] = hn, ehn
                    if cn is not None:
                        c[idx], ec[idx] = cn, ecn
                    Y[t, d, idx], eY[t, d, idx] = hn, ehn
                Yh[d], eYh[d], Yc[d], eYc[d] = h, eh, c, ec
    except Undecided:
        return None
    outs = {"Y": (Y, eY), "Y_h": (Yh, eYh), "Y_c": (Yc, eYc)}
    if layout:
        outs = {"Y": (Y.transpose(2, 0, 1, 3), eY.transpose(2, 0, 1, 3)), "Y_h": (Yh.transpose(1, 0, 2),
                eYh.transpose(1, 0, 2)), "Y_c": (Yc.transpose(1, 0, 2), eYc.transpose(1, 0, 2))}
    undefined_y = bool((lens < S).any())
    result = {}
    for k_ in ["Y", "Y_h"] + (["Y_c"] if cell.cell_state else []):
        if k_ == "Y" and undefined_y:
            result["Y"] = Undefined("the docs do not say what Y holds past a sequence's length")
            continue
        value, err = outs[k_]
        rounded, ok = decided(value, err * 1.01, out_type)
        if not ok.all():
            return None
        result[k_] = rounded
    return result, S, I


def tolerance(cell: Cell, v, attrs: dict, inputs: dict) -> dict:
    """accumulation(type, steps * (input_size + hidden_size + 3), the sum over steps of each step's largest
    pre-activation magnitude + 1, after = the activations one step chains)."""
    if recall(v, attrs, inputs) is None:
        recurrence(cell, v, attrs, inputs)
    pending, S, I, H, per = recall(v, attrs, inputs)
    step_mag = magnitudes(pending() if callable(pending) else pending)
    out_type = type_of(np.asarray(inputs["X"]))
    after = per * (budget("composite", out_type) or {"ulp": 0})["ulp"]
    return accumulation(out_type, S * (I + H + 3), float(sum(step_mag)) + 1.0, after=after)


def magnitudes(pending: list) -> list:
    """Each step's largest sum of |terms| over its pre-activations, at PREC bits, in the order they ran."""
    with mpmath.workprec(PREC):
        out = []
        for terms_list in pending:
            m = mpmath.mpf(0)
            for terms in terms_list:
                m = max(m, sum(abs(e) for e in terms))
            out.append(m)
    return out


def recurrent(operator, cell: Cell, v, t, X, W, R, B=None, sequence_lens=None, initial_h=None, initial_c=None,
              P=None, *, hidden_size: int, direction: str | None = None, layout: int | None = None,
              activations=None, alpha=None, beta=None, clip=None, linear_before_reset=None,
              input_forget=None, want=("Y", "Y_h", "Y_c")):
    """The Case for one recurrent node; `want` names the outputs asked for (others left out)."""
    op = operator.name
    if layout and not v.has_attribute("layout"):
        return NotApplicable(f"{op}-{v.since_version} has no layout attribute (batch-major shapes are version 14's)")
    if linear_before_reset and not v.has_attribute("linear_before_reset"):
        return NotApplicable(f"{op}-{v.since_version} has no linear_before_reset (GRU-3's)")
    if not v.schema.outputs[1].option.name == "Optional" and "Y_h" not in want:
        return NotApplicable(f"{op}-{v.since_version}'s output Y_h is required ('Y_h' is Single in version "
                             f"{v.since_version})")
    if plain_r(v):
        R = symmetric_blocks(R, cell.gates, hidden_size)
    attrs = {"hidden_size": hidden_size}
    for k_, val in (("direction", direction), ("layout", layout), ("activations", activations),
                    ("activation_alpha", alpha), ("activation_beta", beta), ("clip", clip),
                    ("linear_before_reset", linear_before_reset), ("input_forget", input_forget)):
        if val is not None:
            attrs[k_] = val
    inputs = {"X": X, "W": W, "R": R, "B": B,
              "sequence_lens": None if sequence_lens is None else np.asarray(sequence_lens, np.int32),
              "initial_h": initial_h}
    if cell.cell_state:
        inputs.update(initial_c=initial_c, P=P)
    formal = ["Y", "Y_h"] + (["Y_c"] if cell.cell_state else [])
    case = operator.expect(v, inputs, attrs, outputs=[k_ if k_ in want else None for k_ in formal])
    case.tolerance = tolerance(cell, v, attrs, inputs)
    return case


def ones(t, shape, scale) -> np.ndarray:
    """scale * ones, as the documented examples build W and R (float32 product, then the type)."""
    return (np.float32(scale) * np.ones(shape, np.float32)).astype(t.np())


def scaled(t, shape, scales) -> np.ndarray:
    """Per-direction scales times ones (the documented bidirectional W and R)."""
    s = np.array(scales, dtype=np.float32).reshape(-1, 1, 1)
    return (s * np.ones(shape, np.float32)).astype(t.np())


def cast(doc, t) -> np.ndarray:
    return np.array(doc, dtype=np.float64).astype(t.np())


def small(t, shape, rng, scale=0.5) -> np.ndarray:
    """Random data in [-scale, scale): the state stays where the activations are not saturated."""
    x = rng.uniform(-scale, scale, size=shape)
    return x.astype(np.float32).astype(t.np())


ATTRIBUTE_TYPES = ("float", "float16")


def attribute_types(t):
    """Attribute examples run in a subset of the types."""
    if t.dtype not in ATTRIBUTE_TYPES:
        return NotApplicable(f"attribute examples run in {', '.join(ATTRIBUTE_TYPES)}; "
                             f"{t.dtype} is covered by the documented examples")
    return None


def register(operator, cell: Cell, *, hidden: dict[str, int], batch_scale: float, doc_want: tuple) -> None:
    """The examples shared by the three operators: onnx's documented ones (with each operator's documented
    hidden sizes, batchwise weight scale and outputs asked for) and the attribute and edge cases."""
    G = cell.gates
    DOC_X2 = [[[1.0, 2.0]], [[3.0, 4.0]], [[5.0, 6.0]]]
    run = lambda v, t, *a, **k: recurrent(operator, cell, v, t, *a, **k)
    hs = hidden
    @operator.example(name="defaults")
    def defaults(v, t, rng):
        H, I = hs["defaults"], 2
        return run(v, t, cast([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]], t), ones(t, (1, G * H, I), 0.1),
                   ones(t, (1, G * H, H), 0.1), hidden_size=H, want=("Y_h",))

    @operator.example(name="with_initial_bias")
    def with_initial_bias(v, t, rng):
        H, I = hs["bias"], 3
        B = np.concatenate([ones(t, (1, G * H), 0.1), np.zeros((1, G * H), t.np())], axis=1)
        return run(v, t, cast([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]], t),
                   ones(t, (1, G * H, I), 0.1), ones(t, (1, G * H, H), 0.1), B, hidden_size=H, want=("Y_h",))

    @operator.example(name="seq_length")
    def seq_length(v, t, rng):
        """The documented input with random weights (ours from the case's rng, kept small)."""
        H, I = hs["seq"], 3
        X = cast([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
                  [[10.0, 11.0, 12.0], [13.0, 14.0, 15.0], [16.0, 17.0, 18.0]]], t)
        return run(v, t, X, small(t, (1, G * H, I), rng, 0.1), small(t, (1, G * H, H), rng, 0.5),
                   small(t, (1, 2 * G * H), rng, 0.5), hidden_size=H, want=("Y_h",))

    @operator.example(name="batchwise")
    def batchwise(v, t, rng):
        H, I = hs["batch"], 2
        return run(v, t, cast(DOC_X2, t), ones(t, (1, G * H, I), batch_scale), ones(t, (1, G * H, H), batch_scale),
                   hidden_size=H, layout=1, want=("Y", "Y_h"))

    @operator.example(name="reverse")
    def reverse(v, t, rng):
        H, I = hs["rev"], 2
        return run(v, t, cast(DOC_X2, t), ones(t, (1, G * H, I), 0.1), ones(t, (1, G * H, H), 0.1),
                   hidden_size=H, direction="reverse", want=doc_want)

    @operator.example(name="bidirectional")
    def bidirectional(v, t, rng):
        H, I = hs["bi"], 2
        return run(v, t, cast(DOC_X2, t), scaled(t, (2, G * H, I), [0.5, 2.0]),
                   scaled(t, (2, G * H, H), [0.5, 2.0]), hidden_size=H, direction="bidirectional", want=doc_want)

    def full_inputs(t, rng, dirs, N, S, I, H, layout=0):
        X = small(t, (N, S, I) if layout else (S, N, I), rng, 1.0)
        W = small(t, (dirs, G * H, I), rng, 0.5)
        R = small(t, (dirs, G * H, H), rng, 0.5)
        B = small(t, (dirs, 2 * G * H), rng, 0.5)
        h0 = small(t, (N, dirs, H) if layout else (dirs, N, H), rng, 0.5)
        c0 = small(t, (N, dirs, H) if layout else (dirs, N, H), rng, 0.5) if cell.cell_state else None
        P = small(t, (dirs, 3 * H), rng, 0.5) if cell.cell_state else None
        return X, W, R, B, h0, c0, P

    all_out = ("Y", "Y_h", "Y_c")

    @operator.example(name="bidirectional_initial_state_all_outputs")
    def bidirectional_initial_state(v, t, rng):
        """Every input given (sequence_lens all full): Y, Y_h (and Y_c) in both directions."""
        X, W, R, B, h0, c0, P = full_inputs(t, rng, 2, 2, 3, 3, 2)
        return run(v, t, X, W, R, B, [3, 3], h0, c0, P, hidden_size=2, direction="bidirectional", want=all_out)

    @operator.example(name="sequence_lens_shorter")
    def sequence_lens_shorter(v, t, rng):
        """Batch entries of lengths 4, 2 and 1 in both directions: only the final states are graded."""
        X, W, R, B, h0, c0, P = full_inputs(t, rng, 2, 3, 4, 2, 3)
        return run(v, t, X, W, R, B, [4, 2, 1], h0, c0, P, hidden_size=3, direction="bidirectional",
                   want=("Y_h", "Y_c"))

    @operator.example(name="layout_bidirectional_initial_state")
    def layout_bidirectional(v, t, rng):
        na = attribute_types(t)
        if na:
            return na
        X, W, R, B, h0, c0, P = full_inputs(t, rng, 2, 2, 3, 2, 3, layout=1)
        return run(v, t, X, W, R, B, None, h0, c0, P, hidden_size=3, direction="bidirectional", layout=1,
                   want=all_out)

    @operator.example(name="reverse_sequence_lens_layout")
    def reverse_lens_layout(v, t, rng):
        na = attribute_types(t)
        if na:
            return na
        X, W, R, B, h0, c0, P = full_inputs(t, rng, 1, 3, 3, 2, 2, layout=1)
        return run(v, t, X, W, R, B, [1, 3, 2], h0, c0, P, hidden_size=2, direction="reverse", layout=1,
                   want=("Y_h", "Y_c"))

    @operator.example(name="only_y")
    def only_y(v, t, rng):
        na = attribute_types(t)
        if na:
            return na
        X, W, R, B, h0, c0, P = full_inputs(t, rng, 1, 2, 3, 2, 3)
        return run(v, t, X, W, R, B, hidden_size=3, want=("Y",))

    n_act = len(cell.activations)
    families = {
        "activations_alpha_beta": (["HardSigmoid", "ScaledTanh", "Affine"], [0.3, 1.5, 0.75], [0.4, 0.8, -0.25]),
        "activations_alpha": (["LeakyRelu", "Elu", "ThresholdedRelu"], [0.05, 0.7, 0.125], None),
        "activations_plain": (["Softsign", "Softplus", "Relu"], None, None),
        "activations_default_set": (["Relu", "Sigmoid", "Tanh"], None, None),
    }
    for ex_name, (names, alphas, betas) in families.items():
        def make(names=names, alphas=alphas, betas=betas):
            def example(v, t, rng):
                na = attribute_types(t)
                if na:
                    return na
                X, W, R, B, h0, c0, P = full_inputs(t, rng, 2, 2, 3, 2, 3)
                acts = names[:n_act] * 2
                al = (alphas[:n_act] * 2) if alphas else None
                be = (betas[:n_act] * 2) if betas else None
                return run(v, t, X, W, R, B, None, h0, c0, P, hidden_size=3, direction="bidirectional",
                           activations=acts, alpha=al, beta=be, want=all_out)
            return example
        operator.example(make(), name=ex_name)

    @operator.example(name="clip")
    def clip(v, t, rng):
        """clip = 1 binds on the gate inputs (X up to 4); two steps from a zero cell keep |Ct| below it
        (whether Ct itself is clipped is not said, so the case never depends on it)."""
        na = attribute_types(t)
        if na:
            return na
        X, W, R, B, h0, c0, P = full_inputs(t, rng, 1, 2, 2, 2, 3)
        X = (X.astype(np.float32) * 4).astype(t.np())
        return run(v, t, X, W, R, B, None, h0, None, P, hidden_size=3, clip=1.0, want=all_out)

    @operator.rejection(name="w_wrong_hidden_size")
    def w_wrong_hidden_size(v, t, rng):
        """W sized for hidden_size 4 where the attribute says 3."""
        H, I = 3, 2
        X = small(t, (3, 1, I), rng)
        W = small(t, (1, G * 4, I), rng)
        R = small(t, (1, G * H, H), rng)
        out = {"Y": Declared(t.dtype, (3, 1, 1, H)), "Y_h": Declared(t.dtype, (1, 1, H))}
        if cell.cell_state:
            out["Y_c"] = None
        return operator.reject(v, {"X": X, "W": W, "R": R}, {"hidden_size": H}, out)


def _w_sentence(v) -> str:
    w = next(i for i in v.schema.inputs if i.name == "W")
    text = " ".join(w.description.split())
    return f"W: {text}"


def reference_reasons(operator) -> None:
    """Where onnx's ReferenceEvaluator (1.23) differs, and why ours stands."""
    op = operator.name
    operator.reference_differs(rf"No implementation for operator '{op}' domain '' and version [1-6]\b",
                               f"the evaluator implements {op} from version 7 only")
    operator.reference_differs(r"^(sequence_lens_shorter|reverse_sequence_lens_layout) ",
                               "the evaluator ignores sequence_lens (its _run marks the input unused) and "
                               "runs every batch entry over the whole sequence")
    operator.reference_differs(r"^clip ", "the evaluator ignores the clip attribute (marked unused in its _run)")
    operator.reference_differs(r"^activations_",
                               "the evaluator ignores activations/activation_alpha/activation_beta (GRU, LSTM: "
                               "fixed Sigmoid/Tanh) or knows only Tanh and Affine (RNN: 'Unknown activation function')")
    operator.reference_differs(r"^input_forget ", "the evaluator ignores input_forget (marked unused in its _run)")
    # 16-bit types: explained only while the difference stays below 0.01 (a few steps of the type)
    operator.reference_differs(r"^\w+ float16: .*max abs err (0\.00\d*|[\d.]+e-0\d) ",
                               "the evaluator computes in float16 with numpy, rounding every "
                               "intermediate sum and product to float16; ours is the exact result rounded once")
    operator.reference_differs(r"^\w+ bfloat16: .*max abs err (0\.00\d*|[\d.]+e-0\d) ",
                               "the evaluator computes in bfloat16, rounding every "
                               "intermediate to bfloat16; ours is the exact result rounded once")
