"""--rerun-failures N: a failing case runs again; one whose status changes is `flaky`, never `pass`."""

from __future__ import annotations

from typing import Callable

from onnx_conformance.harness.statuses import FLAKY, RERUN


def with_reruns(run: Callable[[object], dict], case, first: dict, times: int) -> dict:
    """`first` after up to `times` reruns of `case`; reruns stop at the first changed status.

    A changed status (fail then pass, crash then fail, ...) makes the result `flaky`, its detail
    listing every attempt's status and the first attempt's words. A case failing the same way
    each time keeps its status and its first attempt's detail, so a baseline entry still matches.
    """
    if times <= 0 or first.get("status") not in RERUN:
        return first
    statuses = [first["status"]]
    seconds = first.get("seconds") or 0.0
    for _ in range(times):
        again = run(case)
        statuses.append(again["status"])
        seconds += again.get("seconds") or 0.0
        if again["status"] != first["status"]:
            said = f": {first['detail']}" if first.get("detail") else ""
            return dict(first, status=FLAKY, seconds=seconds,
                        detail=f"attempts: {', '.join(statuses)}; first attempt {first['status']}{said}")
    return dict(first, seconds=seconds)
