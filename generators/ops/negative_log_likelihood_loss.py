"""NegativeLogLikelihoodLoss: -input[n][target][d...] (times weight[target]), 0 at ignore_index, reduced.

The oracle is generators/loss_family.py (exact, rounded once). The documented examples carry
onnx's node tests' names without their prefix (test_nllloss_NC -> example NC) and their data.
"""

from onnx_conformance.generators import loss_family as lf
from onnx_conformance.generators.case import Declared, NotApplicable, Operator
from onnx_conformance.generators.semantics import Undefined

OPERATOR = Operator("NegativeLogLikelihoodLoss", primary="T", defaults={"Tind": "int64"})

RANK_RULE = "input: Input tensor of shape (N, C) or (N, C, d1, d2, ..., dk)"


@OPERATOR.semantics
def nll_loss(v, attrs, inputs):
    """loss[n][d...] = -input[n][target[n][d...]][d...] * weight[target[n][d...]] (weight 1 each where absent),
    0 where the target is ignore_index; 'none' keeps it, 'sum' adds it, 'mean' divides the sum 'by the sum of
    applied weights'. Exact, rounded once to the input's type."""
    x, target, weight = inputs["input"], inputs["target"], inputs.get("weight")
    reduction, ignore_index = lf.checked(v, attrs, x, target, weight, RANK_RULE)
    return {"loss": lf.reduced(x, target, weight, reduction, ignore_index)}


def build(v, t, x, target, weight, reduction, ignore_index, explicit=False):
    """One case, in the binding's types; its tolerance is the oracle's for these inputs."""
    attrs = lf.loss_attrs(v, reduction, ignore_index, explicit)
    if isinstance(attrs, NotApplicable):
        return attrs
    x, target, weight = lf.typed(t, x, target, weight)
    tol = lf.loss_tolerance(x, target, weight, reduction, ignore_index)
    try:
        return OPERATOR.expect(v, {"input": x, "target": target, "weight": weight}, attrs, tolerance=tol)
    except Undefined:
        return NotApplicable(lf.ALL_IGNORED)

# example: (input shape, reduction, weight ('rand' or None), ignore_index, where the target takes it)
DOC = {
    "NC": ((3, 5), "none", None, None, None),
    "NCd1d2": ((3, 5, 6, 6), "none", None, None, None),
    "NCd1d2_reduction_mean": ((3, 5, 6, 6), "mean", None, None, None),
    "NCd1d2_reduction_sum": ((3, 5, 6, 6), "sum", None, None, None),
    "NCd1d2_with_weight": ((3, 5, 6, 6), "none", "rand", None, None),
    "NCd1d2_with_weight_reduction_mean": ((3, 5, 6, 6), "mean", "rand", None, None),
    "NCd1d2_with_weight_reduction_sum": ((3, 5, 6, 6), "sum", "rand", None, None),
    "NCd1d2_with_weight_reduction_sum_ii": ((3, 5, 6, 6), "sum", "rand", 0, (0, 0, 0)),
    "NCd1d2_no_weight_reduction_mean_ii": ((3, 5, 6, 6), "mean", None, 1, (0, 0, 0)),
    "NCd1": ((3, 5, 2), "mean", None, None, None),
    "NCd1_weight": ((3, 5, 2), "mean", "rand", None, None),
    "NCd1_ii": ((3, 5, 2), "mean", None, 1, (0, 0)),
    "NCd1_weight_ii": ((3, 5, 2), "mean", "rand", 1, (0, 0)),
    "NCd1d2d3d4d5_mean_weight": ((3, 5, 6, 6, 5, 3, 4), "mean", "rand", None, None),
    "NCd1d2d3d4d5_none_no_weight": ((3, 5, 6, 6, 5, 3, 4), "none", None, None, None),
    "NCd1_mean_weight_negative_ii": ((3, 5, 6), "mean", "rand", -1, (0, 0)),
    "NCd1d2d3_none_no_weight_negative_ii": ((3, 5, 6, 6, 5), "none", None, -5, (0, 0, 0, 0)),
    "NCd1d2d3_sum_weight_high_ii": ((3, 5), "sum", "rand", 10, (0,)),
}


def _doc(name, spec):
    shape, reduction, weight, ii, at = spec

    def example(v, t, rng):
        na = lf.doc_types(t)
        if na:
            return na
        x, target, w = lf.doc_data(shape, weight, at, ii)
        return build(v, t, x, target, w, reduction, ii, explicit=True)

    example.__doc__ = f"onnx's test_nllloss_{name}"
    OPERATOR.example(example, name=name)


for _name, _spec in DOC.items():
    _doc(_name, _spec)


@OPERATOR.example
def doc_example_1(v, t, rng):
    """The doc's Example 1: 'none' reduction, N, C, d1 = 2, 3, 2."""
    return build(v, t, DOC_INPUT, DOC_TARGET, None, "none", None)


@OPERATOR.example
def doc_example_2(v, t, rng):
    """The doc's Example 2: weighted, 'sum' (-1.1 in exact arithmetic, rounded once)."""
    return build(v, t, DOC_INPUT, DOC_TARGET, DOC_WEIGHT, "sum", None)


@OPERATOR.example
def doc_example_3(v, t, rng):
    """The doc's Example 3: weighted, 'mean' (sum over the weights taken)."""
    return build(v, t, DOC_INPUT, DOC_TARGET, DOC_WEIGHT, "mean", None)


DOC_INPUT = [[[1.0, 2.0], [2.0, 2.0], [3.0, 2.0]], [[0.0, 1.0], [2.0, 2.0], [1.0, 2.0]]]
DOC_TARGET = [[2, 1], [0, 2]]
DOC_WEIGHT = [0.2, 0.3, 0.1]


def _typed(reduction, weighted, ii):
    def example(v, t, rng):
        x, target, w = lf.typed_data(t, rng)
        if ii is None:
            target[target == -1] = 0
        return build(v, t, x, target, w if weighted else None, reduction, ii)

    return example


for _r in lf.REDUCTIONS:
    OPERATOR.example(_typed(_r, True, -1), name=f"typed_{_r}_weight_ii")
OPERATOR.example(_typed("mean", False, None), name="typed_mean_no_weight")


@OPERATOR.rejection
def rank1_input(v, t, rng):
    x, target = lf.rank1_data()
    return OPERATOR.reject(v, {"input": x, "target": target}, {}, {"loss": Declared("float", ())})
