"""Mutants of the string operators: a partial match taken for a full one, broadcasting one way only,
case and stop-word defaults wrong, and maxsplit, skips and weights not honoured."""

from __future__ import annotations

import re

import numpy as np

from onnx_conformance.harness.mutants._shared import Mutant, default, ignored, unidirectional, with_attributes

FAMILY = "Strings"


def _search_not_full_match(call, x, **attrs):
    """re.search's reading: a match anywhere in the string counts."""
    (y,) = call.run(x, **attrs)
    pattern = attrs.get("pattern")
    try:
        found = re.compile(pattern.decode() if isinstance(pattern, bytes) else pattern)
    except (re.error, TypeError):
        return (y,)
    return (np.vectorize(lambda s: found.search(str(s)) is not None, otypes=[bool])(x).reshape(y.shape)
            if x.size else y,)


def _single_space(call, a):
    """No delimiter read as one space (str.split(" ")), not as runs of whitespace."""
    if not a.get("delimiter"):
        a["delimiter"] = " "
    return a


MUTANTS = [
    Mutant("RegexFullMatch.partial_match", "RegexFullMatch", "index edges",
           "RegexFullMatch performs a full regex match on each element of the input tensor.", _search_not_full_match),
    Mutant("StringConcat.unidirectional", "StringConcat", "broadcasting direction",
           "StringConcat concatenates string tensors elementwise (with NumPy-style broadcasting support)",
           unidirectional),
    Mutant("StringNormalizer.case_sensitive_by_default", "StringNormalizer", "wrong defaults",
           "Whether the identification of stop words in X is case-sensitive. Default is false",
           default("is_case_sensitive", 1)),
    Mutant("StringNormalizer.ignores_case_change_action", "StringNormalizer", "ignored attributes",
           "string enum that cases output to be lowercased/uppercases/unchanged.", ignored("case_change_action")),
    Mutant("StringSplit.ignores_maxsplit", "StringSplit", "ignored attributes",
           "Maximum number of splits (from left to right).", ignored("maxsplit")),
    Mutant("StringSplit.single_space_by_default", "StringSplit", "wrong defaults",
           'If left unset or set to the empty string (""), the input is split on consecutive whitespace.',
           with_attributes(_single_space)),
    Mutant("TfIdfVectorizer.ignores_max_skip_count", "TfIdfVectorizer", "ignored attributes",
           "Maximum number of items (integers/strings) to be skipped when constructing an n-gram from X.",
           with_attributes(lambda call, a: {**a, "max_skip_count": 0})),
    Mutant("TfIdfVectorizer.ignores_weights", "TfIdfVectorizer", "ignored attributes",
           "This attribute stores the weight of each n-gram in pool.", ignored("weights")),
]
