"""The recurrent, attention and signal strategies draw nodes onnx.checker and the semantics accept, and reach their planted faults.

In process, as tests/test_strategies.py (whose draw loop and fault check this file runs): a few seeded
draws of one version of each operator, float; the toy's faults of this section within 200 draws.
"""

from __future__ import annotations

import pytest

from tests.test_strategies import _draws, _version
from tests.test_strategies import test_strategy_reaches_its_planted_fault as reaches

# (operator, version, draws, at least this many build): one version of each operator the three modules draw
VERSIONS = [("RNN", 7, 10, 7), ("GRU", 3, 10, 7), ("LSTM", 14, 10, 7), ("Attention", 24, 10, 5),
            ("LinearAttention", 27, 10, 7), ("RotaryEmbedding", 23, 10, 7), ("FlexAttention", 1, 6, 4),
            ("DFT", 17, 10, 7), ("DFT", 20, 10, 7), ("STFT", 17, 6, 4), ("HannWindow", 17, 10, 7),
            ("BlackmanWindow", 17, 10, 7), ("MelWeightMatrix", 17, 10, 5)]

FAULTS = [("LSTM", 22, "lstm_bidirectional_short_layout", 200), ("DFT", 20, "dft_prime_length", 200)]


@pytest.mark.parametrize("name, since, draws, least", VERSIONS, ids=[f"{n}-{s}" for n, s, _, _ in VERSIONS])
def test_most_draws_build(name, since, draws, least):
    """Seeded draws: most are valid nodes with an expected value for every output they ask for."""
    op, v = _version(name, since)

    def check(t, case, model, feeds):
        asked = [x for x in case.outputs.values() if x is not None]
        assert asked and len(asked) == len([o for o in model.graph.node[-1].output if o]), (name, case.outputs)

    built = _draws(op, v, draws, check)
    assert len(built) >= least, (name, since, len(built))


@pytest.mark.parametrize("name, since, fault, draws", FAULTS, ids=[f[2] for f in FAULTS])
def test_reaches_planted_fault(name, since, fault, draws, tmp_path):
    """Within `draws` seeded draws one node makes the toy answer wrong and the exact backend right."""
    reaches(None, name, since, fault, draws, tmp_path)
