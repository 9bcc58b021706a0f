"""Strings: RegexFullMatch (RE2-compatible patterns, strings drawn to match them and not), StringConcat (broadcasting, empty and non-ASCII strings), StringNormalizer (case_change_action, stopwords, is_case_sensitive, locale), StringSplit (delimiter, maxsplit) and TfIdfVectorizer (modes, n-gram ranges, skips, int and string pools).

Strings are drawn from a small alphabet (ASCII letters, digits, punctuation, spaces, é, Ω, 日本, an emoji)
so that stopwords, delimiters and pool n-grams occur in them; the semantics refuse what the spec leaves
open (a case mapping of other than one code point, a pattern where Python's re and RE2 differ), and such a
draw is discarded. RegexFullMatch's patterns are a fixed list: each is valid RE2 and means the same in
Python's re with re.ASCII (the oracle), and half the strings are drawn to match it (hypothesis's from_regex).
"""

from __future__ import annotations

import re

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.harness.strategies.common import Family, Probe, broadcast_shapes, dims, elements_of, shapes

STRING_ELEMENTS = 256  # strings in a tensor, at most
ALPHABET = "abcAB.-, :\t0é9Ωx日本😀"
WORDS = ("", "a", "monday", "Monday", "MONDAY", "été", "ÉTÉ", "Ωmega", "日本", "😀", "x y", "a.b", "A.B.")

# RE2 patterns whose meaning Python's re shares (ASCII classes, no lookaround or backreferences)
PATTERNS = (r"", r"a", r"abc", r"(abc)+", r"a*", r"a+b?", r"[a-c]{2,4}", r"[0-9]{4}-[0-9]{2}", r"\d+", r"\w+",
            r"\s*x\s*", r"^(cat|dog)$", r"(?i)hello", r"(?i)[a-z]+", r".", r"..", r"a.b", r"(?s)a.b", r"日本.",
            r"[^a]*", r"(?:ab|cd)*e", r"a{3}", r"a{0,2}b", r"(a|b)*c", r"[.]+", r"\.", r"www\.[\w.-]+\.com",
            r"x*?y", r"[éa]+", r"\x41+", r"(a)(b)?", r"[^\d\s]+")


def texts(max_size: int = 8):
    return st.one_of(st.sampled_from(WORDS), st.text(ALPHABET, max_size=max_size))


def string_tensor(draw, shape, elements=None) -> np.ndarray:
    x = np.empty(shape, dtype=object)
    for i in np.ndindex(*shape):
        x[i] = draw(elements if elements is not None else texts(), label="string")
    return x


class Strings(Family):
    name = "strings"
    operators = ("RegexFullMatch", "StringConcat", "StringNormalizer", "StringSplit", "TfIdfVectorizer")

    def strategy(self, op, v, t):
        return {"RegexFullMatch": _regex, "StringConcat": _concat, "StringNormalizer": _normalizer,
                "StringSplit": _split, "TfIdfVectorizer": _tfidf}[op.name](op, v, t)


def _matching(pattern: str):
    """Strings that fully match `pattern` in Python's re with re.ASCII (None where it cannot compile there)."""
    try:
        compiled = re.compile(pattern, re.ASCII if "(?i)" not in pattern else 0)
    except re.error:
        return None
    return st.from_regex(compiled, fullmatch=True).filter(lambda s: len(s) <= 16)


@st.composite
def _regex(draw, op, v, t):
    pattern = draw(st.sampled_from(PATTERNS), label="pattern")
    shape = draw(shapes(0, 3, 64), label="shape")
    matching = _matching(pattern)
    elements = st.one_of(texts(), matching) if matching is not None else texts()
    return Probe({"X": string_tensor(draw, shape, elements)}, {"pattern": pattern})


@st.composite
def _concat(draw, op, v, t):
    x_shape, y_shape = draw(broadcast_shapes(2, STRING_ELEMENTS, 4), label="shapes")
    return Probe({"X": string_tensor(draw, x_shape), "Y": string_tensor(draw, y_shape)})


@st.composite
def _normalizer(draw, op, v, t):
    c = draw(dims(64).filter(bool), label="C")  # C = 0: the spec's shape rule covers only 'all elements dropped'
    shape = (c,) if draw(st.booleans(), label="[C]") else (1, c)
    x = string_tensor(draw, shape, st.sampled_from(WORDS + ("tuesday", "Tuesday", "b", "B")))
    attrs = {}
    if draw(st.booleans(), label="give stopwords"):
        attrs["stopwords"] = draw(st.lists(st.sampled_from(WORDS[1:] + ("mOnDaY", "b", "zzz")), min_size=1, max_size=4,
                                           unique=True), label="stopwords")
    if draw(st.booleans(), label="give case_change_action"):
        attrs["case_change_action"] = draw(st.sampled_from(["NONE", "LOWER", "UPPER"]), label="case_change_action")
    if draw(st.booleans(), label="give is_case_sensitive"):
        attrs["is_case_sensitive"] = draw(st.sampled_from([0, 1]), label="is_case_sensitive")
    if draw(st.booleans(), label="give locale"):  # the doc's default; other locales' mappings are not stated
        attrs["locale"] = "en_US"
    return Probe({"X": x}, attrs)


@st.composite
def _split(draw, op, v, t):
    shape = draw(shapes(0, 3, 64), label="shape")
    attrs = {}
    if draw(st.booleans(), label="give delimiter"):
        attrs["delimiter"] = draw(st.sampled_from(["", ".", ",", " ", "::", "é", "ab", "日"]), label="delimiter")
    if draw(st.booleans(), label="give maxsplit"):
        attrs["maxsplit"] = draw(st.integers(0, 4), label="maxsplit")
    elements = st.text(ALPHABET + "::.,  ", max_size=12)
    return Probe({"X": string_tensor(draw, shape, elements)}, attrs)


@st.composite
def _tfidf(draw, op, v, t):
    strings = t["T"] == "string"
    alphabet = [f"w{k}" for k in range(5)] if strings else [0, 1, 2, 3, -1]
    max_gram = draw(st.integers(1, 3), label="max_gram_length")
    min_gram = draw(st.integers(1, max_gram), label="min_gram_length")
    pool, counts = [], []
    grams: list[tuple] = []
    for n in range(1, max_gram + 1):
        counts.append(len(pool))
        drawn = draw(st.lists(st.tuples(*[st.sampled_from(alphabet)] * n), max_size=4, unique=True), label=f"{n}-grams")
        grams += drawn
        pool += [w for g in drawn for w in g]
    if not grams:  # an empty pool names no output coordinate: one 1-gram at least
        grams, pool = [(alphabet[0],)], [alphabet[0]]
        counts = [0] + [1] * (max_gram - 1)
    # distinct output coordinates, in a drawn order, with gaps ('Y[ngram_indexes[i]]')
    width = len(grams) + draw(st.integers(0, 3), label="unused coordinates")
    indexes = draw(st.permutations(range(width)), label="ngram_indexes")[:len(grams)]
    attrs = {"mode": draw(st.sampled_from(["TF", "IDF", "TFIDF"]), label="mode"), "min_gram_length": min_gram,
             "max_gram_length": max_gram, "max_skip_count": draw(st.integers(0, 3), label="max_skip_count"),
             "ngram_counts": counts, "ngram_indexes": list(indexes)}
    attrs["pool_strings" if strings else "pool_int64s"] = pool
    if attrs["mode"] != "TF" and draw(st.booleans(), label="give weights"):
        attrs["weights"] = draw(st.lists(st.sampled_from([0.5, 2.0, 0.1, 3.0, 1.0, 0.0]), min_size=len(grams),
                                         max_size=len(grams)), label="weights")
    c = draw(dims(64), label="C")
    shape = (c,) if draw(st.booleans(), label="1-D") else (draw(st.integers(1, 4), label="N"), c)
    if elements_of(shape) == 0 and len(shape) == 2:
        shape = (shape[0], 1)
    flat = [draw(st.sampled_from(alphabet + ([9] if not strings else ["w9"])), label="item")
            for _ in range(elements_of(shape))]
    x = np.array(flat, dtype=object if strings else np.dtype(t["T"])).reshape(shape)
    return Probe({"X": x}, attrs)
