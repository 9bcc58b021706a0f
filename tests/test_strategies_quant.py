"""The quantization, generator, bit and remaining strategies draw nodes onnx.checker and the semantics accept, and reach their planted faults.

As tests/test_strategies.py, on quant.py, generators.py, bits.py and the operators added to indexing.py,
shape.py and matmul.py; the draws here bind every type the version allows (not only float).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.test_strategies import Hit, _version

FAULTS = [
    ("QuantizeLinear", 21, "quantize_short_block", 200),
    ("Unique", 11, "unique_many_values", 200),
]


@pytest.mark.parametrize("name, since, fault, draws", FAULTS, ids=[f[2] for f in FAULTS])
def test_strategy_reaches_its_planted_fault(name, since, fault, draws):
    """Within `draws` seeded draws one node makes the toy answer wrong where the exact backend answers
    as the semantics do."""
    from onnx_conformance.harness.backends.exact import ExactAdapter
    from tests.toybackends.planted import Planted

    op, v = _version(name, since)
    toy, exact = Planted({"fault": fault}), ExactAdapter({})

    def check(t, case, model, feeds):
        raw = model.SerializeToString()
        values = [x for _, x in feeds]
        expected = [x for x in case.outputs.values() if x is not None]
        if not all(_same(a, b) for a, b in zip(toy.run(toy.prepare_checked("", raw), values), expected)):
            assert all(_same(a, b) for a, b in zip(exact.run(exact.prepare_checked("", raw), values), expected))
            raise Hit()

    with pytest.raises(Hit):
        _built(op, v, draws, check)


def _same(a, b) -> bool:
    """Equal values of equal shape (NaN equal to NaN; strings as they are)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == object or b.dtype == object:
        return a.shape == b.shape and a.tolist() == b.tolist()
    return np.array_equal(a.astype(np.float64), b.astype(np.float64), equal_nan=True)


def _built(op, v, draws: int, check=None) -> int:
    """How many of `draws` seeded draws, in any binding the version allows (the primary type is not
    fixed: QuantizeLinear's is its output's), make a node the semantics answer and onnx.checker accepts;
    `check(t, case, model, feeds)` on each."""
    from onnx_conformance.generators.emit import build_model
    from onnx_conformance.generators.semantics import NotDeterministic, Rejected, Undefined
    from onnx_conformance.harness.strategies import family_of
    from onnx_conformance.harness.strategies.bindings import bindings
    from onnx_conformance.harness.strategies.common import Discard, steady_draws

    family, why = family_of(op, v)
    assert family is not None, why
    built = []

    @settings(database=None, max_examples=draws, deadline=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def draw(data):
        t = data.draw(bindings(op, v))
        probe = data.draw(family.probes(op, v, t))
        try:
            case = family.case(op, v, t, probe)
        except (Rejected, Undefined, NotDeterministic, Discard):
            return
        model, feeds = build_model(op, v, v.last_opset, case, "x")
        onnx.checker.check_model(model, full_check=True)  # a refused model here is the strategy's bug
        assert all(x is not None for x in case.outputs.values()) or op.name == "Identity", case.outputs
        built.append(case)
        if check is not None:
            check(t, case, model, feeds)

    with np.errstate(all="ignore"), steady_draws():  # as explore-cases draws: the same in every process
        draw()
    return len(built)


@pytest.mark.parametrize("name, since", [
    ("QuantizeLinear", 25), ("DequantizeLinear", 28), ("DynamicQuantizeLinear", 11), ("QLinearMatMul", 21),
    ("QLinearConv", 10), ("ConvInteger", 10), ("Constant", 25), ("ConstantOfShape", 25), ("EyeLike", 22),
    ("NonZero", 13), ("Scatter", 9), ("TensorScatter", 24), ("Identity", 25), ("Tile", 1), ("CumProd", 26),
    ("Det", 22), ("BitCast", 26)])
def test_most_draws_build(name, since):
    """12 seeded draws in any binding: at least a third are valid nodes (BitCast's binding of two widths
    and the spec's undefined results discard the rest), and none is refused by onnx.checker."""
    op, v = _version(name, since)
    assert _built(op, v, 12) >= 4, name


def test_scatter_11_is_not_drawn():
    """Scatter-11 is deprecated: no strategy, and the reason says so."""
    from onnx_conformance.harness.strategies import family_of

    op, v = _version("Scatter", 11)
    family, why = family_of(op, v)
    assert family is None and "deprecated" in why
