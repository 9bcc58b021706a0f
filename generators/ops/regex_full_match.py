"""RegexFullMatch: True where the whole string matches `pattern` (RE2 syntax), else False.

The oracle is Python's re.fullmatch, used only on patterns and inputs where RE2 and Python's re
agree: ASCII text under \\w, \\W, \\b and \\d (RE2's are ASCII-only, Python's Unicode-aware), no
backreferences or lookaround (not RE2), literal non-ASCII text only.
"""

import re

import numpy as np

from onnx_conformance.generators.case import Declared, Operator
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.generators.string_family import strings

OPERATOR = Operator("RegexFullMatch", primary="T1")


# Python's re accepts these; RE2 has none of them (its syntax page lists them as not supported). Looked
# for outside escapes and character classes, except the backreferences (escapes themselves).
NOT_RE2 = [
    (re.compile(r"\(\?<?[=!]"), "RE2 has no lookaround"),
    (re.compile(r"\(\?>|\(\?\("), "RE2 has no atomic groups or conditionals"),
    (re.compile(r"[*+?}]\+"), "RE2 has no possessive quantifiers"),
]
BACKREFERENCE = re.compile(r"\\[1-9]|\(\?P=|\\g<")


@OPERATOR.semantics
def regex_full_match(v, attrs, inputs):
    """Y = whether the whole string matches `pattern` ('This must be valid RE2 syntax'; a pattern that is not is
    rejected). The oracle is Python's re, with RE2's ASCII-only \\w, \\d, \\s and \\b (re.ASCII) where the pattern
    has no case-insensitive flag. Where Python's re and RE2 differ (RE2 syntax re lacks: \\p{..}, \\Q..\\E,
    POSIX classes; '{,n}', literal text to RE2; case folding beyond ASCII together with those classes; \\s and a
    vertical tab; '$' before a final newline) this oracle gives no value."""
    x = inputs["X"]
    pattern = attr(attrs, "pattern")
    rule = f"pattern: {v.schema.attributes['pattern'].description}"
    if pattern is None:
        raise Rejected(f"{rule} (no pattern)")
    unescaped = re.sub(r"\\\\", "", pattern)
    skeleton = re.sub(r"\[(\^?\]|[^\]])*?\]", "C", re.sub(r"\\.", "E", pattern))
    if BACKREFERENCE.search(unescaped):
        raise Rejected(f"{rule} (RE2 has no backreferences)")
    for construct, reason in NOT_RE2:
        if construct.search(skeleton):
            raise Rejected(f"{rule} ({reason})")
    if re.search(r"\\[pPQEzC]|\[\[:", unescaped) or "{," in skeleton:
        raise Undefined(f"{pattern!r}: RE2 syntax Python's re (this oracle) lacks")
    folding = re.search(r"\(\?[a-zA-Z]*i", skeleton) is not None
    try:
        compiled = re.compile(pattern, 0 if folding else re.ASCII)
    except re.error as e:
        unbalanced = "missing )" in e.msg or "unbalanced parenthesis" in e.msg
        raise Rejected(f"{rule} ({pattern!r} is unbalanced)" if unbalanced else f"{rule} ({e.msg})") from None
    classes = re.search(r"\\[wWdDsSbB]", unescaped) is not None
    y = np.zeros(x.shape, dtype=bool)
    for i in np.ndindex(*x.shape):
        e = x[i]
        if ((folding and classes and not e.isascii()) or ("\v" in e and classes)
                or (e.endswith("\n") and "$" in skeleton)):
            raise Undefined(f"{e!r} against {pattern!r}: Python's re (this oracle) and RE2 differ here")
        y[i] = compiled.fullmatch(e) is not None
    return {"Y": y}


def full_match(v, x, pattern):
    return OPERATOR.expect(v, {"X": strings(x)}, {"pattern": pattern})


EMAIL = r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)"


@OPERATOR.example
def basic(v, t, rng):
    return full_match(v, ["www.google.com", "www.facebook.com", "www.bbc.co.uk"], r"www\.[\w.-]+\.\bcom\b")


@OPERATOR.example
def email_domain(v, t, rng):
    return full_match(v, [["account@gmail.com", "account@hotmail.com"], ["not email", "account2@yahoo.com"]], EMAIL)


@OPERATOR.example
def empty(v, t, rng):
    return full_match(v, np.empty((2, 0), dtype=object), EMAIL)


@OPERATOR.example
def full_not_partial(v, t, rng):
    """A match of part of the string is not a full match."""
    return full_match(v, ["abc", "xabc", "abcx", "abcabc", ""], r"(abc)+")


@OPERATOR.example
def quantifiers_and_classes(v, t, rng):
    return full_match(v, ["2026-11-25", "26-11-25", "2026-1-25", "2026-11-2a", "1999-01-01"],
                      r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@OPERATOR.example
def alternation_anchors(v, t, rng):
    return full_match(v, [["cat", "dog"], ["catdog", "bird"]], r"^(cat|dog)$")


@OPERATOR.example
def empty_pattern(v, t, rng):
    """The empty pattern fully matches only the empty string."""
    return full_match(v, ["", "a", " "], "")


@OPERATOR.example
def non_ascii_literal(v, t, rng):
    """Literal UTF-8 text and '.' matching one code point (RE2 works on code points in UTF-8 mode)."""
    return full_match(v, ["日本語", "日本", "日本x", "日本😀"], r"日本.")


@OPERATOR.example
def case_insensitive_flag(v, t, rng):
    return full_match(v, ["Hello", "HELLO", "hello!", "hallo"], r"(?i)hello")


@OPERATOR.example
def dot_and_newline(v, t, rng):
    """'.' does not match a newline unless (?s) (both RE2 and Python)."""
    return full_match(v, ["a\nb", "a-b"], r"a.b")


@OPERATOR.rejection
def invalid_pattern(v, t, rng):
    return OPERATOR.reject(v, {"X": strings(["a"])}, {"pattern": "(a"}, {"Y": Declared("bool", (1,))})


@OPERATOR.rejection
def backreference_not_re2(v, t, rng):
    """A backreference is valid for Python's re, not for RE2."""
    return OPERATOR.reject(v, {"X": strings(["aa"])}, {"pattern": r"(a)\1"}, {"Y": Declared("bool", (1,))})


OPERATOR.reference_differs(r"^backreference_not_re2 .*returned outputs for an expect-error case",
                           "the evaluator matches with Python's re, which accepts backreferences; the spec asks "
                           "for 'valid RE2 syntax', and RE2 has none")
