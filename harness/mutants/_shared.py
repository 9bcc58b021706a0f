"""What every family of mutants shares: the record of one mutant, the bug classes, and the few ways a
realistic wrong implementation departs from the correct one (its result, its inputs, its attributes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

# The bug classes issue 31 asks the mutants to cover; a mutant names exactly one.
CLASSES = (
    "negative axes",  # axes, indices, positions normalised against the wrong rank or length, or clamped
    "wrong defaults",  # alpha, epsilon, axis, keepdims, mode when the attribute or input is absent
    "ignored attributes",  # a non-default attribute (or optional input) value is not honoured
    "NaN propagation",  # NaN and infinity: fmax-style max/min, NaN clamped, overflowing formulas
    "signed/unsigned",
    "integer through float",  # integer arithmetic in float32/float64: wrong beyond 2^24 / 2^53
    "16-bit accumulation",  # 16-bit floats accumulated in the 16-bit type
    "ties away from zero",  # ties not rounded to even
    "cast saturation/wrap",
    "broadcasting direction",
    "empty tensors",  # zero-sized dimensions
    "scalars",  # rank-0 and rank-1 scalars
    "index edges",  # first, last and out-of-range indices, shifts and positions
    "layout modes",  # layout and order modes: DCR/CRD, pads order, perm direction, storage_order
    "off-by-one windows",  # windows, pads, dilations, boundaries one off
    "version confusion",  # one version's semantics used at another version
)


@dataclass(frozen=True)
class Mutant:
    """One realistic wrong implementation of one operator.

    `wrong(call, *inputs, **attributes)` returns the operator's outputs (a tuple); `call.run` is onnx's
    own correct implementation, so a mutant reads as the one thing it does differently.
    """

    name: str  # "<Op>.<what>", the value of --backend-option mutant=NAME
    op: str
    bug: str  # one of CLASSES
    spec: str  # the sentence it violates, quoted from the operator's schema text (doc or attribute)
    wrong: Callable[..., tuple]
    since: tuple[int, int | None] | None = None  # the schema since_versions it applies to, inclusive (None: open)
    domain: str = ""
    note: str | None = None  # how the project reads the sentence, where the sentence alone does not decide
    equivalent: str | None = None  # why no valid input tells it from the correct operator (not counted)

    def applies_to(self, since_version: int | None) -> bool:
        if self.since is None or since_version is None:
            return True
        low, high = self.since
        return low <= since_version and (high is None or since_version <= high)


@dataclass
class Call:
    """One call of the operator, as the mutant sees it."""

    run: Callable[..., tuple]  # the correct implementation: run(*inputs, **attributes) -> outputs
    node: Any  # the NodeProto
    since: int  # the schema's since_version in force
    defaults: dict[str, Any]  # each attribute's schema default, as onnx's evaluator reads it

    def given(self, attribute: str) -> bool:
        """Whether the node sets the attribute (else the schema's default applies)."""
        return any(a.name == attribute for a in self.node.attribute)


# --- the shapes a wrong implementation takes ---------------------------------------------------

def result(f: Callable, output: int = 0) -> Callable:
    """Output `output` is f(correct_output, *inputs, **attributes), in the correct output's dtype."""
    def wrong(call, *inputs, **attrs):
        outs = list(call.run(*inputs, **attrs))
        y = outs[output]
        outs[output] = np.asarray(f(y, *inputs, **attrs)).astype(y.dtype, copy=False)
        return tuple(outs)
    return wrong


def with_inputs(f: Callable) -> Callable:
    """The correct operator fed f(*inputs, **attributes) (a tuple of inputs) instead."""
    return lambda call, *inputs, **attrs: call.run(*f(*inputs, **attrs), **attrs)


def with_attributes(f: Callable) -> Callable:
    """The correct operator run with the attributes f(call, attributes) returns."""
    return lambda call, *inputs, **attrs: call.run(*inputs, **f(call, dict(attrs)))


def default(attribute: str, value: Any) -> Callable:
    """The attribute's default is `value` instead of the schema's."""
    def attrs(call, a):
        if not call.given(attribute):
            a[attribute] = value
        return a
    return with_attributes(attrs)


def ignored(attribute: str) -> Callable:
    """The node's value of the attribute is not honoured: the schema's default is used."""
    def attrs(call, a):
        if call.given(attribute):
            a[attribute] = call.defaults.get(attribute)
        return a
    return with_attributes(attrs)


def through(dtype, when: Callable[[np.dtype], bool] | None = None, only: tuple[int, ...] | None = None) -> Callable:
    """The computation done in `dtype` and cast back, for inputs whose dtype `when` accepts (default:
    64-bit integers, whose values beyond 2^53 a double cannot hold); `only`: just these inputs."""
    when = when or (lambda t: t in (np.int64, np.uint64))

    def moves(k, x):
        return isinstance(x, np.ndarray) and when(x.dtype) and (only is None or k in only)

    def wrong(call, *inputs, **attrs):
        if not any(moves(k, x) for k, x in enumerate(inputs)):
            return call.run(*inputs, **attrs)
        back = [x.dtype for x in inputs if isinstance(x, np.ndarray)][0]
        moved = [x.astype(dtype) if moves(k, x) else x for k, x in enumerate(inputs)]
        outs = call.run(*moved, **attrs)
        return tuple(_cast_back(y, back) if isinstance(y, np.ndarray) and y.dtype == dtype else y
                     for y in outs)
    return wrong


def _cast_back(y: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A float result cast to an integer type as C does, truncating; what no integer holds saturates
    (numpy's cast of an out-of-range float is undefined)."""
    if np.issubdtype(y.dtype, np.floating) and np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        y = np.asarray(np.clip(np.trunc(np.nan_to_num(y, nan=0.0)), float(info.min), float(info.max)))
        # float(max) of a 64-bit type rounds up, beyond the type: that much saturates to max
        return np.where(y >= float(info.max), info.max, y.astype(dtype)).astype(dtype)
    return np.asarray(y).astype(dtype)


def rank0_as_rank1(call, *inputs, **attrs):
    """A rank-0 input treated as a 1-element vector: the output comes back with shape (1,)."""
    outs = call.run(*inputs, **attrs)
    if inputs and isinstance(inputs[0], np.ndarray) and inputs[0].ndim == 0:
        # numpy gives a 0-d result as a numpy scalar, not an ndarray
        return tuple(np.asarray(y).reshape(1) if isinstance(y, (np.ndarray, np.generic)) and np.ndim(y) == 0
                     else y for y in outs)
    return outs


def empty_raises(call, *inputs, **attrs):
    """A kernel that cannot launch on zero elements."""
    if any(isinstance(x, np.ndarray) and x.size == 0 for x in inputs):
        raise ValueError("zero-sized input: nothing to launch")
    return call.run(*inputs, **attrs)


def unidirectional(call, *inputs, **attrs):
    """Only the later operands broadcast to the first (ONNX's broadcasting before opset 7): an output
    larger than the first input is refused."""
    shapes = [x.shape for x in inputs if isinstance(x, np.ndarray)]
    if shapes and np.broadcast_shapes(*shapes) != shapes[0]:
        raise ValueError(f"cannot broadcast the first input {shapes[0]} to {np.broadcast_shapes(*shapes)}")
    return call.run(*inputs, **attrs)


def as_signed(x: np.ndarray) -> np.ndarray:
    """An unsigned tensor's bits read as the signed type of the same width."""
    return x.view(np.dtype(f"i{x.dtype.itemsize}")) if x.dtype.kind == "u" else x


def floating(x) -> bool:
    """A float tensor, ml_dtypes' bfloat16 and float8 types included (numpy calls those kind 'V')."""
    return isinstance(x, np.ndarray) and (x.dtype.kind == "f" or x.dtype.type.__module__ == "ml_dtypes"
                                          and "float" in x.dtype.name)


def finfo(dtype):
    import ml_dtypes

    return ml_dtypes.finfo(dtype)


def pads_interleaved(pads) -> list[int]:
    """Pads written [x1_begin, x1_end, x2_begin, x2_end, ...] (PyTorch's and TensorFlow's order) read as
    ONNX's [x1_begin, x2_begin, ..., x1_end, x2_end, ...]: what the correct operator must be handed to do
    what such a kernel does."""
    p = [int(v) for v in np.asarray(pads).reshape(-1)]
    return p[0::2] + p[1::2]


def with_pads_interleaved(call, a):
    """with_attributes' f: the `pads` attribute, where the node gives one, read in the interleaved order."""
    if a.get("pads") is not None and call.given("pads"):
        a["pads"] = pads_interleaved(a["pads"])
    return a


def text(value) -> str:
    """A string attribute as str, whether onnx hands it over as str or bytes."""
    return value.decode() if isinstance(value, bytes) else ("" if value is None else str(value))
