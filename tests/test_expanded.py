"""Function-expanded forms (generators/expanded.py): each node case of an operator with a function body,
the node replaced by that body, at every opset the case is emitted at, with the exact evaluator's value."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from onnx_conformance.generators import expanded
from onnx_conformance.generators.emit import build_version, expanded_forms
from onnx_conformance.generators.ops import all_operators
from onnx_conformance.harness.compare import compare_outputs


def _twins(op_name: str, since_version: int):
    built, not_applicable = build_version(op_name, since_version)
    twins, rows = expanded_forms(all_operators()[op_name], built, not_applicable)
    return built, {t.name: t for t in twins}, rows, [r for r in not_applicable if r["example"].endswith("_expanded")]


def _agrees(node_case, twin) -> bool:
    got = [np.asarray(x) for _, x in twin.outputs]
    want = [np.asarray(x) for _, x in node_case.outputs]
    return compare_outputs(want, got, twin.meta["tolerance"], twin.output_types).status == "pass"


def test_a_body_written_for_an_older_opset_is_brought_to_the_models():
    # GreaterOrEqual-16's body is written at opset 16; its cases run to the newest opset, whose model must
    # import one version of the default domain: onnx's version converter brings the body there
    built, twins, rows, refused = _twins("GreaterOrEqual", 16)
    newest = max(b.meta["opset"] for b in built)
    assert newest > 16
    late = [b for b in built if b.meta["opset"] == newest and b.outputs is not None]
    assert late and not refused and not rows
    for b in late:
        twin = twins[b.name + expanded.SUFFIX]
        assert {o.domain: o.version for o in twin.model.opset_import}[""] == newest
        assert [n.op_type for n in twin.model.graph.node] != ["GreaterOrEqual"]
        onnx.checker.check_model(twin.model, full_check=True)
        assert _agrees(b, twin), b.name


def test_a_context_dependent_body_is_taken_at_the_opset_it_was_written_for():
    # onnx gives Softmax-13's body (written at 18) at no later opset where one of its operators changed;
    # the twin takes it at 18 and converts it
    built, twins, rows, _ = _twins("Softmax", 13)
    newest = max(b.meta["opset"] for b in built)
    assert onnx.defs.get_schema("Softmax", newest, "").get_context_dependent_function_with_opset_version(
        newest, onnx.helper.make_node("Softmax", ["x"], ["y"]).SerializeToString(),
        [onnx.helper.make_tensor_type_proto(onnx.TensorProto.FLOAT, [2]).SerializeToString()]) in (b"", None)
    assert any(name.endswith(f"_opset{newest}_float_expanded") for name in twins)
    assert not rows


def test_an_attribute_the_node_leaves_to_its_default_reaches_the_body():
    # MeanVarianceNormalization's body reads `axes: ints = @axes`; left out, the default is [0, 2, 3], not every axis
    built, twins, rows, _ = _twins("MeanVarianceNormalization", 9)
    default = [b for b in built if b.meta["example"] == "mvn" and b.meta["dtype"] == "float"]
    assert default and not any(a.name == "axes" for a in default[0].model.graph.node[-1].attribute)
    for b in default:
        assert _agrees(b, twins[b.name + expanded.SUFFIX]), b.name
    assert not rows


def test_where_the_body_and_the_text_differ_the_row_says_why():
    _, twins, rows, _ = _twins("ReduceL2", 18)
    double = [r for r in rows if r["dtype"] == "double"]
    assert double and all("to = 1" in r["reason"] for r in double)
    # the twin keeps the body's value: a runtime that runs the body must give it
    twin = twins[double[0]["case"]]
    assert twin.meta["form"] == "expanded"
    assert all(r["reason"] for r in rows), [r["case"] for r in rows if not r["reason"]]


def test_castlike_s_body_drops_round_mode():
    _, _, rows, _ = _twins("CastLike", 25)
    nearest = [r for r in rows if r["example"] == "round_nearest"]
    assert nearest and all("round_mode" in r["reason"] for r in nearest)
    assert {r["example"] for r in rows} == {"round_nearest"}


def test_a_random_body_has_no_twin_and_says_why():
    _, twins, _, refused = _twins("Bernoulli", 22)
    assert not twins and refused
    assert all("random" in r["reason"] or "no function body" in r["reason"] for r in refused)


def test_the_report_reads_back():
    rows = [{"op": "ReduceL2", "reason": "a reason: with a colon", "case": "test_a_expanded", "detail": "x: y"},
            {"op": "Gelu", "reason": None, "case": "test_b_expanded", "detail": "output 0: 1 of 3 values differ"}]
    text = expanded.report_markdown(rows, onnx.__version__)
    assert sorted(expanded.parse_report(text), key=lambda r: r["case"]) == rows


def test_the_corpus_index_holds_the_twins(generated_corpus):
    _, corpus_index = generated_corpus
    forms = [e for e in corpus_index["cases"].values() if e.get("form") == "expanded"]
    assert len({e["op"] for e in forms}) >= 45
    # every operator version with a body and an expect-output case has at least one twin, or says why not
    have = {(e["op"], e["since_version"]) for e in forms}
    said = {(r["op"], r["since_version"]) for r in corpus_index["not_applicable"] if r["example"].endswith("_expanded")}
    for name, e in corpus_index["cases"].items():
        if e.get("form") or e["kind"] != "expect-output":
            continue
        schema = onnx.defs.get_schema(e["op"], e["since_version"], e["domain"])
        if schema.has_function or schema.has_context_dependent_function:
            assert (e["op"], e["since_version"]) in have | said, name


@pytest.mark.parametrize("name", ["test_mean_variance_normalization_mvn_opset12_float"])
def test_a_twin_lies_under_graph_beside_its_node_case(generated_corpus, name):
    corpus_dir, corpus_index = generated_corpus
    twin = name + expanded.SUFFIX
    assert corpus_index["cases"][twin]["form"] == "expanded" and not corpus_index["cases"][name].get("form")
    model = onnx.load(str(corpus_dir / "graph" / twin / "model.onnx"))
    assert "MeanVarianceNormalization" not in {n.op_type for n in model.graph.node}

    def output(folder):
        t = onnx.TensorProto()
        t.ParseFromString((corpus_dir / folder / "test_data_set_0" / "output_0.pb").read_bytes())
        return numpy_helper.to_array(t)

    np.testing.assert_allclose(output(f"graph/{twin}"), output(f"node/{name}"), rtol=1e-5, atol=1e-6)


def test_a_body_that_truncates_a_transcendental_into_an_integer_has_no_twin():
    # CastLike(Log(ReduceSum(Exp(x)))) into int32: log(e^46 + e^1) correctly rounded is 46.0, an ulp-low Log
    # (onnxruntime's) gives 45.99999999999999 and the cast 45; the twin would fail a correct runtime
    built, twins, _, refused = _twins("ReduceLogSumExp", 18)
    ints = [r for r in refused if r["dtype"] in ("int32", "int64")]
    assert ints and all("Log computed into an integer" in r["reason"] for r in ints)
    assert not any(t.meta["dtype"] in ("int32", "int64") for t in twins.values())
    assert any(t.meta["dtype"] == "float" for t in twins.values())
