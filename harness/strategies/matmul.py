"""Matrix products: MatMul (ranks 1 to 4, batch dimensions broadcast), Gemm (transA, transB, alpha, beta, C broadcast), MatMulInteger (zero points per tensor, row or column), Einsum (equation templates) and Det (batches of matrices up to 8 x 8, singular ones too).

The inner dimension is drawn like any other (1 to 4, or a size around a vector width or a tile:
31, 32, 33, 64, 127, ...), so a kernel's remainder loop is reached. The tolerance is the corpus's,
grown to an accumulation over the inner dimension with this data's largest sum of |terms|
(accuracy.accumulation: 'the spec names no accumulation order or type'); integer products are exact,
drawn from 0, 1 and -1 (the `sparse` values) so no sum leaves the type. Det's matrices are general,
singular (a row the sum of two others, or repeated: the exact determinant is 0), triangular, or of small
integers; 'the spec names no algorithm', so its tolerance is a backward-error bound of an elimination
with partial pivoting: an absolute DET_SLACK * n^3 * eps times the Hadamard bound (the product of the
rows' lengths), never less than the corpus's (pivot growth taken as at most n: Wilkinson's 2^(n-1) needs
contrived matrices these draws do not make).
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
    element_values,
    grown,
    largest_finite,
    shapes,
    tensors,
    unidirectional_shape,
)

DET_SLACK = 4
DET_ELEMENTS = 512  # Det's X, at most: the exact determinant eliminates with Fractions
WORK = 8192  # multiply-adds of the exact semantics (Fractions), at most: about 50 ms
MATRIX = 4097  # elements of an operand, at most

# Einsum equations: (equation, the terms' letters as operands use them), the spec's own examples first
EQUATIONS = ("ij,jk->ik", "ij->ji", "ij->i", "...ii->...i", "i,i", "bij,bjk->bik", "kb,ak", "i,j->ij",
             "ij,ij->ij", "ii->i", "ii", "ijk->kji", "bhqd,bhkd->bhqk", "...ij,...jk->...ik", "ij->", "ab,b->a")


class MatMul(Family):
    name = "matrix products"
    operators = ("MatMul", "Gemm", "MatMulInteger", "Einsum", "Det")

    def strategy(self, op, v, t):
        return {"MatMul": _matmul, "Gemm": _gemm, "MatMulInteger": _matmul_integer, "Einsum": _einsum,
                "Det": _det}[op.name](op, v, t)

    def case(self, op, v, t, probe):
        try:
            case = super().case(op, v, t, probe)
        except OverflowError:  # linalg_family's exact sum: a Fraction past float's range meeting an infinity
            raise Discard("the semantics' exact sum overflows float beside an infinity") from None
        if "terms" in probe.extra:
            case.tolerance = grown(case.tolerance, t.dtype, probe.extra["terms"], probe.extra["magnitude"])
        if op.name == "Det":
            case.tolerance = _det_tolerance(case.tolerance, t.dtype, probe.inputs["X"])
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
    if "b_zero_point" in inputs and "a_zero_point" not in inputs:  # B's zero point in its own slot, A's left empty
        inputs = {"A": a, "B": b, "a_zero_point": None, "b_zero_point": inputs["b_zero_point"]}
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


@st.composite
def _det(draw, op, v, t):
    n = draw(st.one_of(st.integers(1, 4), st.sampled_from([0, 5, 7, 8])), label="M")
    batch = draw(shapes(0, 3, max(1, DET_ELEMENTS // max(n * n, 1))), label="batch")
    kind = draw(st.sampled_from(["general", "singular", "triangular", "integers"]), label="matrices")
    shape = batch + (n, n)
    if kind == "integers":
        x = draw(tensors(t.dtype, shape, elements=st.integers(-3, 3).map(float).map(
            lambda f, d=t.dtype: _storage_of(f, d))), label="X")
    else:
        x = draw(tensors(t.dtype, shape, elements=element_values(t.dtype, edge_values=False)), label="X")
    x = x.copy()
    if kind == "triangular" and n:
        x[..., np.tril_indices(n, -1)[0], np.tril_indices(n, -1)[1]] = 0
    if kind == "singular" and n >= 2:
        i, j = draw(st.permutations(range(n)), label="rows")[:2]
        if n >= 3 and draw(st.booleans(), label="a sum of two rows"):
            k = draw(st.sampled_from([r for r in range(n) if r not in (i, j)]), label="third row")
            with np.errstate(all="ignore"):  # the sum rounded to the type: the exact determinant is then near 0
                x[..., i, :] = (x[..., j, :].astype(np.float64) + x[..., k, :].astype(np.float64)).astype(x.dtype)
        else:
            x[..., i, :] = x[..., j, :]
    return Probe({"X": x})


def _storage_of(f: float, type_name: str):
    from onnx_conformance.harness.strategies.common import _bits

    return _bits([f], type_name)[0]


def _det_tolerance(corpus: dict | None, type_name: str, x) -> dict | None:
    """The corpus's tolerance, and at least the absolute error an elimination with partial pivoting may
    make: DET_SLACK * n^3 * eps * the Hadamard bound of each matrix."""
    from onnx_conformance.generators.accuracy import EPSILON

    x = np.asarray(x, dtype=np.float64)
    n = x.shape[-1]
    if type_name not in EPSILON or not x.size or not n:
        return corpus
    with np.errstate(all="ignore"):
        hadamard = float(np.max(np.prod(np.linalg.norm(x, axis=-1), axis=-1)))
    if not math.isfinite(hadamard):
        raise Discard("the matrix's Hadamard bound leaves float64: no useful error bound")
    out = dict(corpus or {})
    out["atol"] = max(out.get("atol", 0.0), DET_SLACK * n**3 * EPSILON[type_name] * hadamard)
    return out
