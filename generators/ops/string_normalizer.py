"""StringNormalizer: X ([C] or [1, C]) without its stopwords, then lowercased, uppercased or unchanged.

Stopwords are matched exactly with is_case_sensitive = 1, else ignoring case (the default, 0).
"If all elements in X are dropped, the output will be the empty value of string tensor with shape
[1] if input shape is [C] and shape [1, 1] if input shape is [1, C]." Case changes run on ASCII
and on letters whose upper and lower case are one code point each (é/É), where every locale-aware
implementation agrees; the locale examples use only en_US, the doc's default.
"""

from onnx_conformance.generators.case import Case
from onnx_conformance.generators.string_family import UntypedOperator, strings

OPERATOR = UntypedOperator("StringNormalizer", "X", "string")


def normalize(x, stopwords=None, case_change_action=None, is_case_sensitive=None, locale=None):
    x = strings(x)
    flat = list(x.reshape(-1))
    if stopwords:
        if is_case_sensitive:
            flat = [s for s in flat if s not in stopwords]
        else:
            folded = {w.lower() for w in stopwords}
            flat = [s for s in flat if s.lower() not in folded]
    if case_change_action == "LOWER":
        flat = [s.lower() for s in flat]
    elif case_change_action == "UPPER":
        flat = [s.upper() for s in flat]
    if not flat:
        flat = [""]
    y = strings(flat) if x.ndim == 1 else strings([flat])
    attrs = {k: a for k, a in (("stopwords", stopwords), ("case_change_action", case_change_action),
                                ("is_case_sensitive", is_case_sensitive), ("locale", locale)) if a is not None}
    return Case({"X": x}, {"Y": y}, attrs)


DAYS = ["monday", "tuesday", "wednesday", "thursday"]


@OPERATOR.example
def nostopwords_nochangecase(v, t, rng):
    return normalize(["monday", "tuesday"], is_case_sensitive=1)


@OPERATOR.example
def monday_casesensintive_nochangecase(v, t, rng):
    return normalize(DAYS, ["monday"], is_case_sensitive=1)


@OPERATOR.example
def monday_casesensintive_lower(v, t, rng):
    return normalize(DAYS, ["monday"], "LOWER", 1)


@OPERATOR.example
def monday_casesensintive_upper(v, t, rng):
    return normalize(DAYS, ["monday"], "UPPER", 1)


@OPERATOR.example
def monday_empty_output(v, t, rng):
    return normalize(["monday", "monday"], ["monday"], "UPPER", 1)


@OPERATOR.example
def monday_insensintive_upper_twodim(v, t, rng):
    return normalize([["Monday", "tuesday", "wednesday", "Monday", "tuesday", "wednesday"]], ["monday"], "UPPER")


@OPERATOR.example
def case_sensitive_keeps_other_case(v, t, rng):
    """is_case_sensitive = 1: 'Monday' is not the stopword 'monday'."""
    return normalize(["Monday", "monday", "MONDAY"], ["monday"], is_case_sensitive=1)


@OPERATOR.example
def case_insensitive_default(v, t, rng):
    """is_case_sensitive left out (0): every case of a stopword goes; the rest keep their case."""
    return normalize(["Monday", "monday", "MONDAY", "Tuesday"], ["mOnDaY"])


@OPERATOR.example
def lower_no_stopwords(v, t, rng):
    return normalize(["HeLLo", "WORLD", "été", "ÉTÉ", "123-x"], case_change_action="LOWER")


@OPERATOR.example
def upper_non_ascii(v, t, rng):
    return normalize(["hello", "été", "naïve", "日本"], case_change_action="UPPER")


@OPERATOR.example
def none_action_explicit(v, t, rng):
    return normalize(["MiXeD", "case"], case_change_action="NONE")


@OPERATOR.example
def locale_en_us(v, t, rng):
    """locale 'en_US', the doc's default, stated."""
    return normalize([["Alpha", "beta", "GAMMA"]], ["beta"], "LOWER", locale="en_US")


@OPERATOR.example
def all_dropped_twodim(v, t, rng):
    """Every element a stopword in a [1, C] input: the output is [1, 1] holding ''."""
    return normalize([["a", "B"]], ["A", "b"])


OPERATOR.reference_differs(r"^(case_insensitive_default|all_dropped_twodim) .*shape",
                           "with is_case_sensitive = 0 and case_change_action NONE the evaluator compares the elements "
                           "with the stopwords as written ('mOnDaY' keeps 'Monday'); the spec's identification of "
                           "stopwords is then case-insensitive")
OPERATOR.reference_differs(r"^(lower_no_stopwords|upper_non_ascii) .*values differ",
                           "the evaluator strips accents (NFKD, combining marks dropped: 'été' -> 'ete'); the spec "
                           "only lowercases or uppercases")
