"""A case's test data checked against its model before a backend runs it: one file per declared
input and output, numbered 0..N-1, each a value the model declares, every tensor in it checked as
case_files.py checks a tensor, and each input of the declared element type and static shape."""

from __future__ import annotations

import os
import re

from onnx_conformance.harness.case_files import CaseDir, UnsafeCase
from onnx_conformance.harness.layout import MODEL, NUMBERED, SET_FILES, numbered

_ONNX = None  # the onnx module, imported on first use (importing this module stays light)


def _onnx():
    global _ONNX
    if _ONNX is None:
        import onnx

        _ONNX = onnx
    return _ONNX


def check_data_sets(case: CaseDir, model, expect_error: bool, parsed: dict | None) -> None:
    """Every test_data_set_N against the model; `parsed`, when given, receives what check_case's
    does (the tensors checked, by path, and each set's file names under SET_FILES)."""
    graph = model.graph
    initialized = {t.name for t in graph.initializer}
    declared = list(graph.input)
    required = [v for v in declared if v.name not in initialized]
    top = case.listing("")
    listed = None
    if parsed is not None:
        listed = parsed[SET_FILES] = []
    graph_outputs = list(graph.output)
    check_type = not expect_error
    for set_name in numbered(top if top is not None else os.listdir(case.dir), "test_data_set_"):
        kind = case.kind(set_name)
        plain = None  # the set folder's listing, when no symlink leads to it
        if kind == "dir":
            plain = case.listing(set_name)
            files = list(plain or ())
        else:
            real = case.resolve(set_name)
            if not os.path.isdir(real):
                raise UnsafeCase(f"{set_name} is not a directory")
            files = os.listdir(real)
        inputs, outputs = _split(set_name, files)
        if not required_count_ok(len(inputs), len(required), len(declared)):
            n = len(required) if len(inputs) < len(required) else len(declared)
            raise UnsafeCase(f"{MODEL} declares {_plural(n, 'input')}, {set_name} has "
                             f"{_plural(len(inputs), 'input file')}")
        if len(outputs) > len(graph_outputs):
            raise UnsafeCase(f"{MODEL} declares {_plural(len(graph_outputs), 'output')}, "
                             f"{set_name} has {_plural(len(outputs), 'output file')}")
        if len(outputs) < len(graph_outputs) and not expect_error:
            raise UnsafeCase(f"{set_name}/output_{len(outputs)}.pb missing")
        for k, name in enumerate(inputs):
            _check_value(case, f"{set_name}/{name}", set_name,
                         required[k] if k < len(required) else declared[k],
                         "input", check_type, plain and plain.get(name), parsed)
        for k, name in enumerate(outputs):
            _check_value(case, f"{set_name}/{name}", set_name, graph_outputs[k], "output",
                         check_type, plain and plain.get(name), parsed)
        if listed is not None:
            listed.append((set_name, inputs, outputs))


def _split(set_name: str, files) -> tuple[list[str], list[str]]:
    """A test_data_set_N's input and output files, each in number order (one pass over the
    listing; `_files` says what is wrong with either)."""
    inputs, outputs = [], []
    for n in files:
        m = NUMBERED.match(n)
        if m:
            if n.startswith("input_"):
                inputs.append((int(m.group(1)), n))
            elif n.startswith("output_"):
                outputs.append((int(m.group(1)), n))
    inputs.sort()
    outputs.sort()
    if any(number != k for k, (number, _) in enumerate(inputs)):
        _files(set_name, files, "input")
    if any(number != k for k, (number, _) in enumerate(outputs)):
        _files(set_name, files, "output")
    return [n for _, n in inputs], [n for _, n in outputs]


def _files(set_name: str, files: list[str], prefix: str) -> list[str]:
    """input_0.pb .. input_{N-1}.pb in order; a gap or a duplicate number is an error."""
    names = numbered(files, prefix + "_")
    numbers = [int(re.search(r"_(\d+)", n).group(1)) for n in names]
    for k, (number, name) in enumerate(zip(numbers, names)):
        if number != k:
            if k and numbers[k - 1] == number:
                raise UnsafeCase(f"{set_name} has two files for {prefix} {number}: "
                                 f"{names[k - 1]} and {name}")
            raise UnsafeCase(f"{set_name}/{prefix}_{k}.pb missing")
    return names


def _check_value(case: CaseDir, rel: str, set_name: str, value_info, role: str,
                 check_type: bool, listed: str | None, parsed: dict | None) -> None:
    """`listed`: the file's kind in its set folder's listing, when no symlink leads there."""
    onnx = _onnx()
    value_type = value_info.type
    kind = value_type.WhichOneof("value")
    proto = (onnx.TensorProto if kind == "tensor_type" else
             {"sequence_type": onnx.SequenceProto, "optional_type": onnx.OptionalProto,
              "map_type": onnx.MapProto}.get(kind, onnx.TensorProto))
    data = case.read(rel, listed)
    if not data and proto is onnx.TensorProto:
        raise UnsafeCase(f"{rel} is empty")
    value = proto()
    try:
        value.ParseFromString(data)
    except Exception:
        raise UnsafeCase(f"{rel}: truncated or not a {proto.__name__}") from None
    if proto is not onnx.TensorProto:
        for where, tensor in _value_tensors(value, ""):
            case.check_tensor(tensor, rel, where.strip(), set_name)
        return
    case.check_tensor(value, rel, "", set_name)
    if parsed is not None:
        parsed[rel] = value
    if not check_type or kind != "tensor_type":
        return
    declared = value_type.tensor_type
    want = declared.elem_type
    if want and value.data_type != want:
        got = onnx.TensorProto.DataType.Name(value.data_type).lower()
        raise UnsafeCase(f"{rel}: {got} tensor, the model's {role} {value_info.name!r} is "
                         f"{onnx.TensorProto.DataType.Name(want).lower()}")
    if role == "input" and declared.HasField("shape"):
        dims = [d.dim_value if d.HasField("dim_value") else None
                for d in declared.shape.dim]
        got = list(value.dims)
        if len(dims) != len(got) or [g if d is None else d for d, g in zip(dims, got)] != got:
            shown = [d if d is not None else (s.dim_param or "?")
                     for d, s in zip(dims, declared.shape.dim)]
            raise UnsafeCase(f"{rel}: shape {got}, the model's {role} "
                             f"{value_info.name!r} is {shown}".replace("'?'", "?"))


def required_count_ok(files: int, required: int, declared: int) -> bool:
    """input_k feeds the k-th graph input that has no initializer; inputs with one may be fed."""
    return required <= files <= declared


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _value_tensors(value, where: str):
    """The tensors inside a SequenceProto, MapProto or OptionalProto, however deeply nested."""
    import onnx

    if isinstance(value, onnx.TensorProto):
        yield where, value
    elif isinstance(value, onnx.SparseTensorProto):
        yield where, value.values
        yield f"{where} indices", value.indices
    elif isinstance(value, onnx.SequenceProto):
        for field in ("tensor_values", "sparse_tensor_values", "sequence_values",
                      "map_values", "optional_values"):
            for i, v in enumerate(getattr(value, field)):
                yield from _value_tensors(v, f"{where} element {i}")
    elif isinstance(value, onnx.MapProto):
        yield from _value_tensors(value.values, f"{where} values")
    elif isinstance(value, onnx.OptionalProto):
        for field in ("tensor_value", "sparse_tensor_value", "sequence_value", "map_value",
                      "optional_value"):
            if value.HasField(field):
                yield from _value_tensors(getattr(value, field), where)
