"""Classical ML strategies' shared values: features float holds exactly, weights and labels, post_transform, and
the tolerance and tie margin of a float score."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.generators.case import seeded_rng
from onnx_conformance.harness.dtypes import numpy_of
from onnx_conformance.harness.strategies.common import dims

ML = "ai.onnx.ml"
ROWS = 64  # rows of X at most
FEATURES = 16  # features (columns) at most
MAX_DEPTH = 6  # a tree's depth at most (the corpus's trees stop at 2)
MAX_TREES = 5
# finite values float holds exactly, where a model's float arithmetic is in range: signed zeros, the
# smallest subnormal and normal, +-1 and neighbours, float16's max, 2^20 and 2^24 (integers end there)
FEATURE_EDGES = (0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0 ** -149, 2.0 ** -126, 1.0 - 2.0 ** -24, 1.0 + 2.0 ** -23,
                 65504.0, -65504.0, 2.0 ** 20, -(2.0 ** 20), 2.0 ** 24, 3.0, 7.0, 0.1)
INT_EDGES = (0, 1, -1, 2, 7, 2 ** 20, -(2 ** 20), 2 ** 24, -(2 ** 24), 255, -128)
GRID = [x / 8 for x in range(-32, 33)]  # weights and split points: eighths in [-4, 4], exact in every type
POSTS = ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT")
STRINGS = ("a", "b", "", "caf\u00e9", "A", "a ", "\u4e2d", "zz", "0", "-1")
INT64S = (0, 1, -1, 7, 42, -3, 2 ** 63 - 1, -(2 ** 63), 2 ** 31, 2 ** 53 + 1)
KERNELS = ("LINEAR", "POLY", "RBF", "SIGMOID")


# ---------------------------------------------------------------------------------------------
# values


def as_float32(x) -> float:
    return float(np.float32(x))


@st.composite
def features(draw, type_name: str, shape, nan: bool = False, small: bool = False):
    """X of a model: quarters in [-4, 4] (seeded by the shape), up to 16 drawn values put in, among them
    FEATURE_EDGES (INT_EDGES for an integer type) and, with `nan`, NaN (a missing value); `small`: the edges
    within [-16, 16] only (an SVM kernel's power of 2^24 leaves no decision value clear of its tolerance)."""
    rng = seeded_rng("explore-ml", type_name, tuple(shape))
    x = (rng.integers(-16, 17, size=shape) / (1 if type_name.startswith("int") else 4)).astype(numpy_of(type_name))
    if not x.size:
        return x
    if type_name.startswith("int"):
        pick = st.one_of(st.integers(-8, 8), st.sampled_from([e for e in INT_EDGES if not small or abs(e) <= 16]))
    else:
        top = 16.0 if small else float(np.finfo(numpy_of(type_name)).max)
        listed = tuple(e for e in FEATURE_EDGES if abs(e) <= top) + ((math.nan,) if nan else ())
        pick = st.one_of(st.sampled_from(GRID), st.floats(-top if small else -1000, top if small else 1000, width=32),
                         st.sampled_from(listed))
    drawn = draw(st.lists(st.tuples(st.integers(0, x.size - 1), pick), max_size=min(x.size, 16)), label="features")
    flat = x.reshape(-1)
    for i, value in drawn:
        flat[i] = value
    return x


def weight_values(n: int, wide: bool = True):
    """n FLOAT attribute values: eighths in [-4, 4], or (wide) any float32 in [-100, 100]; the SVMs' (not
    wide) without 0, so a plain draw's decision values are not all 0 (a vote on 0 hangs on rounding)."""
    one = st.one_of(st.sampled_from(GRID), st.floats(-100, 100, width=32)) if wide else \
        st.sampled_from([g for g in GRID if g])
    return st.lists(one, min_size=n, max_size=n).map(lambda xs: [as_float32(x) for x in xs])


@st.composite
def feature_rows(draw, type_name: str, nan: bool = False, max_features: int = FEATURES, max_rows: int = ROWS,
          one_row: bool = True, small: bool = False):
    """X as [N, C] or, with one_row, sometimes [C] ('Data to be classified/regressed ... [N,C] or [C]'; the
    trees' X is 'of shape [Batch Size, Number of Features]', and onnx's shape inference asks rank 2)."""
    c = draw(st.one_of(st.integers(1, 4), st.sampled_from([f for f in (5, 7, 8, 9, 13, 16) if f <= max_features])),
             label="C")
    if one_row and draw(st.integers(0, 5), label="rank 1") == 0:
        return draw(features(type_name, (c,), nan, small), label="X")
    n = draw(dims(max_rows), label="N")
    return draw(features(type_name, (n, c), nan, small), label="X")


def class_labels(strings: bool, k: int):
    """k distinct class labels: the listed strings or int64s (their edges among them), then made-up ones."""
    pool = STRINGS if strings else INT64S
    extra = [f"c{i}" for i in range(k)] if strings else [1000 + i for i in range(k)]
    return st.lists(st.sampled_from(pool), min_size=min(k, len(pool)), max_size=min(k, len(pool)),
                    unique=True).map(lambda xs: xs + extra[:k - len(xs)])


def as_rows(x):
    return x.reshape(1, -1) if x.ndim == 1 else x


def drawn_post(draw, v):
    return draw(st.sampled_from(POSTS), label="post_transform")


def score_tolerance(post: str, n: int, magnitude: float, type_name: str = "float") -> dict | None:
    from onnx_conformance.generators.ml_family import transform_tolerance

    return transform_tolerance(post, type_name, n, magnitude)


def clear_of_ties(rows, margin: float) -> bool:
    """Each row's top score ahead of the next by more than `margin` (a label that does not hang on rounding)."""
    for r in rows:
        s = sorted(float(e) for e in r)
        if len(s) > 1 and not s[-1] - s[-2] > margin:
            return False
    return True


def tie_margin(tol: dict | None, rows) -> float:
    """Four times the error the tolerance allows a score of these rows."""
    top = max((abs(float(e)) for r in rows for e in r if math.isfinite(float(e))), default=0.0)
    tol = tol or {}
    return 4 * (tol.get("atol", 0.0) + (tol.get("ulp", 0) + 1) * top * 2.0 ** -23)
