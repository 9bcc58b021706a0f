"""What Reshape, Squeeze and Unsqueeze share: an int list that older versions take as an attribute and newer ones as an int64 input."""

from __future__ import annotations

from onnx_conformance.generators.movement import indices, ints_of


def ints_argument(v, name: str, ints, inputs: dict, attrs: dict) -> None:
    """Put `ints` where this version takes `name`: an int64 input (fed as test data, as the documented
    examples do) or an INTS attribute. None leaves it out (an optional input or attribute)."""
    if v.has_input(name):
        inputs[name] = None if ints is None else indices(list(ints))
    elif ints is not None:
        attrs[name] = [int(i) for i in ints]


def ints_given(v, name: str, attrs: dict, inputs: dict) -> list[int] | None:
    """The int list `name` as this version takes it: from its int64 input, or from its INTS attribute
    (None where it is left out)."""
    if v.has_input(name):
        return ints_of(inputs.get(name))
    return None if attrs.get(name) is None else [int(i) for i in attrs[name]]
