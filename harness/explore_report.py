"""What explore-cases tells its user: the progress line while it searches, and the summary at the end (of the harness/explore.py Explorer given)."""

from __future__ import annotations

import re
import sys
import time
from collections import Counter

# what a runtime's message names that is not its cause: file paths, quoted names (a tensor's, a node's), numbers
_PATH = re.compile(r"(?:/[\w.+-]+)+(?::\d+)?")
_QUOTED = re.compile(r"""(["'])[^"']*\1""")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.])")
CAUSE_CHARS = 200


def progress(explorer, force: bool = False, end: bool = False) -> None:
    """One line: operator versions started, inputs tried, discarded, finds, time left (rewritten in place on
    a terminal, every 10 s elsewhere)."""
    now = time.monotonic()
    tty = sys.stderr.isatty()
    if not force and now - explorer._last_progress < (0.5 if tty else 10.0):
        return
    explorer._last_progress = now
    ran = sum(u.ran for u in explorer.units)
    dropped = sum(sum(u.discarded.values()) for u in explorer.units)
    started = sum(1 for u in explorer.units if u.examples)
    left = "" if explorer.deadline is None else f" | {max(0.0, explorer.deadline - now):.0f} s left"
    line = (f"explore-cases: {started}/{len(explorer.units)} operator versions | {ran:,} inputs tried, "
            f"{dropped:,} discarded | {len(explorer.finds)} finds{left}")
    if tty:
        print("\r" + line + " " * 8, end="\n" if end else "", file=sys.stderr, flush=True)
    else:
        print(line, file=sys.stderr, flush=True)


def cause(op: str, status: str, detail: str) -> tuple[str, str]:
    """A find's cause as (status, words), the words one vendor would file once. A runtime's own message
    (error, crash) names its cause: with paths, quoted names and numbers blanked it is the same across
    operators and types (an inserted Cast refused for every float16 operator at opset 1). A wrong value
    or a timeout is described in the comparator's words, which name no cause: the operator and the kind
    of difference (the shape, or the values) stand for it."""
    words = " ".join(detail.split())
    if status in ("fail", "timeout"):
        kind = "shape" if re.match(r"output \d+ shape", words) else ("values" if words else "")
        return status, f"{op}: {kind}" if kind else op
    words = _NUMBER.sub("N", _QUOTED.sub(r"\1…\1", _PATH.sub("…", words)))
    return status, words[:CAUSE_CHARS]


def causes(finds: list[tuple[str, str, str, str]]) -> list[tuple[str, str, list[str]]]:
    """finds: (operator version, type, status, detail) each -> [(status, cause, the finds' "Op-V type"
    in their order)], the most finds first, then by status and cause."""
    groups: dict[tuple[str, str], list[str]] = {}
    for label, dtype, status, detail in finds:
        groups.setdefault(cause(label.rsplit("-", 1)[0], status, detail), []).append(f"{label} {dtype}")
    return [(status, words, members) for (status, words), members
            in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))]


def summary(explorer, interrupted: bool) -> None:
    """What the search did and found, each find with its command, when it was met and how long it shrank."""
    seconds = time.monotonic() - explorer.started
    ran = sum(u.ran for u in explorer.units)
    discarded = Counter()
    for u in explorer.units:
        discarded.update(u.discarded)
    declined = sum(len(u.declined) for u in explorer.units)
    who = f"{explorer.backend} ({explorer.info.get('version', '?')})"
    if explorer.against:
        who += f" against {explorer.against} ({explorer.other_info.get('version', '?')})"
    rate = ran / seconds if seconds > 0 else 0.0
    print(f"explore-cases: {who}, seed {explorer.seed}: {len(explorer.units)} operator versions, "
          f"{ran:,} inputs run in {seconds:.1f} s ({rate:.1f}/s)" + (", stopped" if interrupted else ""))
    statuses = Counter()
    for u in explorer.units:
        statuses.update(u.statuses)
    if statuses:
        print("  verdicts: " + ", ".join(f"{n:,} {status}" for status, n in statuses.most_common()))
    if discarded:
        print("  discarded: " + ", ".join(f"{n:,} {why}" for why, n in discarded.most_common()))
    if declined:
        print(f"  declined by the backend: {declined} (opset, type binding) pairs, not drawn again")
        left = [u.label for u in explorer.units if u.all_declined]
        if left:
            print(f"  declined in every pair, so left the search: {len(left)} operator versions ({', '.join(left)})")
    for u in explorer.units:
        if u.first_problem:
            print(f"  {u.label}: strategy problem ({u.discarded['strategy error']}x): {u.first_problem}")
    for line in explorer.refused:
        print(f"  not explored: {line}")
    if not explorer.finds:
        print("  no finds")
        return
    print(f"  finds: {len(explorer.finds)}, in {explorer.out_text} (index.json)")
    grouped = causes([(c.unit.label, c.probe.meta["dtype"], c.verdict.result["status"],
                       c.verdict.result["detail"] or "") for c in explorer.finds])
    print(f"  causes: {len(grouped)} (finds grouped by status and the backend's words, names and numbers blanked)")
    for status, words, members in grouped:
        shown = ", ".join(dict.fromkeys(members[:6])) + (f", ... ({len(members)} finds)" if len(members) > 6 else "")
        print(f"  {status:8} {len(members):3}x {words}")
        print(f"               {shown}")
    for c in explorer.finds:
        facts, other, answers = explorer.found_facts(c), c.verdict.other, c.verdict.answers
        print(f"  {c.verdict.key:8} {c.probe.name}: {facts['detail']}")
        if other is not None:
            said = f": {other['detail']}" if other["detail"] else ""
            print(f"           {explorer.against}: {other['status']}{said}")
            if answers:
                print(f"           answers at output {answers['output']} {answers['index']}: "
                      f"{explorer.backend} {answers.get('backend')}, {explorer.against} {answers.get('against')}, "
                      f"the exact value {answers.get('exact')}")
            print(f"           {facts['against']['command']}")
        if c.seen and c.done:
            start = c.resumed or c.seen
            print(f"           met after {c.seen[0]:,} inputs ({c.seen[1]:.1f} s), shrunk in "
                  f"{c.done[0] - start[0]:,} more ({c.done[1] - start[1]:.1f} s)"
                  + (" once every version had its first round" if c.resumed else "")
                  + ("" if c.shrunk else ", shrinking cut short"))
        print(f"           {facts['command']}")
