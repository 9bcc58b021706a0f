"""Random operators: RandomUniform(Like), RandomNormal(Like), Bernoulli and Multinomial, judged on their distribution as the corpus judges them.

The spec promises no values ('non-deterministic ... even if a seed is specified'), so a drawn node is
finished as generators/random_family.py finishes the corpus's: the output file holds one draw of ours
(an example of the shape and type, not an answer) and the tolerance {"distribution": ...} has
harness/distribution.py judge the backend's draw: shape and type exactly, every value possible, then a
goodness-of-fit test at p < 1e-6. The semantics still decide what is valid (Bernoulli's 'in the range
[0, 1]', Multinomial's rank 2). Drawn: shapes of rank 0 (1 for a shape attribute) to 4, zero-sized too,
every input and output type the version binds, low/high and mean/scale exactly representable in every
output type and wide against the type's spacing (a narrow range in bfloat16 is a handful of values, which
no continuous test fits), a seed or none; Bernoulli's probabilities from 0, 1 and values between
(rounded once to the input type, as the case states them); Multinomial's logits of 2 to 17 classes.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators import random_family as rf
from onnx_conformance.generators import values
from onnx_conformance.generators.case import Case, seeded_rng
from onnx_conformance.generators.semantics import NotDeterministic
from onnx_conformance.harness.dtypes import elem_type_of, numpy_of
from onnx_conformance.harness.strategies.common import Family, Probe, shapes

RANDOM_ELEMENTS = 4096  # values of one draw, at most: a Kolmogorov-Smirnov test over them stays a few ms
# (low, high) and (mean, scale): dyadic, so every output type holds them; the spread at least a quarter of
# the largest magnitude, so bfloat16's spacing there stays below 1/32 of the range
UNIFORM = ((0.0, 1.0), (-2.5, 4.0), (-1.0, 1.0), (10.0, 20.0), (-100.0, 100.0), (0.5, 0.75), (-8.0, -2.0))
NORMAL = ((0.0, 1.0), (-2.0, 3.0), (1.5, 0.5), (100.0, 25.0), (0.0, 0.125), (-4.0, 8.0))
PROBABILITIES = (0.0, 1.0, 0.5, 0.1, 0.875, 0.25, 0.01, 0.99)


class Random(Family):
    name = "random"
    operators = ("RandomUniform", "RandomUniformLike", "RandomNormal", "RandomNormalLike", "Bernoulli", "Multinomial")

    def strategy(self, op, v, t):
        if op.name == "Bernoulli":
            return _bernoulli(op, v, t)
        if op.name == "Multinomial":
            return _multinomial(op, v, t)
        return _generated(op, v, t)

    def case(self, op, v, t, probe):
        try:  # the semantics refuse what the spec forbids; a valid node is a draw, not a value
            op.run(v, probe.inputs, probe.attrs)
        except NotDeterministic:
            pass
        else:
            raise AssertionError(f"{op.name}: the semantics gave values for a random operator")
        e = probe.extra
        rng = seeded_rng("explore", op.name, e["shape"], e["kind"], e["a"], e["b"])
        out_type = e["out"]
        if e["kind"] == "bernoulli":
            p = np.asarray(probe.inputs["input"], np.float64)
            ours = (rng.random(p.shape) < p).astype(numpy_of(out_type))
            spec = {"kind": "bernoulli", "p": [float(q) for q in p.reshape(-1)]}
        elif e["kind"] == "multinomial":
            logits = np.asarray(probe.inputs["input"], np.float64)
            probs = [rf.softmax_exact(row) for row in logits]
            ours = np.array([rng.choice(len(q), size=e["shape"][1], p=np.array(q) / sum(q)) for q in probs],
                            dtype=numpy_of(out_type)).reshape(e["shape"])
            spec = {"kind": "multinomial", "p": probs}
        else:
            ours = rf.draw(e["kind"], out_type, e["shape"], rng, e["a"], e["b"])
            spec = (rf.uniform_spec if e["kind"] == "uniform" else rf.normal_spec)(e["a"], e["b"])["distribution"]
        return Case(probe.inputs, {"output": ours}, probe.attrs, tolerance={"distribution": spec})


def _seed(draw, attrs: dict) -> None:
    if draw(st.booleans(), label="give seed"):
        attrs["seed"] = draw(st.sampled_from([0.0, 1234.0, -1.0, 3.5]), label="seed")


@st.composite
def _generated(draw, op, v, t):
    kind = "uniform" if "Uniform" in op.name else "normal"
    a, b = draw(st.sampled_from(UNIFORM if kind == "uniform" else NORMAL), label="distribution")
    keys = ("low", "high") if kind == "uniform" else ("mean", "scale")
    attrs = {}
    if (a, b) != (0.0, 1.0) or draw(st.booleans(), label="give the defaults"):
        attrs[keys[0]], attrs[keys[1]] = a, b
    like = op.name.endswith("Like")
    # rank 1 on for the `shape` attribute: onnx.helper cannot spell an empty list attribute's type
    shape = tuple(draw(shapes(0 if like else 1, 4, RANDOM_ELEMENTS), label="shape"))
    inputs = {}
    if like:
        in_type, out_type = t["T1"], t["T2"]
        inputs["input"] = values.sample(in_type, shape, seeded_rng("explore", in_type, shape))
        # dtype, 'or copied from the input tensor if not provided'
        if in_type != out_type or draw(st.booleans(), label="give dtype"):
            attrs["dtype"] = elem_type_of(out_type)
    else:
        out_type = t["T"]
        attrs["shape"] = list(shape)
        if out_type != "float" or draw(st.booleans(), label="give dtype"):  # 'Default is TensorProto::FLOAT'
            attrs["dtype"] = elem_type_of(out_type)
    _seed(draw, attrs)
    return Probe(inputs, attrs, extra={"kind": kind, "a": a, "b": b, "shape": shape, "out": out_type})


@st.composite
def _bernoulli(draw, op, v, t):
    # not zero-sized: harness/distribution.py's bernoulli spec needs a probability to tile the output with
    shape = tuple(draw(shapes(0, 4, RANDOM_ELEMENTS).filter(lambda s: 0 not in s), label="shape"))
    n = int(np.prod(shape, dtype=np.int64))
    pattern = draw(st.lists(st.sampled_from(PROBABILITIES), min_size=1, max_size=4), label="probabilities")
    p = np.resize(np.array(pattern, np.float64), n).reshape(shape)
    p = p.astype(numpy_of(t["T1"]))  # rounded once to the input type; the case states the rounded value
    attrs = {}
    if t["T2"] != t["T1"] or draw(st.booleans(), label="give dtype"):  # 'we will use the data type of the input tensor'
        attrs["dtype"] = elem_type_of(t["T2"])
    _seed(draw, attrs)
    return Probe({"input": p}, attrs, extra={"kind": "bernoulli", "a": tuple(pattern), "b": 0, "shape": shape,
                                             "out": t["T2"]})


@st.composite
def _multinomial(draw, op, v, t):
    batch = draw(st.integers(1, 4), label="batch_size")
    classes = draw(st.integers(2, 17), label="class_size")
    logits = draw(st.lists(st.sampled_from([0.0, 1.0, -1.0, 2.0, 0.5, -3.0, 4.0]), min_size=batch * classes,
                           max_size=batch * classes), label="logits")
    x = np.array(logits, np.float64).reshape(batch, classes).astype(numpy_of(t["T1"]))
    sample_size = draw(st.one_of(st.just(1), st.integers(1, RANDOM_ELEMENTS // batch)), label="sample_size")
    attrs = {}
    if sample_size != 1 or draw(st.booleans(), label="give sample_size"):
        attrs["sample_size"] = sample_size
    if t["T2"] != "int32" or draw(st.booleans(), label="give dtype"):  # 'Default is TensorProto::INT32'
        attrs["dtype"] = elem_type_of(t["T2"])
    _seed(draw, attrs)
    return Probe({"input": x}, attrs, extra={"kind": "multinomial", "a": tuple(logits), "b": sample_size,
                                            "shape": (batch, sample_size), "out": t["T2"]})
