"""Sonos' tract (Rust) through its Python bindings: ONNX loaded from the path, optimised for the CPU, inputs by position."""

from __future__ import annotations

import functools
import re
from typing import Any, Sequence

import numpy as np
import onnx
import tract

from onnx_conformance.harness import dtypes
from onnx_conformance.harness.backends.base import Adapter, Capabilities, Unsupported

# On the committed scoreboard (registry.scoreboard_backends): its place in the table.
SCOREBOARD = {"order": 4}

# tract's own words when it declines rather than finds the model wrong, each from a real failure
# (tests/test_backend_tract.py triggers them):
_DECLINED = (
    # A type the spec defines that tract has no DatumType for: "Unknown DatumType Bfloat16",
    # "unknown ONNX TensorProto.DataType (27): unknown enumeration value 27".
    re.compile(r"Unknown DatumType \w+"),
    re.compile(r"unknown ONNX TensorProto\.DataType \(\d+\)"),
    # A kernel without that element type: "Neg does not support U32", "Reduce<Prod> does not support Bool".
    re.compile(r"does not support (Bool|[UIF]\d+|TDim|Blob|String|Q\w+)\b"),
    # The same from the reducers: "Reduce<Prod> ... U64 is not a number", "Reduce<Min> ... Bool is not a number".
    re.compile(r"\b(Bool|[UIF]\d+) is not a number"),
    # An input the spec lets be computed that tract needs folded at load time: the axes of
    # ReduceX-18, "Reduce13 ToTypedTranslator ... expected axes as a constant".
    re.compile(r"expected \w+ as a constant"),
)
# An operator tract has no translation for: 'Translating node #1 "y" Unimplemented(TfIdfVectorizer)'.
# Unsupported only when the spec defines the operator; the message names no domain, so any domain counts.
_UNIMPLEMENTED = re.compile(r"Unimplemented\((\w+)\)")
# RUST_BACKTRACE=1 (often set in CI) appends a Rust stack to every message; it says nothing about the case.
_BACKTRACE = re.compile(r"\s*Stack backtrace:.*", re.S)


class TractError(Exception):
    """tract's error with its Rust stack trace cut off; `__cause__` keeps the original."""


class TractAdapter(Adapter):
    name = "tract"

    @property
    def version(self) -> str:
        return tract.version()

    @functools.cached_property
    def capabilities(self) -> Capabilities:
        # tract refuses no opset and no IR version (probed up to opset 40, IR 14): it translates
        # each node by the newest rule at or below the model's opset, so the range is what the
        # installed onnx defines. Element types are its DatumTypes, read from the bindings.
        return Capabilities(opset=(1, onnx.defs.onnx_opset_version()), ir=(1, onnx.IR_VERSION), dtypes=_datum_dtypes())

    def prepare(self, model_path: str) -> Any:
        try:
            return tract.onnx().load(model_path).into_model().into_runnable()
        except tract.TractError as exc:
            short = _short(exc)
            if _takes_non_tensor(model_path, str(short)):
                raise Unsupported(str(short)) from exc
            raise short from exc

    def run(self, runnable: Any, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        count = runnable.input_count()
        if len(inputs) != count:
            raise ValueError(f"got {len(inputs)} inputs, the model declares {count}")
        # tract checks each input's dtype against the model's fact and refuses a mismatch
        # ("Input at index 0 has incorrect dtype or shape"), so no silent cast happens here.
        try:
            outputs = runnable.run([tract.Tensor.from_numpy(np.asarray(x)) for x in inputs])
            return [t.to_numpy() for t in outputs]
        except tract.TractError as exc:
            raise _short(exc) from exc

    def classify(self, exc: BaseException, stage: str) -> str:
        if super().classify(exc, stage) == "unsupported":
            return "unsupported"
        text = str(exc)
        if any(p.search(text) for p in _DECLINED):
            return "unsupported"
        match = _UNIMPLEMENTED.search(text)
        if match and match.group(1) in _spec_operators():
            return "unsupported"
        return "error"


# tract loads tensors only: a sequence or optional graph input reads "graph input `x` has no type value".
_NO_TYPE = re.compile(r"graph input `([^`]*)` has no type value")


def _takes_non_tensor(model_path: str, text: str) -> bool:
    """Whether tract's complaint is about a graph input the model declares as a sequence, optional or map
    (a type tract does not have), rather than one with no type at all (a broken model)."""
    match = _NO_TYPE.search(text)
    if not match:
        return False
    try:
        graph = onnx.load(model_path, load_external_data=False).graph
    except Exception:  # noqa: BLE001 - unreadable: tract's own error stands
        return False
    kinds = {i.name: i.type.WhichOneof("value") for i in graph.input}
    return kinds.get(match.group(1)) in ("sequence_type", "optional_type", "map_type")


def _short(exc: BaseException) -> TractError:
    return TractError(_BACKTRACE.sub("", str(exc)).strip())


@functools.lru_cache(maxsize=None)
def _spec_operators() -> frozenset[str]:
    return frozenset(s.name for s in onnx.defs.get_all_schemas_with_history())


def _datum_dtypes() -> frozenset[str]:
    """ONNX names of the element types tract's DatumType covers ('F32' -> 'float', 'U64' -> 'uint64')."""
    kinds = {"BOOL": "bool", "U": "uint", "I": "int", "F": "float", "COMPLEX_F": "complex"}
    names = set()
    for member in tract.DatumType:
        match = re.fullmatch(r"(BOOL|COMPLEX_F|U|I|F)(\d*)", member.name)
        if not match:  # complex integers: no ONNX type
            continue
        prefix, bits = match.groups()
        numpy_name = kinds[prefix] + (str(int(bits) * 2) if prefix == "COMPLEX_F" else bits)
        try:
            names.add(dtypes.name_of_numpy(np.dtype(numpy_name)))
        except (TypeError, ValueError):  # complex of float16: neither numpy nor ONNX has it
            continue
    return frozenset(names)
