"""run-conformance --check-adapter: the probes (adapter_probes.py) through the executor, and which part of the adapter contract each failure shows broken, in plain words.

A probe is a case any working adapter passes or declines; what else it earns names a mistake: a rank-0
output returned as (1,), bfloat16 widened to float, inputs fed by sorted name, a sequence returned as
an array. Each is said with the contract it breaks and an example case with its detail; where a
failure is the runtime's own answer rather than the adapter's (a map fed correctly, computed otherwise),
it is a note, not a broken contract. So is a contract the adapter declares its runtime breaks
(`runtime_breaks`: the contract, the probes it covers, why), for those probes only; a declaration that
matches no failure is reported as stale.
"""

from __future__ import annotations

import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

from onnx_conformance.harness import adapter_probes
from onnx_conformance.harness.adapter_probes import INITIALIZER_LEFT_OUT, INPUTS_NAMED_IN_REVERSE, TOPICS, Probe
from onnx_conformance.harness.expectations import NOTHING_RAN, OK, REGRESSED, SETUP_ERROR
from onnx_conformance.harness.statuses import CRASH, ERROR, FAIL, PASS, SKIP, TIMEOUT, UNSUPPORTED, WARN
from onnx_conformance.harness.verdict import one_line

FOLDER = "check-adapter"  # under the report directory: the probes, to rerun one with --cases

_NOT_A_LIST = re.compile(r"outputs are (\w+), expected a list")
_COUNT = re.compile(r"output count (\d+) != expected (\d+)")
_SHAPE = re.compile(r"shape (\([^)]*\)) != expected (\([^)]*\))")
_DTYPE = re.compile(r"dtype (\w+) != expected (\w+)")
_KIND = re.compile(r"output \d+(?:\[\d+\])? is (.+?), expected (an empty optional|a sequence|a map|an? \S+ tensor)")
_VALUES = re.compile(r"values differ")
# A decline worded as one but raised as some other exception: the case reads `error`, not `unsupported`.
_DECLINE_WORDS = re.compile(r"not (yet )?(implemented|supported)|unsupported|no kernel|no implementation", re.I)

# What each mistake is, and what to do instead: key -> (what was seen, the contract). `{seen}` is filled
# with what the probes showed (the types, shapes or kinds involved).
MISTAKES = {
    "not a list": ("run() returns {seen}, not a list", "return a list with one value per graph output, in graph order"),
    "count": ("run() returns {seen} outputs", "return one value per graph output (signature.outputs), in graph order"),
    "declines as error": ("declines with an exception that is not a decline ({seen})",
                          "raise Unsupported (or NotImplementedError), or have classify say 'unsupported' "
                          "for these words, so such cases read as unsupported"),
    "crash": ("the executor process dies ({seen})", "a case that kills the process is a crash in every real run"),
    "timeout": ("no answer within the timeout ({seen})", "every probe is a one-node model"),
    "dtype": ("{seen}", "return what the runtime produced, in its own type: bfloat16 and float8 as ml_dtypes "
                        "arrays (a view of the raw bits), never cast; a widened result is a dtype fail"),
    "bits": ("values change on the way through Identity: {seen}",
             "feed and fetch each type's bits unchanged (a view, not a cast)"),
    "type error": ("these types end in error: {seen}",
                   "feed each as the array it arrives as; where the runtime has no such type, leave it out "
                   "of Capabilities.dtypes or raise Unsupported"),
    "rank-0 out": ("returns rank-1 for a rank-0 output ({seen})",
                   "keep the shape the runtime gives: a 0-d array (np.atleast_1d, np.ascontiguousarray and "
                   "reshape(-1) make it (1,))"),
    "rank-0 in": ("turns a rank-0 input into shape {seen}",
                  "pass 0-d arrays to the runtime as they are (np.atleast_1d and np.ascontiguousarray make "
                  "them (1,))"),
    "rank-0 error": ("a rank-0 input ends in error ({seen})",
                     "pass 0-d arrays as they are; where the runtime has no rank-0 tensors, raise Unsupported"),
    "shape": ("returns another shape than the runtime's ({seen})", "keep the shape the runtime gives"),
    "zero-sized": ("a zero-sized tensor (2, 0, 3) comes back as {seen}", "keep zero-length dimensions"),
    "zero-sized error": ("a zero-sized input (2, 0, 3) ends in error ({seen})",
                         "pass it as it is; where the runtime cannot hold one, raise Unsupported"),
    "inputs swapped": ("inputs reach the runtime in another order than the graph's ({seen})",
                       "input K is the graph's K-th input that is not an initializer (signature.inputs[K])"),
    "inputs by sorted name": ("inputs are fed by sorted name, not by position ({seen})",
                              "input K is the graph's K-th input (signature.inputs[K].name), whatever the names"),
    "input names": ("inputs named otherwise than the operator's formal inputs end in error ({seen})",
                    "feed by the graph's input names, in order (signature.inputs)"),
    "initializer": ("counts an initializer as an input ({seen})",
                    "run() is given the graph's inputs that are not initializers, in graph order (signature.inputs)"),
    "outputs order": ("returns the outputs in another order than the graph's ({seen})",
                      "one value per graph output, in graph order (signature.outputs), whatever the names"),
    "sequence kind": ("a sequence comes back as {seen}", "return a sequence as a list of arrays"),
    "sequence error": ("a sequence case ends in error ({seen})",
                       "a sequence arrives as a list of arrays and goes back as one: pass it on as it is, or "
                       "raise Unsupported where the runtime has no sequences"),
    "empty optional out": ("an empty optional comes back as {seen}", "return None for an empty optional"),
    "optional none": ("a present optional comes back as None ({seen})", "return its value"),
    "empty optional in": ("an empty optional input (None) ends in error ({seen})",
                          "an empty optional arrives as None: pass it on, or raise Unsupported where the "
                          "runtime has no optionals"),
    "optional error": ("a present optional ends in error ({seen})",
                       "a present optional arrives as its value (an array, or a list for a sequence) and goes "
                       "back as one"),
    "map kind": ("a map comes back as {seen}", "return a map as a dict, a sequence of maps as a list of dicts"),
    "map error": ("a map input ends in error ({seen})",
                  "a map arrives as a dict of key -> 0-d array: pass it as the runtime takes it, or raise "
                  "Unsupported where it has no maps"),
    "other": ("{seen}", "each probe is a one-node model every runtime should pass or decline"),
}


class Finding(NamedTuple):
    key: str  # a key of MISTAKES, or "note" for a failure that is the runtime's own answer
    seen: str  # the part of the message this case contributes ('bfloat16 came back as float')
    case: str
    detail: str
    declared: str = ""  # the adapter's reason, where its runtime_breaks declare this the runtime's own


def explain(probe: Probe, result: dict, results: dict[str, dict]) -> Finding | None:
    """What a probe's result shows of the adapter: None when it passed or was declined."""
    status, detail = result.get("status"), result.get("detail") or ""
    if status in (PASS, WARN, UNSUPPORTED, SKIP):
        return None

    def found(key: str, seen: str) -> Finding:
        return Finding(key, seen, probe.name, detail)

    def passed(name_part: str) -> bool:
        return any(n.startswith(name_part) and r.get("status") in (PASS, WARN) for n, r in results.items())

    if status == CRASH:
        return found("crash", _head(detail))
    if status == TIMEOUT:
        return found("timeout", _head(detail))
    if status == ERROR and _DECLINE_WORDS.search(detail):
        return found("declines as error", _head(detail))
    shape, dtype, kind = _SHAPE.search(detail), _DTYPE.search(detail), _KIND.search(detail)
    if m := _NOT_A_LIST.search(detail):
        return found("not a list", m.group(1))
    if kind and kind.group(1) == "str":  # verdict takes list(outputs): a dict's keys, as its outputs
        return found("not a list", "a dict")
    if m := _COUNT.search(detail):
        return found("count", f"{m.group(1)} for {m.group(2)}")
    topic, head = probe.topic, _head(detail, 100)
    if kind and topic == "optionals":
        if kind.group(2) == "an empty optional":
            return found("empty optional out", kind.group(1))
        if kind.group(1) == "None":
            return found("optional none", head)
    if kind and kind.group(2) == "a sequence":  # a sequence's, an optional sequence's, a sequence of maps'
        return found("sequence kind", kind.group(1))
    if kind and kind.group(2) == "a map":
        return found("map kind", kind.group(1))
    if topic == "types":
        if dtype:
            return found("dtype", f"{dtype.group(2)} came back as {dtype.group(1)}")
        if status == ERROR:
            return found("type error", probe.dtype)
        if shape:
            return found("shape", f"{shape.group(2)} came back as {shape.group(1)}")
        if _VALUES.search(detail):
            return found("bits", probe.dtype)
    elif topic == "rank-0":
        if shape and probe.op == "Size":
            return found("rank-0 out", f"{shape.group(1)} for ()")
        if shape:  # Identity: the input's rank-0 may be lost on the way in or on the way out; Size says which
            size_ok = not any(p.startswith("test_size_") and r.get("status") == FAIL for p, r in results.items())
            if size_ok:
                return found("rank-0 in", shape.group(1))
            return found("rank-0 out", f"{shape.group(1)} for {shape.group(2)}")
        if status == ERROR and passed(probe.name.replace("_rank0_", "_identity_")):
            return found("rank-0 error", head)
    elif topic == "zero-sized":
        if kind and kind.group(1) == "None":
            return found("zero-sized", "None")
        if shape:
            return found("zero-sized", shape.group(1))
        if status == ERROR:
            return found("zero-sized error", head)
    elif topic == "input order":
        if probe.example == INITIALIZER_LEFT_OUT:
            return found("initializer", head)
        if probe.example == INPUTS_NAMED_IN_REVERSE:
            plain = passed(probe.name.replace(INPUTS_NAMED_IN_REVERSE, "example"))
            if _VALUES.search(detail):
                return found("inputs by sorted name" if plain else "inputs swapped", "Sub(b, a), graph inputs [b, a]")
            if status == ERROR and plain:
                return found("input names", head)
        elif _VALUES.search(detail):
            return found("inputs swapped", "Sub(A, B)")
    elif topic == "output order":
        if _VALUES.search(detail) or shape:
            return found("outputs order", "graph outputs [z_copy, a_negated]")
    elif topic == "sequences":
        if status == ERROR:
            return found("sequence error", head)
    elif topic == "optionals":
        if status == ERROR:
            return found("empty optional in" if probe.example == "empty" else "optional error", head)
    elif topic == "maps" and probe.op != "ZipMap":
        if status == ERROR:
            return found("map error", head)
        if status == FAIL and not kind:  # the map reached the runtime; what it computed from it is the runtime's
            return Finding("note", head, probe.name, detail)
    return found("other", f"{status}: {head}")


def _head(detail: str, limit: int = 160) -> str:
    return detail if len(detail) <= limit else detail[: limit - 3] + "..."


class Report(NamedTuple):
    probes: list[Probe]
    results: dict[str, dict]
    findings: list[Finding]

    stale: tuple[str, ...] = ()  # declared runtime breaks that no probe shows, each said in a line

    @property
    def broken(self) -> list[str]:
        """The mistakes found, in MISTAKES' order (not those declared the runtime's own)."""
        keys = {f.key for f in self.findings if f.key != "note" and not f.declared}
        return [k for k in MISTAKES if k in keys]

    @property
    def exit_code(self) -> int:
        if self.broken:
            return REGRESSED
        if not any(self.results.get(p.name, {}).get("status") in (PASS, WARN) for p in self.probes):
            return NOTHING_RAN
        return OK

    def lines(self, repro: str) -> list[str]:
        """What the check prints: a line per topic, then each broken contract with an example."""
        out = []
        by_topic = defaultdict(list)
        for p in self.probes:
            by_topic[p.topic].append(p)
        flagged = {f.case: f for f in self.findings if f.key != "note" and not f.declared}
        declared = {f.case for f in self.findings if f.declared}
        for topic, words in TOPICS:
            probes = by_topic.get(topic, [])
            if not probes:
                out.append(f"  {'not run':8} {words}: no probe at this opset")
                continue
            status = [self.results.get(p.name, {}).get("status") for p in probes]
            passed = sum(s in (PASS, WARN) for s in status)
            declined = [p for p, s in zip(probes, status) if s in (UNSUPPORTED, SKIP)]
            bad = [p for p in probes if p.name in flagged]
            word = ("broken" if bad else "runtime" if any(p.name in declared for p in probes)
                    else "declined" if len(declined) == len(probes) else "ok")
            line = f"  {word:8} {words}: {passed} of {len(probes)} pass"
            if declined:
                reason = self.results[declined[0].name].get("detail") or ""
                types = ", ".join(dict.fromkeys(p.dtype for p in declined))
                line += f"; declined: {types} ({_head(reason, 100)})"
            out.append(line)
        for key in self.broken:
            items = [f for f in self.findings if f.key == key]
            seen, contract = MISTAKES[key]
            said = ", ".join(dict.fromkeys(f.seen for f in items))
            out.append(f"BROKEN: {seen.format(seen=said)}: {contract}")
            out.append(f"    e.g. {items[0].case}: {_head(items[0].detail, 300)}")
        for key in MISTAKES:
            items = [f for f in self.findings if f.key == key and f.declared]
            if items:
                said = ", ".join(dict.fromkeys(f.seen for f in items))
                out.append(f"note: {MISTAKES[key][0].format(seen=said)}: the runtime's own, as the adapter "
                           f"declares (runtime_breaks[{key!r}]): {items[0].declared}")
                out.append(f"    e.g. {items[0].case}: {_head(items[0].detail, 300)}")
        for f in (f for f in self.findings if f.key == "note"):
            out.append(f"note: {f.case}: {f.seen} (the map reached the runtime: what it computed is the "
                       "runtime's answer, not the adapter's)")
        out += [f"stale: {line}" for line in self.stale]
        first = next((f.case for f in self.findings if f.key != "note" and not f.declared), None)
        if first:
            out.append(f"rerun one: {repro} -k {first} -v")
        return out


def diagnose(probes: list[Probe], results: dict[str, dict], runtime_breaks: dict | None = None) -> Report:
    """What the probes' results show. `runtime_breaks` is the adapter's declaration, contract -> (names, why):
    a failure of that contract by a probe whose operator or element type is one of the names is a note."""
    declared = runtime_breaks or {}
    used: set[tuple[str, str]] = set()
    findings = []
    for probe in probes:
        result = results.get(probe.name)
        if result is None:
            findings.append(Finding("other", "no result", probe.name, "the executor gave no result"))
            continue
        finding = explain(probe, result, results)
        if finding is None:
            continue
        names, why = declared.get(finding.key, ((), "")) if finding.key in MISTAKES else ((), "")
        hit = next((n for n in (probe.op, probe.dtype) if n in names), None)
        if hit is not None:
            used.add((finding.key, hit))
            finding = finding._replace(declared=why)
        findings.append(finding)
    stale = []
    for key, (names, _) in declared.items():
        if key not in MISTAKES:
            stale.append(f"runtime_breaks[{key!r}] names no contract of the check (one of: {', '.join(MISTAKES)})")
            continue
        unseen = [n for n in names if (key, n) not in used]
        if unseen:
            stale.append(f"runtime_breaks[{key!r}] declares {', '.join(unseen)}, which no probe shows broken here")
    return Report(probes, results, findings, tuple(stale))


def declared_breaks(adapter) -> dict[str, tuple[tuple[str, ...], str]]:
    """The adapter's runtime_breaks, checked: contract -> (probe operators or element types, the reason)."""
    declared = getattr(adapter, "runtime_breaks", None) or {}
    shaped = isinstance(declared, dict) and all(
        isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], tuple) and v[0]
        and all(isinstance(n, str) for n in v[0]) and isinstance(v[1], str) and v[1].strip()
        for v in declared.values())
    if not shaped:
        raise ValueError("runtime_breaks must map a contract to (names, reason): a tuple of probe operators or "
                         "element types, and a non-empty reason")
    return declared


def run_probes(backend: str, options: dict, folder: Path, timeout: float, memory_limit: int | None) -> dict[str, dict]:
    """Every probe's result by case name, run as any case of a real run is: read as a corpus, each
    in the executor's child process."""
    from onnx_conformance.harness.corpus import read_corpus
    from onnx_conformance.harness.executor import Executor

    cases = read_corpus(folder).cases
    executor = Executor(backend, options, timeout=timeout, memory_limit=memory_limit)
    results: dict[str, dict] = {}
    try:
        executor.start()  # BackendUnavailable: the caller says why
        executor.submit(cases)
        while len(results) < len(cases):
            for message, result in executor.collect():
                results[message["name"]] = result
            if len(results) < len(cases):
                deadline = executor.deadline()
                wait = 0.05 if deadline is None else max(0.0, min(deadline - time.monotonic(), 1.0))
                if executor.connection is not None:
                    executor.connection.poll(wait)
    finally:
        executor.close()
    return results


def main(settings, report_dir: Path) -> int:
    """The check, printed; the exit code: 0 no broken contract, 1 some, 2 the adapter cannot be
    loaded, 3 every probe declined (nothing checked)."""
    from onnx_conformance.harness.backends import registry
    from onnx_conformance.harness.executor import BackendUnavailable

    backend, options = settings.backend, settings.backend_option
    try:  # here too, for what the adapter declares: the probes are built within it
        adapter = registry.load(backend, options)
        name, version = getattr(adapter, "name", backend), adapter.version
        capabilities = getattr(adapter, "capabilities", None)
        runtime_breaks = declared_breaks(adapter)
    except Exception as e:  # noqa: BLE001 - a backend that cannot load is a setup error, in one line
        said = str(e) if isinstance(e, registry.BackendNotFound) else f"backend {backend!r}: {type(e).__name__}: {e}"
        print(f"run-conformance: {one_line(said)}", file=sys.stderr)
        return SETUP_ERROR
    opset = adapter_probes.highest_opset(capabilities)
    folder = Path(report_dir) / FOLDER
    probes = adapter_probes.build(folder, opset)
    try:
        results = run_probes(backend, options, folder, settings.timeout, settings.memory_limit)
    except BackendUnavailable as e:
        print(f"run-conformance: {e}", file=sys.stderr)
        return SETUP_ERROR
    report = diagnose(probes, results, runtime_breaks)
    print(f"check-adapter: backend {name} {version}: {len(probes)} probes at opset {opset}, in {folder}")
    option_args = "".join(f" --backend-option {k}={v}" for k, v in options.items())
    repro = f"run-conformance --backend {backend}{option_args} --cases {folder} --report-dir {folder / 'reports'}"
    for line in report.lines(repro):
        print(line)
    code = report.exit_code
    if code == REGRESSED:
        print(f"check-adapter: {len(report.broken)} broken (exit {code}): fix the adapter before a real run")
    elif code == NOTHING_RAN:
        print(f"check-adapter: every probe declined: nothing checked (exit {code})")
    else:
        print(f"check-adapter: no broken contract (exit {code})")
    return code
