"""Matrix products: MatMul (ranks 1 to 4, batch dimensions broadcast), Gemm (transA, transB, alpha, beta, C broadcast), MatMulInteger (zero points per tensor, row or column) and Einsum (equation templates).

The inner dimension is drawn like any other (1 to 4, or a size around a vector width or a tile:
31, 32, 33, 64, 127, ...), so a kernel's remainder loop is reached. The tolerance is the corpus's,
grown to an accumulation over the inner dimension with this data's largest sum of |terms|
(accuracy.accumulation: 'the spec names no accumulation order or type'); integer products are exact,
drawn from 0, 1 and -1 (the `sparse` values) so no sum leaves the type.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators import values
from onnx_conformance.generators.slice_family import variadic
from onnx_conformance.harness.strategies.common import (
    Discard,
    Family,
    Probe,
    broadcast_shapes,
    dims,
    grown,
    largest_finite,
    tensors,
    unidirectional_shape,
)

WORK = 8192  # multiply-adds of the exact semantics (Fractions), at most: about 50 ms
MATRIX = 4097  # elements of an operand, at most

# Einsum equations: (equation, the terms' letters as operands use them), the spec's own examples first
EQUATIONS = ("ij,jk->ik", "ij->ji", "ij->i", "...ii->...i", "i,i", "bij,bjk->bik", "kb,ak", "i,j->ij",
             "ij,ij->ij", "ii->i", "ii", "ijk->kji", "bhqd,bhkd->bhqk", "...ij,...jk->...ik", "ij->", "ab,b->a")


class MatMul(Family):
    name = "matrix products"
    operators = ("MatMul", "Gemm", "MatMulInteger", "Einsum")

    def strategy(self, op, v, t):
        return {"MatMul": _matmul, "Gemm": _gemm, "MatMulInteger": _matmul_integer, "Einsum": _einsum}[op.name](op, v, t)

    def case(self, op, v, t, probe):
        try:
            case = super().case(op, v, t, probe)
        except OverflowError:  # linalg_family's exact sum: a Fraction past float's range meeting an infinity
            raise Discard("the semantics' exact sum overflows float beside an infinity") from None
        if "terms" in probe.extra:
            case.tolerance = grown(case.tolerance, t.dtype, probe.extra["terms"], probe.extra["magnitude"])
        return case


def _role(type_name: str) -> str:
    return "sparse" if values.is_int(type_name) else "distinct"


def _magnitude(fn, *xs) -> float:
    """The largest |term| sum of the product: fn on the operands' magnitudes, in float64."""
    with np.errstate(all="ignore"):
        return largest_finite(fn(*[np.abs(np.asarray(x, dtype=np.float64)) for x in xs]))


@st.composite
def _inner(draw, batch_elements: int = 1):
    """(m, k, n) whose operands hold at most MATRIX elements and whose product costs at most WORK."""
    k = draw(dims(MATRIX), label="K")
    m = draw(dims(max(1, min(MATRIX // max(k, 1), WORK // max(k * batch_elements, 1)))), label="M")
    n = draw(dims(max(1, min(MATRIX // max(k, 1), WORK // max(k * max(m, 1) * batch_elements, 1)))), label="N")
    return m, k, n


@st.composite
def _matmul(draw, op, v, t):
    batch_a, batch_b = draw(broadcast_shapes(2, 64, 2), label="batch")
    batch_elements = math.prod(np.broadcast_shapes(batch_a, batch_b))
    m, k, n = draw(_inner(batch_elements), label="sizes")
    vector_a, vector_b = draw(st.booleans(), label="A of rank 1"), draw(st.booleans(), label="B of rank 1")
    a_shape = (k,) if vector_a else batch_a + (m, k)
    b_shape = (k,) if vector_b else batch_b + (k, n)
    a = draw(tensors(t.dtype, a_shape, role=_role(t.dtype)), label="A")
    b = draw(tensors(t.dtype, b_shape, role=_role(t.dtype), operand=1), label="B")
    return Probe({"A": a, "B": b}, extra={"terms": k, "magnitude": _magnitude(np.matmul, a, b)})


@st.composite
def _gemm(draw, op, v, t):
    m, k, n = draw(_inner(), label="sizes")
    attrs = {}
    for name in ("transA", "transB"):
        if draw(st.booleans(), label=name):
            attrs[name] = 1
    # an integer Y whose alpha or beta makes it non-integral has no stated rounding: whole numbers there
    plain = [1.0, -1.0, 0.0, 2.0] if values.is_int(t.dtype) else [1.0, 0.5, -1.0, 0.0, 2.0]
    scalars = st.sampled_from(plain) if values.is_int(t.dtype) else st.one_of(st.sampled_from(plain),
                                                                               st.floats(-4, 4, width=32))
    for name in ("alpha", "beta"):
        if draw(st.booleans(), label=f"give {name}"):
            attrs[name] = draw(scalars, label=name)
    role = _role(t.dtype)
    a = draw(tensors(t.dtype, (k, m) if attrs.get("transA") else (m, k), role=role), label="A")
    b = draw(tensors(t.dtype, (n, k) if attrs.get("transB") else (k, n), role=role, operand=1), label="B")
    inputs = {"A": a, "B": b}
    optional = v.schema.inputs[2].option.name == "Optional"
    if not optional or draw(st.booleans(), label="give C"):
        # unidirectional from version 7 ('C should be unidirectional broadcastable to (M, N)'); before,
        # (M, N) itself, or with broadcast = 1 any shape that broadcasts
        c_shape = draw(unidirectional_shape((m, n)), label="C shape")
        if v.has_attribute("broadcast"):
            if c_shape != (m, n):
                attrs["broadcast"] = 1
        inputs["C"] = draw(tensors(t.dtype, c_shape, role=role, operand=2), label="C")
    alpha, beta = abs(attrs.get("alpha", 1.0)), abs(attrs.get("beta", 1.0))
    aa, bb = (a.T if attrs.get("transA") else a), (b.T if attrs.get("transB") else b)
    mag = alpha * _magnitude(np.matmul, aa, bb) + beta * _magnitude(lambda c: c, inputs.get("C", np.zeros(())))
    return Probe(inputs, attrs, extra={"terms": k + 1, "magnitude": mag})


@st.composite
def _matmul_integer(draw, op, v, t):
    batch_a, batch_b = draw(broadcast_shapes(2, 16, 2), label="batch")
    m, k, n = draw(_inner(math.prod(np.broadcast_shapes(batch_a, batch_b))), label="sizes")
    a = draw(tensors(t["T1"], batch_a + (m, k)), label="A")
    b = draw(tensors(t["T2"], batch_b + (k, n), operand=1), label="B")
    inputs = {"A": a, "B": b}
    # 'a_zero_point ... It could be a scalar or N-D tensor ... per-row quantization' (B's per column)
    for name, kind, along in (("a_zero_point", t["T1"], (m,)), ("b_zero_point", t["T2"], (n,))):
        how = draw(st.sampled_from(["none", "tensor", "along"]), label=name)
        if how != "none":
            inputs[name] = draw(tensors(kind, () if how == "tensor" else along, operand=3), label=name)
        elif name == "a_zero_point" and draw(st.booleans(), label="leave a_zero_point empty"):
            inputs[name] = None
    if inputs.get("a_zero_point", 0) is None and "b_zero_point" not in inputs:
        del inputs["a_zero_point"]
    return Probe(inputs)


def _letters(term: str) -> list[str]:
    return [c for c in term.replace("...", "") if c.isalpha()]


@st.composite
def _einsum(draw, op, v, t):
    equation = draw(st.sampled_from(EQUATIONS), label="equation")
    lhs = equation.split("->")[0].split(",")
    letters = sorted({c for term in lhs for c in _letters(term)})
    sizes, room = {}, WORK
    for c in letters:
        sizes[c] = draw(dims(max(1, min(64, room))), label=f"size of {c}")
        room = max(1, room // max(sizes[c], 1))
    ellipsis = [()] * len(lhs)
    if "..." in equation:  # of one rank in every operand: onnx's shape inference refuses fewer dimensions
        drawn = draw(broadcast_shapes(len(lhs), 16, 2), label="...")
        rank = max(len(s) for s in drawn)
        ellipsis = [(1,) * (rank - len(s)) + tuple(s) for s in drawn]
    xs = []
    for i, term in enumerate(lhs):
        shape = tuple(ellipsis[i]) + tuple(sizes[c] for c in _letters(term))
        xs.append(draw(tensors(t.dtype, shape, role=_role(t.dtype), operand=i), label=f"Inputs_{i}"))
    output = equation.split("->")[1] if "->" in equation else None
    kept = set(_letters(output)) if output is not None else {c for c in letters if sum(term.count(c) for term in lhs) == 1}
    terms = math.prod(sizes[c] for c in letters if c not in kept)
    with np.errstate(all="ignore"):
        mag = largest_finite(np.einsum(equation, *[np.abs(np.asarray(x, dtype=np.float64)) for x in xs]))
    return Probe(variadic("Inputs", xs), {"equation": equation}, extra={"terms": terms, "magnitude": mag})
