"""Each strategy module draws nodes onnx.checker and the semantics accept, and reaches a planted fault the corpus never does.

Cheap, in-process: no executor, no backend but the toy (tests/toybackends/planted.py) on the drawn
model. A module's faults are searched for with a fixed seed within a few dozen draws;
tests/test_explore.py runs the whole explore-cases search (executors, shrinking, files) for one of them.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from onnx_conformance.generators.ops import all_operators
from onnx_conformance.generators.spec import versions

# (module, operator version, planted fault, draws allowed): one per strategy module this file covers
FAULTS = [
    ("indexing", "Gather", 13, "gather_negative_prime", 200),
    ("shape", "Pad", 18, "pad_crop_edge", 200),
    ("windows", "Conv", 22, "conv_stride", 100),
    ("matmul", "MatMul", 13, "matmul_prime_k", 200),
]


class Hit(Exception):
    """The toy answered a drawn node wrong: the fault is reached."""


def _version(name: str, since: int):
    op = all_operators()[name]
    return op, next(v for v in versions(name, op.domain) if v.since_version == since)


def _draws(op, v, draws: int, check):
    """`check(t, case, model, feeds)` on each drawn node that builds, float only; counts what built."""
    from onnx_conformance.generators.case import Types
    from onnx_conformance.generators.emit import build_model
    from onnx_conformance.generators.semantics import NotDeterministic, Rejected, Undefined
    from onnx_conformance.harness.strategies import family_of
    from onnx_conformance.harness.strategies.bindings import bindings
    from onnx_conformance.harness.strategies.common import Discard, steady_draws

    family, why = family_of(op, v)
    assert family is not None, why
    built = []

    @settings(database=None, max_examples=draws, deadline=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # no shrinking: the first hit is enough here
    @given(st.data())
    def draw(data):
        t = data.draw(bindings(op, v))
        if t.dtype != "float":
            t = Types({**dict(t), t.primary: "float"}, t.primary, t.suffix)
        probe = data.draw(family.probes(op, v, t))
        try:
            with np.errstate(all="ignore"):
                case = family.case(op, v, t, probe)
        except (Rejected, Undefined, NotDeterministic, Discard):
            return
        model, feeds = build_model(op, v, v.last_opset, case, "x")
        try:
            onnx.checker.check_model(model, full_check=True)
        except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError):  # explore-cases discards it too ("refused by onnx.checker")
            return
        built.append(case)
        check(t, case, model, feeds)

    with steady_draws():
        draw()
    return built


@pytest.mark.parametrize("module, name, since, fault, draws", FAULTS, ids=[f[3] for f in FAULTS])
def test_strategy_reaches_its_planted_fault(module, name, since, fault, draws, tmp_path):
    """Within `draws` seeded draws the strategy builds valid nodes (most of them), and one of them makes
    the toy answer wrong where the exact backend answers as the semantics do."""
    from onnx_conformance.harness.backends.exact import ExactAdapter
    from tests.toybackends.planted import Planted

    op, v = _version(name, since)
    toy, exact = Planted({"fault": fault}), ExactAdapter({})

    def check(t, case, model, feeds):
        raw = model.SerializeToString()
        values = [x for _, x in feeds]
        expected = [x for x in case.outputs.values() if x is not None]
        if any(not np.array_equal(a, b, equal_nan=True)
               for a, b in zip(toy.run(toy.prepare_checked("", raw), values), expected)):
            for a, b in zip(exact.run(exact.prepare_checked("", raw), values), expected):
                np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=1e-6)
            raise Hit()

    with pytest.raises(Hit), np.errstate(all="ignore"):
        _draws(op, v, draws, check)


@pytest.mark.parametrize("name, since", [("GatherND", 13), ("ScatterND", 18), ("ScatterElements", 18),
                                         ("OneHot", 11), ("TopK", 24), ("Reshape", 21), ("Squeeze", 13),
                                         ("CumSum", 14), ("ConvTranspose", 22), ("MaxPool", 22), ("Gemm", 13),
                                         ("Einsum", 12)])
def test_most_draws_build(name, since):
    """30 seeded draws: at least half are valid nodes (the rest the spec rejects or leaves undefined)."""
    op, v = _version(name, since)
    built = _draws(op, v, 30, lambda *a: None)
    assert len(built) >= 15, (name, len(built))
