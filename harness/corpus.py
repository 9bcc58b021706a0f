"""Finds the cases of a corpus in the standard ONNX test-data layout and reads their tensors."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from onnx_conformance.harness.case_files import symlink_leaving
from onnx_conformance.harness.dtypes import name_of
# The layout's names, read by callers from here too (corpus.EXPECT_ERROR, corpus.SET_FILES).
from onnx_conformance.harness.layout import EXPECT_ERROR, EXPECT_OUTPUT, INDEX, MODEL, SET_FILES, numbered  # noqa: F401
from onnx_conformance.harness.safety import read_model


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
    form: str | None = None  # beyond one node: "expanded", "pattern" or "model" (generators/graphs.py)

    def as_message(self) -> dict:
        """What travels to the executor: small, picklable, nothing the child must recompute."""
        return asdict(self)


class Corpus(NamedTuple):
    cases: list[Case]
    index_sha256: str | None  # of the index.json the facts came from (None: no index)


def find_cases(root: Path) -> list[Case]:
    """Every directory under `root` holding a model.onnx, sorted by (op, name).

    `root` may be our layout (`root/node/<case>/`) or onnx's own (`root/<case>/`): the walk does not
    care how deep a case sits. Metadata comes from `root/index.json` when there is one.
    """
    return read_corpus(root).cases


def read_corpus(root: Path) -> Corpus:
    """find_cases, with the sha256 of the very index bytes the facts were read from."""
    root = Path(root)
    if not root.is_dir():
        raise CorpusError(f"cases directory {root} does not exist")
    index, index_hash = _read_index(root)
    found: dict[str, str] = {}
    unsafe: dict[str, str] = {}  # folders that are symlinks out of the corpus: reported, not read

    def add(case_dir: str) -> None:
        name = os.path.basename(case_dir)
        if name in found:
            raise CorpusError(f"two cases are named {name}: {found[name]} and {case_dir}")
        found[name] = case_dir

    # Depth first, in name order, as os.walk would, but each folder listed once with os.scandir
    # (a symlink is known from the listing, no lstat per folder), and a folder the index names is
    # a case without being listed itself: its files are checked when it runs (harness/safety.py),
    # and a corpus of 86,000 cases is not 86,000 listings before the first one starts.
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue  # as os.walk: a folder that cannot be listed holds no case we can run
        if any(e.name == MODEL and not e.is_dir() for e in entries):
            add(folder)  # a case's own test_data_set_* folders hold no further cases
            continue
        below = []
        for e in entries:
            if e.is_symlink():  # never followed; one leading out of the corpus is reported, never read
                if e.is_dir():
                    target = symlink_leaving(str(root), e.path)
                    if target is not None:
                        add(e.path)
                        unsafe[e.name] = f"case directory is a symlink to {target!r}, outside the corpus"
            elif e.is_dir(follow_symlinks=False):
                if index is not None and e.name in index:
                    add(e.path)
                else:
                    below.append(e.path)
        stack.extend(reversed(below))

    if not found:
        raise CorpusError(f"no cases under {root}: no folder there holds a {MODEL}")
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
    return Corpus(cases, index_hash)


def _read_index(root: Path) -> tuple[dict | None, str | None]:
    """The index's cases and the sha256 of its bytes, read once ((None, None): no index)."""
    path = root / INDEX
    if not path.is_file():
        return None, None
    data = path.read_bytes()
    try:
        return dict(json.loads(data)["cases"]), hashlib.sha256(data).hexdigest()
    except (ValueError, KeyError, TypeError) as e:
        raise CorpusError(f"{path} is not a corpus index ({type(e).__name__}: {e})") from e


def _from_index(name: str, case_dir: str, entry: dict) -> Case:
    # What Case(...) makes, every field in its order, set at once: a frozen dataclass's __init__
    # sets each through object.__setattr__ (~2 us a case, 86,000 cases before the first runs).
    get = entry.get
    case = object.__new__(Case)
    case.__dict__.update(
        name=name, path=str(case_dir), op=get("op"), opset=get("opset"),
        since_version=get("since_version"), dtype=get("dtype"), example=get("example"),
        kind=get("kind") or EXPECT_OUTPUT, domain=get("domain") or "", tolerance=get("tolerance"),
        types=get("types"), reason=get("reason"), quality=get("quality"), skip=None, unsafe=None, form=get("form"))
    return case


def _unknown(name: str, case_dir: str) -> Case:
    return Case(name=name, path=str(case_dir), op=None, opset=None, since_version=None,
                dtype=None, example=name)


def _inferred(name: str, case_dir: str) -> Case:
    """Facts read from the model itself, for corpora without an index (onnx's own data/node)."""
    from onnx import defs

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
    safety.check_case keeps them) holds tensors already read and checked: used, not read again;
    and, under SET_FILES, the folders and files as the checks listed them: not listed again."""
    in_types, out_types = types or ([], [])
    parsed = parsed or {}

    def value(set_name: str, file_name: str, declared: list, k: int):
        type_proto = declared[k] if k < len(declared) else None
        tensor = parsed.get(f"{set_name}/{file_name}")
        if tensor is not None and (type_proto is None or type_proto.WhichOneof("value") in (None, "tensor_type")):
            return tensor_array(tensor), _type_name(tensor.data_type)
        return read_value(os.path.join(case_dir, set_name, file_name), type_proto)

    listed = parsed.get(SET_FILES)
    if listed is None:
        listed = []
        for set_name in numbered(os.listdir(case_dir), "test_data_set_"):
            files = os.listdir(os.path.join(case_dir, set_name))
            listed.append((set_name, numbered(files, "input_"), numbered(files, "output_")))
    sets = []
    for set_name, in_names, out_names in listed:
        inputs = [value(set_name, n, in_types, k)[0] for k, n in enumerate(in_names)]
        outs = [value(set_name, n, out_types, k) for k, n in enumerate(out_names)]
        sets.append(DataSet(set_name, inputs, [a for a, _ in outs], [t for _, t in outs]))
    return sets


_NAMES: dict[int, str] = {}  # data type -> its ONNX name, looked up once each
_RAW: dict[int, np.dtype | None] = {}  # data type -> numpy dtype when raw_data is one per element


def _type_name(data_type: int) -> str:
    name = _NAMES.get(data_type)
    if name is None:
        name = _NAMES[data_type] = name_of(data_type)
    return name


def tensor_array(tensor) -> np.ndarray:
    """numpy_helper.to_array's array, the same dtype, shape and values (read-only, as its own),
    with the per-call type look-ups done once per type for the common raw_data tensor."""
    data_type = tensor.data_type
    if data_type not in _RAW:
        from onnx import TensorProto, helper

        plain = data_type not in (TensorProto.UNDEFINED, TensorProto.STRING, TensorProto.INT4,
                                  TensorProto.UINT4, TensorProto.FLOAT4E2M1, TensorProto.UINT2,
                                  TensorProto.INT2, TensorProto.FLOAT6E2M3, TensorProto.FLOAT6E3M2)
        _RAW[data_type] = np.dtype(helper.tensor_dtype_to_np_dtype(data_type)) if plain else None
    dtype = _RAW[data_type]
    if (dtype is None or sys.byteorder == "big" or not tensor.HasField("raw_data")
            or tensor.external_data or tensor.data_location or tensor.HasField("segment")):
        from onnx import numpy_helper

        return numpy_helper.to_array(tensor)
    return np.frombuffer(tensor.raw_data, dtype=dtype).reshape(tensor.dims)
