"""RegexFullMatch: True where the whole string matches `pattern` (RE2 syntax), else False.

The oracle is Python's re.fullmatch, used only on patterns and inputs where RE2 and Python's re
agree: ASCII text under \\w, \\W, \\b and \\d (RE2's are ASCII-only, Python's Unicode-aware), no
backreferences or lookaround (not RE2), literal non-ASCII text only.
"""

import re

import numpy as np

from onnx_conformance.generators.case import Case, Declared, Operator
from onnx_conformance.generators.string_family import strings

OPERATOR = Operator("RegexFullMatch", primary="T1")


def full_match(x, pattern):
    x = strings(x)
    compiled = re.compile(pattern)
    y = np.zeros(x.shape, dtype=bool)
    for i in np.ndindex(*x.shape):
        y[i] = compiled.fullmatch(x[i]) is not None
    return Case({"X": x}, {"Y": y}, {"pattern": pattern})


EMAIL = r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)"


@OPERATOR.example
def basic(v, t, rng):
    return full_match(["www.google.com", "www.facebook.com", "www.bbc.co.uk"], r"www\.[\w.-]+\.\bcom\b")


@OPERATOR.example
def email_domain(v, t, rng):
    return full_match([["account@gmail.com", "account@hotmail.com"], ["not email", "account2@yahoo.com"]], EMAIL)


@OPERATOR.example
def empty(v, t, rng):
    return full_match(np.empty((2, 0), dtype=object), EMAIL)


@OPERATOR.example
def full_not_partial(v, t, rng):
    """A match of part of the string is not a full match."""
    return full_match(["abc", "xabc", "abcx", "abcabc", ""], r"(abc)+")


@OPERATOR.example
def quantifiers_and_classes(v, t, rng):
    return full_match(["2026-11-25", "26-11-25", "2026-1-25", "2026-11-2a", "1999-01-01"],
                      r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@OPERATOR.example
def alternation_anchors(v, t, rng):
    return full_match([["cat", "dog"], ["catdog", "bird"]], r"^(cat|dog)$")


@OPERATOR.example
def empty_pattern(v, t, rng):
    """The empty pattern fully matches only the empty string."""
    return full_match(["", "a", " "], "")


@OPERATOR.example
def non_ascii_literal(v, t, rng):
    """Literal UTF-8 text and '.' matching one code point (RE2 works on code points in UTF-8 mode)."""
    return full_match(["日本語", "日本", "日本x", "日本😀"], r"日本.")


@OPERATOR.example
def case_insensitive_flag(v, t, rng):
    return full_match(["Hello", "HELLO", "hello!", "hallo"], r"(?i)hello")


@OPERATOR.example
def dot_and_newline(v, t, rng):
    """'.' does not match a newline unless (?s) (both RE2 and Python)."""
    return full_match(["a\nb", "a-b"], r"a.b")


@OPERATOR.rejection
def invalid_pattern(v, t, rng):
    return Case({"X": strings(["a"])}, {"Y": Declared("bool", (1,))}, {"pattern": "(a"},
                error="pattern: Regex pattern to match on. This must be valid RE2 syntax. ('(a' is unbalanced)")


@OPERATOR.rejection
def backreference_not_re2(v, t, rng):
    """A backreference is valid for Python's re, not for RE2."""
    return Case({"X": strings(["aa"])}, {"Y": Declared("bool", (1,))}, {"pattern": r"(a)\1"},
                error="pattern: Regex pattern to match on. This must be valid RE2 syntax. (RE2 has no backreferences)")


OPERATOR.reference_differs(r"^backreference_not_re2 .*returned outputs for an expect-error case",
                           "the evaluator matches with Python's re, which accepts backreferences; the spec asks "
                           "for 'valid RE2 syntax', and RE2 has none")
