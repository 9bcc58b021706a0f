"""Element-wise operators (math, activations, logic and bits, Cast): shapes that broadcast as the version says, each input's values, the schema's attributes.

How the inputs' shapes relate is the schema's own sentence: 'Numpy-style broadcasting'
(multidirectional, every input), 'unidirectional broadcasting' (PRelu's slope to X), the
`broadcast`/`axis` attributes of versions before 7 (B a contiguous run of A's dimensions), 'It must
be a scalar' (Clip's bounds); with none of them, every input has the same shape.
"""

from __future__ import annotations

import re

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators.accuracy import EPSILON, accumulation
from onnx_conformance.generators.spec import OpVersion
from onnx_conformance.harness.dtypes import elem_type_of
from onnx_conformance.harness.families import FAMILIES
from onnx_conformance.harness.strategies import common
from onnx_conformance.harness.strategies.bindings import formal_type
from onnx_conformance.harness.strategies.common import (
    Family,
    Probe,
    attributes,
    broadcast_shapes,
    shapes,
    tensors,
    undrawable,
    unidirectional_shape,
)

MAX_VARIADIC = 6  # Sum, Mean, Max, Min: one to six inputs


def _fmod(v, t) -> list:
    """Mod's fmod where the version binds it to the type ('If the input type is floating point, then
    `fmod` attribute must be set to 1'; Mod-13: fmod=1 'constrained to floating point'): the values
    the operator's own rule (generators/ops/mod.py) lets through."""
    from onnx_conformance.generators.ops.mod import rule_broken

    return [f for f in (0, 1) if rule_broken(v, t, f) is None]


# An operator's own constraint on an attribute, by type: (operator, attribute) -> the values allowed.
ATTRIBUTE_RULES = {("Mod", "fmod"): _fmod}


def broadcasting(v: OpVersion) -> str:
    """'multidirectional', 'unidirectional', 'legacy' (the broadcast attribute) or 'same', by the schema."""
    if v.has_attribute("broadcast"):
        return "legacy"
    doc = v.doc
    if re.search(r"[Uu]nidirectional", doc):
        return "unidirectional"
    if re.search(r"[Nn]umpy-style|[Mm]ultidirectional", doc):
        return "multidirectional"
    return "same"


def scalar(formal) -> bool:
    """'It must be a scalar(tensor of empty shape)' (Clip's min and max)."""
    return bool(re.search(r"must be a scalar", formal.description))


class Elementwise(Family):
    name = "element-wise"
    operators = (*FAMILIES["Element-wise math"], *FAMILIES["Activations"],
                 *FAMILIES["Logic, comparison and bits"], "Cast", "CastLike")

    def covers(self, op, v):
        return super().covers(op, v) or undrawable(v, handled=("to",))

    def strategy(self, op, v, t):
        return _probes(op, v, t)

    def case(self, op, v, t, probe):
        """The examples' tolerance; for a variadic operator given more inputs than any example has
        (Sum, Mean: up to MAX_VARIADIC), where that tolerance allows rounding, at least the budget of
        an accumulation of that many terms (accuracy.accumulation: the spec names no order to add
        them in), M the largest sum of the inputs' magnitudes over the output's elements."""
        case = super().case(op, v, t, probe)
        variadic = v.schema.inputs[-1].option.name == "Variadic" if v.schema.inputs else False
        n = sum(x is not None for x in probe.inputs.values())
        tol = case.tolerance
        out_type = formal_type(v, t, v.schema.outputs[0])
        if variadic and n > 3 and tol and tol.get("ulp") and out_type in EPSILON:
            with np.errstate(all="ignore"):
                parts = [np.abs(np.asarray(x, dtype=np.float64)) for x in probe.inputs.values() if x is not None]
                total = np.sum(np.broadcast_arrays(*parts), axis=0)
            finite = total[np.isfinite(total)]
            grown = accumulation(out_type, n, float(finite.max()) if finite.size else 0.0)
            case.tolerance = {"ulp": max(tol["ulp"], grown["ulp"]),
                              **({"atol": max(tol.get("atol", 0.0), grown.get("atol", 0.0))}
                                 if "atol" in tol or "atol" in grown else {})}
        return case


@st.composite
def _probes(draw, op, v: OpVersion, t):
    formals = list(v.schema.inputs)
    variadic = formals[-1] if formals and formals[-1].option.name == "Variadic" else None
    # the node's inputs in order: each single one, each optional one given or not (None), then the
    # variadic one's values, one graph input each
    slots = []  # (name, formal, given)
    for f in formals:
        if f is variadic:
            count = draw(st.integers(max(1, f.min_arity), MAX_VARIADIC), label="inputs")
            slots += [(f"{f.name}_{k}", f, True) for k in range(count)]
        else:
            given = f.option.name != "Optional" or draw(st.booleans(), label=f"give {f.name}")
            slots.append((f.name, f, given))
    shaped = [k for k, (_, f, given) in enumerate(slots) if given and not scalar(f)]
    attrs, shape_of = {}, {}
    mode = broadcasting(v)
    if mode == "multidirectional" and len(shaped) > 1:
        shape_of = dict(zip(shaped, draw(broadcast_shapes(len(shaped)))))
    elif mode == "unidirectional" and len(shaped) > 1:
        target = draw(shapes(0))
        shape_of = {k: draw(unidirectional_shape(target)) for k in shaped[1:]}
        shape_of[shaped[0]] = target
    elif mode == "legacy" and len(shaped) > 1 and draw(st.booleans(), label="broadcast=1"):
        # 'B ... may either be a scalar, or match a contiguous subset of A's dimensions with axis the
        # starting dimension'; with no axis, B's shape is a suffix of A's
        a = draw(shapes(0))
        length = draw(st.integers(0, len(a)), label="B's rank")
        start = draw(st.integers(0, len(a) - length), label="axis")
        attrs["broadcast"] = 1
        if start + length != len(a) or draw(st.booleans(), label="give axis"):
            attrs["axis"] = start
        shape_of = {k: a[start:start + length] for k in shaped[1:]}
        shape_of[shaped[0]] = a
    else:  # one shape for all: the budget of elements shared
        same = draw(shapes(0, limit=max(1, common.MAX_ELEMENTS // max(1, len(shaped)))))
        shape_of = {k: same for k in shaped}
    inputs, operand = {}, 0
    for k, (name, f, given) in enumerate(slots):
        if not given:
            inputs[name] = None
            continue
        inputs[name] = draw(tensors(formal_type(v, t, f), shape_of.get(k, ()), role="tame", operand=operand),
                            label=name)
        operand += 1
    if v.has_attribute("to"):
        # 'The data type to which the elements of the input tensor are cast': the output's type
        # parameter, as a DataType enum value (Cast-1: its name)
        out = formal_type(v, t, v.schema.outputs[0])
        attrs["to"] = out.upper() if v.schema.attributes["to"].type.name == "STRING" else elem_type_of(out)
    for (name, attribute), rule in ATTRIBUTE_RULES.items():
        if name == op.name and v.has_attribute(attribute):
            allowed = rule(v, t)
            if allowed:
                attrs[attribute] = draw(st.sampled_from(allowed), label=attribute)
    return Probe(inputs, draw(attributes(v, skip=("broadcast", "axis"), given=attrs)))
