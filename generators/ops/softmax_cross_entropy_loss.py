"""SoftmaxCrossEntropyLoss: the negative log likelihood of Log(Softmax(scores)) along axis 1, and that log_prob.

The oracle is generators/loss_family.py (mpmath at PREC bits, rounded once). The documented
examples carry onnx's node tests' names without their prefix (test_sce_mean -> example mean)
and their data; each comes with and without the optional log_prob output.
"""

from onnx_conformance.generators import loss_family as lf
from onnx_conformance.generators.case import Declared, NotApplicable, Operator
from onnx_conformance.generators.semantics import Undefined
from onnx_conformance.harness.dtypes import name_of_numpy

OPERATOR = Operator("SoftmaxCrossEntropyLoss", primary="T", defaults={"Tind": "int64"})

RANK_RULE = ("scores: The predicted outputs with shape [batch_size, class_size], or [batch_size, class_size, D1, D2 , "
             "..., Dk]")


@OPERATOR.semantics
def softmax_cross_entropy(v, attrs, inputs):
    """log_prob = Log(Softmax(scores)) along axis 1; output = the negative log likelihood loss of log_prob and the
    labels (weights, ignore_index, reduction as NegativeLogLikelihoodLoss's; 'mean' divides by the sum of the
    weights taken, as the schema's function body and onnx's examples do, where the reduction's text says 'the
    number of elements in the output'). At mpmath's PREC bits, each rounded once to the scores' type."""
    x, labels, weights = inputs["scores"], inputs["labels"], inputs.get("weights")
    reduction, ignore_index = lf.checked(v, attrs, x, labels, weights, RANK_RULE)
    lp = lf.log_softmax_axis1(x)
    return {"output": lf.reduced(x, labels, weights, reduction, ignore_index, log_prob=lp),
            "log_prob": lf.log_prob_array(lp, x.shape, name_of_numpy(x.dtype))}


def build(v, t, x, labels, weights, reduction, ignore_index, with_log_prob=False, explicit=False):
    """One case, in the binding's types, asking for log_prob too where `with_log_prob`; its tolerance is the
    oracle's for these inputs (the larger of the two outputs')."""
    attrs = lf.loss_attrs(v, reduction, ignore_index, explicit)
    if isinstance(attrs, NotApplicable):
        return attrs
    x, labels, weights = lf.typed(t, x, labels, weights)
    lp = lf.log_softmax_axis1(x)
    tol = lf.loss_tolerance(x, labels, weights, reduction, ignore_index, log_prob=lp)
    if with_log_prob:
        lt = lf.log_prob_tolerance(t["T"], x)
        tol = {"ulp": max(tol["ulp"], lt["ulp"]), "atol": max(tol.get("atol", 0.0), lt["atol"])}
    try:
        return OPERATOR.expect(v, {"scores": x, "labels": labels, "weights": weights}, attrs, tolerance=tol,
                               outputs=["output", "log_prob"] if with_log_prob else ["output"])
    except Undefined:
        return NotApplicable(lf.ALL_IGNORED)

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
        return build(v, t, x, labels, w, reduction, ii, with_log_prob=log_prob, explicit=True)

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
        return build(v, t, x, labels, w if weighted else None, reduction, ii, with_log_prob=True)

    return example


for _r in lf.REDUCTIONS:
    OPERATOR.example(_typed(_r, True, -1), name=f"typed_{_r}_weight_ii")
OPERATOR.example(_typed("mean", False, None), name="typed_mean_no_weight")


@OPERATOR.rejection
def rank1_input(v, t, rng):
    x, labels = lf.rank1_data()
    return OPERATOR.reject(v, {"scores": x, "labels": labels}, {}, {"output": Declared("float", ())})


OPERATOR.reference_differs(r"^\w+ float16: .*max ulp \d+$",
                           "the evaluator computes Softmax, Log and the sum in float16 itself; ours is the exact "
                           "value rounded once, and a float16 runtime computing in float lands within 1 step")
