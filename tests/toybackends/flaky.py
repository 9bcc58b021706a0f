"""A toy backend whose named cases misbehave on their first attempt only, as a flaky runtime does.

`--backend-option test_add=wrong_values` makes the first attempt of test_add use that behaviour of
ToyAdapter; every later attempt in the same executor process is correct. `always=<case>` makes a
case fail on every attempt (a real failure, not a flake).
"""

from __future__ import annotations

from pathlib import Path

from tests.toybackends.toy import ToyAdapter


class FirstAttemptFails(ToyAdapter):
    name = "flaky-toy"

    def __init__(self, options=None):
        super().__init__(options)
        self.attempts: dict[str, int] = {}

    def _behaviour(self, model_path: str) -> str:
        case = Path(model_path).parent.name
        if self.options.get("always") == case:
            return "wrong_values"
        self.attempts[case] = self.attempts.get(case, 0) + 1
        if self.attempts[case] == 1 and case in self.options:
            return self.options[case]
        return "correct"
