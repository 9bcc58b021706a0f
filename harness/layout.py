"""A case folder's layout (onnx's test-data layout): the names the corpus walk and the safety checks both read."""

from __future__ import annotations

import re

MODEL = "model.onnx"
INDEX = "index.json"
EXPECT_OUTPUT = "expect-output"
EXPECT_ERROR = "expect-error"

NUMBERED = re.compile(r"^(?:test_data_set|input|output)_(\d+)(?:\.pb)?$")
# In safety.check_case's `parsed`: [(set name, input file names, output file names)], in order,
# as the checks listed them (no path of a test-data file is a bare word, so the keys cannot meet).
SET_FILES = "sets"


def numbered(names, prefix: str) -> list[str]:
    """The names `prefix`N (test_data_set_N, input_N.pb, output_N.pb), in the order of N."""
    picked = []
    for n in names:
        m = NUMBERED.match(n)
        if m and n.startswith(prefix):
            picked.append((int(m.group(1)), n))
    return [n for _, n in sorted(picked)]
