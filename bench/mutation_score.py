"""Sharpness: how many realistic one-operator bugs (harness/mutants/) the corpus catches, beside ONNX's node tests.

    python bench/mutation_score.py [--cases cases] [--peer build/onnx-node] [--family NAME] [--mutant GLOB]
                                   [--base reference|exact|both] [-n 2] [--json FILE] [--list]

A mutant is a correct backend with one operator wrong (`--backend mutant`): onnx's ReferenceEvaluator
(base reference) or this project's exact semantics (base exact). It is killed by a corpus when some case
of its operator that passes on the plain base (`--backend reference`, `--backend exact`) does not pass the
gate on it (anything but `pass` and `warn`: a `warn` is wrong only at values the spec does not promise,
README "`warn`"). With both bases (the default) a mutant is tried on the evaluator first and, if it
survives there, on the exact base: killed on either counts, and the report names the kills the evaluator
could not make. Each case runs in this process through the harness's own verdict (harness/verdict.run_case:
the same checks, comparison and tolerances as run-conformance), the plain base once per case, each mutant
until the first case that kills it. Equivalent mutants (no valid input tells them from the correct
operator) are listed with their reason and not counted.

The peer is ONNX's own node tests on the same mutants: `generate-cases --onnx-node-tests --out
build/onnx-node` writes them (`--peer none` skips it).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The correct backends a mutant is swapped into (harness/backends/mutant.py's option base=), in the order
# tried: onnx's evaluator, independent of this project, first; this project's exact semantics, the oracle
# the cases were built from, for what the evaluator fails or lacks.
BASES = ("reference", "exact")


def select(families: list[str], patterns: list[str]) -> list:
    from onnx_conformance.harness import mutants

    wanted = {f.lower() for f in families}
    chosen = []
    for module in mutants.family_modules():
        if wanted and not wanted & {module.FAMILY.lower(), module.__name__.rsplit(".", 1)[-1]}:
            continue
        chosen += [m for m in module.MUTANTS if not patterns or any(fnmatch.fnmatchcase(m.name, p) for p in patterns)]
    return chosen


def _unit(job: tuple) -> tuple:
    """One operator of one corpus: its cases on each plain base, then each of its mutants swapped into that
    base, the second base only for the mutants the first left alive."""
    corpus, op, names, cases, bases = job
    import warnings

    from onnx_conformance.harness import mutants
    from onnx_conformance.harness.backends import registry
    from onnx_conformance.harness.statuses import ACCEPTED_AGAINST_A_BASELINE, PASS
    from onnx_conformance.harness.verdict import run_case

    warnings.simplefilter("ignore")  # numpy's overflow and invalid-value warnings, from mutants and onnx alike
    started = time.perf_counter()
    chosen = [mutants.find(n) for n in names]
    verdicts = {m.name: {"cases": {}, "killed_by": None} for m in chosen}
    for base in bases:
        alive = [m for m in chosen if not verdicts[m.name]["killed_by"]]
        if not alive:
            break
        plain = registry.load(base, {})  # the base itself, as a backend: `reference` or `exact`
        passing = [c for c in cases if any(m.applies_to(c["since_version"]) for m in alive)
                   and run_case(plain, c)["status"] == PASS]
        for m in alive:
            adapter = registry.load("mutant", {"mutant": m.name, "base": base})
            mine = [c for c in passing if m.applies_to(c["since_version"])]
            verdicts[m.name]["cases"][base] = len(mine)
            for c in mine:
                r = run_case(adapter, c)
                if r["status"] not in ACCEPTED_AGAINST_A_BASELINE:  # the gate would fail it (`warn` passes)
                    verdicts[m.name].update(killed_by=c["name"], base=base, status=r["status"], detail=r.get("detail"))
                    break
    return corpus, op, verdicts, time.perf_counter() - started


def score(chosen: list, corpora: dict[str, Path], workers: int, bases: tuple = BASES) -> dict:
    """corpus label -> mutant name -> {"cases": base -> plain-passing cases of its versions, "killed_by": case or
    None, "base": the base that killed it, ...}."""
    from onnx_conformance.harness.corpus import read_corpus

    ops = defaultdict(list)
    for m in chosen:
        ops[(m.domain, m.op)].append(m.name)
    jobs = []
    for label, root in corpora.items():
        by_op = defaultdict(list)
        for case in read_corpus(root).cases:
            if (case.domain, case.op) in ops and not case.form:  # a twin holds no node for the mutant to change
                by_op[(case.domain, case.op)].append(case.as_message())
        for key, names in ops.items():
            jobs.append((label, key[1], names, by_op.get(key, []), bases))
    jobs.sort(key=lambda j: -len(j[3]) * len(j[2]))  # the longest first: two workers finish together
    found = {label: {} for label in corpora}
    seconds = defaultdict(float)
    with ProcessPoolExecutor(workers) as pool:
        for label, op, verdicts, took in pool.map(_unit, jobs):
            found[label].update(verdicts)
            seconds[label] += took
    return {"verdicts": found, "cpu_seconds": dict(seconds)}


def report(chosen: list, verdicts: dict, labels: list[str]) -> str:
    """The score by family and by class for each corpus, the survivors, and the equivalent mutants."""
    from onnx_conformance.harness import mutants

    family_of = {m.name: family for family, found in mutants.families().items() for m in found}
    by_family = defaultdict(list)
    for m in chosen:
        by_family[family_of[m.name]].append(m)
    by_class = {bug: [m for m in chosen if m.bug == bug] for bug in mutants.CLASSES}
    lines = _table("family", [*by_family.items(), ("all", chosen)], verdicts, labels)
    lines += [""] + _table("class", [(b, found) for b, found in by_class.items() if found], verdicts, labels) + [""]
    for label in labels:
        later = [m for m in chosen if verdicts[label][m.name].get("base") not in (None, BASES[0])]
        if later:  # the evaluator could not kill these: it fails or lacks every case that tells
            lines.append(f"killed on the exact base in {label} ({len(later)}):")
            lines += [f"  {m.name:<42} {verdicts[label][m.name]['killed_by']}" for m in later]
            lines.append("")
        survivors = [m for m in chosen if not m.equivalent and not verdicts[label][m.name]["killed_by"]]
        lines.append(f"survivors in {label} ({len(survivors)}):")
        for m in survivors:
            why = "; ".join(f"{base}: no case of its versions passes" if n == 0 else f"{base}: {n} cases, none kills it"
                            for base, n in verdicts[label][m.name]["cases"].items())
            lines.append(f"  {m.name:<42} {m.bug:<24} {why}")
        lines.append("")
    equivalent = [m for m in chosen if m.equivalent]
    if equivalent:
        lines.append(f"equivalent, not counted ({len(equivalent)}):")
        lines += [f"  {m.name:<42} {m.equivalent}" for m in equivalent]
    return "\n".join(lines)


def _table(title: str, groups: list, verdicts: dict, labels: list[str]) -> list[str]:
    head = f"{title:<28} {'mutants':>7} {'equiv':>5} " + " ".join(f"{label + ' killed':>22}" for label in labels)
    lines = [head, "-" * len(head)]
    for name, found in groups:
        live = [m for m in found if not m.equivalent]
        cells = []
        for label in labels:
            k = sum(1 for m in live if verdicts[label][m.name]["killed_by"])
            cells.append(f"{k:>4}/{len(live):<4} {100 * k / max(len(live), 1):6.1f}%")
        lines.append(f"{name:<28} {len(found):>7} {len(found) - len(live):>5} " + " ".join(f"{c:>22}" for c in cells))
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", type=Path, default=REPO / "cases", help="our corpus (default: cases/)")
    p.add_argument("--peer", default=str(REPO / "build" / "onnx-node"),
                   help="ONNX's node tests as generate-cases --onnx-node-tests writes them; 'none' to skip")
    p.add_argument("--family", action="append", default=[],
                   help="only this family (harness/families.py's name or the module's: reduce); repeatable")
    p.add_argument("--mutant", action="append", default=[], help="only mutants matching this glob; repeatable")
    p.add_argument("--base", choices=[*BASES, "both"], default="both",
                   help="the correct backend the mutants are swapped into: reference (onnx's evaluator), exact (this "
                   "project's semantics), or both (default): a mutant counts as killed on either, the evaluator first")
    p.add_argument("-n", dest="workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--json", type=Path, help="write every verdict here")
    p.add_argument("--list", action="store_true", help="list the selected mutants and exit")
    a = p.parse_args(argv)

    chosen = select(a.family, a.mutant)
    if not chosen:
        print("mutation_score: no mutant matches", file=sys.stderr)
        return 2
    if a.list:
        for m in chosen:
            versions = "all" if m.since is None else f"{m.since[0]}-{m.since[1] or ''}"
            print(f"{m.name:<42} {m.bug:<24} versions {versions:<7} {m.spec!r}")
        return 0
    corpora = {"ours": a.cases}
    if a.peer != "none":
        if not Path(a.peer, "index.json").is_file():
            print(f"mutation_score: no peer corpus at {a.peer}: generate-cases --onnx-node-tests --out {a.peer} "
                  "(or --peer none)", file=sys.stderr)
            return 2
        corpora["node tests"] = Path(a.peer)
    started = time.perf_counter()
    bases = BASES if a.base == "both" else (a.base,)
    found = score(chosen, corpora, a.workers, bases)
    took = time.perf_counter() - started
    print(report(chosen, found["verdicts"], list(corpora)))
    print(f"\n{len(chosen)} mutants, base {' then '.join(bases)}, {a.workers} workers: {took:.0f} s wall "
          + ", ".join(f"{k} {v:.0f} s cpu" for k, v in found["cpu_seconds"].items()))
    if a.json:
        described = {m.name: {"op": m.op, "class": m.bug, "equivalent": m.equivalent} for m in chosen}
        a.json.write_text(json.dumps({"mutants": described, "bases": list(bases), **found, "wall_seconds": took},
                                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
