"""NonMaxSuppression: per batch and class, boxes by descending score, each kept unless its IoU with
a box kept before is strictly greater than iou_threshold; scores below score_threshold removed.

The oracle works in exact rationals (Fraction) from the float inputs: IoU = intersection / union
exactly, so a boundary case ("boxes with IOU exactly equal to the threshold are kept") is decided
by the spec, not by rounding. selected_indices lists [batch, class, box] by batch, then class,
then selection order (the order onnx's examples show; equal scores are avoided except where every
box is identical, where the lowest index goes first).
"""

import math
from fractions import Fraction

import numpy as np

from onnx_conformance.generators.case import Declared, Operator, Types
from onnx_conformance.generators.semantics import Rejected, Undefined, attr, described, sentences


class _Untyped(Operator):
    """The schema names its types directly (boxes: tensor(float)), with no type parameter: one
    binding, the first input's fixed type under its name ({"boxes": "float"})."""

    def bindings(self, v):
        return super().bindings(v) if v.type_params else [Types({"boxes": "float"}, "boxes", ())]


OPERATOR = _Untyped("NonMaxSuppression")

F = np.float32
DOC_BOXES = [[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, -0.1, 1.0, 0.9],
             [0.0, 10.0, 1.0, 11.0], [0.0, 10.1, 1.0, 11.1], [0.0, 100.0, 1.0, 101.0]]
DOC_SCORES = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3]


def corners(box, center: bool):
    """(y_min, x_min, y_max, x_max) of a box, exactly; format 0 takes any diagonal pair of corners."""
    a, b, c, d = (Fraction(float(v)) for v in box)
    if center:  # [x_center, y_center, width, height]
        return b - d / 2, a - c / 2, b + d / 2, a + c / 2
    return min(a, c), min(b, d), max(a, c), max(b, d)


def iou(p, q) -> Fraction:
    ih = max(Fraction(0), min(p[2], q[2]) - max(p[0], q[0]))
    iw = max(Fraction(0), min(p[3], q[3]) - max(p[1], q[1]))
    inter = ih * iw
    union = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter
    return Fraction(0) if union == 0 else inter / union


@OPERATOR.semantics
def non_max_suppression(v, attrs, inputs):
    """Per batch and class: boxes by descending score (equal scores: the lower index first, as onnx's
    examples do; the spec names no order), those scoring below score_threshold removed, each kept unless
    its IoU with a box kept before it is strictly greater than iou_threshold, at most
    max_output_boxes_per_class (default 0: none). IoU in exact rationals, so "boxes with IOU exactly
    equal to the threshold are kept" is decided by the spec, not by rounding."""
    boxes, scores = inputs["boxes"], inputs["scores"]
    if boxes.ndim != 3 or boxes.shape[2] != 4:
        shape = _first_sentence(v, "boxes")
        raise Rejected(f"boxes: {shape} (given a last dimension of {boxes.shape[-1]})" if boxes.ndim == 3
                       else f"boxes: {shape} (given rank {boxes.ndim})")
    if scores.ndim != 3 or scores.shape[0] != boxes.shape[0] or scores.shape[2] != boxes.shape[1]:
        raise Rejected(f"scores: {_first_sentence(v, 'scores')} (boxes of shape {boxes.shape}, scores {scores.shape})")
    center = attr(attrs, "center_point_box", 0)
    if center not in (0, 1):
        raise Rejected("center_point_box: " + described(v, "center_point_box"))
    limit = _scalar(inputs.get("max_output_boxes_per_class"), 0)
    iou_t = _scalar(inputs.get("iou_threshold"), 0.0)
    score_t = _scalar(inputs.get("score_threshold"), None)
    if not (np.isfinite(boxes).all() and np.isfinite(scores).all()) or any(
            t is not None and math.isnan(t) for t in (iou_t, score_t)):
        raise Undefined("a NaN or infinite box coordinate, score or threshold: the spec's IoU and order have no value there")
    if not 0 <= iou_t <= 1:
        raise Rejected("iou_threshold: Value range [0, 1].")
    if limit < 0:
        raise Undefined("a negative max_output_boxes_per_class: the spec states only 0 (\"no output\") and counts")
    thr = Fraction(iou_t)
    out = []
    for b in range(boxes.shape[0]):
        cs = [corners(bx, bool(center)) for bx in boxes[b]]
        for c in range(scores.shape[1]):
            row = [Fraction(float(s)) for s in scores[b, c]]
            order = sorted(range(len(row)), key=lambda i: (-row[i], i))
            if score_t is not None:  # "Bounding boxes with score less than score_threshold are removed"
                order = [i for i in order if not row[i] < Fraction(score_t)]
            kept = []
            for i in order:
                if len(kept) >= limit:
                    break
                if all(not iou(cs[i], cs[j]) > thr for j in kept):
                    kept.append(i)
            out += [[b, c, i] for i in kept]
    return {"selected_indices": np.array(out, dtype=np.int64).reshape(-1, 3)}


def _scalar(x, default):
    """An optional scalar input's value (given as a scalar or a 1-element tensor), or its default."""
    if x is None:
        return default
    value = np.asarray(x).reshape(-1)[0]
    return int(value) if np.asarray(x).dtype.kind in "iu" else float(value)


def _first_sentence(v, name: str) -> str:
    """The first sentence of an input's description: the shape it states."""
    return sentences(described(v, name))[0].rstrip(".")


def case(v, boxes, scores, max_out=(3,), iou_t=(0.5,), score_t=(0.0,), center=None):
    boxes = np.array(boxes, dtype=F)
    scores = np.array(scores, dtype=F)
    m = None if max_out is None else np.array(max_out, dtype=np.int64)
    it = None if iou_t is None else np.array(iou_t, dtype=F)
    st = None if score_t is None else np.array(score_t, dtype=F)
    attrs = {} if center is None else {"center_point_box": center}
    inputs = {"boxes": boxes, "scores": scores, "max_output_boxes_per_class": m,
              "iou_threshold": it, "score_threshold": st}
    return OPERATOR.expect(v, inputs, attrs)


@OPERATOR.example
def suppress_by_IOU(v, t, rng):
    return case(v, [DOC_BOXES], [[DOC_SCORES]])


@OPERATOR.example
def suppress_by_IOU_and_scores(v, t, rng):
    return case(v, [DOC_BOXES], [[DOC_SCORES]], score_t=(0.4,))


@OPERATOR.example
def flipped_coordinates(v, t, rng):
    """Format 0 takes 'any diagonal pair of box corners'."""
    boxes = [[1.0, 1.0, 0.0, 0.0], [0.0, 0.1, 1.0, 1.1], [0.0, 0.9, 1.0, -0.1],
             [0.0, 10.0, 1.0, 11.0], [1.0, 10.1, 0.0, 11.1], [1.0, 101.0, 0.0, 100.0]]
    return case(v, [boxes], [[DOC_SCORES]])


@OPERATOR.example
def limit_output_size(v, t, rng):
    return case(v, [DOC_BOXES], [[DOC_SCORES]], max_out=(2,))


@OPERATOR.example
def single_box(v, t, rng):
    return case(v, [[[0.0, 0.0, 1.0, 1.0]]], [[[0.9]]])


@OPERATOR.example
def identical_boxes(v, t, rng):
    return case(v, [[[0.0, 0.0, 1.0, 1.0]] * 10], [[[0.9] * 10]])


@OPERATOR.example
def center_point_box_format(v, t, rng):
    boxes = [[0.5, 0.5, 1.0, 1.0], [0.5, 0.6, 1.0, 1.0], [0.5, 0.4, 1.0, 1.0],
             [0.5, 10.5, 1.0, 1.0], [0.5, 10.6, 1.0, 1.0], [0.5, 100.5, 1.0, 1.0]]
    return case(v, [boxes], [[DOC_SCORES]], center=1)


@OPERATOR.example
def two_classes(v, t, rng):
    return case(v, [DOC_BOXES], [[DOC_SCORES, DOC_SCORES]], max_out=(2,))


@OPERATOR.example
def two_batches(v, t, rng):
    return case(v, [DOC_BOXES, DOC_BOXES], [[DOC_SCORES], [DOC_SCORES]], max_out=(2,))


@OPERATOR.example
def iou_threshold_boundary(v, t, rng):
    """IoU 1/7 exactly; the threshold float32(1/7) lies just above it."""
    return case(v, [[[0.0, 0.0, 1.0, 1.0], [0.5, 0.5, 1.5, 1.5]]], [[[0.9, 0.8]]], iou_t=(1 / 7,))


@OPERATOR.example
def iou_equal_to_threshold(v, t, rng):
    """'boxes with IOU exactly equal to the threshold are kept': IoU exactly 0.5, threshold 0.5."""
    return case(v, [[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 2.0], [0.0, 0.0, 2.0, 2.0]]], [[[0.9, 0.8, 0.7]]])


@OPERATOR.example
def score_equal_to_threshold(v, t, rng):
    """'Bounding boxes with score less than score_threshold are removed': box 5 (apart from every
    other box) has a score equal to the threshold and stays."""
    scores = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3]
    return case(v, [DOC_BOXES], [[scores]], max_out=(6,), score_t=(0.3,))


@OPERATOR.example
def default_max_output(v, t, rng):
    """max_output_boxes_per_class left out: 'Default to 0, which means no output'."""
    return case(v, [DOC_BOXES], [[DOC_SCORES]], max_out=None, iou_t=None, score_t=None)


@OPERATOR.example
def default_iou_threshold(v, t, rng):
    """iou_threshold and score_threshold left out: IoU default 0, so any overlap suppresses."""
    return case(v, [DOC_BOXES], [[DOC_SCORES]], max_out=(6,), iou_t=None, score_t=None)


@OPERATOR.example
def center_two_batches_two_classes(v, t, rng):
    """center_point_box 1 over two batches and two classes, distinct scores, overlapping boxes."""
    boxes = [[[2.0, 2.0, 4.0, 4.0], [2.5, 2.0, 4.0, 4.0], [8.0, 8.0, 2.0, 2.0], [2.0, 3.0, 2.0, 2.0]],
             [[1.0, 1.0, 2.0, 2.0], [1.0, 1.5, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0], [5.0, 5.0, 1.0, 1.0]]]
    scores = [[[0.9, 0.8, 0.7, 0.6], [0.1, 0.4, 0.3, 0.2]],
              [[0.5, 0.75, 0.25, 0.125], [0.875, 0.625, 0.375, 0.0625]]]
    return case(v, boxes, scores, max_out=(3,), iou_t=(0.4,), score_t=(0.15,), center=1)


@OPERATOR.example
def center_read_as_corners_differs(v, t, rng):
    """center_point_box 1 where reading the data as corners selects other boxes: boxes 0 and 1 (2 x 2, centres
    half a unit apart) overlap with IoU 3/5 and box 1 is suppressed; as corners both are points (IoU 0) and
    both would be kept. Box 2 is far from both."""
    boxes = [[[2.0, 2.0, 2.0, 2.0], [2.0, 2.5, 2.0, 2.0], [9.0, 9.0, 1.0, 1.0]]]
    return case(v, boxes, [[[0.9, 0.8, 0.7]]], max_out=(3,), iou_t=(0.5,), score_t=(0.0,), center=1)


@OPERATOR.example
def many_classes_large_limit(v, t, rng):
    """Three classes over eight random boxes, a limit above the box count."""
    corner = rng.integers(0, 8, size=(1, 8, 2)).astype(np.float64)
    size = rng.integers(1, 5, size=(1, 8, 2)).astype(np.float64)
    boxes = np.concatenate([corner, corner + size], axis=2)
    scores = (rng.permutation(24).reshape(1, 3, 8) + 1) / 32.0
    return case(v, boxes, scores, max_out=(20,), iou_t=(0.3,), score_t=(0.0,))


@OPERATOR.example  # a rejection: the one binding of a version (once_per_version needs a type parameter)
def boxes_last_dim_not_4(v, t, rng):
    boxes = np.zeros((1, 6, 3), F)
    scores = np.zeros((1, 1, 6), F)
    return OPERATOR.reject(v, {"boxes": boxes, "scores": scores, "max_output_boxes_per_class": np.array([3], np.int64)},
                           {}, {"selected_indices": Declared("int64", (None, 3))})


OPERATOR.reference_differs(r"^default_(iou_threshold|max_output) .*raised TypeError",
                           "the evaluator fails when the optional inputs iou_threshold / score_threshold are left out; "
                           "the spec gives their defaults (iou_threshold 'Default to 0'; no score_threshold: no box removed by score)")
OPERATOR.reference_differs(r"^score_equal_to_threshold .*shape \(2, 3\) != expected \(3, 3\)",
                           "the evaluator removes a box whose score equals score_threshold; the spec removes only "
                           "'Bounding boxes with score less than score_threshold' (onnxruntime does the same: a finding)")
