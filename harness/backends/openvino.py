"""OpenVINO's ONNX frontend and CPU plugin, fed and fetched as ov.Tensors of the model's own element types."""

from __future__ import annotations

import functools
import re
from typing import Any, Sequence

import numpy as np
import onnx
import openvino as ov
from onnx import TensorProto, helper

from onnx_conformance.harness import dtypes
from onnx_conformance.harness.backends.base import Adapter, Capabilities

# On the committed scoreboard (registry.scoreboard_backends): its place in the table.
SCOREBOARD = {"order": 3}

# OpenVINO element types by ONNX name. The frontend maps each ONNX type to one of these; the
# spec names cannot be derived from OpenVINO's, so the pairing is written out once here.
_OV_OF = {
    "float": "f32", "double": "f64", "float16": "f16", "bfloat16": "bf16",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "boolean",
    "float8e4m3fn": "f8e4m3", "float8e5m2": "f8e5m2", "float8e8m0": "f8e8m0",
    "int4": "i4", "uint4": "u4", "float4e2m1": "f4e2m1", "string": "string",
}
_ONNX_OF = {v: k for k, v in _OV_OF.items()}
# ov.Tensor.data shows these as another numpy type of the same width (bf16 as float16, the
# float8s as uint8): the bits are right, the numpy type is not, so they move as raw bits.
_RAW_BITS = {"bfloat16", "float8e4m3fn", "float8e5m2", "float8e8m0"}
# Two values per byte (OpenVINO has no int2/uint2).
_PACKED = {"int4", "uint4", "float4e2m1"}

# The frontend's words for an operator it has no converter for, e.g.
#   "No conversion rule found for operations: NoSuchOp-18"
#   "No conversion rule found for operations: ai.onnx.preview.FlexAttention"
# Unsupported only when onnx defines the operator; for one nobody defines, the model is wrong.
_NO_RULE = re.compile(r"No conversion rule found for operations: (.*?)(?: To facilitate|$)", re.S)
# A type the spec defines but the frontend does not know (float6e2m3):
#   "Unsupported data type  expected: BOOL, BFLOAT16, ..." (two spaces, as printed)
_UNKNOWN_TYPE = re.compile(r"Unsupported data type\s+expected: ([A-Z0-9_, ]+)")
# The same refusal when the model is read from a path: "Loading input model\nUnsupported type".
_UNKNOWN_TYPE_FROM_PATH = re.compile(r"Loading input model\s+Unsupported type")
# Refusals seen running the Reduce corpus, each a limit OpenVINO states as its own:
_DECLINED = (
    # Frontend, a converter without that element type: "ReduceMax-12 ... Unsupported input type i8".
    re.compile(r"Unsupported input type \w+"),
    # CPU plugin, an output rank only known at run time (ReduceX-18, axes an input, keepdims=0):
    # "CPU plug-in doesn't support ReduceL1 operation with dynamic rank".
    re.compile(r"CPU plug-in doesn't support \w+ operation with dynamic rank"),
    # CPU plugin, no kernel and no reference fallback: "Unsupported operation of type: ReduceL2
    # ... Not Implemented: Second tensor is not constant ... evaluate() is not implemented".
    re.compile(r"Unsupported operation of type: \w+"),
)


class OpenVinoAdapter(Adapter):
    name = "openvino"
    option_help = {
        "device": "OpenVINO device to compile for (default CPU)",
        "inference_num_threads": "threads per compiled model (default 1: the runner already runs cases in parallel)",
        "inference_precision": "INFERENCE_PRECISION_HINT (default f32: the model's own float precision on every CPU; "
                               "'default' leaves the plugin's choice, bf16 on CPUs with avx512_bf16 or AMX)",
    }

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        self.core = ov.Core()
        self.device = self.options.get("device", "CPU")
        if self.device not in self.core.available_devices:
            raise ValueError(f"device {self.device} is not available; this OpenVINO has {', '.join(self.core.available_devices)}")
        try:
            self.threads = int(self.options.get("inference_num_threads", "1"))
        except ValueError:
            raise ValueError(f"inference_num_threads must be an integer, got {self.options['inference_num_threads']!r}") from None
        # On a CPU with bfloat16 arithmetic the CPU plugin runs float32 models in bfloat16 unless told
        # otherwise, so the same model's verdict would depend on the machine. The spec's float is float.
        self.precision = self.options.get("inference_precision", "f32")
        self.config = {"INFERENCE_NUM_THREADS": str(self.threads)}
        if self.precision != "default":
            self.config["INFERENCE_PRECISION_HINT"] = self.precision

    @property
    def version(self) -> str:
        return ov.get_version()

    @functools.cached_property
    def capabilities(self) -> Capabilities:
        # The frontend refuses no opset and no IR version (probed up to opset 40, IR 14): it
        # applies its newest converter at or below the model's opset. So the range is what the
        # installed onnx defines, and only element types are the frontend's own limit.
        return Capabilities(
            opset=(1, onnx.defs.onnx_opset_version()), ir=(1, onnx.IR_VERSION), dtypes=_frontend_dtypes(self.core)
        )

    def prepare(self, model_path: str) -> Any:
        # From the path, so external data next to the model is found.
        model = self.core.read_model(model_path)
        compiled = self.core.compile_model(model, self.device, self.config)
        graph = onnx.load(model_path, load_external_data=False).graph
        initialized = {init.name for init in graph.initializer}
        names = [i.name for i in graph.input if i.name not in initialized]
        return compiled, names

    def run(self, prepared: Any, inputs: Sequence[np.ndarray]) -> list[Any]:
        compiled, names = prepared
        if len(inputs) != len(names):
            raise ValueError(f"got {len(inputs)} inputs, the model declares {len(names)}")
        # Fed by name: the frontend drops a graph input whose shape leaves it nothing to hold
        # (axes of static shape [0]), so the compiled model's ports are not the graph's inputs.
        # An input that feeds an output unchanged (Max or Sum of one input, Dropout at inference)
        # keeps its port but takes the output's name: where every input kept its port, a name
        # that is not found is that one, in its place.
        ports = {name: port for port in compiled.inputs for name in port.get_names()}
        in_place = len(compiled.inputs) == len(names)
        feeds = {}
        for k, (name, x) in enumerate(zip(names, inputs)):
            port = ports.get(name, compiled.inputs[k] if in_place else None)
            if port is not None:
                feeds[port] = _to_tensor(x, port, k)
            elif x.size:
                raise ValueError(f"input {k} ({name!r}) holds {x.size} values but the compiled model has no such input")
        request = compiled.create_infer_request()
        request.infer(feeds)
        return [_from_tensor(request.get_output_tensor(k)) for k in range(len(compiled.outputs))]

    def classify(self, exc: BaseException, stage: str) -> str:
        if super().classify(exc, stage) == "unsupported":
            return "unsupported"
        text = str(exc)
        if any(p.search(text) for p in (_UNKNOWN_TYPE, _UNKNOWN_TYPE_FROM_PATH, *_DECLINED)):
            return "unsupported"
        match = _NO_RULE.search(text)
        if match and any(_onnx_defines(op) for op in match.group(1).split(",")):
            return "unsupported"
        return "error"


def _onnx_defines(entry: str) -> bool:
    """'ReduceMin-18' or 'ai.onnx.preview.FlexAttention': is that an operator of the spec?"""
    entry = entry.strip()
    name, _, version = entry.rpartition("-")
    if not (name and version.isdigit()):
        name, version = entry, ""
    domain, _, op = name.rpartition(".")
    domain = "" if domain in ("", "ai.onnx") else domain
    if version:
        return onnx.defs.has(op, int(version), domain)
    return onnx.defs.has(op, domain)


def _type_name(element_type: Any) -> str:
    return element_type.get_type_name()


def _to_tensor(x: np.ndarray, port: Any, k: int) -> Any:
    """x as an ov.Tensor of the port's element type, refusing a different dtype.

    OpenVINO converts a mismatched numpy array silently (float64 into an f32 port, int64 into
    i32), which would grade a cast the model never asked for.
    """
    want = _ONNX_OF.get(_type_name(port.get_element_type()))
    got = dtypes.name_of_numpy(x.dtype) if x.dtype.kind not in "OUS" else "string"
    if want is not None and got != want:
        raise TypeError(f"input {k} is {got}, the model declares {want}")
    if got in _PACKED:
        # ov.Tensor.data of i4/u4/f4e2m1 is its packed bytes, two elements a byte, low nibble first
        # as in ONNX (tests/test_backend_openvino.py checks the order with a Transpose).
        tensor = ov.Tensor(getattr(ov.Type, _OV_OF[got]), list(x.shape))
        packed = dtypes.pack(x, dtypes.bits_of(x.dtype))
        if packed.size:
            tensor.data.reshape(-1).view(np.uint8)[: packed.size] = packed
        return tensor
    if got == "string":
        # TensorProto strings may load as bytes: decode them as UTF-8 (numpy's astype(str) would
        # try ASCII and refuse 'é').
        text = [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in x.reshape(-1)]
        return ov.Tensor(np.array(text, dtype=str).reshape(x.shape))
    x = x if x.flags.c_contiguous else x.copy(order="C")  # ascontiguousarray would turn 0-d into 1-d
    if got in _RAW_BITS:
        tensor = ov.Tensor(getattr(ov.Type, _OV_OF[got]), list(x.shape))
        view = tensor.data.view(f"u{x.dtype.itemsize}")
        view[...] = x.view(f"u{x.dtype.itemsize}")
        return tensor
    return ov.Tensor(x)  # a copy: the tensor must not borrow the caller's buffer


def _from_tensor(tensor: Any) -> np.ndarray:
    """An output as numpy of the element type OpenVINO produced; only bit-exact reinterpretations.

    A type other than the model declares comes back as it is, so the comparator reports it.
    """
    kind = _type_name(tensor.element_type)
    name = _ONNX_OF.get(kind)
    shape = tuple(tensor.shape)
    if name == "string":
        # str_data of an N-d tensor is an N-d array (its len() the first dimension only).
        flat = np.asarray(tensor.str_data).reshape(-1)
        out = np.empty(flat.size, dtype=object)
        out[:] = [str(v) for v in flat]
        return out.reshape(shape)
    if name in _RAW_BITS:
        target = dtypes.numpy_of(name)
        return tensor.data.view(f"u{target.itemsize}").view(target).reshape(shape).copy()
    if name in _PACKED:
        target = dtypes.numpy_of(name)
        raw = np.ascontiguousarray(tensor.data).reshape(-1).view(np.uint8)
        count = int(np.prod(shape, dtype=np.int64))
        return dtypes.unpack(raw, dtypes.bits_of(target), count).view(target).reshape(shape)
    return tensor.data.copy()


def _frontend_dtypes(core: Any) -> frozenset[str] | None:
    """Element types the ONNX frontend reads, from its own list in the refusal of an unknown one."""
    for probe in (TensorProto.FLOAT6E2M3, TensorProto.FLOAT6E3M2) if hasattr(TensorProto, "FLOAT6E2M3") else ():
        x = helper.make_tensor_value_info("x", probe, [1])
        y = helper.make_tensor_value_info("y", probe, [1])
        graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "probe", [x], [y])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", onnx.defs.onnx_opset_version())])
        data = model.SerializeToString()
        try:
            core.read_model(model=data, weights=b"")
        except Exception as exc:  # noqa: BLE001 - the message is what we read
            match = _UNKNOWN_TYPE.search(str(exc))
            if match:
                names = {n.strip().lower() for n in match.group(1).split(",")} - {"undefined", ""}
                return frozenset(names)
    return None
