"""TfIdfVectorizer: counts of the pool's n-grams in each row of X (skips allowed), weighted by mode.

An n-gram of length n >= 2 with skip s is (x[i], x[i + s + 1], ..., x[i + (n - 1)(s + 1)]),
for every s in 0..max_skip_count ("we may consider all skips up to S"); a 1-gram is one item,
counted once. Lengths run from min_gram_length to max_gram_length; a pool n-gram not found counts
0; rows of a 2-D X are counted apart. TF: the counts; IDF: counts above 1 truncated to 1, times
weights; TFIDF: counts times weights. Y[ngram_indexes[i]] holds pool n-gram i; the output has
max(ngram_indexes) + 1 coordinates. Each value is one product of an integer and a float weight,
rounded once (exact).
"""

from fractions import Fraction

import numpy as np

from onnx_conformance.generators.case import Declared, Operator
from onnx_conformance.generators.ml_family import one_of
from onnx_conformance.generators.rounding import round_to
from onnx_conformance.generators.semantics import Rejected, Undefined, attr
from onnx_conformance.generators.string_family import strings

OPERATOR = Operator("TfIdfVectorizer", primary="T")

DOC_X = [1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8]
DOC_POOL = [2, 3, 5, 4, 5, 6, 7, 8, 6, 7]  # 1-grams 2, 3, 5, 4; 2-grams (5, 6), (7, 8), (6, 7)
DOC_INDEXES = [0, 1, 2, 3, 4, 5, 6]


def pool_ngrams(pool, counts, max_gram):
    """The pool as a list of tuples: n-grams of length k start at counts[k - 1]."""
    out = []
    bounds = list(counts) + [len(pool)]
    for k in range(len(counts)):
        n = k + 1
        chunk = pool[bounds[k]:bounds[k + 1]]
        out += [tuple(chunk[j:j + n]) for j in range(0, len(chunk), n)]
    return out


def row_counts(row, min_gram, max_gram, max_skip):
    found: dict[tuple, int] = {}
    for n in range(min_gram, max_gram + 1):
        skips = [0] if n == 1 else range(max_skip + 1)
        for s in skips:
            step = s + 1
            for i in range(len(row)):
                last = i + (n - 1) * step
                if last >= len(row):
                    break
                g = tuple(row[i + k * step] for k in range(n))
                found[g] = found.get(g, 0) + 1
    return found


@OPERATOR.semantics
def tf_idf(v, attrs, inputs):
    """Per row of X ([C] or [N, C]), the count of each pool n-gram ('Y[ngram_indexes[i]] indicates the times that
    the i-th n-gram is found'; lengths min_gram_length..max_gram_length, every skip up to max_skip_count), 'TF' the
    counts, 'IDF' the counts truncated to 1 times the weights, 'TFIDF' the counts times the weights ('By default,
    weights is an all-one tensor'); one product rounded once to float. Two n-grams given one output coordinate
    have no stated value there."""
    x = inputs["X"]
    which = one_of(attrs, ("pool_strings", "pool_int64s"), v.sentence(r"Only one of pool_strings and pool_int64s"))
    if which == "pool_int64s" and x.dtype.kind not in "iu":
        raise Rejected(v.sentence(r"If pool_int64s is set"))
    if which == "pool_strings" and x.dtype.kind != "O":
        raise Rejected(v.sentence(r"If pool_strings is set"))
    if x.ndim not in (1, 2):
        raise Rejected(v.sentence(r"Input can be either a 1-D or 2-D tensor"))
    mode = attr(attrs, "mode", "TF")
    if mode not in ("TF", "IDF", "TFIDF"):
        raise Rejected(f"mode: {v.schema.attributes['mode'].description}")
    lo, hi = attr(attrs, "min_gram_length", 1), attr(attrs, "max_gram_length", 1)
    max_skip = attr(attrs, "max_skip_count", 0)
    grams = pool_ngrams(list(attrs[which]), attr(attrs, "ngram_counts", [0]), hi)
    indexes = list(attr(attrs, "ngram_indexes", []))
    if len(indexes) != len(grams):
        raise Rejected(f"ngram_indexes: {v.schema.attributes['ngram_indexes'].description}")
    if len(set(indexes)) != len(indexes) or min(indexes, default=0) < 0:
        raise Undefined("ngram_indexes repeats an output coordinate (or names a negative one): no value is stated "
                        "there")
    weights = attr(attrs, "weights", [1.0] * len(grams))
    if len(weights) != len(grams):
        raise Rejected(f"weights: {v.schema.attributes['weights'].description}")
    w = [Fraction(float(np.float32(q))) for q in weights]
    rows = [x.tolist()] if x.ndim == 1 else x.tolist()
    out = np.zeros((len(rows), max(indexes, default=-1) + 1), dtype=np.float32)
    for r, row in enumerate(rows):
        found = row_counts(row, lo, hi, max_skip)
        for i, g in enumerate(grams):
            c = found.get(g, 0) if lo <= len(g) <= hi else 0
            if mode == "IDF":
                c = min(c, 1)
            value = Fraction(c) if mode == "TF" else c * w[i]
            out[r, indexes[i]] = round_to(value, "float")
    return {"Y": out[0] if x.ndim == 1 else out}


def tfidf(v, t, x, pool, counts, indexes, mode="TF", min_gram=1, max_gram=2, max_skip=0, weights=None):
    """The pool is mapped to the type ('w<k>' for strings)."""
    is_str = t["T"] == "string"
    xa = np.array(x)
    if is_str:
        xin = strings([[f"w{k}" for k in r] for r in xa.tolist()] if xa.ndim == 2 else [f"w{k}" for k in xa.tolist()])
        if xa.size == 0:
            xin = np.empty(xa.shape, dtype=object)
    else:
        xin = xa.astype(t.np())
    attrs = {"mode": mode, "min_gram_length": min_gram, "max_gram_length": max_gram,
             "max_skip_count": max_skip, "ngram_counts": list(counts), "ngram_indexes": list(indexes)}
    if is_str:
        attrs["pool_strings"] = [f"w{k}" for k in pool]
    else:
        attrs["pool_int64s"] = [int(k) for k in pool]
    if weights is not None:
        attrs["weights"] = [float(q) for q in weights]
    return OPERATOR.expect(v, {"X": xin}, attrs, tolerance={"ulp": 0})


def doc(v, t, rng, x, min_gram, max_skip, pool=DOC_POOL, counts=(0, 4), indexes=DOC_INDEXES):
    return tfidf(v, t, x, pool, counts, indexes, "TF", min_gram, 2, max_skip)


@OPERATOR.example
def tf_only_bigrams_skip0(v, t, rng):
    return doc(v, t, rng, DOC_X, 2, 0)


@OPERATOR.example
def tf_batch_onlybigrams_skip0(v, t, rng):
    return doc(v, t, rng, [DOC_X[:6], DOC_X[6:]], 2, 0)


@OPERATOR.example
def tf_onlybigrams_levelempty(v, t, rng):
    return doc(v, t, rng, DOC_X, 2, 0, pool=[5, 6, 7, 8, 6, 7], counts=(0, 0), indexes=[0, 1, 2])


@OPERATOR.example
def tf_onlybigrams_skip5(v, t, rng):
    return doc(v, t, rng, DOC_X, 2, 5)


@OPERATOR.example
def tf_batch_onlybigrams_skip5(v, t, rng):
    return doc(v, t, rng, [DOC_X[:6], DOC_X[6:]], 2, 5)


@OPERATOR.example
def tf_uniandbigrams_skip5(v, t, rng):
    return doc(v, t, rng, DOC_X, 1, 5)


@OPERATOR.example
def tf_batch_uniandbigrams_skip5(v, t, rng):
    return doc(v, t, rng, [DOC_X[:6], DOC_X[6:]], 1, 5)


WEIGHTS = [0.5, 2.0, 0.1, 3.0, 0.25, 1.5, 0.7]


@OPERATOR.example
def idf_uniandbigrams_skip5(v, t, rng):
    """IDF: counts above 1 truncated to 1, times the weights."""
    return tfidf(v, t, DOC_X, DOC_POOL, (0, 4), DOC_INDEXES, "IDF", 1, 2, 5, WEIGHTS)


@OPERATOR.example
def tfidf_uniandbigrams_skip5(v, t, rng):
    """TFIDF: counts times the weights."""
    return tfidf(v, t, DOC_X, DOC_POOL, (0, 4), DOC_INDEXES, "TFIDF", 1, 2, 5, WEIGHTS)


@OPERATOR.example
def tfidf_batch_default_weights(v, t, rng):
    """TFIDF without weights: 'By default, weights is an all-one tensor'."""
    return tfidf(v, t, [DOC_X[:6], DOC_X[6:]], DOC_POOL, (0, 4), DOC_INDEXES, "TFIDF", 1, 2, 1)


@OPERATOR.example
def trigrams_skip1(v, t, rng):
    """1- to 3-grams with skips up to 1; ngram_indexes permuted (output coordinates out of pool order)."""
    x = [4, 1, 4, 2, 4, 1, 2, 3, 4, 1]
    # 1-grams 1, 4; 2-grams (4, 1), (1, 2), (4, 4); 3-grams (4, 1, 2), (4, 4, 4)
    pool = [1, 4, 4, 1, 1, 2, 4, 4, 4, 1, 2, 4, 4, 4]
    counts = (0, 2, 8)
    indexes = [3, 0, 5, 1, 4, 2, 6]
    return tfidf(v, t, x, pool, counts, indexes, "TF", 1, 3, 1)


@OPERATOR.example
def unigrams_only(v, t, rng):
    """min = max = 1: the 2-grams of the pool count nothing; unused output coordinates stay 0."""
    return tfidf(v, t, DOC_X, DOC_POOL, (0, 4), [1, 3, 5, 7, 9, 11, 13], "TF", 1, 1, 0)


@OPERATOR.example
def no_match(v, t, rng):
    return tfidf(v, t, [9, 9, 9], DOC_POOL, (0, 4), DOC_INDEXES, "TF", 1, 2, 2)


@OPERATOR.rejection
def both_pools(v, t, rng):
    return OPERATOR.reject(v, {"X": np.array([1, 2], np.int64)},
                           {"mode": "TF", "min_gram_length": 1, "max_gram_length": 1, "max_skip_count": 0,
                            "ngram_counts": [0], "ngram_indexes": [0, 1], "pool_int64s": [1, 2],
                            "pool_strings": ["a", "b"]},
                           {"Y": Declared("float", (2,))})


@OPERATOR.rejection
def string_input_with_int_pool(v, t, rng):
    return OPERATOR.reject(v, {"X": strings(["a", "b"])},
                           {"mode": "TF", "min_gram_length": 1, "max_gram_length": 1, "max_skip_count": 0,
                            "ngram_counts": [0], "ngram_indexes": [0, 1], "pool_int64s": [1, 2]},
                           {"Y": Declared("float", (2,))})


OPERATOR.reference_differs(r"^tfidf_batch_default_weights .*raised TypeError",
                           "the evaluator fails when weights is left out; the spec: 'By default, weights is an all-one tensor'")
OPERATOR.reference_differs(r"^(both_pools|string_input_with_int_pool) .*returned outputs for an expect-error case",
                           "the evaluator does not check 'Only one of pool_strings and pool_int64s can be set' nor "
                           "'If pool_int64s is set, the input should be an integer tensor'")
