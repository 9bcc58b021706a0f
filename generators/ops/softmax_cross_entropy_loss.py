"""SoftmaxCrossEntropyLoss: the negative log likelihood of Log(Softmax(scores)) along axis 1, and that log_prob.

The oracle is generators/loss_family.py (mpmath at PREC bits, rounded once). The documented
examples carry onnx's node tests' names without their prefix (test_sce_mean -> example mean)
and their data; each comes with and without the optional log_prob output.
"""

from onnx_conformance.generators import loss_family as lf
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("SoftmaxCrossEntropyLoss", primary="T", defaults={"Tind": "int64"})

# The documented examples' data: seed 0, as onnx's node tests draw it, so each example (and its
# _log_prob twin, which asks for the second output too) meets onnx's own expected outputs.
DOC_SEED = 0

W1 = [0.9, 0.7, 0.8, 0.9, 0.9]
W2 = [0.2, 0.3, 0.6, 0.1, 0.5]
# example: (scores shape, reduction, weights ('rand', a list or None), ignore_index, where the labels take it)
DOC = {
    "none": ((3, 5), "none", None, None, None),
    "none_weights": ((3, 5), "none", W1, None, None),
    "sum": ((3, 5), "sum", None, None, None),
    "mean": ((3, 5), "mean", None, None, None),
    "mean_3d": ((3, 5, 2), "mean", None, None, None),
    "mean_weight": ((3, 5), "mean", W1, None, None),
    "mean_weight_ii": ((3, 5), "mean", W1, 0, (0,)),
    "mean_no_weight_ii": ((3, 5), "mean", None, 2, (0,)),
    "mean_weight_ii_3d": ((3, 5, 2), "mean", W2, 1, (0, 0)),
    "mean_no_weight_ii_3d": ((3, 5, 2), "mean", None, 2, (0, 0)),
    "mean_weight_ii_4d": ((3, 5, 2, 7), "mean", W2, 2, (0, 0, 0)),
    "mean_no_weight_ii_4d": ((3, 5, 2, 7), "mean", None, 2, (0, 0, 0)),
    "NCd1d2d3d4d5_mean_weight": ((3, 5, 6, 6, 5, 3, 4), "mean", "rand", None, None),
    "NCd1d2d3d4d5_none_no_weight": ((3, 5, 6, 6, 5, 3, 4), "none", None, None, None),
    "NCd1_mean_weight_negative_ii": ((3, 5, 6), "mean", "rand", -1, (0, 0)),
    "NCd1d2d3_none_no_weight_negative_ii": ((3, 5, 6, 6, 5), "none", None, -5, (0, 0, 0, 0)),
    "NCd1d2d3_sum_weight_high_ii": ((3, 5), "sum", "rand", 10, (0,)),
}


def _doc(name, spec, log_prob):
    shape, reduction, weight, ii, at = spec

    def example(v, t, rng):
        na = lf.doc_types(t)
        if na:
            return na
        x, labels, w = lf.doc_data(shape, weight, at, ii, seed=DOC_SEED)
        return lf.build(OPERATOR.name, v, t, x, labels, w, reduction, ii, with_log_prob=log_prob, explicit=True)

    full = name + ("_log_prob" if log_prob else "")
    example.__doc__ = f"onnx's test_sce_{full}"
    OPERATOR.example(example, name=full)


for _name, _spec in DOC.items():
    _doc(_name, _spec, False)
    _doc(_name, _spec, True)


def _typed(reduction, weighted, ii):
    def example(v, t, rng):
        x, labels, w = lf.typed_data(t, rng)
        if ii is None:
            labels[labels == -1] = 0
        return lf.build(OPERATOR.name, v, t, x, labels, w if weighted else None, reduction, ii, with_log_prob=True)

    return example


for _r in lf.REDUCTIONS:
    OPERATOR.example(_typed(_r, True, -1), name=f"typed_{_r}_weight_ii")
OPERATOR.example(_typed("mean", False, None), name="typed_mean_no_weight")


@OPERATOR.rejection
def rank1_input(v, t, rng):
    return lf.rejection_rank1(OPERATOR.name, v)


OPERATOR.reference_differs(r"^\w+ float16: .*max ulp \d+$",
                           "the evaluator computes Softmax, Log and the sum in float16 itself; ours is the exact "
                           "value rounded once, and a float16 runtime computing in float lands within 1 step")
