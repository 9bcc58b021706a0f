"""The exact backend with one planted fault, each only where the fixed corpus never looks: what explore-cases must find.

`--backend-option fault=NAME[,NAME...]`:
- prime_dims: an element-wise node answers its first element wrong when some input dimension is a
  prime of 31 or more (a vectorised kernel's remainder loop; the corpus's shapes stop at 7);
- deep_reduce: a Reduce node answers wrong when its data has rank 5 or more (the corpus's reach 3);
- many_splits: a Split node answers its last part wrong when it has more than six outputs
  (the corpus's have at most four);
- abort_big: the process aborts when some input dimension is 1000 or more (a crash to shrink);
- conv_stride: a Conv node answers wrong when a stride is larger than the kernel on its axis (the
  corpus's strides stop at the kernel);
- gather_negative_prime: a Gather node answers wrong when an index is negative on an axis whose length
  is a prime of 5 or more (the corpus's negative indices run on an axis of 10);
- pad_crop_edge: a Pad node answers wrong when it crops (a negative pad) in edge mode (the corpus crops
  in constant mode only);
- matmul_prime_k: a MatMul node answers wrong when its inner dimension is a prime of 31 or more (the
  corpus's stop at 4).
- lstm_bidirectional_short_layout: an LSTM node answers wrong when it is bidirectional, batch-major
  (layout 1) and sequence_lens leaves steps out (the corpus's short sequences are seq-major, or reverse);
- dft_prime_length: a DFT node answers wrong when its dft_length input is a prime of 17 or more (the
  corpus's are 5, 7 and 9);
- layer_norm_odd_long: a LayerNormalization node answers wrong when the size it normalizes over (the
  product of X's dimensions from axis on) is odd and 31 or more (a vector loop's remainder; the corpus's
  sizes are 4 to 120, the odd ones 3, 5 and 15);
- softmax_strided_remainder: a Softmax node answers wrong when its axis attribute names a dimension other
  than the last and the dimensions after it hold 31 or more elements, not a multiple of 8 (the corpus's
  hold 5 and 20);
- loss_many_classes_ignored: a NegativeLogLikelihoodLoss or SoftmaxCrossEntropyLoss node answers wrong
  when it has 17 classes or more and a target equals ignore_index (the corpus's have at most 5 classes).
- tree_deeper_than_four: a TreeEnsembleRegressor node answers wrong when one of its trees is deeper than
  four splits (the corpus's trees are two deep).
- resize_scale_below_half: a Resize node answers wrong when one of its scales is below 0.5 (the corpus's
  downscales stop at 0.6).
- quantize_short_block: a QuantizeLinear node answers wrong when it quantizes by blocks of 3 or more that
  do not divide the axis (a short last block; the corpus's blocks are of 2, on axis 1 of a matrix);
- unique_many_values: a Unique node answers wrong when its input holds more than 16 distinct values (a
  hash table's first growth; the corpus's inputs hold at most 6).
- string_split_long_delimiter_maxsplit: a StringSplit node answers wrong when its delimiter is of several
  characters and maxsplit is given (the corpus's maxsplit examples split on whitespace or ',');
- scan_reverse_axis: a Scan node answers wrong when a scan input runs backwards (direction 1) along an axis
  other than 0 (the corpus reverses along axis 0 only).
- bmp_8bit_row_padding: an ImageDecoder node answers wrong when its stream is an 8-bit (paletted) BMP of
  more than one row whose width is not a multiple of 4 (row padding not skipped; the corpus's BMPs are 24-bit).
Everywhere else the answers are this project's exact semantics.
"""

from __future__ import annotations

import os

import numpy as np
import onnx

from onnx_conformance.harness.backends.exact import ExactAdapter
from onnx_conformance.harness.families import FAMILIES

ELEMENTWISE = {*FAMILIES["Element-wise math"], *FAMILIES["Activations"], *FAMILIES["Logic, comparison and bits"]}


def prime(n: int) -> bool:
    return n >= 2 and all(n % k for k in range(2, int(n**0.5) + 1))


class Planted(ExactAdapter):
    name = "planted"
    option_help = {**ExactAdapter.option_help,
                   "fault": "one of the module's faults (its docstring lists them), or several joined by commas"}

    def __init__(self, options=None):
        super().__init__(options)
        self.fault = self.options.get("fault", "")
        self.faults = set(self.fault.split(","))

    @property
    def version(self) -> str:
        return f"planted {self.fault}"

    def prepare(self, model_path: str):
        self._abort_if_big(lambda: onnx.load(model_path))
        return super().prepare(model_path)

    def prepare_checked(self, model_path: str, model: bytes | None):
        self._abort_if_big(lambda: onnx.load_from_string(model) if model is not None else onnx.load(model_path))
        return super().prepare_checked(model_path, model)

    def _abort_if_big(self, load) -> None:
        """At load, before the semantics are imported: each crash restarts the executor."""
        if "abort_big" in self.faults:
            dims = [d.dim_value for i in load().graph.input for d in i.type.tensor_type.shape.dim]
            if any(d >= 1000 for d in dims):
                os.abort()

    def run(self, prepared, inputs):
        model = prepared[0]  # the exact adapter's (model, evaluator)
        node = model.graph.node[-1]
        dims = [d for x in inputs for a in _tensors(x) for d in np.shape(a)]
        outputs = list(super().run(prepared, inputs))
        wrong = (
            ("prime_dims" in self.faults and node.op_type in ELEMENTWISE and any(d >= 31 and prime(d) for d in dims))
            or ("deep_reduce" in self.faults and node.op_type.startswith("Reduce") and np.ndim(inputs[0]) >= 5)
            or ("many_splits" in self.faults and node.op_type == "Split" and len(node.output) > 6)
            or any(name in self.faults and hit(node, inputs) for name, hit in NODE_FAULTS.items())
        )
        if wrong:
            outputs[-1] = _off(outputs[-1])
        return outputs


def _tensors(x) -> list:
    """The tensors of one input as the exact backend takes it: a sequence is a list, an optional its value
    or None, a map a dict of 0-d arrays."""
    if x is None:
        return []
    if isinstance(x, list):
        return [a for item in x for a in _tensors(item)]
    if isinstance(x, dict):
        return list(x.values())
    return [x]


# the faults a node's own attributes and inputs decide: name -> whether this node is hit. Each family's
# faults sit in their own section below, registered with @fault.
NODE_FAULTS: dict = {}


def fault(hit):
    NODE_FAULTS[hit.__name__.lstrip("_")] = hit
    return hit


def _attribute(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


@fault
def _conv_stride(node, inputs) -> bool:
    if node.op_type != "Conv":
        return False
    kernel = _attribute(node, "kernel_shape") or list(np.shape(inputs[1])[2:])
    strides = _attribute(node, "strides") or [1] * len(kernel)
    return any(s > k for s, k in zip(strides, kernel))


@fault
def _gather_negative_prime(node, inputs) -> bool:
    if node.op_type != "Gather":
        return False
    axis = _attribute(node, "axis", 0)
    data, idx = np.asarray(inputs[0]), np.asarray(inputs[1])
    return data.ndim > 0 and idx.size > 0 and bool((idx < 0).any()) and prime(data.shape[axis]) and data.shape[axis] >= 5


@fault
def _pad_crop_edge(node, inputs) -> bool:
    if node.op_type != "Pad":
        return False
    mode = _attribute(node, "mode", b"constant")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    pads = _attribute(node, "pads") if len(inputs) < 2 else np.asarray(inputs[1]).tolist()
    return mode == "edge" and pads is not None and min(pads, default=0) < 0


@fault
def _matmul_prime_k(node, inputs) -> bool:
    if node.op_type != "MatMul":
        return False
    k = np.shape(inputs[0])[-1] if np.ndim(inputs[0]) else 0
    return k >= 31 and prime(k)


# -- faults: normalizations and losses --


@fault
def _layer_norm_odd_long(node, inputs) -> bool:
    if node.op_type != "LayerNormalization" or not np.ndim(inputs[0]):
        return False
    shape = np.shape(inputs[0])
    size = int(np.prod(shape[_attribute(node, "axis", -1) % len(shape):]))
    return size >= 31 and size % 2 == 1


@fault
def _softmax_strided_remainder(node, inputs) -> bool:
    if node.op_type != "Softmax" or not np.ndim(inputs[0]) or _attribute(node, "axis") is None:
        return False
    shape = np.shape(inputs[0])
    axis = _attribute(node, "axis") % len(shape)
    inner = int(np.prod(shape[axis + 1:]))
    return axis != len(shape) - 1 and inner >= 31 and inner % 8 != 0


@fault
def _loss_many_classes_ignored(node, inputs) -> bool:
    if node.op_type not in ("NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"):
        return False
    ignore = _attribute(node, "ignore_index")
    return (np.ndim(inputs[0]) >= 2 and np.shape(inputs[0])[1] >= 17 and ignore is not None
            and bool((np.asarray(inputs[1]) == ignore).any()))


# -- faults: image and resampling --


@fault
def _resize_scale_below_half(node, inputs) -> bool:
    scales = _inputs_named(node, inputs).get("scales")
    return node.op_type == "Resize" and scales is not None and bool((np.asarray(scales) < 0.5).any())


# -- faults: quantization and the rest --


@fault
def _quantize_short_block(node, inputs) -> bool:
    block = _attribute(node, "block_size", 0)
    if node.op_type != "QuantizeLinear" or not block or not np.ndim(inputs[0]) or not np.size(inputs[0]):
        return False
    shape = np.shape(inputs[0])
    return block >= 3 and shape[_attribute(node, "axis", 1) % len(shape)] % block != 0


@fault
def _unique_many_values(node, inputs) -> bool:
    return node.op_type == "Unique" and np.unique(np.asarray(inputs[0])).size > 16


# -- faults: recurrent, attention and signal --


def _inputs_named(node, inputs) -> dict:
    """The node's inputs by name (an optional input left out has none)."""
    return dict(zip([n for n in node.input if n], inputs))


@fault
def _lstm_bidirectional_short_layout(node, inputs) -> bool:
    if node.op_type != "LSTM" or _attribute(node, "direction", b"forward") != b"bidirectional":
        return False
    named = _inputs_named(node, inputs)
    lens = named.get("sequence_lens")
    steps = np.shape(named["X"])[1 if _attribute(node, "layout", 0) else 0]
    return _attribute(node, "layout", 0) == 1 and lens is not None and bool((np.asarray(lens) < steps).any())


@fault
def _dft_prime_length(node, inputs) -> bool:
    length = _inputs_named(node, inputs).get("dft_length")
    n = int(np.asarray(length).reshape(-1)[0]) if node.op_type == "DFT" and length is not None else 0
    return n >= 17 and prime(n)


# -- faults: control flow, sequences, strings and random --


@fault
def _string_split_long_delimiter_maxsplit(node, inputs) -> bool:
    delimiter = _attribute(node, "delimiter", b"")
    return node.op_type == "StringSplit" and len(delimiter.decode()) > 1 and _attribute(node, "maxsplit") is not None


@fault
def _scan_reverse_axis(node, inputs) -> bool:
    axes, directions = _attribute(node, "scan_input_axes", []), _attribute(node, "scan_input_directions", [])
    return node.op_type == "Scan" and any(a != 0 and d == 1 for a, d in zip(axes, directions))


# -- faults: classical ML and training --


@fault
def _tree_deeper_than_four(node, inputs) -> bool:
    if node.op_type != "TreeEnsembleRegressor":
        return False
    ids = list(zip(_attribute(node, "nodes_treeids", []), _attribute(node, "nodes_nodeids", [])))
    modes = [m.decode() if isinstance(m, bytes) else m for m in _attribute(node, "nodes_modes", [])]
    children = {key: (t, f) for key, mode, t, f in zip(ids, modes, _attribute(node, "nodes_truenodeids", []),
                                                       _attribute(node, "nodes_falsenodeids", [])) if mode != "LEAF"}

    def depth(tree, nid, seen=0):
        kids = children.get((tree, nid))
        return 0 if kids is None or seen > len(ids) else 1 + max(depth(tree, k, seen + 1) for k in kids)

    return any(depth(tree, nid) > 4 for tree, nid in ids)


# -- faults: image decoding --


@fault
def _bmp_8bit_row_padding(node, inputs) -> bool:
    """The 8-bit (paletted) BMP rows of a decoder that skips the padding to 4 bytes of 24-bit rows only."""
    if node.op_type != "ImageDecoder":
        return False
    data = np.asarray(inputs[0], np.uint8).tobytes()
    if data[:2] != b"BM" or len(data) < 30:
        return False
    width, height = (int.from_bytes(data[k:k + 4], "little", signed=True) for k in (18, 22))
    bits = int.from_bytes(data[28:30], "little")
    return bits == 8 and width % 4 != 0 and abs(height) > 1  # one row: its padding is never read past


def _off(x):
    """x with its first element changed to a value no tolerance accepts (a sequence's first tensor; an
    empty optional as it is)."""
    if x is None:
        return x
    if isinstance(x, list):
        return [_off(x[0]), *x[1:]] if x else x
    x = np.array(x, copy=True, order="C")  # C order: reshape(-1) below must be a view, not a copy
    if x.size == 0:
        return x
    flat = x.reshape(-1)
    if x.dtype == np.bool_:
        flat[0] = not flat[0]
    elif x.dtype.kind in "iu":
        flat[0] = flat[0] ^ 1
    elif x.dtype.kind == "O":
        flat[0] = str(flat[0]) + "?"
    else:
        value = float(flat[0])
        flat[0] = 1.0 if value != value or value == 0 else 0.0
    return x
