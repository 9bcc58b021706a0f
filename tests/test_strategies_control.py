"""The control-flow, sequence, string and random strategies draw nodes onnx.checker and the semantics accept, and reach their planted faults.

In process, like tests/test_strategies.py, but in a binding of the corpus's (op.bindings: a sequence's and
its tensors' types paired) instead of float: a few seeded draws of one version of each operator; the toy's
faults of this section within 200 draws; the random operators' cases carry a distribution our own draw fits.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.test_strategies import Hit, _version

# (operator, version, draws, at least this many build)
VERSIONS = [("If", 1, 6, 4), ("If", 25, 6, 4), ("Loop", 11, 6, 4), ("Loop", 25, 6, 4), ("Scan", 8, 6, 4),
            ("Scan", 25, 6, 4), ("SequenceConstruct", 11, 6, 5), ("SequenceAt", 11, 6, 5), ("SequenceEmpty", 11, 4, 1),
            ("SequenceErase", 11, 6, 5), ("SequenceInsert", 11, 6, 5), ("SequenceLength", 11, 6, 5),
            ("SplitToSequence", 24, 6, 4), ("ConcatFromSequence", 11, 6, 4), ("SequenceMap", 17, 6, 4),
            ("Optional", 15, 6, 4), ("OptionalGetElement", 18, 6, 4), ("OptionalHasElement", 18, 6, 4),
            ("RegexFullMatch", 20, 6, 4), ("StringConcat", 20, 6, 5), ("StringNormalizer", 10, 6, 4),
            ("StringSplit", 20, 6, 4), ("TfIdfVectorizer", 9, 6, 5)]
RANDOM = [("RandomUniform", 22), ("RandomNormal", 22), ("RandomUniformLike", 22), ("RandomNormalLike", 1),
          ("Bernoulli", 22), ("Multinomial", 22)]
FAULTS = [("StringSplit", 20, "string_split_long_delimiter_maxsplit", 200), ("Scan", 16, "scan_reverse_axis", 200)]
# operators whose inputs or outputs are sequences or optionals, run by the toy with every fault it can plant in process
CONTAINERS = [("SequenceInsert", 11), ("SequenceMap", 17), ("Optional", 15), ("OptionalGetElement", 18),
              ("Identity", 25), ("Loop", 25)]


def _draws(op, v, draws: int, check, binding: int = 0):
    """`check(case, model, feeds)` on each drawn node that builds, in the corpus's binding number `binding`."""
    from onnx_conformance.generators.emit import build_model
    from onnx_conformance.generators.semantics import NotDeterministic, Rejected, Undefined
    from onnx_conformance.harness.strategies import family_of
    from onnx_conformance.harness.strategies.common import Discard, steady_draws

    family, why = family_of(op, v)
    assert family is not None, why
    t = op.bindings(v)[binding]
    built = []

    @settings(database=None, max_examples=draws, deadline=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def draw(data):
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


@pytest.mark.parametrize("name, since, draws, least", VERSIONS, ids=[f"{n}-{s}" for n, s, _, _ in VERSIONS])
def test_most_draws_build(name, since, draws, least):
    """Seeded draws: most are valid nodes with an expected value for every output the node names."""
    op, v = _version(name, since)

    def check(case, model, feeds):
        named = [o for o in model.graph.node[-1].output if o]
        assert len([x for x in case.outputs.values() if x is not None]) == len(named), (name, case.outputs)

    built = _draws(op, v, draws, check)
    assert len(built) >= least, (name, since, len(built))


@pytest.mark.parametrize("name, since", RANDOM, ids=[f"{n}-{s}" for n, s in RANDOM])
def test_random_cases_are_judged_on_their_distribution(name, since):
    """A random operator's drawn case carries a distribution, and our own example draw fits it (a wrong
    spec, a probability list that does not tile the output, would fail it)."""
    from onnx_conformance.harness import distribution

    op, v = _version(name, since)
    seen = []

    def check(case, model, feeds):
        spec = case.tolerance["distribution"]
        ours = case.outputs["output"]
        status, detail, _ = distribution.check(np.asarray(ours), spec)
        assert status == "pass", (name, detail)
        seen.append(spec["kind"])

    _draws(op, v, 6, check, binding=len(op.bindings(v)) - 1)
    assert len(seen) >= 4, (name, seen)


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


@pytest.mark.parametrize("name, since, fault, draws", FAULTS, ids=[f[2] for f in FAULTS])
def test_reaches_planted_fault(name, since, fault, draws):
    """Within `draws` seeded draws one node makes the toy answer wrong and the exact backend right."""
    from onnx_conformance.generators.protos import plain
    from onnx_conformance.harness.backends.exact import ExactAdapter
    from tests.toybackends.planted import Planted

    op, v = _version(name, since)
    toy, exact = Planted({"fault": fault}), ExactAdapter({})

    def check(case, model, feeds):
        raw = model.SerializeToString()
        values = [plain(x) for _, x in feeds]  # a sequence is fed as a list, an optional as its value or None
        expected = [x for x in case.outputs.values() if x is not None]
        got = toy.run(toy.prepare_checked("", raw), values)
        if not all(_same(a, b) for a, b in zip(got, expected)):
            assert all(_same(a, b) for a, b in zip(exact.run(exact.prepare_checked("", raw), values), expected))
            raise Hit()

    with pytest.raises(Hit), np.errstate(all="ignore"):
        _draws(op, v, draws, check)


def _same_value(a, b) -> bool:
    """Two runtime values alike: tensors by _same, sequences item by item, empty optionals both None."""
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(_same_value, a, b))
    if a is None or b is None:
        return a is None and b is None
    return _same(a, b)


@pytest.mark.parametrize("name, since", CONTAINERS, ids=[f"{n}-{s}" for n, s in CONTAINERS])
def test_toy_takes_sequences_and_optionals(name, since):
    """The toy takes a drawn node's sequences (lists) and optionals (a value or None) as the exact backend
    does, with every fault it plants set, and answers as the exact backend where none applies (its
    dimension checks once read np.shape over a list of differently shaped tensors)."""
    from onnx_conformance.generators.protos import plain
    from onnx_conformance.harness.backends.exact import ExactAdapter
    from tests.toybackends.planted import NODE_FAULTS, Planted

    op, v = _version(name, since)
    toy = Planted({"fault": ",".join(["prime_dims", "deep_reduce", "many_splits", *NODE_FAULTS])})
    exact = ExactAdapter({})
    binding = next(i for i, t in enumerate(op.bindings(v)) if any("(" in x for x in t.values()))
    ran = []

    def check(case, model, feeds):
        raw = model.SerializeToString()
        values = [plain(x) for _, x in feeds]
        got = toy.run(toy.prepare_checked("", raw), values)
        assert all(map(_same_value, got, exact.run(exact.prepare_checked("", raw), values))), (name, got)
        ran.append(case)

    _draws(op, v, 6, check, binding=binding)
    assert len(ran) >= 3, (name, len(ran))
