"""The exact backend: the operators' semantics run any model, and agree with every example of the corpus.

A slice of the corpus, built in memory: every example of every operator version in one type binding
(float where allowed), and the first example in each other binding, at the version's last opset;
each through the same path `--backend exact` takes (onnx's full checker, then the evaluator on the
model's bytes), graded by the comparator with the case's own tolerance. The whole corpus runs in
bench/bench_exact.py.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_conformance.generators.case import NotApplicable, seeded_rng
from onnx_conformance.generators.emit import _built
from onnx_conformance.generators.protos import plain
from onnx_conformance.generators.ops import all_operators
from onnx_conformance.generators.semantics import NotDeterministic, Rejected
from onnx_conformance.generators.spec import versions
from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.backends.base import Unsupported
from onnx_conformance.harness.compare import compare_outputs

OPERATORS = all_operators()


def _slice(op):
    """(version, binding, example, case) of the slice for one operator."""
    for v in versions(op.name, op.domain):
        if v.deprecated:
            continue
        bindings = op.bindings(v)
        first = next((t for t in bindings if t.dtype == "float" and not t.suffix), bindings[0])
        picks = [(first, e) for e in op.examples]
        picks += [(t, next(iter(op.examples))) for t in bindings if t is not first]
        for t, example in picks:
            with np.errstate(all="ignore"):
                case = op.case(example, v, t, seeded_rng(op.name, v.since_version, example, t.dtype, *t.suffix))
            if not isinstance(case, NotApplicable):
                yield v, t, example, case


@pytest.fixture(scope="module")
def exact():
    return registry.load("exact", {})


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_the_exact_backend_passes_the_operator_s_examples(name, exact, tmp_path):
    op = OPERATORS[name]
    if op.meaning is None:
        pytest.skip(f"{name}: its module states no semantics yet")
    ran = declined = 0
    problems = []
    for v, t, example, case in _slice(op):
        built = _built(op, v, v.last_opset, t, example, case)
        label = f"{built.name}"
        try:
            prepared = exact._prepare(built.model)
            got = exact.run(prepared, [plain(x) for _, x in built.inputs])
        except Unsupported as e:
            if case.kind == "expect-error" or "random" not in str(e):
                problems.append(f"{label}: declined: {e}")
            declined += 1
            continue
        except (Rejected, onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as e:
            if case.kind != "expect-error":
                problems.append(f"{label}: rejected a valid case: {e}")
            ran += 1
            continue
        if case.kind == "expect-error":
            problems.append(f"{label}: expected an error ({case.error}), got outputs")
            continue
        expected = [plain(x) for _, x in built.outputs]
        result = compare_outputs(expected, got, case.tolerance, built.output_types)
        if result.status != "pass":
            problems.append(f"{label}: {result.detail}")
        ran += 1
    assert not problems, f"{len(problems)} of {ran + declined}:\n" + "\n".join(problems[:20])
    assert ran or declined


def test_random_operators_are_declined_in_the_backend_s_words(exact):
    randoms = [n for n, op in OPERATORS.items() if op.meaning is not None and _is_random(op)]
    if not randoms:
        pytest.skip("no random operator states its semantics yet")
    for name in randoms:
        op = OPERATORS[name]
        v, t, example, case = next(_slice(op))
        built = _built(op, v, v.last_opset, t, example, case)
        with pytest.raises(Unsupported, match="^random: "):
            exact.run(exact._prepare(built.model), [plain(x) for _, x in built.inputs])


def _is_random(op) -> bool:
    v, t, example, case = next(_slice(op))
    try:
        op.run(v, case.inputs, case.attrs, case.outer)
    except NotDeterministic:
        return True
    except Exception:  # noqa: BLE001 - anything else is not the random operators' decline
        return False
    return False


# ---------------------------------------------------------------------------------------------
# models beyond one node


def _model(nodes, inputs, outputs, initializers=(), opset=13, functions=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid("local", 1)],
                              functions=list(functions))
    model.ir_version = 8
    return model


def test_a_chain_of_nodes_reads_initializers_and_earlier_outputs(exact):
    model = _model(
        [helper.make_node("Gather", ["x", "i"], ["y"], axis=1), helper.make_node("Gather", ["y", "j"], ["z"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 3])],
        [numpy_helper.from_array(np.array([3, 0, -1], np.int64), "i"), numpy_helper.from_array(np.array([1], np.int64), "j")])
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    (z,) = exact.run(exact._prepare(model), [x])
    np.testing.assert_array_equal(z, x[:, [3, 0, 3]][[1]])


def test_a_model_local_function_runs_its_body_with_the_caller_s_attributes(exact):
    gather = helper.make_node("Gather", ["data", "idx"], ["out"])
    gather.attribute.append(helper.make_attribute_ref("axis", onnx.AttributeProto.INT))
    body = [gather]
    pick = onnx.helper.make_function("local", "Pick", ["data", "idx"], ["out"], body,
                                     [helper.make_opsetid("", 13)], attributes=["axis"])
    model = _model([helper.make_node("Pick", ["x", "i"], ["y"], domain="local", axis=1)],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 1])],
                   [numpy_helper.from_array(np.array([2], np.int64), "i")], functions=[pick])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (y,) = exact.run(exact._prepare(model), [x])
    np.testing.assert_array_equal(y, x[:, [2]])


def test_an_index_out_of_range_is_rejected_with_the_spec_s_sentence(exact):
    model = _model([helper.make_node("Gather", ["x", "i"], ["y"])],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
                    helper.make_tensor_value_info("i", TensorProto.INT64, [1])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    with pytest.raises(Rejected, match=r"bounds"):
        exact.run(exact._prepare(model), [np.ones(2, np.float32), np.array([2], np.int64)])


def test_an_unknown_operator_is_a_one_line_decline(exact, tmp_path):
    model = _model([helper.make_node("Frobnicate", ["x"], ["y"], domain="local")],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    unchecked = registry.load("exact", {"check": "0"})
    with pytest.raises(Unsupported, match="Frobnicate") as info:
        unchecked.run(unchecked._prepare(model), [np.ones(2, np.float32)])
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------------------------------------
# expected-outputs


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "onnx_conformance.generators.expected", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


def test_expected_outputs_writes_a_case_onnxruntime_then_passes(tmp_path):
    model = _model(
        [helper.make_node("Gather", ["x", "i"], ["y"], axis=1), helper.make_node("Gather", ["y", "j"], ["z"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 3])],
        [numpy_helper.from_array(np.array([3, 0, -1], np.int64), "i"), numpy_helper.from_array(np.array([1], np.int64), "j")])
    onnx.save(model, tmp_path / "m.onnx")
    done = _cli(tmp_path / "m.onnx", "--out", tmp_path / "case", "--dim", "N=5", "--seed", "7")
    assert done.returncode == 0, done.stderr
    assert "node 2/2: Gather" in done.stderr  # a progress line per node
    again = _cli(tmp_path / "m.onnx", "--out", tmp_path / "case2", "--dim", "N=5", "--seed", "7", "--quiet")
    for rel in ("test_data_set_0/input_0.pb", "test_data_set_0/output_0.pb"):
        assert (tmp_path / "case" / rel).read_bytes() == (tmp_path / "case2" / rel).read_bytes()
    assert again.stderr == ""
    run = subprocess.run([sys.executable, "-m", "onnx_conformance.harness.cli", "--backend", "onnxruntime",
                          "--cases", str(tmp_path / "case"), "--report-dir", str(tmp_path / "report")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:]
    assert "1 pass" in run.stdout


def test_expected_outputs_on_a_bad_model_is_one_line_naming_the_file(tmp_path):
    (tmp_path / "bad.onnx").write_bytes(b"not a model")
    done = _cli(tmp_path / "bad.onnx", "--out", tmp_path / "case")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "bad.onnx" in done.stderr
    assert not (tmp_path / "case").exists()


def test_subgraphs_read_the_enclosing_scope_and_agree_with_onnxruntime(exact):
    """A Loop whose body adds an outer value each iteration and an If choosing by the trip count: the same
    outputs as onnxruntime (a second source: integers, so exactly)."""
    import onnxruntime as ort

    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["acc_in", "step"], ["acc_out"]),
         helper.make_node("Identity", ["acc_out"], ["scan_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.INT64, [2]),
         helper.make_tensor_value_info("scan_out", TensorProto.INT64, [2])])
    then = helper.make_graph([helper.make_node("Neg", ["total"], ["r"])], "then", [],
                             [helper.make_tensor_value_info("r", TensorProto.INT64, [2])])
    other = helper.make_graph([helper.make_node("Identity", ["total"], ["r2"])], "else", [],
                              [helper.make_tensor_value_info("r2", TensorProto.INT64, [2])])
    model = _model(
        [helper.make_node("Loop", ["n", "", "start"], ["total", "steps"], body=body),
         helper.make_node("Greater", ["n", "three"], ["big"]),
         helper.make_node("If", ["big"], ["y"], then_branch=then, else_branch=other)],
        [helper.make_tensor_value_info("n", TensorProto.INT64, []),
         helper.make_tensor_value_info("start", TensorProto.INT64, [2]),
         helper.make_tensor_value_info("step", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [2]),
         helper.make_tensor_value_info("steps", TensorProto.INT64, [None, 2])],
        [numpy_helper.from_array(np.array(3, np.int64), "three")], opset=16)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    prepared = exact._prepare(model)
    for n in (0, 2, 5):
        feeds = [np.array(n, np.int64), np.array([1, -4], np.int64), np.array([10, 3], np.int64)]
        ours = exact.run(prepared, feeds)
        theirs = session.run(None, dict(zip(("n", "start", "step"), feeds)))
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a, b)
            assert np.asarray(a).dtype == b.dtype


def test_a_float_chain_is_correctly_rounded_and_onnxruntime_comes_within_its_budget(exact):
    """Exp then Log of float inputs: ours is each node correctly rounded (checked against mpmath here);
    onnxruntime's float result lands within the accuracy table's budget of ours."""
    import mpmath
    import onnxruntime as ort

    from onnx_conformance.generators.rounding import PREC, exact as exactly, round_to

    model = _model([helper.make_node("Exp", ["x"], ["e"]), helper.make_node("Log", ["e"], ["y"])],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64])])
    x = np.random.default_rng(3).uniform(-8, 8, 64).astype(np.float32)
    (ours,) = exact.run(exact._prepare(model), [x])
    with mpmath.workprec(PREC):
        e = np.array([round_to(exactly(mpmath.exp(mpmath.mpf(float(v)))), "float") for v in x], np.float32)
        want = np.array([round_to(exactly(mpmath.log(mpmath.mpf(float(v)))), "float") for v in e], np.float32)
    np.testing.assert_array_equal(ours, want)
    theirs = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    result = compare_outputs([ours], [theirs], {"ulp": 6}, ["float"])
    assert result.status == "pass", result.detail


def test_gradient_differentiates_the_graph_before_it_exactly_and_declines_beyond_its_rules(exact):
    """y = ReduceSum(Concat(a, a)^2 / z): dy/da = 4a/z, rounded once, at the z the Gradient node is fed (w),
    not the graph's; beyond its derivative rules (Pow with a differentiated exponent) it declines in its own words."""
    from fractions import Fraction

    from onnx_conformance.generators.rounding import round_to

    training = "ai.onnx.preview.training"

    def model(middle):
        nodes = [helper.make_node("Concat", ["a", "a"], ["c"], axis=0), helper.make_node(middle, ["c", "c"], ["m"]),
                 helper.make_node("Div", ["m", "z"], ["q"]), helper.make_node("ReduceSum", ["q"], ["y"], keepdims=0),
                 helper.make_node("Gradient", ["a", "w"], ["dy_da"], domain=training, xs=["a"], zs=["z"], y="y")]
        graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
                                               for n, s in (("a", [3]), ("z", []), ("w", []))],
                                  [helper.make_tensor_value_info("dy_da", TensorProto.FLOAT, [3])])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(training, 1)])
        m.ir_version = 8
        return m

    feeds = [np.array([1, 2, 3], np.float32), np.array(5, np.float32), np.array(3, np.float32)]
    (got,) = exact.run(exact._prepare(model("Mul")), feeds)
    np.testing.assert_array_equal(got, [round_to(Fraction(4 * a, 3), "float") for a in (1, 2, 3)])
    with pytest.raises(Unsupported, match="^Gradient through Pow is not implemented"):
        exact.run(exact._prepare(model("Pow")), feeds)
