"""What Reshape, Squeeze and Unsqueeze share: an int list that older versions take as an attribute and newer ones as an int64 input."""

from __future__ import annotations

from onnx_conformance.generators.movement import indices


def ints_argument(v, name: str, ints, inputs: dict, attrs: dict) -> None:
    """Put `ints` where this version takes `name`: an int64 input (fed as test data, as the documented
    examples do) or an INTS attribute. None leaves it out (an optional input or attribute)."""
    if v.has_input(name):
        inputs[name] = None if ints is None else indices(list(ints))
    elif ints is not None:
        attrs[name] = [int(i) for i in ints]
