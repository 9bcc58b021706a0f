"""One module per operator; each defines OPERATOR. Adding an operator is adding a module here."""

from __future__ import annotations

import importlib
import pkgutil
import re


def all_operators() -> dict:
    """name -> the OPERATOR object of every module in this package, by operator name."""
    found = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        op = importlib.import_module(f"{__name__}.{info.name}").OPERATOR
        found[op.name] = op
    return found


def snake(op: str) -> str:
    """ReduceLogSumExp -> reduce_log_sum_exp; ReduceL1 -> reduce_l1; GatherND -> gather_nd; Col2Im -> col2im."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", op).lower()
