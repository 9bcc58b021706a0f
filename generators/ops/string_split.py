"""StringSplit: each string split on `delimiter` (or on runs of whitespace), at most `maxsplit` times,
padded with empty strings to the longest; Z counts the substrings.

The oracle is Python's str.split, which is the spec's rule: with a delimiter, "Consecutive
delimiters are not grouped together and are deemed to delimit empty strings"; without one (or
""), "consecutive whitespace characters are regarded as a single separator and leading or
trailing whitespace is removed". Whitespace splitting with maxsplit is emitted only where the
remaining suffix has no trailing whitespace (whether it keeps it, the text does not say).
"""

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.semantics import Undefined, attr
from onnx_conformance.generators.string_family import strings

OPERATOR = Operator("StringSplit", primary="T1")


ASCII_SPACE = " \t\n\v\f\r"


@OPERATOR.semantics
def string_split(v, attrs, inputs):
    """Each string split on `delimiter` ('Consecutive delimiters are not grouped together and are deemed to delimit
    empty strings') or, delimiter unset or "", on whitespace ('consecutive whitespace characters are regarded as a
    single separator and leading or trailing whitespace is removed'), at most `maxsplit` times (the suffix after the
    last split kept whole); Y padded with "" to the most substrings, Z their counts. Python's str.split is that rule.
    Not stated: a negative maxsplit, which characters beyond ASCII's are whitespace, and whether a suffix left by
    maxsplit keeps its trailing whitespace."""
    x = inputs["X"]
    sep = attr(attrs, "delimiter", "") or None
    limit = attr(attrs, "maxsplit", -1)
    if "maxsplit" in attrs and limit < 0:
        raise Undefined(f"maxsplit {limit}: 'Maximum number of splits' states no meaning for a negative count")
    parts = {}
    for i in np.ndindex(*x.shape):
        p = x[i].split(sep, limit)
        if sep is None and any(c.isspace() and c not in ASCII_SPACE for c in x[i]):
            raise Undefined(f"{x[i]!r}: whether its non-ASCII space characters are whitespace is not stated")
        if sep is None and "maxsplit" in attrs and len(p) == limit + 1 and p and p[-1] != p[-1].rstrip():
            raise Undefined(f"{x[i]!r}: whether the suffix maxsplit leaves keeps its trailing whitespace is not stated")
        parts[i] = p
    width = max((len(p) for p in parts.values()), default=0)
    y = np.empty(x.shape + (width,), dtype=object)
    y[...] = ""
    z = np.zeros(x.shape, dtype=np.int64)
    for i, p in parts.items():
        y[i][: len(p)] = p
        z[i] = len(p)
    return {"Y": y, "Z": z}


def split(v, x, delimiter=None, maxsplit=None):
    attrs = {}
    if delimiter is not None:
        attrs["delimiter"] = delimiter
    if maxsplit is not None:
        attrs["maxsplit"] = maxsplit
    return OPERATOR.expect(v, {"X": strings(x)}, attrs)


@OPERATOR.example
def basic(v, t, rng):
    return split(v, ["abc.com", "def.net"], ".")


@OPERATOR.example
def maxsplit(v, t, rng):
    return split(v, [["hello world", "def.net"], ["o n n x", "the quick brown fox"]], maxsplit=2)


@OPERATOR.example
def consecutive_delimiters(v, t, rng):
    return split(v, ["o-n-n--x-", "o-n----nx"], "-")


@OPERATOR.example
def empty_string_delimiter(v, t, rng):
    return split(v, ["hello world !", "  hello   world !", " hello world   ! "], "")


@OPERATOR.example
def no_delimiter(v, t, rng):
    return split(v, ["hello world !", "  hello   world !", " hello world   ! "])


@OPERATOR.example
def empty_tensor(v, t, rng):
    return split(v, np.empty((0,), dtype=object))


@OPERATOR.example
def multichar_delimiter(v, t, rng):
    """A delimiter of several characters, runs of it, non-ASCII text."""
    return split(v, [["a::b::::c", "::"], ["日本::語", "x:y"]], "::")


@OPERATOR.example
def empty_string_with_delimiter(v, t, rng):
    """An empty string holds no delimiter: like any string without one, it is its own single
    substring ('' once, Z = 1); only whitespace splitting removes empty substrings."""
    return split(v, ["", "a.b", "."], ".")


@OPERATOR.example
def maxsplit_with_delimiter(v, t, rng):
    """maxsplit 1 with a delimiter: the suffix keeps its delimiters; fewer possible splits: no effect."""
    return split(v, ["a,b,c,d", "x", ",lead", "trail,"], ",", maxsplit=1)


@OPERATOR.example
def maxsplit_zero(v, t, rng):
    """maxsplit 0: no split; each string whole (one substring)."""
    return split(v, ["a b c", "d"], "b", maxsplit=0)


@OPERATOR.example
def whitespace_kinds(v, t, rng):
    """Tabs and newlines are whitespace too; a string of only whitespace gives no substring."""
    return split(v, ["a\tb\nc", "   ", "one"])
