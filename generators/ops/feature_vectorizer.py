"""FeatureVectorizer (ai.onnx.ml): input tensors concatenated along the second dimension, as float."""

import numpy as np

from onnx_conformance.generators.ml_family import data, exact_of, ml_operator, rounded
from onnx_conformance.generators.semantics import Rejected, attr

OPERATOR = ml_operator("FeatureVectorizer")


@OPERATOR.semantics
def vectorize(v, attrs, inputs):
    """'All input shapes are 2-D and are concatenated along the second dimension. 1-D tensors are treated as
    [1,C].' 'Inputs are copied to the output maintaining the order of the input arguments', as float (each value
    rounded once); inputdimensions is 'The size of each input in the input list'."""
    xs = inputs["X"]
    two_d = [x.reshape(1, -1) if x.ndim == 1 else x for x in xs]
    if any(x.ndim != 2 for x in two_d):
        raise Rejected(v.sentence(r"All input shapes are 2-D"))
    if len({x.shape[0] for x in two_d}) > 1:
        raise Rejected(f"{v.sentence(r'All input shapes are 2-D')} (inputs with different row counts)")
    dims = attr(attrs, "inputdimensions", [x.shape[1] for x in two_d])
    if list(dims) != [x.shape[1] for x in two_d]:
        raise Rejected(f"inputdimensions: {v.schema.attributes['inputdimensions'].description}")
    cols = [np.array(rounded(exact_of(x), "float", x.shape)) for x in two_d]
    return {"Y": np.concatenate(cols, axis=1).astype(np.float32)}


def vectorized(v, xs):
    inputs = {f"X_{k}": x for k, x in enumerate(xs)}
    return OPERATOR.expect(v, inputs, {"inputdimensions": [x.shape[-1] for x in xs]})


@OPERATOR.example
def two_inputs(v, t, rng):
    return vectorized(v, [data(t.dtype, (3, 2), rng), data(t.dtype, (3, 4), rng)])


@OPERATOR.example
def three_inputs(v, t, rng):
    return vectorized(v, [data(t.dtype, (2, 1), rng), data(t.dtype, (2, 3), rng), data(t.dtype, (2, 2), rng)])


@OPERATOR.example
def one_d(v, t, rng):
    """A 1-D input is one row."""
    return vectorized(v, [data(t.dtype, (3,), rng), data(t.dtype, (1, 2), rng)])


@OPERATOR.example
def single_input(v, t, rng):
    return vectorized(v, [data(t.dtype, (2, 5), rng)])


OPERATOR.reference_differs(r"dtype (double|int32|int64) != expected float",
                           "FeatureVectorizer's output Y is tensor(float) for every T1; the evaluator concatenates in X's type")
OPERATOR.reference_differs(r"^one_d .*must match exactly",
                           "'1-D tensors are treated as [1,C]': the evaluator reshapes a 1-D input to [C,1]")
