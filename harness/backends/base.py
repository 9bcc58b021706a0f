"""The contract every backend adapter implements; the runner knows nothing else about a backend."""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass
from typing import Any, NamedTuple, Sequence

from onnx_conformance.harness.dtypes import element_of, name_of


class Unsupported(Exception):
    """Raised by an adapter when the backend declined a case (not implemented, opset/type unsupported).

    The message is the backend's own words where it has any.
    """


@dataclass
class Capabilities:
    """What an adapter declares it supports; a case outside it is `unsupported` with that reason."""

    opset: tuple[int, int] | None = None  # inclusive range of ai.onnx opsets
    ir: tuple[int, int] | None = None  # inclusive range of IR versions
    dtypes: frozenset[str] | None = None  # ONNX type names ('float', 'bfloat16'); None = no claim

    def reason_unsupported(self, opset: int | None, ir: int | None, dtype: str | None,
                           types: dict[str, str] | None = None) -> str | None:
        """Why a case is outside what the adapter declares, or None. `dtype` and each of `types`
        (the case's type binding) are checked by their element type: 'seq(tensor(int8))' by 'int8'."""
        if self.opset and opset is not None and not (self.opset[0] <= opset <= self.opset[1]):
            side = "above" if opset > self.opset[1] else "below"
            bound = self.opset[1] if side == "above" else self.opset[0]
            word = "maximum" if side == "above" else "minimum"
            return f"opset {opset} {side} the backend's {word} {bound}"
        if self.ir and ir is not None and not (self.ir[0] <= ir <= self.ir[1]):
            side = "above" if ir > self.ir[1] else "below"
            bound = self.ir[1] if side == "above" else self.ir[0]
            word = "maximum" if side == "above" else "minimum"
            return f"IR version {ir} {side} the backend's {word} {bound}"
        if self.dtypes is not None:
            for t in ([dtype] if dtype is not None else []) + sorted(set((types or {}).values()) - {dtype}):
                if element_of(t) not in self.dtypes:
                    return f"dtype {t} not supported by the backend"
        return None


class Value(NamedTuple):
    """One graph input or output, as prepare's `signature` describes it."""

    name: str
    # the spec's spelling: 'tensor(float)', 'seq(tensor(int8))', 'optional(tensor(bool))', 'map(int64, float)'
    type: str
    # a tensor's dimensions, each an int, a symbolic name or None where unknown; None: no rank, or not a tensor
    shape: tuple | None

    @property
    def element(self) -> str:
        """The element type's ONNX name ('float'; a map's: its value type's), as Capabilities.dtypes names it."""
        return element_of(self.type)


class Signature(NamedTuple):
    """What run() is given and must give back, read from the model the harness checked (no second parse)."""

    inputs: tuple[Value, ...]  # run()'s inputs, in this order: the graph's inputs that are not initializers
    outputs: tuple[Value, ...]  # what run() returns, in this order: the graph's outputs


def signature_of(model) -> Signature:
    """A ModelProto's Signature."""
    graph = model.graph
    initialized = {t.name for t in graph.initializer} | {t.values.name for t in graph.sparse_initializer}
    return Signature(tuple(_value(v) for v in graph.input if v.name not in initialized),
                     tuple(_value(v) for v in graph.output))


def _value(info) -> Value:
    tp = info.type
    shape = None
    if tp.WhichOneof("value") == "tensor_type" and tp.tensor_type.HasField("shape"):
        shape = tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or None)
                      for d in tp.tensor_type.shape.dim)
    return Value(info.name, type_string(tp), shape)


def type_string(tp) -> str:
    """A TypeProto in the spec's words: 'tensor(float)', 'seq(tensor(int8))', 'map(int64, float)'."""
    kind = tp.WhichOneof("value")
    if kind == "tensor_type":
        return f"tensor({name_of(tp.tensor_type.elem_type)})"
    if kind == "sparse_tensor_type":
        return f"sparse_tensor({name_of(tp.sparse_tensor_type.elem_type)})"
    if kind == "sequence_type":
        return f"seq({type_string(tp.sequence_type.elem_type)})"
    if kind == "optional_type":
        return f"optional({type_string(tp.optional_type.elem_type)})"
    if kind == "map_type":  # a map's tensor value type by its element name, as the index writes it
        value = type_string(tp.map_type.value_type)
        value = value[len("tensor("):-1] if value.startswith("tensor(") else value
        return f"map({name_of(tp.map_type.key_type)}, {value})"
    return "undefined"


class Adapter:
    """Base adapter. Subclasses set `name`, implement `version`, `prepare` and `run`.

    Life cycle, all inside one isolated executor process:
        adapter = Adapter(options)            # once per executor process
        prepared = adapter.prepare(model_path) # stage "load" (prepare_checked: with the checked bytes;
                                               # either, given a `signature` parameter: the graph's
                                               # inputs and outputs, Signature)
        outputs = adapter.run(prepared, inputs) # stage "run"; inputs in graph-input order
    Any exception from prepare/run is passed to `classify`, which says `unsupported` or `error`.
    The whole contract, with a template to copy: README's "Writing an adapter", backends/template.py.
    """

    name: str = "base"
    # Options this adapter understands (--backend-option KEY=VALUE), each with a one-line help.
    # Empty means "accept anything", so adapters that predate it keep working.
    option_help: dict[str, str] = {}
    # Contracts of --check-adapter (adapter_check.MISTAKES' keys) the runtime itself breaks, however it is
    # called: contract -> (the probes' operators or element types it covers, why). Those probes' failures
    # are then notes, not broken contracts; anything undeclared still fails the check.
    runtime_breaks: dict[str, tuple[tuple[str, ...], str]] = {}

    def __init__(self, options: dict[str, str] | None = None):
        self.options = dict(options or {})
        unknown = sorted(set(self.options) - set(self.option_help)) if self.option_help else []
        if unknown:
            known = ", ".join(f"{k} ({v})" for k, v in sorted(self.option_help.items()))
            raise ValueError(f"unknown option {unknown[0]!r}; known options: {known}")

    def flag(self, key: str, default: str = "1") -> bool:
        """A 0/1 option (--backend-option KEY=0|1): anything else stops the run at load."""
        value = self.options.get(key, default)
        if value not in ("0", "1"):
            raise ValueError(f"{key} must be 0 or 1, got {value!r}")
        return value == "1"

    @property
    def version(self) -> str:
        return "unknown"

    capabilities: Capabilities = Capabilities()

    def prepare(self, model_path: str) -> Any:
        """Stage load: what run() needs. A subclass may add a `signature` parameter
        (`prepare(self, model_path, signature=None)`): the graph's inputs and outputs, a Signature."""
        raise NotImplementedError

    def prepare_checked(self, model_path: str, model: bytes | None, signature: Signature | None = None) -> Any:
        """prepare, given also model.onnx's bytes as the safety checks read them (None for a model
        with external data, or too large to hold twice: it loads from its path). This default
        loads from the path; an adapter whose runtime loads a model from memory may load these
        bytes instead: what loads is then exactly what was checked, and the file is not read again.
        One that does must load them whenever they are given: for a case run at the opset ceiling
        they are the model rewritten (Rewritten), which the file at `model_path` is not.
        `signature` reaches prepare where prepare takes it."""
        if signature is not None and _takes_signature(self.prepare):
            return self.prepare(model_path, signature=signature)
        return self.prepare(model_path)

    def run(self, prepared: Any, inputs: Sequence[Any]) -> list[Any]:
        """Stage run: one value per graph input that is not an initializer, in graph order; one back per
        graph output, in graph order. A tensor is a numpy array (ml_dtypes for bfloat16, float8, 4- and
        2-bit types; rank-0 a 0-d array), a sequence a list, an optional its value or None, a map a dict
        of key -> 0-d array. Outputs are what the runtime produced, in its type and shape, never cast."""
        raise NotImplementedError

    def classify(self, exc: BaseException, stage: str) -> str:
        """'unsupported' when the backend declined, else 'error'. Adapters refine by real messages."""
        if isinstance(exc, (Unsupported, NotImplementedError)):
            return "unsupported"
        return "error"


class Rewritten(bytes):
    """A model as the harness rewrote it to run (a case above the run's opset ceiling, run at it:
    harness/opset_ceiling.py): the only copy, since the model.onnx beside it is the case as emitted."""


def prepare_model(adapter: Any, model_path: str, data: bytes | None, model: Any = None,
                  signature: Signature | None = None) -> Any:
    """Stage load, as the harness calls it: prepare_checked(model_path, data) (prepare(model_path) for an
    adapter without it), with `signature=` (given, or read from `model`, the checked ModelProto) only
    where the method, or prepare behind the base's prepare_checked, has a `signature` parameter: an
    adapter written before signatures existed is called as it always was, and pays nothing for them.
    A Rewritten model reaches an adapter that loads from memory (a prepare_checked of its own) as these
    bytes, and one that loads from a path as a file written for it, in a folder named as the case's."""
    method = getattr(adapter, "prepare_checked", None)
    if type(data) is Rewritten and not _loads_bytes(type(adapter)):
        from onnx_conformance.harness.opset_ceiling import write

        model_path = write(data, os.path.dirname(model_path))
    if not _wants_signature(type(adapter)):
        return adapter.prepare(model_path) if method is None else method(model_path, data)
    signature = signature if signature is not None else signature_of(model)
    if method is None:
        return adapter.prepare(model_path, signature=signature)
    return method(model_path, data, signature=signature)


_WANTS: dict[type, bool] = {}  # adapter class -> whether its load takes `signature`, looked up once


def _loads_bytes(cls: type) -> bool:
    """Whether an adapter loads the checked bytes it is given: a prepare_checked of its own."""
    method = getattr(cls, "prepare_checked", None)
    return method is not None and method is not Adapter.prepare_checked


def _wants_signature(cls: type) -> bool:
    wants = _WANTS.get(cls)
    if wants is None:
        method = getattr(cls, "prepare_checked", None)
        if method is None or method is Adapter.prepare_checked:  # the default passes it on to prepare
            method = getattr(cls, "prepare", None)
        wants = _WANTS[cls] = _takes_signature(method)
    return wants


def _takes_signature(method: Any) -> bool:
    try:
        return "signature" in inspect.signature(method).parameters
    except (TypeError, ValueError):  # not introspectable (a builtin): called as before
        return False
