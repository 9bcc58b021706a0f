"""Recurrent layers: RNN, GRU and LSTM over direction, sequence_lens shorter than the sequence, initial states, peepholes, activations with their alpha and beta, clip, linear_before_reset, input_forget and layout.

A drawn node is finished by recurrent_family.recurrent, the function the corpus's examples call, so
its tolerance is the corpus's (an accumulation over the steps' pre-activation terms). Hidden sizes
run 1 to 16 (primes among them), input sizes 1 to 16, up to 8 steps and 5 batch entries, bounded by
WORK (the tolerance runs the mpmath recurrence on every draw). What the docs leave open is not drawn:
Y where sequence_lens leaves steps out ('the docs do not say what Y holds past a sequence's length':
only Y_h and Y_c are asked then), a length of 0 (the docs give sequence_lens no lower bound and no
meaning for an empty sequence), an activation whose alpha or beta is left to its default (the
'corresponding ONNX operators' of Affine and ScaledTanh do not exist), alpha or beta given where not
every activation takes one ('consumed in the order of activation functions' does not say whether an
activation that takes none consumes one), a negative clip. Values are small (|x| <= 1, weights
<= 0.5: the state stays where the activations are not all saturated) with up to 16 drawn ones put in:
zeros of both signs, +-1, subnormals and values up to 64, never an infinity or NaN (a backend's float
sum overflows where the exact one does not).
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators.recurrent_family import TAKES_ALPHA, TAKES_BETA
from onnx_conformance.harness.strategies.common import (
    Discard,
    Family,
    Probe,
    _storage,
    base,
    edges,
    overlay,
)
from onnx_conformance.harness.dtypes import numpy_of

WORK = 6000  # multiply-adds of one node's recurrence (steps x batch x directions x gates x hidden x (input + hidden))
HIDDEN = (1, 2, 3, 4, 5, 7, 8, 11, 13, 16)
INPUT = (1, 2, 3, 4, 5, 7, 8, 9, 13, 16)
ALPHAS = (0.5, 1.0, 0.2, 0.05, 1.5, 2.0, -0.5, 0.0)
BETAS = (0.5, 0.0, 1.0, -0.25, 2.0)
CLIPS = (1.0, 0.5, 2.0, 3.0, 10.0, 0.25)
LIMIT = 64.0  # the largest |value| an overlay puts in


class Recurrent(Family):
    name = "recurrent"
    operators = ("RNN", "GRU", "LSTM")

    def strategy(self, op, v, t):
        return _node(op, v, t)

    def case(self, op, v, t, probe):
        from importlib import import_module

        from onnx_conformance.generators.case import NotApplicable
        from onnx_conformance.generators.recurrent_family import recurrent

        module = import_module(f"onnx_conformance.generators.ops.{op.name.lower()}")
        x = probe.inputs
        case = recurrent(module.OPERATOR, module.CELL, v, t, x["X"], x["W"], x["R"], x.get("B"),
                         x.get("sequence_lens"), x.get("initial_h"), x.get("initial_c"), x.get("P"), **probe.extra)
        if isinstance(case, NotApplicable):
            raise Discard(case.reason)
        return case


@lru_cache(maxsize=None)
def activation_names(doc: str) -> tuple[str, ...]:
    """The activation functions the version's doc lists ('Relu(x) - max(0, x)', ...)."""
    return tuple(dict.fromkeys(re.findall(r"\b([A-Z]\w+)\(x\) +- ", doc)))


@lru_cache(maxsize=None)
def moderate_values(type_name: str):
    """Edge values an overlay puts in: the type's finite edges of magnitude at most LIMIT (signed zeros,
    subnormals, +-1 and its neighbours, small integers), in the storage common._storage names."""
    listed = np.array(edges(type_name), dtype=_storage(type_name))
    with np.errstate(invalid="ignore"):
        decoded = listed.view(numpy_of(type_name)).astype(np.float64)
    keep = tuple(int(b) for b, x in zip(listed.tolist(), decoded) if np.isfinite(x) and abs(x) <= LIMIT)
    return st.sampled_from(keep)


def _sizes(listed, limit: int):
    return st.one_of(st.integers(1, max(1, min(4, limit))), st.sampled_from([s for s in listed if s <= limit] or [1]))


@st.composite
def moderate(draw, type_name: str, shape, scale_bits: int, operand: int, label: str):
    """The family's base values times 2^-scale_bits (exact: |base| < 64), up to 16 drawn small values put in."""
    x = base(type_name, shape, "distinct", operand).astype(np.float64) * 2.0 ** -scale_bits
    x = x.astype(numpy_of(type_name))
    if x.size:
        flat = x.reshape(-1).view(_storage(type_name))
        for i, value in draw(overlay(x.size, moderate_values(type_name)), label=label):
            flat[i] = value
    return x


@st.composite
def _activations(draw, v, per: int, dirs: int) -> dict:
    """activations (and their alpha, beta) for both directions, or {} (the defaults)."""
    if not v.has_attribute("activations") or not draw(st.booleans(), label="give activations"):
        return {}
    listed = activation_names(v.doc)
    kind = draw(st.sampled_from(["plain", "alpha", "alpha and beta"]), label="activation kind")
    pool = {"plain": [n for n in listed if n not in TAKES_ALPHA],
            "alpha": [n for n in listed if n in TAKES_ALPHA and n not in TAKES_BETA],
            "alpha and beta": [n for n in listed if n in TAKES_BETA]}[kind]
    names = [draw(st.sampled_from(pool), label="activation") for _ in range(per * dirs)]
    out = {"activations": names}
    if kind != "plain":
        out["alpha"] = [draw(st.sampled_from(ALPHAS), label="alpha") for _ in names]
    if kind == "alpha and beta":
        out["beta"] = [draw(st.sampled_from(BETAS), label="beta") for _ in names]
    return out


@st.composite
def _node(draw, op, v, t):
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[op.name]
    per = {"RNN": 1, "GRU": 2, "LSTM": 3}[op.name]
    direction = draw(st.sampled_from(["forward", "reverse", "bidirectional"]), label="direction")
    dirs = 2 if direction == "bidirectional" else 1
    hidden = draw(_sizes(HIDDEN, 16), label="hidden_size")
    room = WORK // (dirs * gates * hidden)
    size = draw(_sizes(INPUT, max(1, room - hidden)), label="input_size")
    room = max(1, room // (size + hidden))
    steps = draw(st.integers(1, max(1, min(8, room))), label="seq_length")
    batch = draw(st.integers(1, max(1, min(5, room // steps))), label="batch_size")
    layout = v.has_attribute("layout") and draw(st.booleans(), label="layout 1")
    dtype = t.dtype
    x_shape = (batch, steps, size) if layout else (steps, batch, size)
    state_shape = (batch, dirs, hidden) if layout else (dirs, batch, hidden)
    inputs = {"X": draw(moderate(dtype, x_shape, 6, 0, "X"), label="X"),
              "W": draw(moderate(dtype, (dirs, gates * hidden, size), 7, 1, "W"), label="W"),
              "R": draw(moderate(dtype, (dirs, gates * hidden, hidden), 7, 2, "R"), label="R")}
    if draw(st.booleans(), label="give B"):
        inputs["B"] = draw(moderate(dtype, (dirs, 2 * gates * hidden), 7, 3, "B"), label="B")
    shorter = False
    if draw(st.booleans(), label="give sequence_lens"):
        lens = [draw(st.integers(1, steps), label="length") if draw(st.booleans(), label="shorter") else steps
                for _ in range(batch)]
        inputs["sequence_lens"] = np.array(lens, np.int32)
        shorter = any(n < steps for n in lens)
    if draw(st.booleans(), label="give initial_h"):
        inputs["initial_h"] = draw(moderate(dtype, state_shape, 7, 4, "initial_h"), label="initial_h")
    extra = {"hidden_size": hidden}
    if direction != "forward" or draw(st.booleans(), label="spell forward"):
        extra["direction"] = direction
    if layout:
        extra["layout"] = 1
    if op.name == "LSTM":
        if draw(st.booleans(), label="give initial_c"):
            inputs["initial_c"] = draw(moderate(dtype, state_shape, 7, 5, "initial_c"), label="initial_c")
        if draw(st.booleans(), label="give P"):
            inputs["P"] = draw(moderate(dtype, (dirs, 3 * hidden), 7, 6, "P"), label="P")
        if draw(st.booleans(), label="give input_forget"):
            extra["input_forget"] = draw(st.sampled_from([1, 0]), label="input_forget")
    if op.name == "GRU" and v.has_attribute("linear_before_reset") and draw(st.booleans(), label="give lbr"):
        extra["linear_before_reset"] = draw(st.sampled_from([1, 0]), label="linear_before_reset")
    extra.update(draw(_activations(v, per, dirs), label="activations"))
    if draw(st.booleans(), label="give clip"):
        extra["clip"] = draw(st.sampled_from(CLIPS), label="clip")
    # the outputs asked for: Y only where every step of every entry is run; Y_h where the version requires it
    formal = ["Y", "Y_h"] + (["Y_c"] if op.name == "LSTM" else [])
    required = {o.name for o in v.schema.outputs if o.option.name == "Single"}
    want = tuple(o for o in formal if o in required or draw(st.booleans(), label=f"ask {o}"))
    if shorter:
        want = tuple(o for o in want if o != "Y")
    if not want:
        want = ("Y_h",)
    extra["want"] = want
    return Probe(inputs, extra=extra)
