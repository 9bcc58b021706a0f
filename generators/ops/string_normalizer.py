"""StringNormalizer: X ([C] or [1, C]) without its stopwords, then lowercased, uppercased or unchanged.

Stopwords are matched exactly with is_case_sensitive = 1, else ignoring case (the default, 0).
"If all elements in X are dropped, the output will be the empty value of string tensor with shape
[1] if input shape is [C] and shape [1, 1] if input shape is [1, C]." Case changes run on ASCII
and on letters whose upper and lower case are one code point each (é/É), where every locale-aware
implementation agrees; the locale examples use only en_US, the doc's default.
"""

from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.generators.string_family import UntypedOperator, strings

OPERATOR = UntypedOperator("StringNormalizer", "X", "string")


@OPERATOR.semantics
def string_normalize(v, attrs, inputs):
    """X ('This operator only accepts [C]- and [1, C]-tensor') without its stopwords (matched exactly with
    is_case_sensitive = 1, else ignoring case, the default), then lowercased, uppercased or unchanged; 'If all
    elements in X are dropped, the output will be the empty value of string tensor with shape [1] if input shape is
    [C] and shape [1, 1] if input shape is [1, C].' Case is changed where every locale-aware implementation agrees:
    one code point to one code point, in the default locale (en_US); elsewhere no value is stated."""
    x = inputs["X"]
    if not (x.ndim == 1 or (x.ndim == 2 and x.shape[0] == 1)):
        raise Rejected(v.sentence(r"only accepts \[C\]- and \[1, C\]-tensor"))
    stopwords = attr(attrs, "stopwords", [])
    action = attr(attrs, "case_change_action", "NONE")
    if action not in ("LOWER", "UPPER", "NONE"):
        raise Rejected(f"case_change_action: {v.schema.attributes['case_change_action'].description}")
    flat = list(x.reshape(-1))
    if stopwords:
        if attr(attrs, "is_case_sensitive", 0):
            flat = [e for e in flat if e not in stopwords]
        else:
            folded = {_changed(w, "LOWER") for w in stopwords}
            flat = [e for e in flat if _changed(e, "LOWER") not in folded]
    if action != "NONE":
        if attr(attrs, "locale", "en_US") != "en_US":
            raise Undefined(f"locale {attrs['locale']!r}: case mappings of other locales are not stated")
        flat = [_changed(e, action) for e in flat]
    if not flat:
        flat = [""]
    return {"Y": strings(flat) if x.ndim == 1 else strings([flat])}


def _changed(s, action):
    """s lowercased or uppercased one code point at a time (where one maps to one: é/É, not ß/SS)."""
    out = s.lower() if action == "LOWER" else s.upper()
    if len(out) != len(s):
        raise Undefined(f"{s!r}: its case mapping is not one code point to one; the locale's rule is not stated")
    return out


def normalize(v, x, stopwords=None, case_change_action=None, is_case_sensitive=None, locale=None):
    attrs = {k: a for k, a in (("stopwords", stopwords), ("case_change_action", case_change_action),
                                ("is_case_sensitive", is_case_sensitive), ("locale", locale)) if a is not None}
    return OPERATOR.expect(v, {"X": strings(x)}, attrs)


DAYS = ["monday", "tuesday", "wednesday", "thursday"]


@OPERATOR.example
def nostopwords_nochangecase(v, t, rng):
    return normalize(v, ["monday", "tuesday"], is_case_sensitive=1)


@OPERATOR.example
def monday_casesensintive_nochangecase(v, t, rng):
    return normalize(v, DAYS, ["monday"], is_case_sensitive=1)


@OPERATOR.example
def monday_casesensintive_lower(v, t, rng):
    return normalize(v, DAYS, ["monday"], "LOWER", 1)


@OPERATOR.example
def monday_casesensintive_upper(v, t, rng):
    return normalize(v, DAYS, ["monday"], "UPPER", 1)


@OPERATOR.example
def monday_empty_output(v, t, rng):
    return normalize(v, ["monday", "monday"], ["monday"], "UPPER", 1)


@OPERATOR.example
def monday_insensintive_upper_twodim(v, t, rng):
    return normalize(v, [["Monday", "tuesday", "wednesday", "Monday", "tuesday", "wednesday"]], ["monday"], "UPPER")


@OPERATOR.example
def case_sensitive_keeps_other_case(v, t, rng):
    """is_case_sensitive = 1: 'Monday' is not the stopword 'monday'."""
    return normalize(v, ["Monday", "monday", "MONDAY"], ["monday"], is_case_sensitive=1)


@OPERATOR.example
def case_insensitive_default(v, t, rng):
    """is_case_sensitive left out (0): every case of a stopword goes; the rest keep their case."""
    return normalize(v, ["Monday", "monday", "MONDAY", "Tuesday"], ["mOnDaY"])


@OPERATOR.example
def lower_no_stopwords(v, t, rng):
    return normalize(v, ["HeLLo", "WORLD", "été", "ÉTÉ", "123-x"], case_change_action="LOWER")


@OPERATOR.example
def upper_non_ascii(v, t, rng):
    return normalize(v, ["hello", "été", "naïve", "日本"], case_change_action="UPPER")


@OPERATOR.example
def none_action_explicit(v, t, rng):
    return normalize(v, ["MiXeD", "case"], case_change_action="NONE")


@OPERATOR.example
def locale_en_us(v, t, rng):
    """locale 'en_US', the doc's default, stated."""
    return normalize(v, [["Alpha", "beta", "GAMMA"]], ["beta"], "LOWER", locale="en_US")


@OPERATOR.example
def all_dropped_twodim(v, t, rng):
    """Every element a stopword in a [1, C] input: the output is [1, 1] holding ''."""
    return normalize(v, [["a", "B"]], ["A", "b"])


OPERATOR.reference_differs(r"^(case_insensitive_default|all_dropped_twodim) .*shape",
                           "with is_case_sensitive = 0 and case_change_action NONE the evaluator compares the elements "
                           "with the stopwords as written ('mOnDaY' keeps 'Monday'); the spec's identification of "
                           "stopwords is then case-insensitive")
OPERATOR.reference_differs(r"^(lower_no_stopwords|upper_non_ascii) .*values differ",
                           "the evaluator strips accents (NFKD, combining marks dropped: 'été' -> 'ete'); the spec "
                           "only lowercases or uppercases")
