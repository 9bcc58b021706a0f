"""Dropout: in test / inference mode a copy of the input (and a mask of all ones); in training mode a
random dropout, which no deterministic expected output can state (see `training`).

Versions 1 and 6 choose test mode by is_test; versions 7 and 10 have no mode attribute (onnx's own
node tests run Dropout-10 as a copy) and say nothing of the test-mode mask (Undefined); from version 12
training_mode is an optional input, 'unless specified explicitly, it is false', and ratio an optional
input (before: a FLOAT attribute).
"""

import numpy as np

from onnx_conformance.generators import values
from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.semantics import NotDeterministic, Rejected, Undefined, attr

OPERATOR = Operator("Dropout", primary="T")

TRAINING = ("training_mode = true with ratio > 0: 'If training_mode is true then the output Y will be a random "
            "dropout' (output = scale * data * mask, a random mask): no deterministic expected output exists; "
            "it needs a statistical verdict (harness/distribution.py)")


MASK_7_10 = ("Dropout-{}'s mask in test mode: its text says only 'The output mask.'; that the mask 'will contain "
             "all ones' is first said by Dropout-12's training_mode description")


def exact(t):
    return {"ulp": 0} if t.dtype in ("float16", "bfloat16", "float", "double") else None


def no_ratio_input(v, t):
    """Examples without a ratio input run with T1 at its default (float)."""
    if "T1" in v.type_params and v.type_params.get("T1") != ("bool",) and t.get("T1", "float") != "float":
        return NotApplicable(f"the example has no ratio input; T1 = {t['T1']} runs in the examples that feed ratio")
    return None


@OPERATOR.semantics
def dropout(v, attrs, inputs):
    """Deterministic in test / inference mode, or with ratio 0: output = data, and the mask all ones ('if mask is
    requested as output it will contain all ones'; versions 1 and 6 in test mode: 'this output is not filled').
    Random otherwise (a dropout with ratio > 0 in training mode: NotDeterministic). The mode: is_test (versions 1
    and 6, default 0: training); none in versions 7 and 10, whose test mode is taken (onnx's node tests run them as
    a copy), and whose mask is Undefined (their text says only 'The output mask.': the all-ones sentence is
    version 12's training_mode description); training_mode from version 12 ('unless specified explicitly, it is
    false'), where a ratio 'with value in [0, 1)' applies. Versions 12 and 13 say both 'If this input was not set ... a simple copy' and 'if not specified
    it will default to 0.5': training without a ratio has no stated result there."""
    x = inputs["data"]
    ones = np.ones(x.shape, dtype=np.bool_ if v.since_version >= 10 else x.dtype)
    if v.since_version < 7:
        if attr(attrs, "is_test", 0):
            return {"output": x.copy()}
        ratio = attr(attrs, "ratio", 0.5)
    elif v.since_version < 12:
        return {"output": x.copy(), "mask": Undefined(MASK_7_10.format(v.since_version))}
    else:
        training = inputs.get("training_mode")
        if training is None or not bool(np.asarray(training).reshape(-1)[0]):
            return {"output": x.copy(), "mask": ones}
        given = inputs.get("ratio")
        if given is None and v.since_version < 22:
            raise Undefined(f"training_mode true without a ratio: 'ratio: {v.schema.inputs[1].description}' says "
                            "both a copy and a default of 0.5")
        ratio = 0.5 if given is None else float(np.asarray(given, np.float64).reshape(-1)[0])
        if not 0 <= ratio < 1:
            raise Rejected(f"ratio: {v.schema.inputs[1].description} (given {ratio})")
    if ratio == 0:
        return {"output": x.copy(), "mask": ones}
    raise NotDeterministic(TRAINING)


def dropout_case(v, t, x, ratio=None, training_mode=None, mask=False, seed=None, is_test=None):
    """A case whose expected output is the input itself: test mode, or ratio 0."""
    attrs = {}
    inputs = {"data": x}
    if v.since_version >= 12:
        if ratio is not None:
            inputs["ratio"] = np.array(ratio, dtype=t.np("T1"))
        elif training_mode is not None:
            inputs["ratio"] = None
        if training_mode is not None:
            inputs["training_mode"] = np.array(training_mode, dtype=np.bool_)
        if seed is not None:
            attrs["seed"] = seed
    else:
        if ratio is not None:
            attrs["ratio"] = ratio
        if is_test is not None:
            attrs["is_test"] = is_test
    return OPERATOR.expect(v, inputs, attrs, outputs=["output", "mask"] if mask else ["output"], tolerance=exact(t))


MIRRORS = {"default_ratio": "default_mask_ratio", "default_mask": "default_mask_ratio",
           "training_zero_ratio": "training_zero_ratio_mask"}
RATIO_TYPES = ("default_mask_ratio", "training_zero_ratio_mask")


def subset(v, t, example):
    """Examples that differ from another only by an output or an input left out run in float, double and
    float16; the other types run in their fuller twin. Non-default T1 (ratio) types run in RATIO_TYPES."""
    if example in MIRRORS and (t.dtype not in ("float", "double", "float16") or t.suffix):
        return NotApplicable(f"{example} runs in float, double, float16; the type is covered by {MIRRORS[example]}")
    if t.suffix and example not in RATIO_TYPES:
        return NotApplicable(f"ratio types other than float run in {', '.join(RATIO_TYPES)}")
    return None


def modern(v, example, t=None):
    if v.since_version >= 12 and t is not None:
        return subset(v, t, example)
    if v.since_version < 12:
        return NotApplicable(f"Dropout-{v.since_version} has no ratio or training_mode input "
                             f"(inputs from version 12); {example} is version 12's")
    return None


def sample(t, shape, rng):
    return values.sample(t.dtype, shape, rng)


@OPERATOR.example
def default(v, t, rng):
    """onnx's test_dropout_default: seed 0, no ratio, no training_mode: a copy of the input."""
    return modern(v, "default", t) or no_ratio_input(v, t) or dropout_case(v, t, sample(t, (3, 4, 5), rng), seed=0)


@OPERATOR.example
def default_ratio(v, t, rng):
    """ratio 0.1 without training_mode: 'If it is false, ratio is ignored'."""
    return modern(v, "default_ratio", t) or dropout_case(v, t, sample(t, (3, 4, 5), rng), ratio=0.1, seed=0)


@OPERATOR.example
def default_mask(v, t, rng):
    """'if mask is requested as output it will contain all ones'."""
    return modern(v, "default_mask", t) or no_ratio_input(v, t) or dropout_case(
        v, t, sample(t, (3, 4, 5), rng), mask=True, seed=0)


@OPERATOR.example
def default_mask_ratio(v, t, rng):
    return modern(v, "default_mask_ratio", t) or dropout_case(
        v, t, sample(t, (3, 4, 5), rng), ratio=0.1, mask=True, seed=0)


@OPERATOR.example
def training_zero_ratio(v, t, rng):
    """training_mode true, ratio 0: 'if it was set to 0, the output would be a simple copy of the input'."""
    return modern(v, "training_zero_ratio", t) or dropout_case(
        v, t, sample(t, (3, 4, 5), rng), ratio=0.0, training_mode=True, seed=0)


@OPERATOR.example
def training_zero_ratio_mask(v, t, rng):
    """As training_zero_ratio, with the mask: nothing dropped, all ones (output = scale * data * mask, scale 1)."""
    return modern(v, "training_zero_ratio_mask", t) or dropout_case(
        v, t, sample(t, (3, 4, 5), rng), ratio=0.0, training_mode=True, mask=True, seed=0)


@OPERATOR.example
def training_mode_false(v, t, rng):
    """training_mode given as false, ratio 0.5: inference mode, a copy, the mask all ones."""
    return modern(v, "training_mode_false", t) or dropout_case(
        v, t, sample(t, (2, 7), rng), ratio=0.5, training_mode=False, mask=True)


@OPERATOR.example
def training_mode_without_ratio(v, t, rng):
    """training_mode false, ratio left out (an empty input name before it)."""
    return modern(v, "training_mode_without_ratio", t) or no_ratio_input(v, t) or dropout_case(
        v, t, sample(t, (5,), rng), training_mode=False, mask=True)


def random_training(name):
    def build(v, t, rng):
        return modern(v, name) or NotApplicable(TRAINING)

    OPERATOR.example(build, name=name)


# onnx's training examples (ratio 0.5 and 0.75): a random output.
for _name in ("training", "training_mask", "training_default", "training_default_mask"):
    random_training(_name)


@OPERATOR.example
def default_old(v, t, rng):
    """onnx's test_dropout_default_old (opset 11): [-1, 0, 1], no attributes, a copy."""
    if v.since_version < 7:
        return NotApplicable(f"Dropout-{v.since_version} runs in training mode by default (is_test 0); "
                             "is_test covers its test mode")
    x = np.array([-1, 0, 1], dtype=np.float64).astype(t.np())
    return no_ratio_input(v, t) or dropout_case(v, t, x)


@OPERATOR.example
def random_old(v, t, rng):
    """onnx's test_dropout_random_old (opset 11): ratio 0.2 as an attribute, a copy."""
    if v.since_version >= 12:
        return NotApplicable(f"ratio is an input of Dropout-{v.since_version}; default_ratio covers it")
    if v.since_version < 7:
        return NotApplicable(f"Dropout-{v.since_version} runs in training mode by default (is_test 0); "
                             "is_test covers its test mode")
    return dropout_case(v, t, sample(t, (3, 4, 5), rng), ratio=0.2)


@OPERATOR.example
def is_test(v, t, rng):
    """is_test = 1, ratio 0.3: 'if nonzero, run dropout in test mode where the output is simply Y = X'
    (the mask 'is not filled' then: not asked for)."""
    if not v.has_attribute("is_test"):
        return NotApplicable(f"Dropout-{v.since_version} has no is_test attribute (versions 1 and 6)")
    return dropout_case(v, t, sample(t, (3, 4, 5), rng), ratio=0.3, is_test=1)


@OPERATOR.example
def rank0(v, t, rng):
    if v.since_version < 7:
        return dropout_case(v, t, sample(t, (), rng), is_test=1)
    return no_ratio_input(v, t) or dropout_case(v, t, sample(t, (), rng))


@OPERATOR.example
def empty(v, t, rng):
    if v.since_version < 7:
        return dropout_case(v, t, sample(t, (2, 0, 3), rng), is_test=1)
    return no_ratio_input(v, t) or dropout_case(v, t, sample(t, (2, 0, 3), rng))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"No implementation for operator 'Dropout' domain '' and version [1-6],",
    "the evaluator implements Dropout from version 7 only",
)
