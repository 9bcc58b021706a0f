"""Checks a case before anything reads it in earnest, so a hostile corpus costs only its own cases.

Here: the checks' entry points, model.onnx parsed, and the walk over the model for every tensor it
holds, subgraphs and functions included. The rules themselves (issue 6), each broken one a one-line
UnsafeCase: case_files.py reads every file inside the case directory with a bounded read and checks
each tensor's declared size against the bytes present; case_data.py checks the test data against the
model. Files are parsed with protobuf only: nothing in a corpus is evaluated or unpickled.
The executor checks model.onnx (and the tensors it holds) before the backend loads it, and the test
data before the backend runs it, once the model loaded (check_model): a case its backend cannot load
reads no test data. The models of a batch of cases are checked back to back before its first case
runs (check_model_ahead), each held until its case's turn.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from onnx_conformance.harness import case_data
from onnx_conformance.harness.case_files import EXTERNAL, CaseDir, Limits, UnsafeCase
from onnx_conformance.harness.layout import EXPECT_ERROR, MODEL

# The most bytes of model.onnx check_model_ahead reads: a batch's models checked ahead are held
# until their cases run, so the executor stops checking ahead once they hold more than this (the
# rest are checked in their turn). A model up to this size keeps its bytes, for a backend that
# loads a model from memory (CheckedModel.data).
AHEAD_BYTES = 1 << 20


class CheckedModel(NamedTuple):
    """model.onnx once every check passed: the ModelProto (external data not loaded), the test-data
    half of the checks (`check_data(kind, parsed)`), and the very bytes checked, for a model of at
    most AHEAD_BYTES that holds no external data (None otherwise: that model loads from its path,
    where its external data is found, and a large one is not held twice)."""
    model: Any
    check_data: Callable[..., None]
    data: bytes | None


def check_case(case_dir: str, kind: str | None = None, limits: Limits = Limits(),
               parsed: dict | None = None):
    """The case's ModelProto (external data not loaded) once every check passed; UnsafeCase if not.

    `parsed`, when given, receives each test-data TensorProto as checked, by its path in the case
    ("test_data_set_0/input_0.pb"), and under layout.SET_FILES each test_data_set_N's name with
    its input and output file names in order: what runs is then the bytes checked, from the
    listings checked (corpus.data_sets)."""
    checked = check_model(case_dir, limits)
    checked.check_data(kind, parsed)
    return checked.model


def check_model(case_dir: str, limits: Limits = Limits()) -> CheckedModel:
    """check_case in two halves, so a backend may load a model before its test data is read:
    the ModelProto, once model.onnx and every tensor it holds passed (UnsafeCase if not), and
    `check_data(kind, parsed)`, the test-data half, raising UnsafeCase as check_case does
    (CheckedModel). The folders are listed once for both halves."""
    return _check_model(CaseDir(case_dir, limits))


def check_model_ahead(case_dir: str, limits: Limits = Limits(), most: int = AHEAD_BYTES) -> CheckedModel:
    """check_model for a case whose turn has not come yet: the executor checks the models of a
    batch of cases back to back, while the checks' code and data are in the caches, rather than
    each between two of the backend's session creations, which evict them. The case's
    test_data_set_N folders are listed too (listed only: no test data is read before its model
    loads). Raises Later, having read nothing, for a model.onnx of more than `most` bytes."""
    case = CaseDir(case_dir, limits)
    checked = _check_model(case, most)
    for name, kind in (case.listing("") or {}).items():
        if kind == "dir" and name.startswith("test_data_set_"):
            case.listing(name)
    return checked


def _check_model(case: CaseDir, most: int | None = None) -> CheckedModel:
    model, data = _model(case, most)
    for where, tensor in _model_tensors(model):
        case.check_tensor(tensor, MODEL, where, "")
        if tensor.data_location == EXTERNAL:
            data = None

    def check_data(kind: str | None = None, parsed: dict | None = None) -> None:
        case_data.check_data_sets(case, model, kind == EXPECT_ERROR, parsed)

    return CheckedModel(model, check_data, data)


def read_model(case_dir: str, limits: Limits = Limits()):
    """model.onnx parsed with the size and symlink checks only (for reading a case's facts)."""
    return _model(CaseDir(case_dir, limits))[0]


def _model(case: CaseDir, most: int | None = None):
    """(the ModelProto, and the bytes it was parsed from when they are at most AHEAD_BYTES)."""
    import onnx

    data = case.read(MODEL, most=most)
    if not data:
        raise UnsafeCase(f"{MODEL} is empty")
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception:  # DecodeError, or recursion too deep: the same thing to a reader
        raise UnsafeCase(f"{MODEL}: truncated or not an ONNX model") from None
    if not model.HasField("graph"):
        raise UnsafeCase(f"{MODEL}: not an ONNX model (no graph)")
    return model, data if len(data) <= AHEAD_BYTES else None


def _model_tensors(model):
    """(where, TensorProto) for every tensor the model holds, subgraphs and functions included."""
    yield from _graph_tensors(model.graph, "")
    for f in model.functions:
        for node in f.node:
            yield from _node_tensors(node, f"function '{f.name}' > ")


def _graph_tensors(graph, prefix: str):
    for t in graph.initializer:
        yield f"{prefix}initializer {t.name!r}", t
    for s in graph.sparse_initializer:
        yield f"{prefix}sparse initializer {s.values.name!r}", s.values
        yield f"{prefix}sparse initializer {s.values.name!r} indices", s.indices
    for node in graph.node:
        yield from _node_tensors(node, prefix)


# AttributeProto's types that hold tensors or graphs (onnx.proto); an attribute of another type
# is still looked into, should its file set a tensor or graph field all the same.
_TENSOR, _GRAPH, _SPARSE_TENSOR = 4, 5, 11


def _node_tensors(node, prefix: str):
    for a in node.attribute:
        kind = a.type
        t, g, sparse = (kind == _TENSOR or a.HasField("t"), kind == _GRAPH or a.HasField("g"),
                        kind == _SPARSE_TENSOR or a.HasField("sparse_tensor"))
        if not (t or g or sparse or a.tensors or a.sparse_tensors or a.graphs):
            continue  # the names below are built only for an attribute that holds something
        where = f"{prefix}node {(node.name or node.op_type)!r} attribute {a.name!r}"
        if t:
            yield where, a.t
        for i, tensor in enumerate(a.tensors):
            yield f"{where}[{i}]", tensor
        if sparse:
            yield where, a.sparse_tensor.values
            yield f"{where} indices", a.sparse_tensor.indices
        for i, s in enumerate(a.sparse_tensors):
            yield f"{where}[{i}]", s.values
            yield f"{where}[{i}] indices", s.indices
        if g:
            yield from _graph_tensors(a.g, f"{where} > ")
        for i, graph in enumerate(a.graphs):
            yield from _graph_tensors(graph, f"{where}[{i}] > ")
