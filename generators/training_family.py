"""What the ai.onnx.preview.training optimizers share (Adagrad, Adam, Momentum): the documented pseudo code
evaluated per element at mpmath's PREC bits from the exact inputs and the float32 attributes, rounded once.

Inputs are R, T, then each group of tensors in turn (X_1..X_n, G_1..G_n, ...); outputs likewise
(X_1_new..X_n_new, then the state tensors). Several tensors are updated independently ('the same
pseudo code may be extended to handle all tensors jointly')."""

from __future__ import annotations

import mpmath
import numpy as np

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.case import Case, Operator
from onnx_conformance.generators.rounding import PREC, exact, round_to
from onnx_conformance.harness.dtypes import numpy_of

TRAINING = "ai.onnx.preview.training"


def training_operator(name: str) -> Operator:
    # R's type and the tensors' type are separate parameters: the tensors default to R's type
    return Operator(name, domain=TRAINING, primary="T1", defaults={"T3": lambda v, b: b.get("T1", "float")})


def mp(x) -> mpmath.mpf:
    q = exact(float(x)) if not isinstance(x, (int, np.integer)) else int(x)
    return mpmath.mpf(q.numerator) / q.denominator if hasattr(q, "numerator") else mpmath.mpf(q)


def attr(x: float) -> mpmath.mpf:
    """A FLOAT attribute: the float32 nearest the written value."""
    return mp(np.float32(x))


def run(update, t, r, step, groups: list[list[np.ndarray]], names: list[str], out_names: list[str], attrs: dict):
    """`groups` holds, per state name (X, G, H...), one array per optimized tensor; `update(r, t, *elems)`
    returns the new values of the output groups for one element."""
    n = len(groups[0])
    tname = t["T3"]
    inputs = {"R": np.array(r, numpy_of(t["T1"])), "T": np.array(step, np.int64)}
    for name, arrays in zip(names, groups):
        for i, a in enumerate(arrays):
            inputs[f"{name}{i + 1 if n > 1 else ''}"] = a.astype(numpy_of(tname))
    out_groups = None
    with mpmath.workprec(PREC):
        R, T = mp(inputs["R"]), int(step)
        for i in range(n):
            arrays = [inputs[f"{name}{i + 1 if n > 1 else ''}"] for name in names]
            flat = [[update(R, T, *[mp(a.reshape(-1)[j]) for a in arrays])][0] for j in range(arrays[0].size)]
            k = len(flat[0])
            if out_groups is None:
                out_groups = [[] for _ in range(k)]
            for g in range(k):
                vals = [round_to(e[g], tname) for e in flat]
                out_groups[g].append(np.array(vals, numpy_of(tname)).reshape(arrays[0].shape))
    outputs = {}
    for name, arrays in zip(out_names, out_groups):
        for i, a in enumerate(arrays):
            outputs[f"{name}{i + 1 if n > 1 else ''}_new"] = a
    return Case(inputs, outputs, attrs, tolerance=budget("composite", tname))
