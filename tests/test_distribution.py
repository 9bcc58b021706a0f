"""The distribution verdict on random operators (harness/distribution.py): unit checks of each
distribution, then the real runner over generated random cases with onnxruntime and two toys
whose uniform is twice as wide and whose normal is 25% too wide."""

from __future__ import annotations

import numpy as np
import pytest

from onnx_conformance.harness.compare import compare_outputs
from onnx_conformance.harness.distribution import ALPHA, check
from tests.conftest import read_jsonl, run_cli

RANDOM_OPS = ["RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike", "Bernoulli", "Multinomial"]
WIDE_UNIFORM = "tests.toybackends.skewed_random:WideUniform"
WIDE_NORMAL = "tests.toybackends.skewed_random:WideNormal"
# onnxruntime 1.31.1 findings, kept as they are (the oracle is the spec's text, not the runtime):
# its Bernoulli answers 1 with probability 1 - p (the schema's function body, Greater(X_random,
# input), against the text "an output of 1 is produced with probability p"), and it refuses a
# float16 RandomUniformLike/RandomNormalLike-1 model with an invalid graph of its own making.
ORT_FINDINGS = {"Bernoulli": ("fail", "impossible"), "float16_like_opset1": ("error", "InsertedPrecisionFreeCast")}


def rng():
    return np.random.default_rng(20260)


# ---------------------------------------------------------------------------------------------
# unit checks, one distribution at a time


def test_uniform_accepts_a_uniform_draw_and_names_the_statistic():
    x = rng().uniform(-2.5, 4.0, 10_000).astype(np.float32)
    status, detail, bad = check(x, {"kind": "uniform", "low": -2.5, "high": 4.0})
    assert status == "pass" and bad == 0
    assert "Kolmogorov-Smirnov" in detail and "D = " in detail and "p = " in detail


def test_uniform_twice_as_wide_fails_on_values_outside_the_range():
    x = rng().uniform(0.0, 2.0, 10_000).astype(np.float32)
    status, detail, bad = check(x, {"kind": "uniform", "low": 0.0, "high": 1.0})
    assert status == "fail" and bad > 4000
    assert "outside [0, 1)" in detail


def test_uniform_inside_the_range_but_skewed_fails_the_ks_test():
    x = rng().uniform(0.0, 1.0, 10_000) ** 1.3
    status, detail, _ = check(x, {"kind": "uniform", "low": 0.0, "high": 1.0})
    assert status == "fail" and "Kolmogorov-Smirnov" in detail


def test_uniform_accepts_high_as_the_rounding_of_a_draw_just_below_it():
    x = rng().uniform(0.0, 1.0, 10_000).astype(np.float16)
    x[0] = 1.0  # 0.99997 in float16
    assert check(x, {"kind": "uniform", "low": 0.0, "high": 1.0})[0] == "pass"


def test_normal_accepts_a_normal_draw_and_fails_a_scale_25_percent_too_large():
    good = rng().normal(-2.0, 3.0, 10_000).astype(np.float32)
    assert check(good, {"kind": "normal", "mean": -2.0, "scale": 3.0})[0] == "pass"
    wide = rng().normal(-2.0, 3.75, 10_000).astype(np.float32)
    status, detail, _ = check(wide, {"kind": "normal", "mean": -2.0, "scale": 3.0})
    assert status == "fail" and "D = " in detail


def test_normal_rejects_non_finite_values():
    x = rng().normal(0.0, 1.0, 100)
    x[7] = np.nan
    status, detail, bad = check(x, {"kind": "normal", "mean": 0.0, "scale": 1.0})
    assert status == "fail" and bad == 1 and "flat index 7" in detail


def test_bernoulli_exact_binomial_per_probability():
    p = np.tile([0.0, 0.1, 0.5, 1.0], 2500)
    good = (rng().random(p.size) < p).astype(np.float32)
    status, detail, _ = check(good, {"kind": "bernoulli", "p": [0.0, 0.1, 0.5, 1.0]})
    assert status == "pass" and "binomial p-value" in detail
    # 1 with probability 1 - p: p = 0 gives 1, an impossible value
    flipped = (rng().random(p.size) < 1 - p).astype(np.float32)
    status, detail, bad = check(flipped, {"kind": "bernoulli", "p": [0.0, 0.1, 0.5, 1.0]})
    assert status == "fail" and bad > 0 and "impossible" in detail
    # the same flip where no probability is 0 or 1 is caught by the binomial test
    q = np.tile([0.1, 0.5], 5000)
    flipped = (rng().random(q.size) < 1 - q).astype(np.float32)
    status, detail, _ = check(flipped, {"kind": "bernoulli", "p": [0.1, 0.5]})
    assert status == "fail" and "binomial" in detail


def test_bernoulli_values_are_0_or_1():
    status, detail, bad = check(np.array([0, 1, 2, 1], np.int32), {"kind": "bernoulli", "p": [0.5]})
    assert status == "fail" and bad == 1 and "{0, 1}" in detail


def test_an_empty_draw_has_no_value_to_judge_but_its_shape_and_type():
    """A zero-sized Bernoulli input (its spec's p is then []) draws an empty output of its shape: a verdict,
    not an exception; so do Multinomial's batch_size 0 and sample_size 0."""
    assert check(np.zeros((0, 3), np.float32), {"kind": "bernoulli", "p": []}) == ("pass", "no values", 0)
    assert check(np.zeros(0, np.int32), {"kind": "bernoulli", "p": [0.5]})[0] == "pass"
    assert check(np.zeros((0, 4), np.int64), {"kind": "multinomial", "p": []}) == ("pass", "no values", 0)
    assert check(np.zeros((2, 0), np.int32), {"kind": "multinomial", "p": [[0.5, 0.5], [1.0, 0.0]]})[0] == "pass"
    with pytest.raises(ValueError, match="0 probabilities do not tile 4 values"):  # a broken case stays an error
        check(np.zeros(4, np.float32), {"kind": "bernoulli", "p": []})
    tolerance = {"distribution": {"kind": "bernoulli", "p": []}}
    e = np.zeros((2, 0), np.float32)
    assert compare_outputs([e], [np.zeros((2, 0), np.float32)], tolerance).status == "pass"
    assert "shape (0, 2) != expected (2, 0)" in compare_outputs([e], [np.zeros((0, 2), np.float32)], tolerance).detail
    assert "dtype double != expected float" in compare_outputs([e], [np.zeros((2, 0))], tolerance).detail


def test_multinomial_chi_square_per_row():
    probs = [[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]]
    r = rng()
    good = np.array([r.choice(4, 2000, p=p) for p in probs], np.int32)
    status, detail, _ = check(good, {"kind": "multinomial", "p": probs})
    assert status == "pass" and "chi-square" in detail
    reversed_ = np.array([r.choice(4, 2000, p=p[::-1]) for p in probs], np.int32)
    assert check(reversed_, {"kind": "multinomial", "p": probs})[0] == "fail"
    outside = good.copy()
    outside[1, 3] = 4
    status, detail, bad = check(outside, {"kind": "multinomial", "p": probs})
    assert status == "fail" and bad == 1 and "row 1" in detail


def test_multinomial_a_class_of_probability_zero_is_impossible():
    x = np.array([[0, 1, 1, 2]], np.int64)
    status, _, bad = check(x, {"kind": "multinomial", "p": [[0.5, 0.5, 0.0]]})
    assert status == "fail" and bad == 1


def test_shape_and_type_are_checked_exactly_before_the_distribution():
    spec = {"kind": "uniform", "low": 0.0, "high": 1.0}
    e = np.zeros((10, 10), np.float32)
    x = rng().uniform(0, 1, (10, 10))
    tolerance = {"distribution": spec}
    assert "dtype double != expected float" in compare_outputs([e], [x], tolerance).detail
    assert "shape (100,) != expected (10, 10)" in compare_outputs([e], [x.astype(np.float32).reshape(-1)], tolerance).detail
    assert "output 0 is a list of 1, expected a float tensor" in compare_outputs([e], [[1.0]], tolerance).detail
    assert compare_outputs([e], [x.astype(np.float32)], tolerance).status == "pass"


def test_compare_outputs_dispatches_on_a_distribution_tolerance():
    e = np.zeros(1000, np.float32)
    x = rng().uniform(0, 1, 1000).astype(np.float32)
    assert compare_outputs([e], [x], None).status == "fail"  # values compared: nothing matches
    assert compare_outputs([e], [x], {"distribution": {"kind": "uniform", "low": 0, "high": 1}}).status == "pass"


def test_threshold_is_one_in_a_million():
    assert ALPHA == 1e-6


def test_unknown_kind_is_an_error_not_a_pass():
    with pytest.raises(ValueError):
        check(np.zeros(3), {"kind": "poisson"})


# ---------------------------------------------------------------------------------------------
# the real runner over generated random cases


@pytest.fixture(scope="module")
def random_corpus(tmp_path_factory):
    from onnx_conformance.generators.emit import generate_corpus

    out = tmp_path_factory.mktemp("random")
    index = generate_corpus(out, RANDOM_OPS, jobs=1, crosscheck=False)
    return out, index


def _run(backend: str, corpus, report, *extra) -> dict:
    run_cli("--backend", backend, "--cases", str(corpus), "--report-dir", str(report), *extra,
            cwd=report.parent, timeout=600)
    return {r["case"]: r for r in read_jsonl(report / "results.jsonl")}


def test_every_random_case_carries_a_distribution(random_corpus):
    _, index = random_corpus
    for name, meta in index["cases"].items():
        if meta["kind"] == "expect-output":
            assert "distribution" in (meta["tolerance"] or {}), name


def test_onnxruntime_passes_every_random_case_it_runs(random_corpus, tmp_path):
    corpus, index = random_corpus
    results = _run("onnxruntime", corpus, tmp_path / "ort")
    ran = 0
    for name, r in results.items():
        meta = index["cases"][name]
        if meta["kind"] != "expect-output" or r["status"] == "unsupported":
            continue
        ran += 1
        if meta["op"] == "Bernoulli":
            want = ORT_FINDINGS["Bernoulli"]
        elif meta["op"].endswith("Like") and meta["opset"] == 1 and meta["types"]["T1"] == "float16":
            want = ORT_FINDINGS["float16_like_opset1"]
        else:
            assert r["status"] == "pass", (name, r.get("detail"))
            continue
        assert r["status"] == want[0] and want[1] in r["detail"], (name, r.get("detail"))
    assert ran >= 100


def test_a_uniform_twice_as_wide_fails_on_values_outside_low_high(random_corpus, tmp_path):
    corpus, _ = random_corpus
    results = _run(WIDE_UNIFORM, corpus, tmp_path / "wide", "--op", "RandomUniform", "--op", "RandomNormal")
    uniform = {n: r for n, r in results.items() if n.startswith("test_random_uniform_") and "dtype_not" not in n}
    normal = {n: r for n, r in results.items() if n.startswith("test_random_normal_") and "dtype_not" not in n}
    assert uniform and normal
    for name, r in uniform.items():
        assert r["status"] == "fail" and "values outside [" in r["detail"], (name, r.get("detail"))
    for name, r in normal.items():  # the toy's normal is right
        assert r["status"] == "pass", (name, r.get("detail"))


def test_a_normal_25_percent_too_wide_fails_on_the_ks_statistic(random_corpus, tmp_path):
    corpus, index = random_corpus
    results = _run(WIDE_NORMAL, corpus, tmp_path / "wide", "--op", "RandomNormal", "--op", "RandomNormalLike")
    # the 10,000-value draws (an input type other than the output's gets 1,000: too few to see 25%)
    normal = {n: r for n, r in results.items() if "dtype_not" not in n
              and index["cases"][n]["types"].get("T1", "") == index["cases"][n]["types"].get("T2", "")}
    assert normal
    for name, r in normal.items():
        assert r["status"] == "fail" and "Kolmogorov-Smirnov" in r["detail"] and "D = " in r["detail"], \
            (name, r.get("detail"))


def test_multinomial_with_few_draws_checks_only_what_is_possible():
    """One draw of a class of probability 0.03 is no evidence against a correct backend."""
    probs = [[0.03, 0.6, 0.14, 0.23]]
    status, detail, _ = check(np.array([[0]], np.int64), {"kind": "multinomial", "p": probs})
    assert status == "pass" and "too few" in detail
    # 200 draws: the 0.03 class expected 6 times, drawn 12: within chance at p < 1e-6
    draws = np.array([[0] * 12 + [1] * 110 + [2] * 30 + [3] * 48], np.int64)
    assert check(draws, {"kind": "multinomial", "p": probs})[0] == "pass"
