"""Scatter (deprecated for ScatterElements): writes updates into a copy of data along axis at the given indices."""

import functools

from onnx_conformance.generators import scatter_family as sf
from onnx_conformance.generators.case import NotApplicable, Operator

OPERATOR = Operator("Scatter", primary="T", defaults={"Tind": "int64"})
OPERATOR.semantics(sf.scatter_elements)  # ScatterElements under its first name


def _live(example):
    """Scatter-11's schema is marked deprecated, and onnx.checker refuses every model that uses it
    ("Op registered for Scatter is deprecated in domain_version of 11"), so no valid model exists there."""

    @functools.wraps(example)
    def run(v, t, rng):
        if v.schema.deprecated:
            return NotApplicable(f"Scatter-{v.since_version} is deprecated (\"{v.sentence(r'deprecated')}\"); "
                                 "onnx.checker rejects every model using it: \"Op registered for Scatter is "
                                 f"deprecated in domain_version of {v.since_version}\"")
        return example(OPERATOR, v, t, rng)

    return run


for _example in (sf.without_axis, sf.with_axis, sf.with_negative_indices, sf.negative_axis, sf.empty_indices,
                 sf.out_of_range_indices):
    OPERATOR.example(_live(_example))


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    "No registered implementation for operator 'Scatter'",
    'the evaluator has no Scatter',
)
