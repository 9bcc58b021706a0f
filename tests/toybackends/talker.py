"""A toy backend that says something on stderr for every case: `--backend-option <case>=abort`
makes that case say its own last words and abort, as a runtime's failed assertion does."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.toybackends.toy import ToyAdapter


class Talker(ToyAdapter):
    name = "talker"

    def run(self, prepared, inputs):
        case = Path(prepared[0].proto_.graph.name if hasattr(prepared[0], "proto_") else "?").name
        print(f"talker: running {case}", file=sys.stderr, flush=True)
        if prepared[1] == "abort":
            print(f"talker: last words of {case}", file=sys.stderr, flush=True)
            os.abort()
        return super().run(prepared, inputs)
