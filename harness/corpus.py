"""Finds the cases of a corpus in the standard ONNX test-data layout and reads their tensors."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from onnx_conformance.harness.dtypes import name_of

MODEL = "model.onnx"
INDEX = "index.json"
EXPECT_OUTPUT = "expect-output"
EXPECT_ERROR = "expect-error"

_NUMBERED = re.compile(r"^(?:test_data_set|input|output)_(\d+)(?:\.pb)?$")


class CorpusError(Exception):
    """The corpus cannot be run as laid out (no cases, index out of step with the directories)."""


@dataclass(frozen=True)
class Case:
    """One case directory and the facts reports group by; every fact a field, never a name."""

    name: str
    path: str
    op: str | None
    opset: int | None
    since_version: int | None
    dtype: str | None
    example: str | None
    kind: str = EXPECT_OUTPUT
    domain: str = ""
    tolerance: dict | None = None
    types: dict | None = None  # the whole type binding, {"T": "float", "Tind": "int32"}
    reason: str | None = None  # for expect-error: the spec sentence the case violates
    # values the spec does not promise at the type's precision: {"reason", "outputs": {k: [flat indices]}}
    quality: dict | None = None
    skip: str | None = None  # why the runner cannot run it at all
    unsafe: str | None = None  # why the case must not be read at all (harness/safety.py)

    def as_message(self) -> dict:
        """What travels to the executor: small, picklable, nothing the child must recompute."""
        return asdict(self)


def index_sha256(root: Path) -> str | None:
    path = Path(root) / INDEX
    if not path.is_file():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()


def find_cases(root: Path) -> list[Case]:
    """Every directory under `root` holding a model.onnx, sorted by (op, name).

    `root` may be our layout (`root/node/<case>/`) or onnx's own (`root/<case>/`): the walk does not
    care how deep a case sits. Metadata comes from `root/index.json` when there is one.
    """
    root = Path(root)
    if not root.is_dir():
        raise CorpusError(f"cases directory {root} does not exist")
    from onnx_conformance.harness.safety import symlink_leaving

    found: dict[str, Path] = {}
    unsafe: dict[str, str] = {}  # folders that are symlinks out of the corpus: reported, not read

    def add(case_dir: Path) -> None:
        name = case_dir.name
        if name in found:
            raise CorpusError(f"two cases are named {name}: {found[name]} and {case_dir}")
        found[name] = case_dir

    for dirpath, dirnames, filenames in os.walk(root):
        if MODEL in filenames:
            add(Path(dirpath))
            dirnames[:] = []  # a case's own test_data_set_* folders hold no further cases
            continue
        dirnames.sort()
        for d in dirnames:  # os.walk does not follow these; each is reported, never read
            target = symlink_leaving(str(root), os.path.join(dirpath, d))
            if target is not None:
                add(Path(dirpath) / d)
                unsafe[d] = f"case directory is a symlink to {target!r}, outside the corpus"

    if not found:
        raise CorpusError(f"no cases under {root}: no folder there holds a {MODEL}")
    index = _read_index(root)
    cases = []
    if index is not None:
        missing = sorted(set(index) - set(found))
        if missing:
            raise CorpusError(
                f"{root / INDEX} lists {len(missing)} case(s) with no directory under {root} "
                f"(first: {missing[0]}); regenerate the corpus with generate-cases"
            )
    for name, case_dir in found.items():
        entry = index.get(name) if index is not None else None
        if name in unsafe:
            facts = _from_index(name, case_dir, entry) if entry else _unknown(name, case_dir)
            cases.append(replace(facts, unsafe=unsafe[name]))
            continue
        cases.append(_from_index(name, case_dir, entry) if entry else _inferred(name, case_dir))
    cases.sort(key=lambda c: (c.op or "", c.name))
    return cases


def _read_index(root: Path) -> dict | None:
    path = root / INDEX
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
        return dict(data["cases"])
    except (ValueError, KeyError, TypeError) as e:
        raise CorpusError(f"{path} is not a corpus index ({type(e).__name__}: {e})") from e


def _from_index(name: str, case_dir: Path, entry: dict) -> Case:
    return Case(
        name=name,
        path=str(case_dir),
        op=entry.get("op"),
        domain=entry.get("domain") or "",
        opset=entry.get("opset"),
        since_version=entry.get("since_version"),
        dtype=entry.get("dtype"),
        example=entry.get("example"),
        kind=entry.get("kind") or EXPECT_OUTPUT,
        tolerance=entry.get("tolerance"),
        types=entry.get("types"),
        reason=entry.get("reason"),
        quality=entry.get("quality"),
    )


def _unknown(name: str, case_dir: Path) -> Case:
    return Case(name=name, path=str(case_dir), op=None, opset=None, since_version=None,
                dtype=None, example=name)


def _inferred(name: str, case_dir: Path) -> Case:
    """Facts read from the model itself, for corpora without an index (onnx's own data/node)."""
    from onnx import defs

    from onnx_conformance.harness.safety import read_model

    try:  # size- and symlink-checked: a hostile model.onnx costs the controller nothing
        model = read_model(str(case_dir))
    except Exception:  # an unreadable model is still a case: loading it will say why
        return _unknown(name, case_dir)
    graph = model.graph
    domain = graph.node[0].domain if len(graph.node) == 1 else ""
    op = graph.node[0].op_type if len(graph.node) == 1 else "graph"
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)
    since = None
    if op != "graph" and opset is not None:
        try:
            since = defs.get_schema(op, opset, domain).since_version
        except Exception:  # not an operator onnx knows (a custom domain): nothing to say
            since = None
    initialized = {t.name for t in graph.initializer}
    first = next((i for i in graph.input if i.name not in initialized), None)
    # Sequence, optional and map values are read per the graph's types (data_sets), so they run.
    dtype = element_name(first.type) if first is not None else None
    return Case(name=name, path=str(case_dir), op=op, domain=domain, opset=opset,
                since_version=since, dtype=dtype, example=name)


@dataclass
class DataSet:
    name: str
    inputs: list[np.ndarray]
    outputs: list[np.ndarray]  # empty for expect-error cases
    output_dtypes: list[str]


def _numbered(names, prefix: str) -> list[str]:
    picked = []
    for n in names:
        m = _NUMBERED.match(n)
        if m and n.startswith(prefix):
            picked.append((int(m.group(1)), n))
    return [n for _, n in sorted(picked)]


def read_tensor(path: str) -> tuple[np.ndarray, str]:
    """A TensorProto file as numpy (bfloat16 and float8 as ml_dtypes) and its ONNX type name."""
    from onnx import TensorProto, numpy_helper

    tensor = TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor), name_of(tensor.data_type)


def value_types(model) -> tuple[list, list]:
    """The TypeProto of each graph input and output: input_K.pb holds a value of graph.input[K]'s
    type, as onnx's own loader reads it (Runner._load_proto)."""
    return [v.type for v in model.graph.input], [v.type for v in model.graph.output]


def read_value(path: str, type_proto=None):
    """A value file as the graph declares it: a tensor as numpy, a sequence as a list, an optional
    as its value or None, a map as a dict; with the element type's ONNX name."""
    kind = type_proto.WhichOneof("value") if type_proto is not None else None
    if kind in (None, "tensor_type"):
        return read_tensor(path)
    import onnx
    from onnx import numpy_helper

    proto, convert = {
        "sequence_type": (onnx.SequenceProto, to_list),
        "optional_type": (onnx.OptionalProto, numpy_helper.to_optional),
        "map_type": (onnx.MapProto, to_dict),
    }.get(kind, (None, None))
    if proto is None:
        raise ValueError(f"{os.path.basename(path)}: graph type {kind} has no value file format")
    message = proto()
    with open(path, "rb") as f:
        message.ParseFromString(f.read())
    return convert(message), element_name(type_proto)


def to_dict(proto) -> dict:
    """A MapProto as a dict: string keys as str (onnx's to_dict leaves them bytes, runtimes take and
    return str), integer keys as int, each value a 0-d array of the map's value type."""
    from onnx import numpy_helper

    return {(k.decode("utf-8", "surrogateescape") if isinstance(k, bytes) else k): v
            for k, v in numpy_helper.to_dict(proto).items()}


def to_list(proto) -> list:
    """A SequenceProto as a list; a sequence of maps (ZipMap's output) as a list of dicts (to_dict)."""
    import onnx
    from onnx import numpy_helper

    if proto.elem_type == onnx.SequenceProto.MAP:
        return [to_dict(m) for m in proto.map_values]
    return numpy_helper.to_list(proto)


def element_name(type_proto) -> str | None:
    """The tensor element type inside a tensor, sequence, optional or map type."""
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        return name_of(type_proto.tensor_type.elem_type)
    inner = {"sequence_type": lambda t: t.sequence_type.elem_type,
             "optional_type": lambda t: t.optional_type.elem_type,
             "map_type": lambda t: t.map_type.value_type}.get(kind)
    return element_name(inner(type_proto)) if inner else None


def data_sets(case_dir: str, types: tuple[list, list] | None = None,
              parsed: dict | None = None) -> list[DataSet]:
    """Each test_data_set_N in numeric order; input_K / output_K in K order (graph-input order).

    `types` (from value_types) says which files hold sequences, optionals or maps; without it,
    every file is a TensorProto. `parsed` ({"test_data_set_0/input_0.pb": TensorProto}, as
    safety.check_case keeps them) holds tensors already read and checked: used, not read again."""
    in_types, out_types = types or ([], [])
    parsed = parsed or {}

    def value(set_name: str, file_name: str, declared: list, k: int):
        type_proto = declared[k] if k < len(declared) else None
        tensor = parsed.get(f"{set_name}/{file_name}")
        if tensor is not None and (type_proto is None or type_proto.WhichOneof("value") in (None, "tensor_type")):
            from onnx import numpy_helper

            return numpy_helper.to_array(tensor), name_of(tensor.data_type)
        return read_value(os.path.join(case_dir, set_name, file_name), type_proto)

    sets = []
    for set_name in _numbered(os.listdir(case_dir), "test_data_set_"):
        files = os.listdir(os.path.join(case_dir, set_name))
        inputs = [value(set_name, n, in_types, k)[0] for k, n in enumerate(_numbered(files, "input_"))]
        outs = [value(set_name, n, out_types, k) for k, n in enumerate(_numbered(files, "output_"))]
        sets.append(DataSet(set_name, inputs, [a for a, _ in outs], [t for _, t in outs]))
    return sets
