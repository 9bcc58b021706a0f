"""The operator domains besides ai.onnx (ai.onnx.ml, ai.onnx.preview, ai.onnx.preview.training): map
values written and read back, compared as maps; each domain's own opsets; and our expected outputs equal
onnx's node tests wherever both carry an example (tests/test_node_test_agreement.py covers ai.onnx)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from onnx_conformance.generators.case import Case, Map, Operator, Seq, slug, type_of
from onnx_conformance.generators.emit import build_model
from onnx_conformance.generators.protos import plain, value_proto
from onnx_conformance.generators.spec import newest_opset, versions
from onnx_conformance.harness.compare import compare_outputs
from onnx_conformance.harness.corpus import data_sets, read_value, value_types
from onnx_conformance.harness.dtypes import element_of


def test_map_types_read_as_the_spec_writes_them():
    m = Map({"a": 1.5, "b": -2.0}, "string", "float")
    assert type_of(m) == "map(string, float)"
    assert slug(type_of(m)) == "map_string_float"
    assert type_of(Seq([m], "map(string, float)")) == "seq(map(string, float))"
    assert element_of("seq(map(string, float))") == "float"
    assert element_of("map(int64, string)") == "string"


@pytest.mark.parametrize("value", [Map({"a": 1.5, "zz": -2.0}, "string", "float"),
                                   Map({3: "x", -1: "y"}, "int64", "string"),
                                   Seq([Map({7: 0.25}, "int64", "float"), Map({8: 1.0}, "int64", "float")],
                                       "map(int64, float)")])
def test_a_map_value_round_trips_and_compares_equal_to_itself(value, tmp_path):
    from onnx_conformance.generators.protos import type_proto

    path = tmp_path / "v.pb"
    path.write_bytes(value_proto("X", value).SerializeToString())
    back, _ = read_value(str(path), type_proto(type_of(value), value))
    assert compare_outputs([plain(value)], [back]).status == "pass"
    # a runtime answering Python scalars with str keys (onnxruntime's ZipMap) compares equal too
    as_runtime = [{k: v.item() for k, v in m.items()} for m in back] if isinstance(back, list) else \
        {k: v.item() for k, v in back.items()}
    assert compare_outputs([plain(value)], [as_runtime]).status == "pass"


def test_a_map_with_another_value_or_key_fails():
    e = plain(Map({"a": 1.5, "b": -2.0}, "string", "float"))
    assert compare_outputs([e], [{"a": 1.5, "b": -2.5}]).status == "fail"
    assert compare_outputs([e], [{"a": 1.5, "c": -2.0}]).status == "fail"


def test_each_domain_counts_its_own_opsets():
    assert newest_opset("ai.onnx.ml") == onnx.defs.C.schema_version_map()["ai.onnx.ml"][1]
    last = versions("LabelEncoder", "ai.onnx.ml")[-1]
    assert last.last_opset == newest_opset("ai.onnx.ml") < newest_opset()


def test_a_model_of_another_domain_imports_it_and_ai_onnx_where_it_holds_ai_onnx_nodes():
    op = Operator("Gradient", domain="ai.onnx.preview.training")
    v = versions("Gradient", op.domain)[0]
    case = Case({"a": np.float32(1), "b": np.float32(2)}, {"dc_da": np.float32(1), "dc_db": np.float32(1)},
                {"xs": ["a", "b"], "y": "c"}, nodes=[onnx.helper.make_node("Add", ["a", "b"], ["c"])],
                nodes_opset=12)
    model, feeds = build_model(op, v, 1, case, "g")
    assert {(o.domain, o.version) for o in model.opset_import} == {("ai.onnx.preview.training", 1), ("", 12)}
    assert [n.op_type for n in model.graph.node] == ["Add", "Gradient"]
    onnx.checker.check_model(model, full_check=True)


OTHER_DOMAINS = ("ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training")
# onnx node tests in these domains our examples mirror (same version, attributes and inputs) today
MIN_MATCHED = 10


def _key(value):
    if isinstance(value, onnx.TensorProto):
        value = numpy_helper.to_array(value)
    value = np.asarray(value)
    if value.dtype.kind in "OUS":
        return ("string", value.shape, tuple(v.decode() if isinstance(v, bytes) else str(v) for v in value.reshape(-1)))
    return (str(value.dtype), value.shape, value.tobytes())


def _attrs(node):
    return tuple(sorted((a.name, a.SerializeToString()) for a in node.attribute))


def _node_key(model, fed):
    graph = model.graph
    values = {i.name: v for i, v in zip(graph.input, fed)}
    values.update({t.name: numpy_helper.to_array(t) for t in graph.initializer})
    node = graph.node[-1]
    if any(n not in values for n in node.input if n):
        return None
    return (node.op_type, node.domain, _attrs(node), repr([_key(values[n]) for n in node.input if n]))


def test_expected_outputs_equal_onnx_node_tests_of_the_other_domains(tmp_path):
    from onnx_conformance.generators.emit import generate_corpus
    from onnx_conformance.generators.onnx_node_tests import collect

    theirs = [(c, n) for c, n in collect() if n is not None and n.domain in OTHER_DOMAINS]
    ops = sorted({n.op_type for _, n in theirs})
    from onnx_conformance.generators.ops import all_operators
    ops = [o for o in ops if o in all_operators()]
    index = generate_corpus(tmp_path, ops, jobs=1, crosscheck=False)
    ours = {}
    for name, meta in index["cases"].items():
        if meta["kind"] != "expect-output" or meta.get("form"):
            continue  # one node against onnx's one-node tests
        case_dir = tmp_path / "node" / name
        model = onnx.load(str(case_dir / "model.onnx"))
        (ds,) = data_sets(str(case_dir), value_types(model))
        key = _node_key(model, ds.inputs)
        if key is not None:
            ours.setdefault(key + (meta["since_version"],), (name, ds.outputs, meta.get("tolerance")))
    matched, differ = [], []
    for case, node in theirs:
        version = next(o.version for o in case.model.opset_import if o.domain == node.domain)
        since = onnx.defs.get_schema(node.op_type, version, node.domain).since_version
        for fed, expected in case.data_sets:
            key = _node_key(case.model, list(fed))
            hit = key and ours.get(key + (since,))
            if not hit:
                continue
            name, got, tolerance = hit
            matched.append(case.name)
            exp = [numpy_helper.to_array(e) if isinstance(e, onnx.TensorProto) else np.asarray(e) for e in expected]
            # onnx's outputs may include the graph's intermediate values first (Gradient): ours are the node's
            if compare_outputs(got, exp[-len(got):], tolerance).status != "pass":
                differ.append(f"{case.name} vs {name}")
    assert not differ, differ
    assert len(set(matched)) >= MIN_MATCHED, sorted(set(matched))


def test_onnxruntime_map_feeds_its_binding_cannot_build_are_unsupported_in_its_words():
    from onnx_conformance.harness.backends.onnxruntime import OnnxRuntimeAdapter

    a = OnnxRuntimeAdapter()
    for text in ("[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Unexpected input data type. Actual: "
                 "((map(string,tensor(float)))) , expected: ((map(string,tensor(int64))))",
                 "Unexpected value type  <class 'str'>, it cannot be linked to C type int64_t for input 'X'."):
        assert a.classify(RuntimeError(text), "run") == "unsupported"
        assert a.classify(RuntimeError(text), "load") == "error"
    assert a.classify(RuntimeError("Unexpected input data type. Actual: (tensor(float))"), "run") == "error"


def test_onnxruntime_takes_a_float_map_feed_and_returns_maps_the_comparator_reads():
    import onnxruntime as ort
    from onnx import TensorProto, helper

    from onnx_conformance.harness.backends.onnxruntime import _plain

    g = helper.make_graph([helper.make_node("ZipMap", ["X"], ["Z"], domain="ai.onnx.ml", classlabels_strings=["a", "b"])],
                          "z", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2])],
                          [helper.make_value_info("Z", helper.make_sequence_type_proto(
                              helper.make_map_type_proto(TensorProto.STRING, helper.make_tensor_type_proto(TensorProto.FLOAT, None))))])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("ai.onnx.ml", 1)])
    m.ir_version = 7
    got = ort.InferenceSession(m.SerializeToString()).run(None, {"X": np.array([[1.5, -2.0]], np.float32)})
    expected = [plain(Seq([Map({"a": 1.5, "b": -2.0}, "string", "float")], "map(string, float)"))]
    assert compare_outputs(expected, got).status == "pass"
    assert _plain({np.int64(3): np.array(1.5, np.float32)}) == {3: 1.5}
