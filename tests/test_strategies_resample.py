"""The resampling and image strategies draw nodes onnx.checker and the semantics accept, in every version, and reach their planted fault.

As tests/test_strategies.py: in process, the toy (tests/toybackends/planted.py) on the drawn model; no
executor, no shrinking, float bindings.
"""

from __future__ import annotations

import numpy as np
import pytest

from onnx_conformance.generators.ops import all_operators
from onnx_conformance.generators.spec import versions
from tests.test_strategies import Hit, _draws, _version

# ImageDecoder's draws are tests/test_strategies_image_decoder.py's
OPERATORS = ("Resize", "Upsample", "GridSample", "AffineGrid", "NonMaxSuppression", "RoiAlign", "MaxRoiPool",
             "MaxUnpool", "Col2Im", "CenterCropPad", "DeformConv", "CausalConvWithState")
DRAWS = 8  # per version
NOT_DRAWN = {("Upsample", 10): "deprecated"}  # what covers says, in a word

# (operator version, planted fault, draws allowed)
# 400: once empty shapes became rarer (issue 30), 200 to 350 seeded draws met scales below 0.5 only where a
# tf_crop_and_resize roi or an empty input left no output to be wrong; met at the 63rd of 400
FAULTS = [("Resize", 19, "resize_scale_below_half", 400)]


def _all():
    return [(n, v.since_version) for n in OPERATORS for v in versions(n, all_operators()[n].domain)]


def _covered():
    return [key for key in _all() if key not in NOT_DRAWN]


def test_every_version_but_one_is_drawn():
    """Every version has a strategy but Upsample-10, which says why (ImageDecoder's is image_decoder.py's)."""
    from onnx_conformance.harness.strategies import family_of

    missing = {}
    for name, since in _all():
        op, v = _version(name, since)
        family, why = family_of(op, v)
        if family is None:
            missing[(name, since)] = why
    assert sorted(missing) == sorted(NOT_DRAWN)
    for key, word in NOT_DRAWN.items():
        assert word in missing[key], missing[key]


@pytest.mark.parametrize("name, since", _covered(), ids=[f"{n}-{s}" for n, s in _covered()])
def test_most_draws_build(name, since):
    """DRAWS seeded draws of each version: at least half are valid nodes with every output expected."""
    op, v = _version(name, since)
    built = _draws(op, v, DRAWS, lambda t, case, model, feeds: None)
    assert len(built) >= DRAWS // 2, (name, since, len(built))
    assert all(x is not None for case in built for x in case.outputs.values())


@pytest.mark.parametrize("name, since, fault, draws", FAULTS, ids=[f[2] for f in FAULTS])
def test_strategy_reaches_its_planted_fault(name, since, fault, draws):
    """Within `draws` seeded draws one node makes the toy answer wrong, where the exact backend answers as
    the semantics do."""
    from onnx_conformance.harness.backends.exact import ExactAdapter
    from tests.toybackends.planted import Planted

    op, v = _version(name, since)
    toy, exact = Planted({"fault": fault}), ExactAdapter({})

    def check(t, case, model, feeds):
        raw = model.SerializeToString()
        inputs = [x for _, x in feeds]
        expected = [x for x in case.outputs.values() if x is not None]
        if any(not np.array_equal(a, b, equal_nan=True)
               for a, b in zip(toy.run(toy.prepare_checked("", raw), inputs), expected)):
            for a, b in zip(exact.run(exact.prepare_checked("", raw), inputs), expected):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
            raise Hit()

    with pytest.raises(Hit), np.errstate(all="ignore"):
        _draws(op, v, draws, check)
