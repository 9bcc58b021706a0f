"""A toy backend whose process one case corrupts: every case after it in the same process goes wrong.

`--backend-option corrupts=<case>`: that case answers correctly, and sets a module-level flag (a
runtime's global state, as OpenVINO's is in FINDINGS OV-13); every later case in the same process
then answers `then`'s behaviour of ToyAdapter (default wrong_values; `then=abort` crashes). `always=<case>`
fails on every run, in any process (a real failure, not the order's).
"""

from __future__ import annotations

from pathlib import Path

from tests.toybackends.toy import ToyAdapter

_CORRUPTED = False  # per process: a fresh executor starts clean


class Corruptible(ToyAdapter):
    name = "corruptible-toy"

    def _behaviour(self, model_path: str) -> str:
        global _CORRUPTED
        case = Path(model_path).parent.name
        if case == self.options.get("always"):
            return "wrong_values"
        if _CORRUPTED:
            return self.options.get("then", "wrong_values")
        if case == self.options.get("corrupts"):
            _CORRUPTED = True
        return "correct"
