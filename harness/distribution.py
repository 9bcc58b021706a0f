"""The verdict on random operators: not the values drawn, but whether they could come from the distribution.

A random operator's (RandomUniform, RandomNormal, Bernoulli, Multinomial, ...) values cannot be
compared: the spec promises nothing about them, not even across runs with the same seed. What it
does promise is their distribution, so a case whose tolerance is {"distribution": {...}} is
judged here instead of value by value:

1. the output count, every shape and every type exactly, as for any case (harness/compare.py,
   which owns a case's tolerance and hands the judged output here);
2. every value possible: inside [low, high] for uniform (high itself only as the rounding of a
   draw just below it to the output type), finite for normal, 0 or 1 for Bernoulli (and exactly
   0 where p = 0, 1 where p = 1), a class of probability > 0 for Multinomial;
3. a goodness-of-fit test, failing at p < ALPHA (1e-6, Bonferroni-corrected where one case makes
   several tests): Kolmogorov-Smirnov for uniform and normal, an exact two-sided binomial test per
   distinct probability for Bernoulli, Pearson's chi-square per row for Multinomial (classes
   expected fewer than 5 times pooled; a row with too few draws for two such bins is checked for
   possible values only).

So a correct backend fails such a case about once in a million runs; a backend drawing from the
wrong distribution (a uniform twice as wide, a normal 25% too wide over 10,000 values) fails
every time. The detail of a pass or a fail gives the statistic and its p-value.

The specs ({"kind": ...}):
  {"kind": "uniform", "low": l, "high": h}
  {"kind": "normal", "mean": m, "scale": s}
  {"kind": "bernoulli", "p": [p0, p1, ...]}  output element i (C order) is 1 with probability
      p[i % len(p)] (an empty output, the draw of an empty input, has no value to judge: p may be [])
  {"kind": "multinomial", "p": [[...], ...]}  row b of the [batch, sample_size] output holds
      draws of a class index with probabilities p[b]
The spec applies to output "output" (default 0); every other output is compared as usual.
scipy is imported when such a case is judged, or ahead of it by warm_up().
"""

from __future__ import annotations

import math

import numpy as np

ALPHA = 1e-6
KINDS = ("uniform", "normal", "bernoulli", "multinomial")


def warm_up() -> None:
    """Import what the tests take (scipy.stats: ~0.5 s of an executor's CPU) ahead of the first
    random case; executor processes do it while they have no case to run."""
    from scipy import stats  # noqa: F401


def check(values: np.ndarray, spec: dict, type_name: str = "float") -> tuple[str, str, int]:
    """(status, detail, count of impossible values) for one drawn tensor against `spec`; the tensor's
    shape and type are compare.compare_outputs' to check, as for any output."""
    kind = spec.get("kind")
    if kind not in KINDS:
        raise ValueError(f"unknown distribution kind {kind!r} (know {', '.join(KINDS)})")
    return {"uniform": _uniform, "normal": _normal, "bernoulli": _bernoulli,
            "multinomial": _multinomial}[kind](values, spec, type_name)


def _as_float(values: np.ndarray) -> np.ndarray:
    return values.astype(np.float64).reshape(-1)


def _verdict(p: float, alpha: float = ALPHA) -> str:
    return "pass" if p >= alpha else "fail"


def _impossible(x: np.ndarray, bad: np.ndarray, what: str) -> tuple[str, str, int]:
    count = int(np.count_nonzero(bad))
    first = int(np.argmax(bad))
    return "fail", f"{count} of {x.size} values outside {what}; first at flat index {first}: {x[first]!r}", count


def _uniform(values, spec, type_name):
    from scipy import stats

    low, high = float(spec["low"]), float(spec["high"])
    x = _as_float(values)
    # high itself is what a draw just below it rounds to in a narrower output type
    bad = ~((x >= low) & (x <= high))
    if bad.any():
        return _impossible(x, bad, f"[{low:g}, {high:g})")
    if x.size == 0:
        return "pass", "no values", 0
    r = stats.kstest(x, "uniform", args=(low, high - low))
    detail = (f"Kolmogorov-Smirnov vs uniform [{low:g}, {high:g}): D = {r.statistic:.4g}, "
              f"p = {r.pvalue:.3g} over {x.size} values (fails below {ALPHA:g})")
    return _verdict(r.pvalue), detail, 0


def _normal(values, spec, type_name):
    from scipy import stats

    mean, scale = float(spec["mean"]), float(spec["scale"])
    x = _as_float(values)
    bad = ~np.isfinite(x)
    if bad.any():
        return _impossible(x, bad, "the finite numbers")
    if x.size == 0:
        return "pass", "no values", 0
    r = stats.kstest(x, "norm", args=(mean, scale))
    detail = (f"Kolmogorov-Smirnov vs normal(mean {mean:g}, scale {scale:g}): D = {r.statistic:.4g}, "
              f"p = {r.pvalue:.3g} over {x.size} values (fails below {ALPHA:g})")
    return _verdict(r.pvalue), detail, 0


def _bernoulli(values, spec, type_name):
    from scipy import stats

    x = _as_float(values)
    if x.size == 0:  # a zero-sized input of probabilities draws nothing: its output is empty, of the input's shape
        return "pass", "no values", 0
    probs = [float(p) for p in spec["p"]]
    if not probs or x.size % len(probs):
        raise ValueError(f"bernoulli: {len(probs)} probabilities do not tile {x.size} values")
    p = np.tile(np.array(probs, np.float64), x.size // len(probs))
    bad = ~((x == 0) | (x == 1))
    if bad.any():
        return _impossible(x, bad, "{0, 1}")
    bad = ((p == 0) & (x != 0)) | ((p == 1) & (x != 1))
    if bad.any():
        first = int(np.argmax(bad))
        return ("fail", f"{int(np.count_nonzero(bad))} of {x.size} values impossible: "
                f"flat index {first} is {x[first]:g} with p = {p[first]:g}", int(np.count_nonzero(bad)))
    groups = sorted({q for q in probs if 0 < q < 1})
    if not groups:
        return "pass", "every probability is 0 or 1 and every value matches it", 0
    alpha = ALPHA / len(groups)  # Bonferroni over the distinct probabilities
    worst, parts = None, []
    for q in groups:
        at = p == q
        n, k = int(np.count_nonzero(at)), int(np.count_nonzero(x[at] == 1))
        pv = stats.binomtest(k, n, q).pvalue
        parts.append(f"p={q:g}: {k} ones of {n}, binomial p-value {pv:.3g}")
        worst = pv if worst is None else min(worst, pv)
    detail = "; ".join(parts) + f" (fails below {alpha:.3g} = {ALPHA:g} / {len(groups)})"
    return _verdict(worst, alpha), detail, 0


def _multinomial(values, spec, type_name):
    from scipy import stats

    rows = [[float(q) for q in row] for row in spec["p"]]
    x = np.asarray(values)
    if x.ndim != 2 or x.shape[0] != len(rows):
        raise ValueError(f"multinomial: output of shape {x.shape} for {len(rows)} rows of probabilities")
    if x.size == 0:  # no row (batch_size 0) or no draw (sample_size 0)
        return "pass", "no values", 0
    alpha = ALPHA / max(1, len(rows))  # Bonferroni over the rows
    worst, parts = 1.0, []
    for b, row in enumerate(rows):
        probs = np.array(row, np.float64)
        probs = probs / probs.sum()
        got = x[b].astype(np.int64)
        possible = np.flatnonzero(probs > 0)
        bad = ~np.isin(got, possible)
        if bad.any():
            first = int(np.argmax(bad))
            return ("fail", f"row {b}: {int(np.count_nonzero(bad))} of {got.size} draws are not a class of "
                    f"probability > 0; first at {first}: {int(got[first])} ({len(row)} classes)",
                    int(np.count_nonzero(bad)))
        counts = np.array([np.count_nonzero(got == c) for c in possible], np.float64)
        counts, want = _bins(counts, probs[possible] * got.size)
        if len(want) < 2:
            parts.append(f"row {b}: {got.size} draws, every one possible (too few for a chi-square test)")
            continue
        r = stats.chisquare(counts, want)
        pv = float(r.pvalue) if math.isfinite(r.pvalue) else 0.0
        worst = min(worst, pv)
        parts.append(f"row {b}: chi-square {r.statistic:.4g}, p = {pv:.3g}")
    detail = "; ".join(parts) + f" (fails below {alpha:.3g} = {ALPHA:g} / {len(rows)})"
    return _verdict(worst, alpha), detail, 0


MIN_EXPECTED = 5.0


def _bins(counts: np.ndarray, want: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Classes expected at least MIN_EXPECTED times keep their own bin; the rest share one (merged
    into the smallest other bin while it is still below MIN_EXPECTED), so the chi-square
    approximation holds: with few draws a rare class drawn once would otherwise fail a correct backend."""
    big = want >= MIN_EXPECTED
    c, w = list(counts[big]), list(want[big])
    if (~big).any():
        pc, pw = float(counts[~big].sum()), float(want[~big].sum())
        if pw < MIN_EXPECTED and w:
            k = int(np.argmin(w))
            c[k] += pc
            w[k] += pw
        else:
            c.append(pc)
            w.append(pw)
    if len(w) < 2 or min(w) < MIN_EXPECTED:
        return np.array([]), np.array([])
    return np.array(c), np.array(w)
