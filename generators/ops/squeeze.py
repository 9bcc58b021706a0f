"""Squeeze: the input without the size-1 dimensions `axes` names (attribute to version 11, input from 13), or without all of them."""

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data, declared
from onnx_conformance.generators.semantics import Rejected, Undefined, rule
from onnx_conformance.generators.shape_family import ints_argument, ints_given

OPERATOR = Operator("Squeeze")


@OPERATOR.semantics
def squeeze(v, attrs, inputs):
    """The input without the dimensions `axes` names, each of size 1 ('If an axis is selected with shape
    entry not equal to one, an error is raised'); without `axes`, without every size-1 dimension.
    Axes are non-negative in version 1, in [-r, r-1] from version 11."""
    x = inputs["data"]
    axes = ints_given(v, "axes", attrs, inputs)
    r = x.ndim
    if axes is None:
        gone = {i for i, d in enumerate(x.shape) if d == 1}
    else:
        low = -r if v.since_version >= 11 else 0
        if any(not low <= a < r for a in axes):
            raise Rejected(rule(v, r"Accepted range") or rule(v, r"List of non-negative integers"))
        gone = {a % r for a in axes}
        if len(gone) != len(axes):
            raise Undefined(f"axes {axes} name one dimension twice: the spec does not say whether that is allowed")
        if any(x.shape[a] != 1 for a in gone):
            raise Rejected(v.sentence(r"shape entry not equal to one, an error is raised"))
    return {"squeezed": x.reshape([d for i, d in enumerate(x.shape) if i not in gone])}


def squeeze_case(v, t, rng, shape, axes):
    if axes is not None and min(axes) < 0 and v.since_version < 11:
        return NotApplicable("Squeeze-1: axes is a \"List of non-negative integers, indicate the dimensions "
                             "to squeeze.\" (negative axes from version 11)")
    inputs, attrs = {"data": data(t, shape, rng)}, {}
    ints_argument(v, "axes", axes, inputs, attrs)
    return OPERATOR.expect(v, inputs, attrs)


@OPERATOR.example(name="squeeze")
def first_axis(v, t, rng):
    return squeeze_case(v, t, rng, (1, 3, 4, 5), [0])


@OPERATOR.example
def negative_axes(v, t, rng):
    return squeeze_case(v, t, rng, (1, 3, 1, 5), [-2])


@OPERATOR.example
def no_axes(v, t, rng):
    """'If `axes` is not provided, all the single dimensions will be removed from the shape.'"""
    return squeeze_case(v, t, rng, (1, 3, 1, 5), None)


@OPERATOR.example
def three_axes(v, t, rng):
    return squeeze_case(v, t, rng, (1, 3, 1, 5, 1), [0, 2, 4])


@OPERATOR.example
def unsorted_axes(v, t, rng):
    if v.since_version < 11:
        # Squeeze-1's shape inference walks axes as if ascending, so the full checker rejects this model.
        return NotApplicable("Squeeze-1's schema infers the output shape only for ascending axes (onnx's "
                             "full check: 'Inferred shape and existing shape differ in rank'); unsorted axes "
                             "are an example from version 11")
    return squeeze_case(v, t, rng, (3, 1, 5, 1), [3, 1])


@OPERATOR.example
def to_scalar(v, t, rng):
    return squeeze_case(v, t, rng, (1, 1), [0, 1])


@OPERATOR.example
def zero_dim(v, t, rng):
    return squeeze_case(v, t, rng, (0, 1, 3), [1])


@OPERATOR.rejection
def not_one(v, t, rng):
    inputs, attrs = {"data": data(t, (2, 1, 3), rng)}, {}
    ints_argument(v, "axes", [0], inputs, attrs)
    return OPERATOR.reject(v, inputs, attrs, {"squeezed": declared(t.dtype, 2)})


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    '^unsorted_axes .*AxisError',
    "the evaluator's version-11 code applies the axes one at a time in the given order; the spec says their order does not matter",
)
