"""expected-outputs: a person's own model, its inputs and its exact expected outputs, as a case directory.

The model is run node by node through the operators' semantics (generators/exact.py); the case
it writes (model.onnx, test_data_set_0/input_K.pb and output_K.pb) is what `run-conformance --cases`
runs like any other.
"""

from __future__ import annotations

import argparse
from collections import ChainMap
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

from onnx_conformance.generators import values
from onnx_conformance.generators.protos import value_proto
from onnx_conformance.generators.exact import CannotEvaluate, Evaluator, from_plain, type_name
from onnx_conformance.generators.semantics import NotDeterministic, Rejected, Undefined

DEFAULT_DIM = 3  # a symbolic or unknown dimension of an input drawn at random, unless --dim says otherwise


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="expected-outputs", description=__doc__.split("\n\n")[0])
    p.add_argument("model", type=Path, help="the model (.onnx)")
    p.add_argument("--out", type=Path, required=True, help="the case directory to write (must not exist, or be empty)")
    p.add_argument("--inputs", type=Path, help="a folder holding input_K.pb for each graph input K (default: drawn)")
    p.add_argument("--seed", type=int, default=0, help="seed for the drawn inputs (default 0)")
    p.add_argument("--dim", action="append", default=[], metavar="NAME=N",
                   help=f"size of a symbolic dimension of the inputs (repeatable; default {DEFAULT_DIM})")
    p.add_argument("--quiet", action="store_true", help="no progress line per node")
    a = p.parse_args(argv)
    try:
        dims = _dims(a.dim)
        model = _load(a.model)
        if a.out.exists() and any(a.out.iterdir()):
            raise UserError(f"{a.out}: exists and is not empty; choose another --out")
        graph_inputs = _fed_inputs(model)
        feeds = (_read_inputs(a.inputs, graph_inputs) if a.inputs
                 else _draw_inputs(graph_inputs, np.random.default_rng(a.seed), dims))
        outputs = _evaluate(model, feeds, a.model, quiet=a.quiet)
        _write_case(a.out, a.model, model, graph_inputs, feeds, outputs)
    except UserError as e:
        print(f"expected-outputs: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("expected-outputs: stopped; nothing written", file=sys.stderr)
        return 130
    print(f"wrote {a.out} ({len(feeds)} inputs, {len(outputs)} exact expected outputs)")
    return 0


class UserError(Exception):
    """A problem with what the user gave: one line naming the file and the problem."""


def _dims(pairs: list[str]) -> dict[str, int]:
    out = {}
    for pair in pairs:
        m = re.fullmatch(r"([^=]+)=(\d+)", pair)
        if not m:
            raise UserError(f"--dim {pair!r}: expected NAME=N")
        out[m.group(1)] = int(m.group(2))
    return out


def _load(path: Path) -> onnx.ModelProto:
    try:
        model = onnx.load(str(path))
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except Exception as e:  # noqa: BLE001 - any parse failure is the file's problem
        raise UserError(f"{path}: not an ONNX model ({_line(e)})") from None
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # noqa: BLE001
        raise UserError(f"{path}: the model is invalid: {_line(e)}") from None
    return model


def _fed_inputs(model: onnx.ModelProto) -> list:
    """The graph inputs a run feeds: those no initializer gives a value (IR 3 lists initializers too)."""
    initialized = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in initialized]


def _read_inputs(folder: Path, graph_inputs: list) -> list:
    from onnx_conformance.harness.corpus import read_value

    feeds = []
    for k, formal in enumerate(graph_inputs):
        path = folder / f"input_{k}.pb"
        if not path.is_file():
            raise UserError(f"{path}: missing (the model's input {k} is {formal.name!r})")
        try:
            value, _ = read_value(str(path), formal.type)
        except Exception as e:  # noqa: BLE001
            raise UserError(f"{path}: cannot read it as {formal.name!r} ({_line(e)})") from None
        feeds.append(from_plain(value, formal.type))
    return feeds


def _draw_inputs(graph_inputs: list, rng: np.random.Generator, dims: dict[str, int]) -> list:
    """A value of each input's declared type and shape; symbolic or unknown dimensions take --dim's size."""
    feeds = []
    for formal in graph_inputs:
        name = type_name(formal.type)
        shape = _shape(formal.type, dims)
        try:
            feeds.append(values.value(name, shape, rng, specials=False))
        except Exception as e:  # noqa: BLE001
            raise UserError(f"input {formal.name!r} of type {name}: cannot draw a value ({_line(e)}); give --inputs") from None
    return feeds


def _shape(tp: onnx.TypeProto, dims: dict[str, int]) -> tuple:
    while tp.WhichOneof("value") in ("sequence_type", "optional_type"):
        tp = tp.sequence_type.elem_type if tp.HasField("sequence_type") else tp.optional_type.elem_type
    if tp.WhichOneof("value") != "tensor_type" or not tp.tensor_type.HasField("shape"):
        return ()
    out = []
    for d in tp.tensor_type.shape.dim:
        if d.HasField("dim_value"):
            out.append(d.dim_value)
        else:
            out.append(dims.get(d.dim_param, DEFAULT_DIM))
    return tuple(out)


def _evaluate(model: onnx.ModelProto, feeds: list, path: Path, quiet: bool) -> list:
    started = time.perf_counter()

    def progress(k: int, count: int, node: onnx.NodeProto) -> None:
        if not quiet:
            label = f"{node.op_type}" + (f" ({node.name})" if node.name else "")
            print(f"node {k + 1}/{count}: {label}  [{time.perf_counter() - started:.1f} s]", file=sys.stderr, flush=True)

    evaluator = Evaluator.for_model(model, progress)
    try:
        return evaluator.run_graph(model.graph, feeds, ChainMap(), top=True)
    except CannotEvaluate as e:
        raise UserError(f"{path}: cannot compute it exactly: {e}") from None
    except Rejected as e:
        raise UserError(f"{path}: the inputs break a rule of the spec: {e.sentence}") from None
    except Undefined as e:
        raise UserError(f"{path}: the spec defines no value for these inputs: {e.reason}") from None
    except NotDeterministic as e:
        raise UserError(f"{path}: a random operator has no single expected value: {e.reason}") from None


def _write_case(out: Path, source: Path, model: onnx.ModelProto, graph_inputs: list, feeds: list, outputs: list) -> None:
    """The case directory, written aside and moved in place: a stopped run leaves nothing half-written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".expected-", dir=out.parent))
    try:
        shutil.copyfile(source, staging / "model.onnx")
        data = staging / "test_data_set_0"
        data.mkdir()
        for k, (formal, value) in enumerate(zip(graph_inputs, feeds)):
            (data / f"input_{k}.pb").write_bytes(value_proto(formal.name, value).SerializeToString())
        for k, (formal, value) in enumerate(zip(model.graph.output, outputs)):
            (data / f"output_{k}.pb").write_bytes(value_proto(formal.name, value).SerializeToString())
        if out.exists():
            out.rmdir()
        os.replace(staging, out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def _line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text[:300] or type(e).__name__


if __name__ == "__main__":
    sys.exit(main())
