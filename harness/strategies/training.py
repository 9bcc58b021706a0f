"""Training (ai.onnx.preview.training): one step of Adagrad, Adam and Momentum (standard and nesterov) over one to three tensors, with the step count T at 0 and beyond and the attributes across their ranges.

Each tensor's X, G and state (V, H) share one drawn shape (rank 0 to 4, sizes to MAX_ELEMENTS); H, an
accumulated square, is at least 0. The attributes are drawn inside what the pseudo code makes of them:
alpha and beta in [0, 1] (averaging weights), epsilon above 0, decay_factor and the norm coefficients
from 0 up. The tolerance is the composite one the corpus gives these operators, with an absolute part
for the cancellation in X - R * update: eight float steps of the largest magnitude the step meets.
Gradient is not drawn: its meaning is the graph before its node (exact.Enclosing), which a drawn node
alone does not have.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.harness.dtypes import numpy_of
from onnx_conformance.harness.strategies.common import Discard, Family, Probe, shapes

TRAINING = "ai.onnx.preview.training"
MAX_ELEMENTS = 256  # elements of one tensor: each is a dozen mpmath operations
GROUPS = {"Adagrad": (("X", "G", "H"), ("X", "H")), "Adam": (("X", "G", "V", "H"), ("X", "V", "H")),
          "Momentum": (("X", "G", "V"), ("X", "V"))}
EDGES = (0.0, -0.0, 1.0, -1.0, 2.0 ** -126, 2.0 ** -149, 1e-30, 65504.0, 1e6, -1e6)


class Training(Family):
    name = "training"
    operators = ("Adagrad", "Adam", "Momentum", "Gradient")

    def covers(self, op, v):
        if op.name not in self.operators or op.domain != TRAINING:
            return f"not a {self.name} operator"
        if op.name == "Gradient":
            return ("Gradient differentiates the graph before its node (exact.Enclosing): a drawn node alone has "
                    "no such graph")
        return None

    def strategy(self, op, v, t):
        return _step(op, v, t)

    def case(self, op, v, t, probe):
        from onnx_conformance.generators.accuracy import EPSILON, budget

        tname = t["T3"]
        try:
            case = op.expect(v, probe.inputs, probe.attrs, outputs=probe.outputs, tolerance=None)
        except ZeroDivisionError:  # Adam's R * Sqrt(1 - beta**T) / (1 - alpha**T) with alpha = 1 and T > 0
            raise Discard("the pseudo code divides by 0 here") from None
        seen = [np.abs(np.asarray(x, np.float64)) for x in list(probe.inputs.values()) + list(case.outputs.values())]
        with np.errstate(all="ignore"):
            finite = [float(a[np.isfinite(a)].max()) for a in seen if a.size and np.isfinite(a).any()]
        if not all(math.isfinite(float(e)) for x in case.outputs.values() for e in np.ravel(x)):
            raise Discard("a step past the tensors' range: the spec states no overflow")
        tol = dict(budget("composite", tname) or {})
        tol["atol"] = 8 * EPSILON[tname] * max(finite, default=0.0)
        case.tolerance = tol
        return case


def _values(nonnegative: bool = False):
    one = st.one_of(st.sampled_from([x / 4 for x in range(-16, 17)]), st.floats(-1000, 1000, width=32),
                    st.sampled_from(EDGES))
    return one.map(abs) if nonnegative else one


@st.composite
def _tensor(draw, shape, type_name: str, nonnegative: bool, label: str):
    n = math.prod(shape)
    xs = draw(st.lists(_values(nonnegative), min_size=n, max_size=n), label=label) if n <= 16 else None
    if xs is None:  # a longer tensor: a seeded ramp with up to 16 drawn values put in
        base = (np.arange(n) % 17 - 8) / 4
        xs = list(np.abs(base) if nonnegative else base)
        for i, e in draw(st.lists(st.tuples(st.integers(0, n - 1), _values(nonnegative)), max_size=16), label=label):
            xs[i] = e
    return np.array(xs, np.float64).astype(numpy_of(type_name)).reshape(shape)


def _unit(draw, label):
    """A weight in [0, 1]: the ends, halves to eighths, or any."""
    return draw(st.one_of(st.sampled_from([0.0, 1.0, 0.5, 0.9, 0.999, 0.125, 0.875]), st.floats(0, 1, width=32)),
                label=label)


def _small(draw, label):
    """A coefficient from 0 up: 0, small ones, or any up to 10."""
    return draw(st.one_of(st.sampled_from([0.0, 0.001, 0.0625, 0.5, 1.0]), st.floats(0, 10, width=32)), label=label)


@st.composite
def _step(draw, op, v, t):
    names, outs = GROUPS[op.name]
    tname = t["T3"]
    n = draw(st.integers(1, 3), label="tensors")
    groups = {name: [] for name in names}
    for i in range(n):
        shape = draw(shapes(0, 4, MAX_ELEMENTS), label="shape")
        if i == 0 and not math.prod(shape):
            # training_family.optimizer counts the output groups on the first tensor's elements: an empty
            # first tensor leaves it none (a fault of the semantics, reported); later ones may be empty
            shape = tuple(d or 1 for d in shape)
        for name in names:
            groups[name].append(draw(_tensor(shape, tname, name == "H", f"{name}{i + 1}"), label=name))
    r = draw(st.one_of(st.sampled_from([0.1, 0.0, 1.0, 0.001]), st.floats(0, 2, width=32)), label="R")
    step = draw(st.one_of(st.sampled_from([0, 1, 2, 5]), st.integers(0, 10 ** 6)), label="T")
    attrs = {}
    if op.name == "Momentum":  # mode, alpha, beta and norm_coefficient are required
        attrs = {"mode": draw(st.sampled_from(["standard", "nesterov"]), label="mode"), "alpha": _unit(draw, "alpha"),
                 "beta": _unit(draw, "beta"), "norm_coefficient": _small(draw, "norm_coefficient")}
    else:
        wanted = {"Adagrad": ("norm_coefficient", "epsilon", "decay_factor"),
                  "Adam": ("alpha", "beta", "epsilon", "norm_coefficient", "norm_coefficient_post")}[op.name]
        for name in wanted:
            if not draw(st.booleans(), label=f"give {name}"):
                continue
            if name in ("alpha", "beta"):
                attrs[name] = _unit(draw, name)
            elif name == "epsilon":  # above 0: the pseudo code divides by Sqrt(H_new) + epsilon
                attrs[name] = draw(st.sampled_from([1e-6, 1e-8, 1e-2, 1.0, 2.0 ** -126]), label=name)
            elif name == "norm_coefficient_post":  # X_final = (1 - norm_coefficient_post) * X_new
                attrs[name] = _unit(draw, name)
            else:
                attrs[name] = _small(draw, name)
    inputs = {"R": np.array(r, numpy_of(t["T1"])), "T": np.array(step, np.int64)}
    for name in names:
        for i, a in enumerate(groups[name]):
            inputs[f"{name}{i + 1 if n > 1 else ''}"] = a
    outputs = [f"{name}{i + 1 if n > 1 else ''}_new" for name in outs for i in range(n)]
    return Probe(inputs, attrs, outputs=outputs)
