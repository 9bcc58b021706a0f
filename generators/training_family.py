"""What the ai.onnx.preview.training optimizers share (Adagrad, Adam, Momentum): the documented pseudo code
evaluated per element at mpmath's PREC bits from the exact inputs and the float32 attributes, rounded once.

Inputs are R, T, then each group of tensors in turn (X_1..X_n, G_1..G_n, ...); outputs likewise
(X_1_new..X_n_new, then the state tensors). Several tensors are updated independently ('the same
pseudo code may be extended to handle all tensors jointly')."""

from __future__ import annotations

import mpmath
import numpy as np

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.rounding import PREC, exact, round_to
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.harness.dtypes import name_of_numpy, numpy_of

TRAINING = "ai.onnx.preview.training"


def training_operator(name: str) -> Operator:
    # R's type and the tensors' type are separate parameters: the tensors default to R's type
    return Operator(name, domain=TRAINING, primary="T1", defaults={"T3": lambda v, b: b.get("T1", "float")})


def mp(x) -> mpmath.mpf:
    q = exact(float(x)) if not isinstance(x, (int, np.integer)) else int(x)
    return mpmath.mpf(q.numerator) / q.denominator if hasattr(q, "numerator") else mpmath.mpf(q)


def float_attr(x: float) -> mpmath.mpf:
    """A FLOAT attribute: the float32 nearest the written value."""
    return mp(np.float32(x))


def optimizer(operator: Operator, groups: int):
    """Decorator: register an operator's semantics from its update rule. `rule(v, attrs)` returns
    update(R, T, *elements) -> the new values of the output groups for one element. The variadic input holds
    `groups` groups of n tensors each, combined element by element ('element-wise operations with numpy-style
    broadcasting'); the output holds each output group's n tensors in turn, rounded once to the tensors' type."""

    def register(rule):
        @operator.semantics
        def semantics(v, attrs, inputs):
            tensors = inputs["inputs"]
            if not tensors or len(tensors) % groups:
                raise Rejected(f"inputs: {v.schema.inputs[2].description} (given {len(tensors)} tensors)")
            for name in ("R", "T"):
                if np.asarray(inputs[name]).size != 1:
                    raise Rejected(f"{name}: {v.schema.inputs[0 if name == 'R' else 1].description} (a scalar)")
            update = rule(v, attrs)
            n = len(tensors) // groups
            # every input group but the gradients has its new values (an empty tensor's too: no element to ask)
            out_groups = [[] for _ in range(groups - 1)]
            with mpmath.workprec(PREC):
                r, t = mp(np.asarray(inputs["R"]).reshape(-1)[0]), int(np.asarray(inputs["T"]).reshape(-1)[0])
                for i in range(n):
                    try:
                        arrays = np.broadcast_arrays(*tensors[i::n])
                    except ValueError:
                        raise Rejected(f"tensor {i + 1}'s inputs do not broadcast (the pseudo code's operations are "
                                       "'element-wise operations with numpy-style broadcasting')") from None
                    tname = name_of_numpy(tensors[i].dtype)
                    flat = [update(r, t, *[mp(a.reshape(-1)[j]) for a in arrays]) for j in range(arrays[0].size)]
                    for g in range(len(out_groups)):
                        vals = [round_to(e[g], tname) for e in flat]
                        out_groups[g].append(np.array(vals, numpy_of(tname)).reshape(arrays[0].shape))
            return {"outputs": [a for group in out_groups for a in group]}

        semantics.__doc__ = rule.__doc__
        semantics.__name__ = rule.__name__
        return rule

    return register


def run(operator: Operator, v, t, r, step, groups: list[list[np.ndarray]], names: list[str], out_names: list[str],
        attrs: dict):
    """A case: `groups` holds, per state name (X, G, H...), one array per optimized tensor; outputs named
    <name><i>_new per output group."""
    n = len(groups[0])
    tname = t["T3"]
    inputs = {"R": np.array(r, numpy_of(t["T1"])), "T": np.array(step, np.int64)}
    for name, arrays in zip(names, groups):
        for i, a in enumerate(arrays):
            inputs[f"{name}{i + 1 if n > 1 else ''}"] = a.astype(numpy_of(tname))
    outputs = [f"{name}{i + 1 if n > 1 else ''}_new" for name in out_names for i in range(n)]
    return operator.expect(v, inputs, attrs, outputs=outputs, tolerance=budget("composite", tname))
