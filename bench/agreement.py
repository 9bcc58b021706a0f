"""Agreement with onnx's own runner: does run-conformance pass exactly the cases onnx's Runner passes?

    python bench/agreement.py --cases DIR [-n 2] [--backend onnxruntime] [--markdown FILE]
    python bench/agreement.py --cases DIR --onnx-junit FILE --ours REPORT_DIR   # compare earlier runs

Both runners grade the same corpus (`generate-cases --onnx-node-tests --out DIR`) on the same
runtime: onnx's `Runner` driving `onnxruntime.backend` (bench/onnx_runner_cases.py), and
`run-conformance --backend onnxruntime`. A case agrees when both pass it or neither does (their
skip or failure against our fail/error/unsupported/...). Each disagreement is printed with the
reason ours is right when the script knows one (EXPLAINED below, each matched on onnx's own
failure message and checked against our status), else as UNEXPLAINED, and the exit code is 1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent

# (pattern in onnx's Runner failure, our status, why ours is right). Each was read off a real
# disagreement on onnx 1.23.2 / onnxruntime 1.31.1 and checked by hand.
EXPLAINED = [
    (re.compile(r"Numpy_type (\d+) can't be converted to MLDataType"), "pass",
     "onnx's Runner hands onnxruntime.backend ml_dtypes arrays (bfloat16, float8, int4, int2: "
     "numpy type numbers 256-273), which onnxruntime's numpy feed cannot convert, so the model "
     "never ran (here CastLike's `target_type` input); ours feeds an OrtValue of the declared "
     "element type and onnxruntime's outputs match the expected values"),
    (re.compile(r"Unable to compare expected type <class 'numpy.ndarray'> and runtime type"), "pass",
     "onnx's Runner.assert_similar_outputs recurses into a sequence with its bare elements and "
     "calls len() on a 0-d tensor (TypeError, a bug of the grader); ours compares the sequence "
     "element by element and every value matches"),
]


def onnx_runner(cases: Path, workers: str, junit: Path, backend: str = "onnxruntime.backend") -> int:
    env = dict(os.environ, ONNX_NODE_CASES=str(cases), ONNX_RUNNER_BACKEND=backend)
    cmd = [sys.executable, "-m", "pytest", "-c", os.devnull, "--rootdir", str(REPO), "-q",
           "-p", "no:cacheprovider", "-p", "no:hypothesispytest", f"--junitxml={junit}",
           str(BENCH / "onnx_runner_cases.py")]
    if workers not in ("0", ""):
        cmd += ["-n", workers]
    return subprocess.run(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL).returncode


def ours(cases: Path, workers: str, report_dir: Path, backend: str = "onnxruntime") -> int:
    cmd = [sys.executable, "-m", "onnx_conformance.harness.cli", "--backend", backend, "--cases", str(cases),
           "--report-dir", str(report_dir), "-q", "-p", "no:cacheprovider"]
    if workers not in ("0", ""):
        cmd += ["-n", workers]
    return subprocess.run(cmd, cwd=REPO, stdout=subprocess.DEVNULL).returncode


def onnx_outcomes(junit: Path, device: str = "cpu") -> dict[str, tuple[str, str]]:
    """case -> (pass|fail|skip, first line of onnx's message), from the Runner's `<case>_cpu` tests."""
    out = {}
    suffix = f"_{device}"
    for tc in ET.parse(junit).getroot().iter("testcase"):
        name = tc.get("name", "")
        if not name.endswith(suffix):
            continue
        outcome, message = "pass", ""
        for child in tc:
            if child.tag in ("failure", "error", "skipped"):
                outcome = "skip" if child.tag == "skipped" else "fail"
                message = " ".join((child.get("message") or child.text or "").split())
        out[name[: -len(suffix)]] = (outcome, message)
    return out


def our_outcomes(report_dir: Path) -> dict[str, tuple[str, str]]:
    out = {}
    for line in (report_dir / "results.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        out[r["case"]] = (r["status"], r.get("detail") or "")
    return out


def compare(theirs: dict, mine: dict) -> dict:
    table = Counter((theirs[c][0], mine[c][0]) for c in theirs.keys() & mine.keys())
    disagreements = []
    for case in sorted(theirs.keys() & mine.keys()):
        (t, t_msg), (o, o_msg) = theirs[case], mine[case]
        if (t == "pass") == (o == "pass"):
            continue
        why = next((text for pattern, status, text in EXPLAINED
                    if o == status and pattern.search(t_msg)), None)
        disagreements.append({"case": case, "onnx": t, "onnx_message": t_msg[:300], "ours": o,
                              "ours_detail": o_msg[:300], "reason": why})
    only = sorted(theirs.keys() ^ mine.keys())
    agree = sum(n for (t, o), n in table.items() if (t == "pass") == (o == "pass"))
    return {"cases": sum(table.values()), "agree": agree, "table": table,
            "disagreements": disagreements, "only_one_side": only}


def lines(result: dict) -> list[str]:
    n, agree = result["cases"], result["agree"]
    out = [f"agreement on pass / not-pass: {agree} of {n} cases "
           f"({100 * agree / n if n else 0:.2f}%)", "",
           "| onnx Runner | ours | cases |", "|---|---|---:|"]
    for (t, o), count in sorted(result["table"].items(), key=lambda kv: (kv[0][0], -kv[1])):
        out.append(f"| {t} | {o} | {count} |")
    dis = result["disagreements"]
    unexplained = [d for d in dis if d["reason"] is None]
    out += ["", f"disagreements: {len(dis)} ({len(dis) - len(unexplained)} explained, "
                f"{len(unexplained)} unexplained)"]
    by_reason: dict[str, list[dict]] = {}
    for d in dis:
        by_reason.setdefault(d["reason"] or "UNEXPLAINED", []).append(d)
    for reason, group in by_reason.items():
        out += ["", f"- {len(group)} case(s): {reason}"]
        for d in group:
            out.append(f"  - `{d['case']}`: onnx {d['onnx']} ({d['onnx_message'][:120]}); ours {d['ours']}"
                       + (f" ({d['ours_detail'][:120]})" if d["ours_detail"] else ""))
    if result["only_one_side"]:
        out += ["", f"cases only one runner saw: {', '.join(result['only_one_side'])}"]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", type=Path, required=True, help="generate-cases --onnx-node-tests --out DIR")
    p.add_argument("-n", dest="workers", default="2", help="pytest-xdist workers for both runners (0: none)")
    p.add_argument("--onnx-junit", type=Path, help="reuse this junit.xml of onnx's Runner instead of running it")
    p.add_argument("--ours", type=Path, help="reuse this run-conformance report directory")
    p.add_argument("--markdown", type=Path, help="also write the report here")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        junit = a.onnx_junit or Path(tmp) / "onnx-runner.xml"
        report = a.ours or Path(tmp) / "ours"
        if a.onnx_junit is None:
            onnx_runner(a.cases.resolve(), a.workers, junit)
        if a.ours is None:
            ours(a.cases.resolve(), a.workers, report)
        result = compare(onnx_outcomes(junit), our_outcomes(report))
    text = lines(result)
    print("\n".join(text))
    if a.markdown:
        a.markdown.write_text("# Agreement with onnx's Runner (onnxruntime)\n\n" + "\n".join(text) + "\n")
    return 1 if any(d["reason"] is None for d in result["disagreements"]) or result["only_one_side"] else 0


if __name__ == "__main__":
    sys.exit(main())
