"""Slice: a strided sub-tensor, its bounds given as attributes (Slice-1) or as inputs (Slice-10 on)."""

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Operator
from onnx_conformance.generators.movement import data, declared, indices, ints_of
from onnx_conformance.generators.semantics import Rejected, Undefined, described, rule

OPERATOR = Operator("Slice", primary="T", defaults={"Tind": "int64"})

# The documented examples slice a [20, 10, 5] tensor; the same bounds on a smaller one keep
# the corpus lean, with an odd element count.
SHAPE = (3, 7, 5)


@OPERATOR.semantics
def slice_(v, attrs, inputs):
    """The strided sub-tensor Slice-13's doc defines by its 'effective' starts, ends and steps (the earlier
    versions say the same in fewer words); axes default to [0, .., len(starts) - 1], steps to 1s."""
    x = inputs["data"]
    if v.has_input("starts"):
        starts, ends = ints_of(inputs["starts"]), ints_of(inputs["ends"])
        axes, steps = ints_of(inputs.get("axes")), ints_of(inputs.get("steps"))
    else:
        starts, ends, axes, steps = attrs["starts"], attrs["ends"], attrs.get("axes"), None
    axes = list(range(len(starts))) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise Rejected(described(v, "starts"))
    r = x.ndim
    low = -r if v.since_version >= 11 else 0
    if any(not low <= a < r for a in axes):
        if v.since_version >= 11:
            raise Rejected(rule(v, r"Accepted range"))
        raise Undefined(f"Slice-{v.since_version}: axes {axes} name no axis of a rank-{r} input "
                        "(negative axes come with version 11)")
    if len({a % r for a in axes}) != len(axes):
        raise Undefined(rule(v, r"Behavior is undefined if an axis is repeated") or
                        f"axes {axes} repeat an axis: Slice-{v.since_version} does not say what that means")
    if 0 in steps:
        broken = rule(v, r"step value cannot be 0|'steps' cannot be 0")
        if broken is None:
            raise Undefined(f"Slice-{v.since_version} gives no meaning to a step of 0")
        raise Rejected(broken)
    return {"output": effective(x, starts, ends, axes, steps)}


def effective(x, starts, ends, axes=None, steps=None):
    """Slice-13's rule: negative bounds get dims added, then clamp by the sign of the step."""
    r = x.ndim
    axes = list(range(len(starts))) if axes is None else list(axes)
    steps = [1] * len(starts) if steps is None else list(steps)
    picks = [range(d) for d in x.shape]
    for s, e, a, st in zip(starts, ends, axes, steps):
        s, e, a, st = int(s), int(e), int(a), int(st)
        a = a + r if a < 0 else a
        d = x.shape[a]
        s = s + d if s < 0 else s
        e = e + d if e < 0 else e
        if st > 0:
            s, e = min(max(s, 0), d), min(max(e, 0), d)
        else:
            s, e = min(max(s, 0), d - 1), min(max(e, -1), d - 1)
        picks[a] = range(s, e, st)
    out = x
    for a, pick in enumerate(picks):
        out = np.take(out, np.array(list(pick), dtype=np.intp), axis=a)
    return out


def limits(v, t):
    """INT_MAX and INT_MIN of the index type (attributes are 64-bit)."""
    info = np.iinfo(t.np("Tind") if v.has_input("starts") else np.int64)
    return int(info.max), int(info.min)


def sliced(v, t, x, starts, ends, axes=None, steps=None):
    if v.has_input("starts"):
        tind = t["Tind"]
        inputs = {"data": x, "starts": indices(starts, tind), "ends": indices(ends, tind)}
        if axes is not None or steps is not None:
            inputs["axes"] = None if axes is None else indices(axes, tind)
        if steps is not None:
            inputs["steps"] = indices(steps, tind)
        return OPERATOR.expect(v, inputs)
    if steps is not None and any(s != 1 for s in steps):
        return NotApplicable("Slice-1 has no steps: 'Slices uses `axes`, `starts` and `ends` attributes'")
    attrs = {"starts": list(starts), "ends": list(ends)}
    if axes is not None:
        attrs["axes"] = list(axes)
    return OPERATOR.expect(v, {"data": x}, attrs)


def negative_axes_allowed(v):
    if v.since_version < 11:
        return NotApplicable(f"Slice-{v.since_version} gives axes no negative values; "
                             "'Negative value means counting dimensions from the back' is Slice-11's")
    return None


@OPERATOR.example(name="slice")
def two_axes(v, t, rng):
    return sliced(v, t, data(t, SHAPE, rng), [0, 0], [2, 7], [0, 1], [1, 1])


@OPERATOR.example
def neg(v, t, rng):
    return sliced(v, t, data(t, SHAPE, rng), [0], [-1], [1], [1])


@OPERATOR.example
def start_out_of_bounds(v, t, rng):
    return sliced(v, t, data(t, SHAPE, rng), [1000], [1000], [1], [1])


@OPERATOR.example
def end_out_of_bounds(v, t, rng):
    return sliced(v, t, data(t, SHAPE, rng), [1], [1000], [1], [1])


@OPERATOR.example
def default_axes(v, t, rng):
    return sliced(v, t, data(t, SHAPE, rng), [0, 0, 3], [3, 7, 4])


@OPERATOR.example
def default_steps(v, t, rng):
    return sliced(v, t, data(t, SHAPE, rng), [0, 0, 3], [3, 7, 4], [0, 1, 2])


@OPERATOR.example
def neg_steps(v, t, rng):
    # Starts at each dimension's size, as documented: clamped to the last element.
    return sliced(v, t, data(t, SHAPE, rng), [3, 7, 4], [0, 0, 1], [0, 1, 2], [-1, -3, -2])


@OPERATOR.example
def negative_axes(v, t, rng):
    na = negative_axes_allowed(v)
    if na:
        return na
    return sliced(v, t, data(t, SHAPE, rng), [0, 0, 3], [3, 7, 4], [0, -2, -1])


@OPERATOR.example
def end_int_max(v, t, rng):
    int_max, _ = limits(v, t)
    return sliced(v, t, data(t, SHAPE, rng), [2, -3], [int_max, int_max], [1, 2])


@OPERATOR.example
def end_int_min(v, t, rng):
    if v.since_version < 11:
        return NotApplicable(f"Slice-{v.since_version} recommends only INT_MAX; "
                             "'INT_MIN' when slicing backward is Slice-11's")
    _, int_min = limits(v, t)
    return sliced(v, t, data(t, SHAPE, rng), [-2, 5], [int_min, int_min], [1, 0], [-1, -2])


@OPERATOR.rejection
def zero_step(v, t, rng):
    broken = rule(v, r"step value cannot be 0|'steps' cannot be 0")
    if broken is None:
        return NotApplicable(f"Slice-{v.since_version} states no rule on a step of 0 "
                             "('However step value cannot be 0.' is Slice-11's)")
    x = data(t, SHAPE, rng)
    tind = t["Tind"]
    inputs = {"data": x, "starts": indices([0], tind), "ends": indices([3], tind),
              "axes": indices([1], tind), "steps": indices([0], tind)}
    return OPERATOR.reject(v, inputs, {}, {"output": declared(t.dtype, 3)})
