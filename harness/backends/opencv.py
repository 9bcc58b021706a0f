"""OpenCV's DNN module (opencv-python-headless): the ONNX model read by readNetFromONNX, run on the CPU, fed and fetched by name."""

from __future__ import annotations

import functools
import re
from typing import Any, Sequence

import cv2
import numpy as np
import onnx

from onnx_conformance.harness import dtypes
from onnx_conformance.harness.backends.base import Adapter, Capabilities, Signature

SCOREBOARD = {"order": 7}

# readNetFromONNX's `engine`: OpenCV 5 has a new graph engine and the classic layer-by-layer one;
# "auto" (OpenCV's default, what users get) tries the new parser and falls back to the classic one
# when the new one cannot load the model.
_ENGINES = {"auto": "ENGINE_AUTO", "new": "ENGINE_NEW", "classic": "ENGINE_CLASSIC"}

# OpenCV's own words when it declines rather than finds the model wrong, each from a real failure
# (tests/test_backend_opencv.py triggers them):
_DECLINED = (
    # OpenCV's error codes for "not implemented" and "this type is not handled" (cv::Error::Code):
    # -213 StsNotImplemented: "(-213:The function/feature is not implemented) DNN/ONNX/Attribute[body]:
    #   'Graph' is not supported" (If, Loop, Scan), "Unsupported input depth for GridSample";
    # -17 BadDepth: "(-17:Input image depth is not supported by function) DNN/Reduce: Unsupported type."
    re.compile(r"\((-213|-17):"),
    # -210 StsUnsupportedFormat where the layer says what it lacks: "(-210:Unsupported format or combination
    # of formats) ElementWiseLayer: unsupported input/output type; expected CV_32F or CV_64F", "Clip:
    # unsupported depth" (not its "Failed to parse ONNX model", which is a broken file).
    re.compile(r"\(-210:[^)]*\) [^\n]*\bunsupported (input|output|depth|type)"),
    # A layer's type check, which lists the Mat depths it has kernels for:
    #   "in function '...Reduce2LayerImpl::getTypes(...)' > ... 'inputs[0] == CV_32F || ...' > where > 'inputs[0]' is 10 (CV_64UC1)".
    re.compile(r"in function '[^']*::getTypes\("),
    # The same written as an assertion on a type: "(-215:Assertion failed) wtype0 == CV_32F || wtype0 == CV_16F
    # || wtype0 == CV_16BF in function 'setWeights'", "inptype == CV_32F && \"MaxPool with indices currently
    # supports CV_32F only\"", "src.type() == CV_32F in function 'sigmoid'".
    re.compile(r"Assertion failed\) [\w.()]+ == CV_\w+"),
    # "func != nullptr && \"MaxPool: unsupported data type\"", "Unsupported operation. in function 'boolOpDispatch'",
    # "past key and past value are not supported yet", MatMul and Gemm of doubles: "fastGemmPackB: only float32
    # is supported for now", "DNN/fastGemmBatch: only support float32 for now".
    re.compile(r"unsupported data type|Unsupported operation\. in function|not supported yet|"
               r"only (float32 is supported|support float32) for now"),
    # The binding has no Mat depth for the numpy type: "blob data type = bfloat16 is not supported".
    re.compile(r"data type = \w+ is not supported"),
    # A graph input or output that is not a tensor (a sequence, optional or map), which neither
    # parser holds: "(-215:Assertion failed) typeProto.has_tensor_type() in function 'parseValueInfo'".
    re.compile(r"typeProto\.has_tensor_type\(\) in function 'parseValueInfo'"),
)
# An operator neither parser has a layer for (the classic parser's words, which the auto engine
# shows after the new parser gave up): 'Can't create layer "onnx_node_output_0!y" of type "Det"',
# '... of type "ai.onnx.ml.TreeEnsemble"'. Unsupported only when the spec defines the operator in
# that domain; for one nobody defines, the model is wrong.
_NO_LAYER = re.compile(r'Can\'t create layer "[^"]*" of type "([\w.]+)"')


class OpenCvAdapter(Adapter):
    name = "opencv"
    option_help = {
        "engine": "readNetFromONNX's engine: auto (default: OpenCV's own, the new parser then the classic one), new, classic",
        "threads": "cv2.setNumThreads (default 1: the runner already runs one executor per core with -n)",
    }

    # What --check-adapter finds broken that is OpenCV's own doing: the adapter hands over what forward()
    # returns and feeds what it is given (tests/test_backend_opencv.py shows each through the adapter alone).
    runtime_breaks = {
        "dtype": (("float16",), "OpenCV computes float16 in float32 and forward() returns the float32 Mat "
                                "(test_float16_comes_back_as_float)"),
        "bits": (("int64", "uint64"), "setInput narrows a 64-bit integer input to 32 bits (int64 2**63-1 "
                                      "comes back -1, uint64 2**64-1 as 0; test_int64_inputs_are_narrowed_to_32_bits)"),
        "rank-0 out": (("Size",), "OpenCV gives Size's scalar result as a (1,) Mat (test_rank0_output_of_size_comes_back_rank1)"),
        "zero-sized": (("float", "int64"), "forward() returns None for an output with no elements "
                                           "(test_zero_sized_output_comes_back_as_none)"),
    }

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        engine = self.options.get("engine", "auto")
        if engine not in _ENGINES:
            raise ValueError(f"engine must be one of {', '.join(_ENGINES)}, got {engine!r}")
        self.engine = getattr(cv2.dnn, _ENGINES[engine])
        threads = self.options.get("threads", "1")
        if not threads.isdigit():
            raise ValueError(f"threads must be a whole number, got {threads!r}")
        cv2.setNumThreads(int(threads))

    @property
    def version(self) -> str:
        return cv2.__version__

    @functools.cached_property
    def capabilities(self) -> Capabilities:
        # readNetFromONNX refuses no opset and no IR version (probed up to opset 40, IR 20, both
        # engines): the range is what the installed onnx defines. Element types are the Mat depths
        # the binding has, read from cv2.
        return Capabilities(opset=(1, onnx.defs.onnx_opset_version()), ir=(1, onnx.IR_VERSION), dtypes=_mat_dtypes())

    def prepare(self, model_path: str, signature: Signature | None = None) -> Any:
        net = cv2.dnn.readNetFromONNX(model_path, self.engine)
        if net.empty():
            # The new engine's answer to a model it cannot parse (engine=new; auto falls back instead):
            # an empty network, with the reason only in its log (on stderr, kept in the result).
            raise RuntimeError("readNetFromONNX returned an empty network")
        return net, signature

    def run(self, prepared: Any, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        net, signature = prepared
        if len(inputs) != len(signature.inputs):
            raise ValueError(f"got {len(inputs)} inputs, the model declares {len(signature.inputs)}")
        for k, (value, x) in enumerate(zip(signature.inputs, inputs)):
            # setInput takes any depth and the network converts it: a feed of another type would grade a
            # cast the model never asked for.
            got = dtypes.name_of_numpy(x.dtype)
            if value.type.startswith("tensor(") and got != value.element:
                raise TypeError(f"input {k} is {got}, the model declares {value.element}")
            net.setInput(x, value.name)
        return list(net.forward([value.name for value in signature.outputs]))

    def classify(self, exc: BaseException, stage: str) -> str:
        if super().classify(exc, stage) == "unsupported":
            return "unsupported"
        text = str(exc)
        if any(p.search(text) for p in _DECLINED):
            return "unsupported"
        match = _NO_LAYER.search(text)
        if match and _onnx_defines(match.group(1)):
            return "unsupported"
        return "error"


def _onnx_defines(qualified: str) -> bool:
    """'Det' or 'ai.onnx.ml.TreeEnsemble': is that an operator of the spec, in that domain?"""
    domain, _, op = qualified.rpartition(".")
    return onnx.defs.has(op, "" if domain in ("", "ai.onnx") else domain)


def _mat_dtypes() -> frozenset[str]:
    """ONNX names of the element types a Mat holds, from cv2's depth constants ('CV_32F' -> 'float', 'CV_Bool' -> 'bool')."""
    kinds = {"U": "uint", "S": "int", "F": "float"}
    names = set()
    for attr in dir(cv2):
        match = re.fullmatch(r"CV_(\d+)([USF])", attr)
        if match:
            names.add(dtypes.name_of_numpy(np.dtype(kinds[match.group(2)] + match.group(1))))
        elif attr == "CV_Bool":
            names.add("bool")
    return frozenset(names)
