"""The runner's parts one at a time: results file, baseline gate, corpus discovery, executor."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_conformance.harness import expectations as baseline
from onnx_conformance.harness.corpus import CorpusError, find_cases
from onnx_conformance.harness.executor import Executor, run_case
from onnx_conformance.harness.expectations import Expectation
from onnx_conformance.harness.results import ResultsLog, plain, read_results, report_dir_for
from tests.conftest import TOY, build_corpus, identity_case
from tests.toybackends.toy import ToyAdapter

# -- results.jsonl -------------------------------------------------------------------------


def test_a_torn_last_line_is_ignored_and_cut_off_on_resume(tmp_path):
    path = tmp_path / "results.jsonl"
    good = [{"case": "a", "status": "pass"}, {"case": "b", "status": "fail"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in good) + '{"case": "c", "sta')
    records, size = read_results(path)
    assert [r["case"] for r in records] == ["a", "b"]
    log = ResultsLog(path, resume=True)
    log.append({"case": "c", "status": "pass"})
    log.close()
    assert [r["case"] for r in read_results(path)[0]] == ["a", "b", "c"]
    assert size < path.stat().st_size


def test_without_resume_the_file_starts_empty(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"case": "old", "status": "pass"}\n')
    ResultsLog(path, resume=False).close()
    assert path.read_text() == ""


def test_json_has_no_bare_infinity():
    assert plain({"x": float("inf"), "y": float("nan"), "z": np.float32(1.5), "i": (np.int64(2),)}) \
        == {"x": "inf", "y": "nan", "z": 1.5, "i": [2]}


def test_report_dir_is_a_safe_path():
    assert report_dir_for("onnxruntime") == Path("reports/onnxruntime")
    assert report_dir_for("mypkg.mod:Cls") == Path("reports/mypkg.mod_Cls")
    assert report_dir_for("../x") == Path("reports/x")


# -- expectations --------------------------------------------------------------------------


def write(tmp_path, text: str) -> Path:
    path = tmp_path / "expected.txt"
    path.write_text(text)
    return path


def test_expectations_parse_comments_and_commas_in_reasons(tmp_path):
    got = baseline.load(write(tmp_path, "# header\n\ntest_a,fail,off by one, twice\ntest_b,crash\n"))
    assert got == {"test_a": Expectation("test_a", "fail", "off by one, twice"),
                   "test_b": Expectation("test_b", "crash", "")}
    assert baseline.load(write(tmp_path, baseline.dump(got))) == got


@pytest.mark.parametrize("text, words", [
    ("test_a,broken,why\n", "expected.txt:1: status 'broken' is not one of"),
    ("# c\ntest_a\n", "expected.txt:2: expected 'case_name,status,reason'"),
    ("test_a,fail\ntest_a,crash\n", "expected.txt:2: test_a is listed twice"),
])
def test_bad_expectations_name_file_and_line(tmp_path, text, words):
    with pytest.raises(baseline.ExpectationsError, match=words):
        baseline.load(write(tmp_path, text))


def r(case: str, status: str, detail: str | None = None) -> dict:
    return {"case": case, "status": status, "detail": detail}


def test_gate_without_a_file_fails_on_bad_statuses_only():
    assert baseline.evaluate([r("a", "pass"), r("b", "unsupported"), r("c", "skip")], None).exit_code == 0
    for bad in ("fail", "error", "crash", "timeout"):
        verdict = baseline.evaluate([r("a", "pass"), r("b", bad, "why")], None)
        assert verdict.exit_code == 1 and verdict.regressions == [f"b: got {bad}, expected pass (why)"]


def test_gate_with_a_file():
    entries = {"a": Expectation("a", "fail", "known"), "b": Expectation("b", "crash", ""),
               "gone": Expectation("gone", "fail", "")}
    corpus = {"a", "b", "c"}
    same = baseline.evaluate([r("a", "fail"), r("b", "crash"), r("c", "pass")], entries, corpus)
    assert same.exit_code == 0 and same.stale == ["gone: listed as fail but no such case in the corpus"]
    changed = baseline.evaluate([r("a", "fail"), r("b", "fail")], entries, corpus)
    assert changed.exit_code == 1 and changed.regressions == ["b: got fail, expected crash"]
    fixed = baseline.evaluate([r("a", "pass"), r("b", "crash")], entries, corpus)
    assert fixed.exit_code == 1 and fixed.fixes and not fixed.regressions
    assert baseline.evaluate([r("a", "pass"), r("b", "crash")], entries, corpus,
                             allow_fixes=True).exit_code == 0


def test_gate_nothing_ran():
    assert baseline.evaluate([], None).exit_code == 3
    assert baseline.evaluate([r("a", "skip"), r("b", "unsupported")], None).exit_code == 3


def test_update_keeps_unrun_entries_and_drops_stale_ones():
    previous = {"a": Expectation("a", "fail", "old"), "b": Expectation("b", "crash", "x"),
                "gone": Expectation("gone", "fail", "")}
    new = baseline.updated([r("a", "pass"), r("c", "timeout", "slow")], previous, {"a", "b", "c"})
    assert new == {"b": Expectation("b", "crash", "x"), "c": Expectation("c", "timeout", "slow")}


def test_update_keeps_a_flaky_entry_whatever_this_run_saw():
    previous = {"f": Expectation("f", "flaky", "segfaults one run in five"),
                "g": Expectation("g", "flaky", "timing"), "gone": Expectation("gone", "flaky", "")}
    new = baseline.updated([r("f", "crash", "SIGSEGV"), r("g", "pass")], previous, {"f", "g"})
    assert new == {"f": previous["f"], "g": previous["g"]}


# -- corpus --------------------------------------------------------------------------------


def test_both_layouts_are_found(tmp_path):
    ours = build_corpus(tmp_path / "ours", adds=["test_add"], index=True)
    theirs = build_corpus(tmp_path / "theirs", adds=["test_add"], nested=False)
    assert [c.name for c in find_cases(ours)] == [c.name for c in find_cases(theirs)] == ["test_add"]
    assert find_cases(ours)[0].example == "two_matrices"  # from the index
    assert find_cases(theirs)[0].example == "test_add"  # the fallback


def test_a_case_from_the_index_is_what_its_constructor_makes():
    """_from_index sets the fields without Case's __init__: the same fields, values, order, equality."""
    from dataclasses import asdict, fields

    from onnx_conformance.harness.corpus import Case, _from_index

    entry = {"op": "Gather", "domain": "", "opset": 13, "since_version": 13, "dtype": "float",
             "example": "gather_0", "kind": "expect-error", "tolerance": {"ulp": 0},
             "types": {"T": "float", "Tind": "int32"}, "reason": "indices out of range",
             "quality": {"reason": "r", "outputs": {"0": [1]}}, "files": {"model.onnx": "ab"}}
    made = _from_index("test_gather_0", "cases/node/test_gather_0", entry)
    built = Case(name="test_gather_0", path="cases/node/test_gather_0", op="Gather", opset=13,
                 since_version=13, dtype="float", example="gather_0", kind="expect-error",
                 tolerance={"ulp": 0}, types={"T": "float", "Tind": "int32"},
                 reason="indices out of range", quality={"reason": "r", "outputs": {"0": [1]}})
    assert made == built
    assert list(vars(made).items()) == list(vars(built).items()) == list(asdict(built).items())
    assert [f.name for f in fields(Case)] == list(vars(made))
    defaults = _from_index("test_x", "p", {})  # an entry that says little: the defaults
    assert (defaults.kind, defaults.domain, defaults.skip, defaults.unsafe) == ("expect-output", "", None, None)
    with pytest.raises(Exception):
        made.op = "Other"  # still frozen


def test_index_out_of_step_with_the_directories_is_an_error(tmp_path):
    root = build_corpus(tmp_path / "c", adds=["test_add_a", "test_add_b"], index=True)
    shutil.rmtree(root / "node" / "test_add_b")
    with pytest.raises(CorpusError, match="lists 1 case.*test_add_b"):
        find_cases(root)


def test_a_folder_without_cases_is_an_error(tmp_path):
    with pytest.raises(CorpusError, match="no cases under"):
        find_cases(tmp_path)
    with pytest.raises(CorpusError, match="does not exist"):
        find_cases(tmp_path / "missing")


def test_duplicate_case_names_are_an_error(tmp_path):
    build_corpus(tmp_path / "c" / "one", adds=["test_add"], nested=False)
    build_corpus(tmp_path / "c" / "two", adds=["test_add"], nested=False)
    with pytest.raises(CorpusError, match="two cases are named test_add"):
        find_cases(tmp_path / "c")


def test_facts_inferred_from_models(tmp_path):
    nodes = [helper.make_node("Relu", ["x"], ["t"]), helper.make_node("Neg", ["t"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [2])])
    case = tmp_path / "test_two_nodes"
    case.mkdir()
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)]), case / "model.onnx")
    seq = helper.make_graph(
        [helper.make_node("SequenceLength", ["s"], ["n"])], "s",
        [helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("n", TensorProto.INT64, [])])
    (tmp_path / "test_seq").mkdir()
    onnx.save(helper.make_model(seq, opset_imports=[helper.make_opsetid("", 11)]),
              tmp_path / "test_seq" / "model.onnx")
    build_corpus(tmp_path, reduce_sums=["test_reduce_sum"], nested=False)
    cases = {c.name: c for c in find_cases(tmp_path)}
    two = cases["test_two_nodes"]
    assert (two.op, two.opset, two.since_version, two.dtype) == ("graph", 9, None, "float16")
    rs = cases["test_reduce_sum"]
    assert (rs.op, rs.opset, rs.since_version, rs.dtype, rs.kind) == \
        ("ReduceSum", 13, 13, "float", "expect-output")
    # Sequence values are read per the graph's types now, so the case runs (dtype: the element's).
    seq_case = cases["test_seq"]
    assert (seq_case.skip, seq_case.since_version, seq_case.dtype) == (None, 11, "float")


def test_test_data_from_the_checks_is_what_a_fresh_read_gives(tmp_path, monkeypatch):
    """run_case reads each case's files once: the tensors and folder listings safety.check_case
    kept give the same data sets, array for array, as reading the case afresh."""
    import os

    from onnx_conformance.harness import corpus
    from onnx_conformance.harness.safety import check_case
    from tests.conftest import add_case

    case = str(add_case(tmp_path, "test_add"))
    parsed: dict = {}
    model = check_case(case, None, parsed=parsed)
    fresh = corpus.data_sets(case, corpus.value_types(model))
    assert parsed[corpus.SET_FILES] == [("test_data_set_0", ["input_0.pb", "input_1.pb"], ["output_0.pb"])]

    def no_listing(path):
        raise AssertionError(f"listed {path} again")

    monkeypatch.setattr(os, "listdir", no_listing)
    kept = corpus.data_sets(case, corpus.value_types(model), parsed)
    assert [(s.name, s.output_dtypes) for s in kept] == [(s.name, s.output_dtypes) for s in fresh]
    for a, b in zip(kept, fresh):
        for x, y in zip([*a.inputs, *a.outputs], [*b.inputs, *b.outputs]):
            assert (x.dtype, x.shape, x.tobytes(), x.flags.writeable) == \
                   (y.dtype, y.shape, y.tobytes(), y.flags.writeable)


def test_a_model_checked_ahead_is_not_read_or_listed_again_in_its_turn(tmp_path, monkeypatch):
    """check_model_ahead reads model.onnx and lists the case's folders, and no test data; the
    test-data half, in the case's turn, reads the test data and lists nothing again."""
    import os

    from onnx_conformance.harness import safety
    from tests.conftest import add_case

    case = str(add_case(tmp_path, "test_add"))
    opened, listed = [], []
    real_open, real_scandir = os.open, os.scandir

    def open_(path, *args, **kwargs):
        opened.append(os.path.relpath(path, case))
        return real_open(path, *args, **kwargs)

    def scandir(path):
        listed.append(os.path.relpath(path, case))
        return real_scandir(path)

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "scandir", scandir)
    model, check_data, data = safety.check_model_ahead(case)
    assert opened == ["model.onnx"] and listed == [".", "test_data_set_0"]
    assert data == (tmp_path / "test_add" / "model.onnx").read_bytes()  # the bytes checked, kept
    parsed: dict = {}
    check_data("expect-output", parsed)
    assert opened == ["model.onnx", *(f"test_data_set_0/{f}" for f in ("input_0.pb", "input_1.pb", "output_0.pb"))]
    assert listed == [".", "test_data_set_0"]
    assert model.graph.node[0].op_type == "Add" and len(parsed) == 4  # three tensors and the sets


def test_the_checked_bytes_are_kept_for_a_small_model_without_external_data_only(tmp_path):
    """A backend may load a small model from the bytes the checks read; one with external data
    loads from its path (where its data is found), and a large one is not held twice."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from onnx_conformance.harness import safety
    from tests.conftest import add_case

    small = add_case(tmp_path, "test_small")
    assert safety.check_model(str(small)).data == (small / "model.onnx").read_bytes()

    large = add_case(tmp_path, "test_large")
    model = onnx.load(large / "model.onnx")
    model.doc_string = "x" * safety.AHEAD_BYTES
    onnx.save(model, large / "model.onnx")
    checked = safety.check_model(str(large))
    assert checked.model.doc_string == model.doc_string and checked.data is None

    external = tmp_path / "test_external"
    external.mkdir()
    b = numpy_helper.from_array(np.full((2, 3), 0.5, np.float32), "b")
    graph = helper.make_graph([helper.make_node("Add", ["a", "b"], ["c"])], "g",
                              [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("c", TensorProto.FLOAT, [2, 3])], [b])
    onnx.save(helper.make_model(graph), external / "model.onnx", save_as_external_data=True,
              location="weights.bin", size_threshold=0)
    checked = safety.check_model(str(external))
    assert checked.model.graph.initializer[0].data_location == onnx.TensorProto.EXTERNAL
    assert checked.data is None


# -- run_case and the executor -------------------------------------------------------------


def test_every_data_set_runs(tmp_path):
    case_dir = identity_case(tmp_path, "test_identity")
    second = case_dir / "test_data_set_1"
    second.mkdir()
    x = np.arange(4, dtype=np.float32)
    (second / "input_0.pb").write_bytes(numpy_helper.from_array(x).SerializeToString())
    (second / "output_0.pb").write_bytes(numpy_helper.from_array(x + 1).SerializeToString())
    case = find_cases(tmp_path)[0].as_message()
    result = run_case(ToyAdapter(), case)
    assert result["status"] == "fail"
    assert result["detail"].startswith("test_data_set_1: output 0")


def test_expect_error_without_inputs_fails_when_the_model_loads(tmp_path):
    case_dir = identity_case(tmp_path, "test_identity")
    shutil.rmtree(case_dir / "test_data_set_0")
    case = {**find_cases(tmp_path)[0].as_message(), "kind": "expect-error"}
    result = run_case(ToyAdapter(), case)
    assert (result["status"], result["detail"]) == \
        ("fail", "expected an error, the model loaded and there is no input to run")
    assert run_case(ToyAdapter(), {**case, "kind": "expect-output"})["status"] == "error"


def test_executor_restarts_after_a_crash_and_a_timeout(tmp_path):
    build_corpus(tmp_path, adds=["test_abort", "test_hang", "test_fine"], nested=False)
    cases = {c.name: c for c in find_cases(tmp_path)}
    # 3 s: a loaded machine spends a second on the first case's model (onnx.reference builds its kernels)
    executor = Executor(TOY, {"test_abort": "abort", "test_hang": "hang"}, timeout=3.0)
    try:
        assert executor.start()["name"] == "toy"
        assert executor.run(cases["test_abort"])["status"] == "crash"
        assert executor.run(cases["test_fine"])["status"] == "pass"
        hung = executor.run(cases["test_hang"])
        assert (hung["status"], hung["stage"]) == ("timeout", "run")
        assert executor.run(cases["test_fine"])["status"] == "pass"
    finally:
        executor.close()


def test_per_case_overhead_is_small(tmp_path):
    """Round trip to the executor plus reading and comparing a tiny case, with a backend that does
    nothing. The target is well under 5 ms; the bound is loose so a busy CI machine passes."""
    for i in range(200):
        identity_case(tmp_path, f"test_identity_{i:03d}")
    cases = find_cases(tmp_path)
    executor = Executor("tests.toybackends.toy:EchoAdapter", timeout=10)
    try:
        executor.start()
        executor.run(cases[0])
        started = time.perf_counter()
        for case in cases:
            assert executor.run(case)["status"] == "pass"
        per_case = (time.perf_counter() - started) / len(cases)
    finally:
        executor.close()
    assert per_case < 0.005, f"{per_case * 1000:.2f} ms per case"


def test_what_is_declined_or_cannot_load_reads_no_more_than_it_must(tmp_path):
    """A case the adapter declines by its opset is declined before a byte of it is read; a model
    that is not one is refused before the backend sees it; the test data is read only once the
    model has loaded, and checked before the backend runs it."""
    from tests.toybackends.toy import OldToy

    cases = {c.name: dict(vars(c)) for c in find_cases(build_corpus(
        tmp_path, adds=["test_add_new", "test_add_old", "test_add_badload", "test_add_baddata"], index=True))}
    for name in ("test_add_new", "test_add_old"):
        (tmp_path / "node" / name / "model.onnx").write_bytes(b"not a model")
    for name in ("test_add_badload", "test_add_baddata"):
        data = tmp_path / "node" / name / "test_data_set_0" / "input_0.pb"
        data.unlink()
        data.symlink_to("/etc/hostname")
    cases["test_add_old"]["opset"] = 12  # as an index could say: within what OldToy declares
    new = run_case(OldToy({}), cases["test_add_new"])
    assert (new["status"], new["detail"]) == (
        "unsupported", "opset 14 above the backend's maximum 12; Add-14 is not in force at 12 (Add-7 is)")
    old = run_case(OldToy({}), cases["test_add_old"])
    assert (old["status"], old["detail"]) == ("error", "model.onnx: truncated or not an ONNX model")
    refused = run_case(ToyAdapter({"test_add_badload": "load_error"}), cases["test_add_badload"])
    assert refused["status"] == "error" and refused["detail"].startswith("ValueError: toy rejects")
    unsafe = run_case(ToyAdapter({}), cases["test_add_baddata"])
    assert (unsafe["status"], unsafe["stage"]) == ("error", "load")
    assert unsafe["detail"] == "test_data_set_0/input_0.pb is a symlink leading outside the case directory"


def test_an_answer_marshal_cannot_write_still_arrives_as_text(monkeypatch):
    """An executor's answer travels in marshal; a measured value it cannot write (none of ours is
    one) arrives as its text rather than losing the case's answer."""
    import fractions
    import marshal
    import os

    from onnx_conformance.harness import executor_child as executor

    read, write = os.pipe()

    class Pipe:
        def fileno(self):
            return write

    monkeypatch.setattr(executor, "run_case", lambda adapter, case, stage=None, checked=None: executor.new_result(
        case, status="pass", detail="kept", seconds=fractions.Fraction(1, 3)))
    try:
        assert executor._answer(Pipe(), None, {"name": "test_x"}, None, None) is True
        data = os.read(read, 4096)
    finally:
        os.close(read)
        os.close(write)
    assert int.from_bytes(data[:4], "big") == len(data) - 4  # Connection's framing
    values, exiting = marshal.loads(data[4:])
    assert (values[0], values[2], values[-1], exiting) == ("pass", "kept", "1/3", False)
