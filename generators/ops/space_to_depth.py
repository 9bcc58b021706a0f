"""SpaceToDepth: blocksize x blocksize spatial blocks moved into channels, in DCR (or, from version 28, CRD) order."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data
from onnx_conformance.generators.semantics import Rejected
from onnx_conformance.generators.spatial_family import block_rule, depth_to_space, documented, output_rule, space_to_depth

OPERATOR = Operator("SpaceToDepth", primary="T")

# The documented (1, 1, 4, 6) input of test_spacetodepth_example: output channel k holds 6k .. 6k + 5.
EXAMPLE_INPUT = depth_to_space(np.arange(24).reshape(1, 4, 2, 3), 2).tolist()
# The documented (1, 2, 4, 6) inputs of the DCR and CRD examples: DepthToSpace of 9k .. 9k + 5 per channel.
MODE_OUTPUT = np.arange(8)[:, None, None] * 9 + np.arange(6).reshape(2, 3)


@OPERATOR.semantics
def space_to_depth_semantics(v, attrs, inputs):
    """The inverse of DepthToSpace in the same mode (DCR; from version 28 also CRD); H and W must be
    multiples of blocksize for the output's "H/blocksize, W/blocksize"."""
    x, bs, mode = block_rule(v, inputs, attrs)
    if x.shape[2] % bs or x.shape[3] % bs:
        raise Rejected(output_rule(v))
    return {"output": space_to_depth(x, bs, mode)}


def case(v, t, x, blocksize, mode):
    """mode None leaves the attribute out: DCR, the only order before version 28 and the default after."""
    if mode is not None and not v.has_attribute("mode"):
        return NotApplicable(f"SpaceToDepth-{v.since_version} has no `mode` attribute (it came in version 28)")
    attrs = {"blocksize": blocksize} | ({} if mode is None else {"mode": mode})
    return OPERATOR.expect(v, {"input": x}, attrs)


@OPERATOR.example
def spacetodepth(v, t, rng):
    return case(v, t, data(t, (2, 2, 4, 4), rng), 2, None)


@OPERATOR.example
def example(v, t, rng):
    return case(v, t, documented(t, EXAMPLE_INPUT, rng), 2, None)


@OPERATOR.example
def dcr_mode_example(v, t, rng):
    doc = depth_to_space(MODE_OUTPUT.reshape(1, 8, 2, 3), 2, "DCR").tolist()
    return case(v, t, documented(t, doc, rng), 2, "DCR")


@OPERATOR.example
def crd_mode_example(v, t, rng):
    doc = depth_to_space(MODE_OUTPUT.reshape(1, 8, 2, 3), 2, "CRD").tolist()
    return case(v, t, documented(t, doc, rng), 2, "CRD")


@OPERATOR.example
def blocksize_3(v, t, rng):
    """Blocksize 3 over a 3 x 9 image: an odd element count."""
    return case(v, t, data(t, (1, 1, 3, 9), rng), 3, None)


@OPERATOR.example
def empty(v, t, rng):
    """A zero-sized batch."""
    return case(v, t, data(t, (0, 2, 2, 4), rng), 2, None)
