"""results.jsonl (one line per finished case) and run.json (what ran, and whether it finished)."""

from __future__ import annotations

import contextlib
import gzip
import json
import math
import os
import platform
import re
import signal
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from onnx_conformance.harness.statuses import STATUSES

FIELDS = (
    "case", "op", "domain", "opset", "since_version", "dtype", "types", "example", "kind",
    "status", "stage", "detail",
    "max_abs_err", "max_rel_err", "max_ulp", "mismatches", "first_bad_index",
    "seconds",
)
# The fields new_result copies from the case (FIELDS' first nine); the rest are what running the
# case measured, all an executor's answer carries (its parent has the facts): measured_result.
FACTS = frozenset({"case", "op", "domain", "opset", "since_version", "dtype", "types", "example", "kind"})
# Facts a result carries only where its case has them, after `kind`: `form`, for a case beyond one
# node (the index's form: expanded, pattern, model); a single node's result has none.
OPTIONAL_FACTS = ("form",)
MEASURED = tuple(f for f in FIELDS if f not in FACTS)
# What a result carries only where running it measured one, after `seconds`: `stderr`, the last lines the
# backend wrote (its stderr and stdout, one file in the order written) during a case that ended in error,
# crash or timeout; `ran_opset`, the ai.onnx opset a case above the run's ceiling ran at (harness/opset_ceiling.py),
# where it differs from the case's own. A passing case at its own opset has neither, so its record is as it was.
# An order-dependent case's (harness/confirm.py): `alone`, its status in a fresh executor, and `after`, the case
# it depends on, where named.
OPTIONAL_MEASURED = ("stderr", "ran_opset", "alone", "after")
RESULTS = "results.jsonl"
# One encoder for every line: json.dumps builds a new one per call when given any option.
_encode = json.JSONEncoder(ensure_ascii=False).encode
RUN = "run.json"


def new_result(case, **fields) -> dict:
    """A result with every field present, the facts filled in from a corpus.Case (or a dict)."""
    result = _facts(case)
    result.update(_UNMEASURED)
    result.update(fields)
    return result


def measured_result(case, values) -> dict:
    """new_result(case, **dict(zip(MEASURED, values))), without the keyword round trip: an
    executor's answer, rebuilt in its parent (tens of thousands a run). A dict after MEASURED's
    values holds the OPTIONAL_MEASURED fields the case has."""
    result = _facts(case)
    result.update(zip(MEASURED, values))
    if len(values) > _N_MEASURED:
        result.update(values[_N_MEASURED])
    return result


def _facts(case) -> dict:
    facts = case if isinstance(case, dict) else case.__dict__
    get = facts.get
    out = {"case": facts["name"], "op": get("op"), "domain": get("domain", ""), "opset": get("opset"),
           "since_version": get("since_version"), "dtype": get("dtype"), "types": get("types"),
           "example": get("example"), "kind": get("kind")}  # FIELDS' order
    if get("form"):
        out["form"] = get("form")
    return out


_UNMEASURED = dict.fromkeys(MEASURED)
_N_MEASURED = len(MEASURED)
_FACT_FIELDS = FIELDS[:len(FIELDS) - len(MEASURED)]
assert tuple(_facts({"name": ""})) + MEASURED == FIELDS


def plain(value):
    """JSON-safe: numpy scalars become Python numbers; inf and nan become the strings 'inf', 'nan'
    because strict JSON (jq, browsers) has no literal for them."""
    if type(value) in _PLAIN:
        return value
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        try:
            value = value.item()
        except (TypeError, ValueError):
            value = value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return value


def read_results(path: Path) -> tuple[list[dict], int]:
    """The results recorded so far and the byte length of that valid prefix.

    A run killed mid-write leaves a torn last line; it and anything after it do not count, so a
    resumed run re-runs that case rather than trusting half a record. Where `path` is missing and
    `path`.gz exists, that is read instead (the length returned is then of the uncompressed text).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        # The committed scoreboard keeps each backend's results compressed (results.jsonl.gz);
        # a report directory holding only that reads the same.
        packed = path.with_name(path.name + ".gz")
        if not packed.is_file():
            return [], 0
        data = gzip.decompress(packed.read_bytes())
    results, good = [], 0
    for line in data.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break
        try:
            record = json.loads(line)
        except ValueError:
            break
        if not isinstance(record, dict) or "case" not in record:
            break
        results.append(record)
        good += len(line)
    return results, good


def pack_results(path: Path) -> Path:
    """Write `path`.gz beside a results.jsonl: its records sorted by case, gzip with no timestamp or
    name, so the same results give the same bytes whatever order the run recorded them in."""
    path = Path(path)
    records, _ = read_results(path)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in sorted(records, key=lambda r: r["case"]))
    packed = path.with_name(path.name + ".gz")
    with open(packed, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as f:
        f.write(text.encode("utf-8"))
    return packed


_PLAIN = frozenset({str, int, bool, type(None)})  # JSON as they are; plain() for the rest


class ResultsLog:
    """Appends one line per case; only the pytest controller ever opens one.

    Lines are written in batches: at once when the run is waiting for the next result anyway
    (`flush`, called by the dispatch before it blocks), else once FLUSH_SECONDS have passed, and
    when the log closes. A batch goes out in one write with Ctrl-C and SIGTERM held, so a stopped
    run leaves whole lines; a run killed outright (SIGKILL) loses at most the records of its last
    FLUSH_SECONDS, which --resume runs again (a torn last line is never trusted: read_results).
    """

    FLUSH_SECONDS = 0.5
    IDLE_FLUSH_SECONDS = 0.05

    def __init__(self, path: Path, resume: bool):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.prior: list[dict] = []
        if resume:
            self.prior, good = read_results(self.path)
            if self.path.exists():
                os.truncate(self.path, good)
        self._file = open(self.path, "a" if resume else "w", encoding="utf-8")
        self.written: list[dict] = []
        self._pending: list[dict] = []
        self._flushed = time.monotonic()

    def append(self, result: dict) -> None:
        record = {}
        get = result.get
        for k in _FACT_FIELDS:  # a loop, not a comprehension over a generator: half the time a case
            v = get(k)
            record[k] = v if type(v) in _PLAIN else plain(v)
        for k in OPTIONAL_FACTS:
            if get(k):
                record[k] = get(k)
        for k in MEASURED:
            v = get(k)
            record[k] = v if type(v) in _PLAIN else plain(v)
        for k in OPTIONAL_MEASURED:
            if get(k):
                record[k] = plain(get(k))
        self._pending.append(record)
        self.written.append(record)
        if time.monotonic() - self._flushed >= self.FLUSH_SECONDS:
            self.flush()

    def idle(self) -> None:
        """The run is about to wait for a result: a good moment to write, unless it just did (a
        run that waits between most cases would otherwise write a line at a time)."""
        if time.monotonic() - self._flushed >= self.IDLE_FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Write the records appended since the last flush, whole, in one write."""
        self._flushed = time.monotonic()
        if not self._pending:
            return
        text = "".join([_encode(r) + "\n" for r in self._pending])
        with _signals_held():  # Ctrl-C or SIGTERM lands before or after the batch, not inside
            self._file.write(text)
            self._file.flush()
            self._pending.clear()

    def all(self) -> list[dict]:
        """Prior (resumed) results then this run's, one per case, the later record winning."""
        merged = {r["case"]: r for r in [*self.prior, *self.written]}
        return list(merged.values())

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._file.close()


@contextlib.contextmanager
def _signals_held():
    """SIGINT and SIGTERM wait until the block is done (main thread, where Python handles them)."""
    held = {signal.SIGINT, signal.SIGTERM}
    if not hasattr(signal, "pthread_sigmask") or \
            threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def counts(results: list[dict]) -> dict[str, int]:
    tally = dict.fromkeys(STATUSES, 0)
    for r in results:
        tally[r["status"]] = tally.get(r["status"], 0) + 1
    return tally


def platform_info() -> dict:
    return {
        "system": platform.system(),
        "release": platform.release(),
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        **cpu_info(),
    }


# The instruction-set extensions runtimes choose kernels by: the same backend release can answer
# differently on two CPUs (OpenVINO runs bfloat16 natively only with avx512_bf16 or AMX, and then
# has fewer kernels), so a report says which it ran on.
KERNEL_ISA = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx_vnni", "avx512f", "avx512_vnni",
              "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8", "asimd", "sve")


def cpu_info(cpuinfo: str = "/proc/cpuinfo") -> dict:
    """The CPU's model name and its KERNEL_ISA flags, where the system says (Linux); else nothing."""
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as f:
            text = f.read(1 << 20)
    except OSError:
        return {}
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields.setdefault(key.strip(), value.strip())
        elif fields:  # the first processor's block is enough: flags are the same on each
            break
    flags = set((fields.get("flags") or fields.get("Features") or "").split())
    return {"cpu": fields.get("model name") or fields.get("CPU part"),
            "cpu_features": [f for f in KERNEL_ISA if f in flags]}


def write_json(path: Path, data: dict) -> None:
    """Replace atomically, so a reader never sees half a run.json."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(plain(data), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read_json(path: Path) -> dict | None:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None


def report_dir_for(backend: str) -> Path:
    """reports/<backend>, the name made safe for a path ('mypkg.mod:Cls' -> 'mypkg.mod_Cls')."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", backend).strip("._") or "backend"
    return Path("reports") / safe
