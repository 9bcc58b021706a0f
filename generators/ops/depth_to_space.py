"""DepthToSpace: blocks of channels moved into blocksize x blocksize spatial blocks, in DCR or CRD order."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.generators.spatial_family import block_rule, depth_to_space, documented, output_rule

OPERATOR = Operator("DepthToSpace", primary="T")

# The documented (1, 8, 2, 3) input: channel k holds 9k .. 9k + 5.
DOC_INPUT = (np.arange(8)[:, None, None] * 9 + np.arange(6).reshape(2, 3)).reshape(1, 8, 2, 3).tolist()


@OPERATOR.semantics
def depth_to_space_semantics(v, attrs, inputs):
    """The spec's reshape/transpose/reshape in DCR (the default, and version 1's only order) or CRD;
    C must be a multiple of blocksize^2 for the output's "C/(blocksize * blocksize)" channels."""
    x, bs, mode = block_rule(v, inputs, attrs)
    if x.shape[1] % (bs * bs):
        raise Rejected(output_rule(v))
    return {"output": depth_to_space(x, bs, mode)}


def case(v, t, x, blocksize, mode):
    """mode None leaves the attribute out: DCR by default (11+), and version 1's only order."""
    if mode is not None and not v.has_attribute("mode"):
        return NotApplicable(f"DepthToSpace-{v.since_version} has no `mode` attribute (it came in version 11)")
    attrs = {"blocksize": blocksize} | ({} if mode is None else {"mode": mode})
    return OPERATOR.expect(v, {"input": x}, attrs)


@OPERATOR.example
def example(v, t, rng):
    """The documented DCR example (mode given where the version has it)."""
    return case(v, t, documented(t, DOC_INPUT, rng), 2, "DCR" if v.has_attribute("mode") else None)


@OPERATOR.example
def crd_mode_example(v, t, rng):
    return case(v, t, documented(t, DOC_INPUT, rng), 2, "CRD")


@OPERATOR.example
def default_mode(v, t, rng):
    """The documented input with `mode` left out: "By default, `mode` = `DCR`." C / blocksize^2 = 2, so
    DCR and CRD order differ (where it is 1 they coincide)."""
    if not v.has_attribute("mode"):
        return NotApplicable(f"DepthToSpace-{v.since_version} has no `mode` attribute: `example` leaves it out there")
    return case(v, t, documented(t, DOC_INPUT, rng), 2, None)


@OPERATOR.example
def blocksize_3(v, t, rng):
    """Blocksize 3, an odd element count, the mode left to its default."""
    return case(v, t, data(t, (1, 9, 1, 3), rng), 3, None)


@OPERATOR.example
def blocksize_3_crd(v, t, rng):
    return case(v, t, data(t, (2, 18, 1, 1), rng), 3, "CRD")


@OPERATOR.example
def empty(v, t, rng):
    """A zero-sized batch."""
    return case(v, t, data(t, (0, 4, 2, 1), rng), 2, None)
