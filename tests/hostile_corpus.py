"""A corpus of hostile cases, generated into a temporary directory (never committed as binaries),
each with the exact one-line reason the harness must give it, beside good cases with odd names.

Layout: ROOT/cases/node/<case>/ is the corpus; ROOT/outside/ holds what no case may read (the
canary file, a model, a data set and a whole case), reached by absolute paths, `..` and symlinks.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from tests.conftest import add_case

CANARY = "canary.bin"
DATA = "test_data_set_0"
# Good cases whose names a shell would trip over; nothing may ever run them as a command.
ODD_NAMES = ["test_add good with spaces", "test_add_ünïcødé_日本語_🙂",
             "test_add_$(touch PWNED);`touch PWNED2`|&<>'\"*?"]


@dataclass
class Hostile:
    root: Path
    cases: Path  # the corpus
    outside: Path
    canary: Path
    reasons: dict[str, str] = field(default_factory=dict)  # hostile case -> exact detail
    good: list[str] = field(default_factory=list)


def _model(name: str, outputs: int = 1, initializers=(), nodes=()) -> onnx.ModelProto:
    """Add (and Sub for a second output) over float [2, 3] inputs a, b."""
    vi = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in "abcd"]
    graph_nodes = [helper.make_node("Add", ["a", "b"], ["c"])]
    if outputs == 2:
        graph_nodes.append(helper.make_node("Sub", ["a", "b"], ["d"]))
    graph = helper.make_graph([*graph_nodes, *nodes], name, vi[:2], vi[2:2 + outputs],
                              initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


def _external(name: str, location: str, dims=(2, 3), **keys: str) -> TensorProto:
    t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=list(dims))
    t.data_location = TensorProto.EXTERNAL
    for k, v in {"location": location, **keys}.items():
        entry = t.external_data.add()
        entry.key, entry.value = k, v
    return t


def _tensor(dtype, dims, raw: bytes) -> bytes:
    return TensorProto(data_type=dtype, dims=list(dims), raw_data=raw).SerializeToString()


def _parses(data: bytes, proto) -> bool:
    try:
        proto().ParseFromString(data)
        return True
    except Exception:
        return False


def _garbage(n: int, seed: int) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8).tobytes()


def build(root: Path, only_hostile: bool = False) -> Hostile:
    root = Path(root)
    h = Hostile(root=root, cases=root / "cases", outside=root / "outside",
                canary=root / "outside" / CANARY)
    node = h.cases / "node"
    node.mkdir(parents=True)
    h.outside.mkdir()
    h.canary.write_bytes(np.arange(6, dtype=np.float32).tobytes())  # 24 bytes, a valid payload
    outside_case = add_case(h.outside, "outside_case")
    shutil.copy(outside_case / "model.onnx", h.outside / "outside_model.onnx")
    shutil.copytree(outside_case / DATA, h.outside / "outside_data")

    def case(name: str, reason: str, model: onnx.ModelProto | None = None) -> Path:
        path = add_case(node, name)
        if model is not None:
            onnx.save(model, path / "model.onnx")
        h.reasons[name] = reason
        return path

    # -- model.onnx itself ---------------------------------------------------------------------
    p = case("test_model_truncated", "model.onnx: truncated or not an ONNX model")
    data = (p / "model.onnx").read_bytes()
    cut = next(n for n in range(len(data) - 1, 0, -1) if not _parses(data[:n], onnx.ModelProto))
    (p / "model.onnx").write_bytes(data[:cut])
    p = case("test_model_garbage", "model.onnx: truncated or not an ONNX model")
    seed = next(s for s in range(100) if not _parses(_garbage(4096, s), onnx.ModelProto))
    (p / "model.onnx").write_bytes(_garbage(4096, seed))
    p = case("test_model_empty", "model.onnx is empty")
    (p / "model.onnx").write_bytes(b"")
    p = case("test_model_no_graph", "model.onnx: not an ONNX model (no graph)")
    (p / "model.onnx").write_bytes(b"\x08\x07")  # ir_version 7 and nothing else
    p = case("test_model_symlink", "model.onnx is a symlink leading outside the case directory")
    (p / "model.onnx").unlink()
    (p / "model.onnx").symlink_to(h.outside / "outside_model.onnx")
    huge = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2**32, 2**32],
                       raw_data=bytes(24))
    case("test_model_huge_dims", "model.onnx: initializer 'w' dims [4294967296, 4294967296] "
                                 "need 2^66 bytes, the file holds 24",
         _model("huge", initializers=[huge]))

    # -- external data named by the model --------------------------------------------------------
    def external(name: str, location: str, reason: str, **keys: str) -> Path:
        return case(name, f"model.onnx: initializer 'w' {reason}",
                    _model(name, initializers=[_external("w", location, **keys)]))

    external("test_external_absolute", str(h.canary),
             f"external data location {str(h.canary)!r} is absolute")
    external("test_external_dotdot", "../../../outside/canary.bin",
             "external data location '../../../outside/canary.bin' leaves the case directory")
    external("test_external_nested_dotdot", "weights/../../../../outside/canary.bin",
             "external data location 'weights/../../../../outside/canary.bin' leaves the case "
             "directory")  # CVE-2024-27318: a `..` behind a harmless first component
    external("test_external_backslash", "..\\..\\..\\outside\\canary.bin",
             "external data location '..\\\\..\\\\..\\\\outside\\\\canary.bin' leaves the case "
             "directory")
    p = external("test_external_symlink", "w.bin",
                 "external data location 'w.bin' is a symlink leading outside the case directory")
    (p / "w.bin").symlink_to(h.canary)  # CVE-2026-27489: through a symlink
    p = external("test_external_symlinked_folder", "weights/w.bin",
                 "external data location 'weights/w.bin' is a symlink leading outside the case "
                 "directory")
    (p / "weights").symlink_to(h.outside)
    external("test_external_missing", "w.bin", "external data 'w.bin' missing")
    p = external("test_external_past_end", "w.bin",
                 "external data 'w.bin': offset 16 + length 24 is past its end (24 bytes)",
                 offset="16", length="24")
    (p / "w.bin").write_bytes(bytes(24))
    p = external("test_external_length_mismatch", "w.bin",
                 "dims [2, 3] need 24 bytes, its external data holds 8", length="8")
    (p / "w.bin").write_bytes(bytes(24))
    p = external("test_external_offset_not_a_number", "w.bin",
                 "external data offset '-1' is not a number", offset="-1")
    (p / "w.bin").write_bytes(bytes(24))
    # In a Constant inside an If branch: subgraphs are walked too.
    const = helper.make_node("Constant", [], ["k"], name="const",
                             value=_external("k", "../../../outside/canary.bin"))
    fine = helper.make_node("Constant", [], ["k"], name="fine",
                            value=numpy_helper.from_array(np.zeros((2, 3), np.float32), "k"))
    k = [helper.make_tensor_value_info("k", TensorProto.FLOAT, [2, 3])]
    cond = numpy_helper.from_array(np.array(True), "cond")
    when = helper.make_node("If", ["cond"], ["k_out"], name="if",
                            then_branch=helper.make_graph([const], "then", [], k),
                            else_branch=helper.make_graph([fine], "else", [], k))
    case("test_external_in_subgraph",
         "model.onnx: node 'if' attribute 'then_branch' > node 'const' attribute 'value' "
         "external data location '../../../outside/canary.bin' leaves the case directory",
         _model("subgraph", initializers=[cond], nodes=[when]))

    # -- test data ---------------------------------------------------------------------------------
    p = case("test_pb_truncated", f"{DATA}/input_0.pb: truncated or not a TensorProto")
    data = (p / DATA / "input_0.pb").read_bytes()
    cut = next(n for n in range(len(data) - 1, 0, -1) if not _parses(data[:n], TensorProto))
    (p / DATA / "input_0.pb").write_bytes(data[:cut])
    p = case("test_pb_garbage", f"{DATA}/output_0.pb: truncated or not a TensorProto")
    seed = next(s for s in range(100) if not _parses(_garbage(256, s), TensorProto))
    (p / DATA / "output_0.pb").write_bytes(_garbage(256, seed))
    p = case("test_pb_empty", f"{DATA}/input_1.pb is empty")
    (p / DATA / "input_1.pb").write_bytes(b"")
    p = case("test_missing_output", f"{DATA}/output_1.pb missing", _model("two", outputs=2))
    (p / DATA / "output_0.pb").write_bytes(
        numpy_helper.from_array(np.full((2, 3), 0.5, np.float32)).SerializeToString())
    p = case("test_extra_input", f"model.onnx declares 2 inputs, {DATA} has 3 input files")
    shutil.copy(p / DATA / "input_1.pb", p / DATA / "input_2.pb")
    p = case("test_missing_input", f"model.onnx declares 2 inputs, {DATA} has 1 input file")
    (p / DATA / "input_1.pb").unlink()
    p = case("test_input_gap", f"{DATA}/input_1.pb missing")
    (p / DATA / "input_1.pb").rename(p / DATA / "input_2.pb")
    p = case("test_input_wrong_dtype",
             f"{DATA}/input_0.pb: int64 tensor, the model's input 'a' is float")
    (p / DATA / "input_0.pb").write_bytes(
        numpy_helper.from_array(np.zeros((2, 3), np.int64)).SerializeToString())
    p = case("test_input_wrong_shape",
             f"{DATA}/input_0.pb: shape [3, 2], the model's input 'a' is [2, 3]")
    (p / DATA / "input_0.pb").write_bytes(
        numpy_helper.from_array(np.zeros((3, 2), np.float32)).SerializeToString())
    p = case("test_pb_huge_dims", f"{DATA}/input_0.pb: dims [4294967296, 4294967296] need "
                                  "2^66 bytes, the file holds 24")
    (p / DATA / "input_0.pb").write_bytes(_tensor(TensorProto.FLOAT, [2**32, 2**32], bytes(24)))
    p = case("test_pb_negative_dims", f"{DATA}/input_0.pb: dims [-1, 6] include a negative size")
    (p / DATA / "input_0.pb").write_bytes(_tensor(TensorProto.FLOAT, [-1, 6], bytes(24)))
    p = case("test_pb_unknown_type", f"{DATA}/input_0.pb: data type 999 is not an ONNX type")
    (p / DATA / "input_0.pb").write_bytes(_tensor(999, [2, 3], bytes(24)))
    p = case("test_pb_external", f"{DATA}/input_0.pb: external data location "
                                 "'../../../outside/canary.bin' leaves the case directory")
    (p / DATA / "input_0.pb").write_bytes(
        _external("a", "../../../outside/canary.bin").SerializeToString())
    p = case("test_pb_symlink",
             f"{DATA}/output_0.pb is a symlink leading outside the case directory")
    (p / DATA / "output_0.pb").unlink()
    (p / DATA / "output_0.pb").symlink_to(h.outside / "outside_data" / "output_0.pb")
    p = case("test_pb_fifo", f"{DATA}/input_0.pb is not a regular file")
    (p / DATA / "input_0.pb").unlink()
    os.mkfifo(p / DATA / "input_0.pb")  # opening it to read would block forever
    p = case("test_data_set_symlink", f"{DATA} is a symlink leading outside the case directory")
    shutil.rmtree(p / DATA)
    (p / DATA).symlink_to(h.outside / "outside_data")
    (node / "test_case_symlink").symlink_to(outside_case)
    h.reasons["test_case_symlink"] = (f"case directory is a symlink to {str(outside_case)!r}, "
                                      f"outside the corpus")

    if only_hostile:
        return h
    # -- good cases beside them ------------------------------------------------------------------
    for name in ["test_add_plain", *ODD_NAMES]:
        add_case(node, name)
        h.good.append(name)
    # External data inside the case, reached directly and through `sub/..`.
    payload = np.arange(6, dtype=np.float32).tobytes()
    for name, location in [("test_add_external_ok", "weights/w.bin"),
                           ("test_add_external_dotted_ok", "weights/../weights/w.bin")]:
        p = add_case(node, name)
        onnx.save(_model(name, initializers=[_external("w", location, length="24")]),
                  p / "model.onnx")
        (p / "weights").mkdir()
        (p / "weights" / "w.bin").write_bytes(payload)
        h.good.append(name)
    return h
