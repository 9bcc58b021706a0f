"""junit.xml: one testcase per case, written once when a run ends, from its records.

The layout is pytest's own (`--junitxml`), so a CI system reads it the same way: testcase
classname is the operator (as the item's node id names it), name is the case; a regression is a
<failure> when the case answered wrongly and an <error> when it did not answer (an error, a crash, a
timeout: statuses.UNFINISHED), as JUnit readers tell them apart (pytest's own --junitxml says <failure>
for both); a status the baseline expects an xfail <skipped>, an unsupported or skipped case a skip
<skipped>; a status other than pass is a `status` property. merge-reports joins the shards' files.
"""

from __future__ import annotations

import os
import re
import socket
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, NamedTuple
from xml.sax.saxutils import escape, quoteattr

from onnx_conformance.harness.statuses import PASS, UNFINISHED

JUNIT = "junit.xml"
SUITE = "onnx-conformance"


class Testcase(NamedTuple):
    classname: str
    name: str
    seconds: float | None
    status: str  # the harness's status (a property when not pass)
    outcome: str  # pytest's: passed, failed, skipped or xfailed
    message: str | None = None  # the skip or xfail reason, or the failure's first line
    text: str | None = None  # a failure's full text, or a skip's location line


def write_junit(path: Path, cases: Iterable[Testcase], started: float, seconds: float) -> None:
    """`started` and `seconds`: the run's start (epoch seconds) and wall time. The file is written
    whole, then moved into place: a reader never sees half of one."""
    body, counts = [], {"failed": 0, "errors": 0, "skipped": 0, "tests": 0}
    # A run's 86,000 testcases share a few thousand classnames, statuses and skip reasons: each
    # is quoted once.
    classnames: dict[str, str] = {}
    properties: dict[str, str] = {}
    skips: dict[tuple[str, str], str] = {}
    for c in cases:
        counts["tests"] += 1
        classname = classnames.get(c.classname) or classnames.setdefault(c.classname, _attr(c.classname))
        head = f"<testcase classname={classname} name={_attr(c.name)} time=\"{c.seconds or 0.0:.3f}\""
        if c.status == PASS and c.outcome == "passed":
            body.append(f"{head} />")
            continue
        inner = []
        if c.status != PASS:
            inner.append(properties.get(c.status) or properties.setdefault(
                c.status, f'<properties><property name="status" value={_attr(c.status)} /></properties>'))
        if c.outcome == "failed":
            tag = "error" if c.status in UNFINISHED else "failure"
            counts["errors" if tag == "error" else "failed"] += 1
            inner.append(f"<{tag} message={quoteattr(_clean(c.message or ''))}>{escape(_clean(c.text or ''))}</{tag}>")
        elif c.outcome in ("skipped", "xfailed"):
            counts["skipped"] += 1
            kind = "pytest.xfail" if c.outcome == "xfailed" else "pytest.skip"
            key = (kind, c.message or "")
            attrs = skips.get(key) or skips.setdefault(
                key, f"type=\"{kind}\" message={quoteattr(_clean(c.message or ''))}")
            inner.append(f"<skipped {attrs}>{escape(_clean(c.text))}</skipped>" if c.text else f"<skipped {attrs} />")
        body.append(f"{head}>{''.join(inner)}</testcase>" if inner else f"{head} />")
    stamp = datetime.fromtimestamp(started, timezone.utc).isoformat()
    suite = (f"<testsuite name=\"{SUITE}\" errors=\"{counts['errors']}\" failures=\"{counts['failed']}\" "
             f"skipped=\"{counts['skipped']}\" tests=\"{counts['tests']}\" time=\"{seconds:.3f}\" "
             f"timestamp=\"{stamp}\" hostname={quoteattr(socket.gethostname())}>")
    text = (f'<?xml version="1.0" encoding="utf-8"?><testsuites name="{SUITE}">{suite}'
            + "".join(body) + "</testsuite></testsuites>\n")
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


# What quoteattr changes: a value without any of these is quoted as it is (case and operator
# names, statuses: tens of thousands a run, ~2 us each through quoteattr).
_QUOTED = re.compile("[&<>\"'\n\r\t]")


def _attr(value: str) -> str:
    return quoteattr(value) if _QUOTED.search(value) else f'"{value}"'


# What XML 1.0 cannot hold, even escaped (most control characters, lone surrogates): a backend's
# message may, and it is written as \xNN (or \uNNNN) instead.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                        else f"\\u{ord(m.group()):04x}", text)
