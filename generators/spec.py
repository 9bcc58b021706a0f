"""What the installed onnx.defs says exists: operator versions, the opsets they span, their dtypes, their sentences."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import onnx.defs

from onnx_conformance.harness.dtypes import from_type_str


@dataclass(frozen=True)
class OpVersion:
    """One schema version of an operator and the opsets in which it is in force."""

    op: str
    since_version: int
    first_opset: int
    last_opset: int
    dtypes: tuple[str, ...]  # what the first input's type constraint allows, in schema order
    schema: onnx.defs.OpSchema

    @property
    def type_params(self) -> dict[str, tuple[str, ...]]:
        """Each type parameter of this version and the types it allows, in schema order
        (tensors by element name, 'float'; other types by the spec's string, 'seq(tensor(float))').
        Read from the schema once per version (semantics ask on every call); each caller gets its own dict."""
        cached = self.__dict__.get("_type_params")
        if cached is None:
            cached = tuple((c.type_param_str, tuple(type_name(t) for t in c.allowed_type_strs))
                           for c in self.schema.type_constraints)
            self.__dict__["_type_params"] = cached  # frozen: the dataclass's fields only
        return dict(cached)

    @property
    def opsets(self) -> tuple[int, ...]:
        """The first and the last opset where this version is in force (one when they coincide)."""
        return tuple(sorted({self.first_opset, self.last_opset}))

    @property
    def deprecated(self) -> bool:
        """A deprecated schema (Scatter-11, Upsample-10, ...): onnx's checker refuses every model using it."""
        return bool(self.schema.deprecated)

    def has_input(self, name: str) -> bool:
        return any(i.name == name for i in self.schema.inputs)

    def has_attribute(self, name: str) -> bool:
        return name in self.schema.attributes

    @property
    def doc(self) -> str:
        return " ".join((self.schema.doc or "").split())

    def sentence(self, pattern: str) -> str | None:
        """The first sentence of this version's doc matching `pattern` (a regex), or None."""
        for s in re.split(r"(?<=\.)\s+", self.doc):
            if re.search(pattern, s):
                return s
        return None


def type_name(type_str: str) -> str:
    """'tensor(float16)' -> 'float16'; sequence and optional types keep the spec's spelling."""
    return from_type_str(type_str) if type_str.startswith("tensor(") else type_str


def newest_opset(domain: str = "") -> int:
    """The newest opset of `domain` the installed onnx defines (ai.onnx.ml and the preview domains
    count their own opsets: ai.onnx.ml's 5 is not ai.onnx's 5)."""
    if domain in ("", "ai.onnx"):
        return onnx.defs.onnx_opset_version()
    return onnx.defs.C.schema_version_map()[domain][1]


@lru_cache(maxsize=None)
def versions(op: str, domain: str = "") -> tuple[OpVersion, ...]:
    """Every schema version of `op` in `domain`, oldest first, from get_all_schemas_with_history()."""
    schemas = sorted(_all_schemas().get((op, domain), ()), key=lambda s: s.since_version)
    if not schemas:
        raise KeyError(f"onnx.defs has no operator {op!r} in domain {domain!r}")
    out = []
    for i, s in enumerate(schemas):
        last = schemas[i + 1].since_version - 1 if i + 1 < len(schemas) else newest_opset(domain)
        out.append(OpVersion(op, s.since_version, s.since_version, last, _input_dtypes(s), s))
    return tuple(out)


@lru_cache(maxsize=None)
def _all_schemas() -> dict[tuple[str, str], list[onnx.defs.OpSchema]]:
    """get_all_schemas_with_history() by (name, domain), in its order: read once, not once per operator."""
    out: dict[tuple[str, str], list[onnx.defs.OpSchema]] = {}
    for s in onnx.defs.get_all_schemas_with_history():
        out.setdefault((s.name, s.domain), []).append(s)
    return out


def _input_dtypes(schema: onnx.defs.OpSchema) -> tuple[str, ...]:
    """Types allowed for the first input (the first output where there is none): via its type
    constraint, or its literal type string."""
    formal = (schema.inputs or schema.outputs)[0]
    for c in schema.type_constraints:
        if c.type_param_str == formal.type_str:
            return tuple(type_name(t) for t in c.allowed_type_strs)
    return (type_name(formal.type_str),)
