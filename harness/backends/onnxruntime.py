"""ONNX Runtime through its InferenceSession API, fed and fetched as OrtValues so every dtype survives."""

from __future__ import annotations

import ctypes
import functools
import os
import re
from typing import Any, Sequence

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper
# The binding ort.InferenceSession and ort.OrtValue wrap (its exceptions are what ORT raises);
# sessions on the CPU are made through it directly where it has what OnnxRuntimeAdapter.prepare calls.
from onnxruntime.capi import onnxruntime_pybind11_state as _binding

_DIRECT = all(hasattr(_binding.InferenceSession, n) for n in
              ("initialize_session", "inputs_meta", "outputs_meta", "run_with_ort_values", "run"))

from onnx_conformance.harness import dtypes
from onnx_conformance.harness.backends.base import Adapter, Capabilities, Unsupported

# On the committed scoreboard (registry.scoreboard_backends): its place in the table.
SCOREBOARD = {"order": 1}

# ORT's own words when it declines a model rather than finding it wrong. Each was captured from
# a real failing session (tests/test_backends_onnxruntime.py triggers every one of them).
_DECLINED = (
    # Opset newer than ORT's bundled onnx: "... Opset 27 is under development and support for
    # this is limited. ... Current official support for domain ai.onnx is till opset 26."
    re.compile(r"Current official support for domain \S+ is till opset \d+"),
    # "Unsupported model IR version: 14, max supported IR version: 13"
    re.compile(r"Unsupported model IR version: \d+, max supported IR version: \d+"),
    # A tensor type the spec defines but ORT does not know (float6e2m3):
    # "Failed to load model with error: Invalid tensor data type 27."
    re.compile(r"Invalid tensor data type \d+"),
    # Same, when building the input OrtValue: "tensor type 27 is not supported"
    re.compile(r"tensor type \d+ is not supported"),
)
# Operators ORT does not know. Unsupported only when onnx itself defines the operator; for one
# nobody defines, the model is wrong. Seen as
#   "In Node, ("", NoSuchOp, "", -1) : ... Error No Op registered for NoSuchOp with domain_version of 21"
#   "Fatal error: ai.onnx.preview:FlexAttention(-1) is not a registered function/op"
_NO_OP = re.compile(
    r'In Node, \("[^"]*", (\w+), "([^"]*)".*No Op registered for \w+ with domain_version of (\d+)', re.S
)
# Map feeds the Python binding cannot build: it reads a dict's values as Python floats and builds
# map(string|int64, float) only, so the session sees another type than the model declares:
#   "Unexpected input data type. Actual: ((map(string,tensor(float)))) , expected: ((map(string,tensor(int64))))"
#   "Unexpected value type <class 'str'>, it cannot be linked to C type int64_t for input 'X'."
_MAP_FEED_REFUSED = (
    re.compile(r"Unexpected input data type\. Actual: \(\(map\("),
    re.compile(r"Unexpected value type\s+<class '\w+'>, it cannot be linked to C type"),
)
_NOT_REGISTERED = re.compile(r"([\w.]*):(\w+)\(-?\d+\) is not a registered function/op")

_LEVELS = {
    "disable": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
    "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
    "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
}


class OnnxRuntimeAdapter(Adapter):
    name = "onnxruntime"
    option_help = {
        "provider": "comma list of execution providers in priority order (default CPUExecutionProvider)",
        "intra_op_num_threads": "threads per session (default 1: the runner already runs cases in parallel)",
        "graph_optimization_level": "disable|basic|extended|all (default all, what users get)",
    }

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        requested = self.options.get("provider", "CPUExecutionProvider").split(",")
        self.providers = [_provider_name(p) for p in requested if p.strip()]
        available = ort.get_available_providers()
        missing = [p for p in self.providers if p not in available]
        if missing:
            # ORT would warn and quietly fall back to CPU, grading the wrong device.
            raise ValueError(
                f"provider {missing[0]} is not available; this onnxruntime has {', '.join(available)}"
            )
        threads = self.options.get("intra_op_num_threads", "1")
        if not threads.isdigit():
            raise ValueError(f"intra_op_num_threads must be a non-negative integer, got {threads!r}")
        self.threads = int(threads)
        level = self.options.get("graph_optimization_level", "all")
        if level not in _LEVELS:
            raise ValueError(f"graph_optimization_level must be one of {', '.join(_LEVELS)}, got {level!r}")
        self.level = _LEVELS[level]
        self.cpu_only = self.providers == ["CPUExecutionProvider"]
        # On the CPU alone, sessions are made and run through the binding that ort.InferenceSession
        # wraps, as the wrapper does, without its per-session provider and fallback bookkeeping
        # (~30 of ~180 us a session; tens of thousands of sessions a run): the same calls, the same
        # options, the same errors word for word (tests/test_backends_onnxruntime.py). Any other
        # provider goes through the wrapper, whose IO binding brings device outputs back.
        self.direct = self.cpu_only and _DIRECT
        self._options = self._session_options()  # the binding copies it into each session
        # as the wrapper reads it, once per session
        self._config_from_model = os.environ.get("ORT_LOAD_CONFIG_FROM_MODEL") == "1"

    @property
    def version(self) -> str:
        return ort.__version__

    @functools.cached_property
    def capabilities(self) -> Capabilities:
        max_ir, max_opset = _probe_limits()
        return Capabilities(opset=(1, max_opset), ir=(1, max_ir), dtypes=_representable_dtypes())

    def _session_options(self) -> ort.SessionOptions:
        so = ort.SessionOptions()
        so.intra_op_num_threads = self.threads
        so.inter_op_num_threads = 1
        so.graph_optimization_level = self.level
        # Fatal only: every error also comes back as the exception we classify, so ORT's own
        # stderr copy would just double the noise in the runner's captured output.
        so.log_severity_level = 4
        return so

    def prepare(self, model_path: str) -> Any:
        return self._session(model_path, True)

    def prepare_checked(self, model_path: str, model: bytes | None) -> Any:
        # From the bytes checked, where there are some: ORT reading and parsing the file itself
        # took ~16 us a session more (bench/bench_ort_load.py). Its refusals are the same, in the
        # same words, but for the "Load model from PATH failed:" some of them begin with from a path.
        return self._session(model_path, True) if model is None else self._session(model, False)

    def _session(self, model: str | bytes, is_path: bool) -> Any:
        if self.direct:
            session = _binding.InferenceSession(self._options, model, is_path, self._config_from_model)
            session.initialize_session(self.providers, [{}], set())
            return session
        return ort.InferenceSession(model, sess_options=self._session_options(), providers=self.providers)

    def run(self, session: Any, inputs: Sequence[np.ndarray]) -> list[Any]:
        direct = self.direct
        declared = session.inputs_meta if direct else session.get_inputs()
        if len(inputs) != len(declared):
            raise ValueError(f"got {len(inputs)} inputs, the model declares {len(declared)}")
        outputs = session.outputs_meta if direct else session.get_outputs()
        if not all(_bindable(v.type) for v in [*declared, *outputs]):
            # OrtValues cannot be built from strings, nor returned as sequences/optionals through
            # this API; the plain run converts those through numpy, which has no bfloat16, float8
            # or packed 4/2-bit type: a sequence or optional of one cannot cross the binding at all.
            foreign = next((m.group(1) for v in [*declared, *outputs]
                            for m in [_ELEMENT.search(v.type)] if m and m.group(1) not in _NUMPY_NATIVE
                            and not v.type.startswith("tensor(")), None)
            if foreign:
                raise Unsupported(f"onnxruntime's Python API passes sequences and optionals through numpy, "
                                  f"which has no {foreign} (no OrtValue constructor takes them)")
            feeds = {d.name: _plain(x) for d, x in zip(declared, inputs)}
            if direct:
                return list(session.run([o.name for o in outputs], feeds, None))
            return list(session.run(None, feeds))
        keep = []  # OrtValues borrow the numpy buffers: both must live until the run ends
        feeds = {}
        for d, x in zip(declared, inputs):
            x = x if x.flags.c_contiguous else x.copy(order="C")  # ascontiguousarray would turn 0-d into 1-d
            value = to_ortvalue(x)
            feeds[d.name] = value._get_c_value() if direct else value
            keep.append(value)  # it holds its numpy buffer
        names = [o.name for o in outputs]
        if direct:
            values = session.run_with_ort_values(feeds, names, None)
        elif self.cpu_only:
            # Keeps ORT's status codes: IO binding reports every run failure as a bare
            # RuntimeError("Error in execution: ..."), losing NOT_IMPLEMENTED.
            values = session.run_with_ort_values(names, feeds)
        else:
            # Other providers leave outputs in device memory; binding them to the CPU brings them back.
            binding = session.io_binding()
            for name, value in feeds.items():
                binding.bind_ortvalue_input(name, value)
            for name in names:
                binding.bind_output(name, "cpu")
            session.run_with_iobinding(binding)
            values = binding.get_outputs()
        # A sparse result (Constant's sparse_value) is returned as ORT gives it, not densified: the
        # graph declares a dense tensor, so the comparator reports the wrong kind of output.
        # By index: iterating the binding's OrtValueVector costs ~20 us a run, indexing it ~1.
        values = [values[i] for i in range(len(values))]
        return [_sparse(v) if v.is_sparse_tensor() else from_ortvalue(v) for v in values]

    def classify(self, exc: BaseException, stage: str) -> str:
        if isinstance(exc, (Unsupported, NotImplementedError, _binding.NotImplemented)):
            return "unsupported"
        text = str(exc)
        if "NOT_IMPLEMENTED : " in text or any(p.search(text) for p in _DECLINED):
            return "unsupported"
        if stage == "run" and any(p.search(text) for p in _MAP_FEED_REFUSED):
            return "unsupported"
        match = _NO_OP.search(text)
        if match and onnx.defs.has(match.group(1), int(match.group(3)), match.group(2)):
            return "unsupported"
        match = _NOT_REGISTERED.search(text)
        if match and onnx.defs.has(match.group(2), match.group(1)):
            return "unsupported"
        return "error"


def _sparse(value) -> Any:
    """A sparse output as the wrapper gives it (an ort.SparseTensor), from either kind of value."""
    if not isinstance(value, ort.OrtValue):
        value = ort.OrtValue(value)
    return value.as_sparse_tensor()


def _plain(value: Any) -> Any:
    """A feed for the plain run: sequences stay lists, an empty optional stays None (ORT takes
    both as they are); a numpy scalar becomes a 0-d array; a map becomes a dict of Python scalars."""
    if isinstance(value, dict):
        return _plain_map(value)
    if isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
        return [_plain_map(x) for x in value]
    return value if value is None or isinstance(value, list) else np.asarray(value)


def _plain_map(value: dict) -> dict:
    """A map feed as ORT's binding builds one: keys and values as Python scalars (it takes no
    0-d arrays). Which (key, value) types it can build at all is its own: others fail in its words."""
    def scalar(x: Any) -> Any:
        x = np.asarray(x)
        item = x.item() if x.ndim == 0 else x
        return item.decode() if isinstance(item, bytes) else item
    return {scalar(k): scalar(v) for k, v in value.items()}


_ELEMENT = re.compile(r"tensor\((\w+)\)")
_NUMPY_NATIVE = {"bool", "string", "float16", "float", "double", "complex64", "complex128",
                 "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}


def _bindable(type_str: str) -> bool:
    return type_str.startswith("tensor(") and type_str != "tensor(string)"


def _provider_name(text: str) -> str:
    """'cpu' or 'CUDA' -> the provider's full name, so the option stays short on a command line."""
    text = text.strip()
    if text.endswith("ExecutionProvider"):
        return text
    by_short = {p[: -len("ExecutionProvider")].lower(): p for p in ort.get_all_providers()}
    return by_short.get(text.lower(), text)


def to_ortvalue(x: np.ndarray) -> ort.OrtValue:
    """A numpy array (ml_dtypes included) as an OrtValue of the matching ONNX element type.

    ORT's Python API has no numpy type for bfloat16 or the float8/4-bit families, so those are
    handed over as raw bits with the element type named explicitly.
    """
    if x.dtype.type.__module__ == "numpy":
        # what ort.OrtValue.ortvalue_from_numpy(x) builds, with the CPU device made once, not per call
        return ort.OrtValue(_binding.OrtValue.ortvalue_from_numpy(x, _cpu_device()), x)
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    bits = dtypes.bits_of(x.dtype)
    if bits >= 8:
        return ort.OrtValue.ortvalue_from_numpy_with_onnx_type(x.view(f"u{x.dtype.itemsize}"), elem)
    # Sub-byte types: the spec packs them low bits first (onnx/docs/IR.md, "4-bit/2-bit integer
    # types"), ml_dtypes keeps one per byte. Allocate ORT's packed tensor and copy the bytes in.
    value = ort.OrtValue.ortvalue_from_shape_and_type(list(x.shape), elem, "cpu")
    packed = dtypes.pack(x, bits)
    if packed.nbytes:
        ctypes.memmove(value.data_ptr(), packed.ctypes.data, packed.nbytes)
    return value


@functools.lru_cache(maxsize=None)
def _cpu_device():
    return ort.OrtDevice.make("cpu", 0)._get_c_device()


@functools.lru_cache(maxsize=None)
def _element(elem_type: int) -> tuple[str, np.dtype | None]:
    """An output's ONNX element type name and numpy dtype (None for string), looked up once each."""
    name = dtypes.name_of(elem_type)
    return name, None if name == "string" else dtypes.numpy_of(name)


def from_ortvalue(value: ort.OrtValue) -> np.ndarray:
    """A CPU tensor OrtValue as numpy, keeping its ONNX element type (bfloat16 stays bfloat16)."""
    name, target = _element(value.element_type())
    if target is None:
        return value.numpy()
    if target.type.__module__ == "numpy":
        out = value.numpy()
        if out.dtype != target:
            raise TypeError(f"onnxruntime returned {out.dtype} for a tensor({name}) output")
        return out
    shape = tuple(value.shape())
    size = value.tensor_size_in_bytes()
    raw = np.frombuffer(ctypes.string_at(value.data_ptr(), size), np.uint8) if size else np.zeros(0, np.uint8)
    bits = dtypes.bits_of(target)
    if bits >= 8:
        return raw.view(target).reshape(shape)
    return dtypes.unpack(raw, bits, int(np.prod(shape, dtype=np.int64))).view(target).reshape(shape)


@functools.lru_cache(maxsize=None)
def _probe_limits() -> tuple[int, int]:
    """(max IR version, max ai.onnx opset) this onnxruntime loads, read from its own refusals.

    ORT caps both below what the installed onnx defines, and says the cap in its error text;
    loading an Identity model at onnx's newest versions makes it say so.
    """
    ir, opset = onnx.IR_VERSION, onnx.defs.onnx_opset_version()
    for _ in range(4):
        try:
            _identity_session(ir, opset)
            return ir, opset
        except Exception as exc:  # noqa: BLE001 - the message is what we read
            text = str(exc)
            ir_cap = re.search(r"max supported IR version: (\d+)", text)
            opset_cap = re.search(r"is till opset (\d+)", text)
            if ir_cap and int(ir_cap.group(1)) < ir:
                ir = int(ir_cap.group(1))
            elif opset_cap and int(opset_cap.group(1)) < opset:
                opset = int(opset_cap.group(1))
            else:
                break
    # The message changed shape: walk down until a model loads.
    for candidate in range(opset, 0, -1):
        try:
            _identity_session(ir, candidate)
            return ir, candidate
        except Exception:  # noqa: BLE001
            continue
    return ir, opset


def _identity_session(ir: int, opset: int) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "probe", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir
    so = ort.SessionOptions()
    so.log_severity_level = 4
    ort.InferenceSession(model.SerializeToString(), sess_options=so, providers=["CPUExecutionProvider"])


@functools.lru_cache(maxsize=None)
def _representable_dtypes() -> frozenset[str]:
    """Element types ORT can hold in a tensor at all; kernels decide the rest case by case."""
    names = set()
    for elem in TensorProto.DataType.values():
        if elem == TensorProto.UNDEFINED:
            continue
        try:
            ort.OrtValue.ortvalue_from_shape_and_type([1], elem, "cpu")
        except Exception:  # noqa: BLE001 - "tensor type 27 is not supported"
            continue
        names.add(dtypes.name_of(elem))
    # Strings have no fixed-size OrtValue to probe with, but sessions take tensor(string).
    return frozenset(names | {"string"})
