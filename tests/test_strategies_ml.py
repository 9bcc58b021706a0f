"""The classical ML and training strategies draw nodes onnx.checker and the semantics accept, in every type binding, and reach the planted deep-tree fault the corpus never does."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from onnx_conformance.generators.ops import all_operators
from onnx_conformance.generators.spec import versions


class Hit(Exception):
    """The toy answered a drawn node wrong: the fault is reached."""


def _version(name: str, since: int):
    op = all_operators()[name]
    return op, next(v for v in versions(name, op.domain) if v.since_version == since)


def _draws(op, v, draws: int, check, binding_ok=lambda t: True):
    """`check(case, model, feeds)` on each drawn node that builds, in any binding `binding_ok` accepts;
    returns what built."""
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
        if not binding_ok(t):
            return
        probe = data.draw(family.probes(op, v, t))
        try:
            with np.errstate(all="ignore"):
                case = family.case(op, v, t, probe)
        except (Rejected, Undefined, NotDeterministic, Discard):
            return
        model, feeds = build_model(op, v, v.last_opset, case, "x")
        try:
            onnx.checker.check_model(model, full_check=True)
        except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError):
            return
        built.append(case)
        check(case, model, feeds)

    with steady_draws():  # as explore-cases draws: the same in every process
        draw()
    return built


def test_tree_strategy_reaches_the_deep_tree_fault():
    """Within 200 seeded draws a TreeEnsembleRegressor-3 node makes the toy (wrong for a tree deeper than four)
    answer wrong where the exact backend answers as the semantics do."""
    from onnx_conformance.harness.backends.exact import ExactAdapter
    from tests.toybackends.planted import Planted

    op, v = _version("TreeEnsembleRegressor", 3)
    toy, exact = Planted({"fault": "tree_deeper_than_four"}), ExactAdapter({})

    def check(case, model, feeds):
        raw = model.SerializeToString()
        values = [x for _, x in feeds]
        expected = [x for x in case.outputs.values() if x is not None]
        if any(not np.array_equal(a, b, equal_nan=True)
               for a, b in zip(toy.run(toy.prepare_checked("", raw), values), expected)):
            for a, b in zip(exact.run(exact.prepare_checked("", raw), values), expected):
                np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=1e-6)
            raise Hit()

    with pytest.raises(Hit), np.errstate(all="ignore"):
        _draws(op, v, 200, check)


@pytest.mark.parametrize("name, since", [("LabelEncoder", 4), ("CastMap", 1), ("TreeEnsemble", 5),
                                         ("TreeEnsembleClassifier", 3), ("LinearClassifier", 1),
                                         ("SVMClassifier", 1), ("ZipMap", 1), ("Adam", 1), ("Momentum", 1)])
def test_most_draws_build(name, since):
    """16 seeded draws (CastMap's: in a binding with a stated cast): at least half are valid nodes with expected
    outputs (the rest the spec rejects, leaves undefined, or a label would hang on rounding)."""
    from onnx_conformance.generators.ops.cast_map import undefined

    op, v = _version(name, since)
    # CastMap's bindings that cast a string to a number (or back) have no stated value: not counted
    stated = (lambda t: undefined(t) is None) if name == "CastMap" else (lambda t: True)
    built = _draws(op, v, 16, lambda *a: None, stated)
    assert len(built) >= 8, (name, len(built))
    assert all(case.outputs and all(x is not None for x in case.outputs.values()) for case in built)


def test_gradient_says_why_it_is_not_drawn():
    from onnx_conformance.harness.strategies import family_of

    op, v = _version("Gradient", 1)
    family, why = family_of(op, v)
    assert family is None and "graph before its node" in why
