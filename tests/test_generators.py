"""The corpus generator: checker, IR, determinism, documented values, integer ranges, coverage, layout."""

from __future__ import annotations

import ast
import json
import math
import os
import re
from fractions import Fraction
from functools import reduce
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import checker, helper, numpy_helper

from onnx_conformance.generators import cli
from onnx_conformance.generators.case import slug
from onnx_conformance.generators.emit import case_path, REPO_CASES, generate_corpus
from onnx_conformance.generators.spec import versions

# The spec material sits beside the checkout (../shared/spec), for developers and CI alike.
SPEC = Path(__file__).resolve().parents[2] / "shared" / "spec"


@pytest.fixture
def corpus(generated_corpus) -> tuple[Path, dict]:
    return generated_corpus


def _tensors(case_dir: Path, kind: str) -> list[np.ndarray]:
    files = sorted((case_dir / "test_data_set_0").glob(f"{kind}_*.pb"), key=lambda p: int(p.stem.split("_")[1]))
    return [numpy_helper.to_array(onnx.load_tensor(str(f))) for f in files]


def test_every_valid_model_passes_the_full_checker_and_carries_the_ir_of_its_opset(corpus):
    out, index = corpus
    for name, meta in index["cases"].items():
        model = onnx.load(str(case_path(out, name, meta) / "model.onnx"))
        domain = meta.get("domain") or ""
        imports = [(o.domain, o.version) for o in model.opset_import]
        if meta.get("form"):  # a graph imports its domain (ai.onnx for a pattern) at the case's opset, and
            # what else its nodes use (an expanded ai.onnx.preview body: ai.onnx)
            assert dict(imports).get(domain) == meta["opset"], name
        else:  # a model of another domain may also import ai.onnx (Gradient's graph, FlexAttention's subgraphs)
            assert imports[0] == (domain, meta["opset"]) and (len(imports) == 1 or (domain and imports[1][0] == "")), name
        # onnx's table skips ai.onnx opsets 2 to 4, which came out under IR version 3
        ir = 3 if domain == "" and meta["opset"] in (2, 3, 4) else \
            helper.find_min_ir_version_for(list(model.opset_import))
        assert model.ir_version == ir, name
        if meta["kind"] == "expect-output":
            checker.check_model(model, full_check=True)


def test_expect_error_cases_break_a_stated_rule(corpus):
    out, index = corpus
    errors = {n: m for n, m in index["cases"].items() if m["kind"] == "expect-error"}
    assert errors, "no rejection cases emitted"
    for name, meta in errors.items():
        assert meta["reason"], name
        assert not list((case_path(out, name, meta) / "test_data_set_0").glob("output_*.pb")), name


# Where onnx's own shape inference already objects to a rejection model (the offending value is
# an attribute or a constant), the words it must use: the rule the case is about, nothing else.
INFERENCE_OBJECTS = {
    "lengths_differ": r"number of keys \d+ and the number of values \d+ must be the same",
    "two_key_attributes": r"Only one of keys_\*'s can be set|One and only one attribute must be set out of keys_",
    "axes_out_of_range": r"axis must be in \[-rank, rank-1\]",
    "axes_wrong_type": r"axes typestr: tensor\(int64\)",
    "mismatched_ranks": r"All inputs to Concat must have same rank",
    "width_mismatch": r"BitCast requires input and output types to have the same bit-width",
    "rank3_input": r"Input tensor must be 2-dimensional",
    "not_one": r"Dimension of input 0 must be 1 instead of",
    "rank1_input": r"Input rank must be >= 2",
    "axis_out_of_range": r"Invalid value for attribute axis|Unexpected axis value",
    "training_outputs_in_inference_mode": r"number of op outputs should be 1 when Training_mode = False",
    "incompatible_shapes": r"Incompatible dimensions for matrix multiplication",
    "negative_pads": r"pads must not contain negative values",
    "channels_not_divisible_by_group": r"must be divisible by group",
    "pads_with_auto_pad": r"pads attribute cannot be used simultaneously with auto_pad",
    "heads_not_dividing": r"must be a multiple of kv_num_heads",
    "unknown_activation": r"unsupported activation value",
    # a dimension the schema ties to another (CausalConvWithState's past_state length and depthwise
    # weight, MaxRoiPool's 5-column rois): inference unifies the two and names the mismatch
    "past_state_wrong_length": r"Dimension mismatch in unification",
    "weight_channels_mismatch": r"Dimension mismatch in unification",
    "weight_not_depthwise": r"Dimension mismatch in unification",
    "rois_four_columns": r"Dimension mismatch in unification",
    "inner_dimensions_mismatch": r"Dimension mismatch in unification",
    "axis_is_the_complex_dimension": r"axis attribute value \d+ is invalid",
    "rfft_complex_input": r"one-sided DFT requires real input",
    "neither_scales_nor_sizes": r"Either `sizes` or `scales` must be provided",
    "scales_and_sizes": r"Either `sizes` or `scales` must be provided",
    # Clip's min and Pow-1/7's Y of another type than the input: onnx's inference names exactly that
    "min_max_types_differ": r"min has inconsistent type",
    "types_differ": r"inconsistent type|bound to different types",
}


def test_expect_error_models_are_wrong_only_in_the_rule_they_break(corpus):
    """A rejection case that fails for a structural reason (say, an output without a shape) would
    pass on any backend that runs the checker, whatever it makes of the rule."""
    out, index = corpus
    seen, unexplained = set(), []
    for name, meta in index["cases"].items():
        if meta["kind"] != "expect-error":
            continue
        model = onnx.load(str(case_path(out, name, meta) / "model.onnx"))
        checker.check_model(model)  # structurally valid
        try:  # where onnx's own inference objects, it names the broken rule, nothing else
            checker.check_model(model, full_check=True)
        except (checker.ValidationError, onnx.shape_inference.InferenceError) as e:
            pattern = INFERENCE_OBJECTS.get(meta["example"])
            if pattern is None or not re.search(pattern, str(e)):
                unexplained.append(f"{name}: {e}")
            seen.add(meta["example"])
    assert not unexplained, unexplained[:5]
    assert {"axes_out_of_range", "axes_wrong_type"} <= seen


def test_regeneration_is_byte_identical_whatever_the_worker_count(corpus, tmp_path):
    """The session's corpus came from 2 workers; these operators and families again from one, in one process
    (random draws, subgraphs, sequences, the 8-bit floats, a model), give the same entries and bytes."""
    out, index = corpus
    some = ["RandomNormal", "Loop", "SequenceMap", "Cast", "QuantizeLinear", "Softmax", "MatMul+Add", "MLP"]
    some = [n for n in some if any(c["op"] == n for c in index["cases"].values())]  # CONFORMANCE_OPS may leave some out
    again = generate_corpus(tmp_path, some, jobs=1, crosscheck=False)
    assert again["cases"] and again["cases"] == {n: c for n, c in index["cases"].items() if c["op"] in some}
    for name, entry in again["cases"].items():
        for rel in entry["files"]:
            assert (case_path(tmp_path, name, entry) / rel).read_bytes() == (case_path(out, name, entry) / rel).read_bytes()


def test_committed_index_is_reproduced(corpus):
    """The guard CI relies on: the committed cases/index.json pins what a fresh clone generates (the
    session's whole corpus, freshly generated, is that clone's; `generate-cases --check` does the same)."""
    out, index = corpus
    if os.environ.get("CONFORMANCE_OPS"):
        pytest.skip("CONFORMANCE_OPS generates part of the corpus: run generate-cases --check for the whole")
    if (out / "index.json").read_bytes() != (REPO_CASES / "index.json").read_bytes():
        pinned = json.loads((REPO_CASES / "index.json").read_text())
        differ = sorted(n for n in set(pinned["cases"]) | set(index["cases"])
                        if pinned["cases"].get(n) != index["cases"].get(n))
        raise AssertionError(f"{len(differ)} cases differ from cases/index.json, e.g. {differ[:5]} "
                             "(generate-cases regenerates it)")


def test_check_names_the_case_whose_bytes_differ(corpus, tmp_path, capsys):
    out, index = corpus
    tampered = json.loads((out / "index.json").read_text())
    name = sorted(tampered["cases"])[0]
    op = tampered["cases"][name]["op"]  # one operator's check: the whole corpus's would cost a generation
    tampered["cases"] = {n: c for n, c in tampered["cases"].items() if c["op"] == op}
    tampered["cases"][name]["files"]["model.onnx"] = "0" * 64
    (tmp_path / "index.json").write_text(json.dumps(tampered))
    assert cli.main(["--check", "--out", str(tmp_path), "--op", op, "--jobs", "2"]) == 1
    assert f"{name}: regenerated bytes differ in model.onnx" in capsys.readouterr().out


def _documented_examples() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """example name -> (data, printed result) from the ReduceMin page of the spec material."""
    text = (SPEC / "ReduceMin-onnx-docs-en.txt").read_text()
    found = {}
    for m in re.finditer(r"data = np\.array\((\[[^\n]*?\]), dtype=np\.float32\)\n[^#]*?# ?print\(reduced\)\n((?:#[^\n]*\n)+)"
                         r".*?name='test_reduce_min_(\w+?)'", text, re.S):
        data = np.array(ast.literal_eval(m.group(1)), dtype=np.float32)
        printed = " ".join(line.lstrip("#").strip() for line in m.group(2).splitlines())
        printed = re.sub(r"\]\s+\[", "], [", printed)
        found[m.group(3)] = (data, np.array(ast.literal_eval(printed), dtype=np.float32))
    return found


def test_documented_float_values_at_the_newest_version_equal_the_spec_material(corpus):
    out, index = corpus
    documented = _documented_examples()
    assert set(documented) == {"do_not_keepdims_example", "keepdims_example", "default_axes_keepdims_example",
                               "negative_axes_keepdims_example"}
    newest = versions("ReduceMin")[-1]
    for example, (data, printed) in documented.items():
        case = out / "node" / f"test_reduce_min_{example}_opset{newest.last_opset}_float"
        got_in, got_out = _tensors(case, "input"), _tensors(case, "output")
        np.testing.assert_array_equal(got_in[0], data)
        assert got_out[0].shape == printed.shape and got_out[0].dtype == np.float32
        np.testing.assert_array_equal(got_out[0], printed)


# Independent integer arithmetic for the check that no integer expectation overflows or rounds:
# plain Python ints over each reduction group, nothing shared with the generator's oracles.
def _groups(data: np.ndarray, axes: tuple[int, ...]):
    keep = [a for a in range(data.ndim) if a not in axes]
    moved = np.transpose(data, keep + list(axes))
    n = math.prod(data.shape[a] for a in axes) if axes else 1
    return [[int(v) for v in row] for row in moved.reshape(-1, n).tolist()] if data.size else []


EXACT = {
    "ReduceMin": lambda g: Fraction(min(g)),
    "ReduceMax": lambda g: Fraction(max(g)),
    "ReduceSum": lambda g: Fraction(sum(g)),
    "ReduceProd": lambda g: Fraction(reduce(lambda a, b: a * b, g, 1)),
    "ReduceSumSquare": lambda g: Fraction(sum(v * v for v in g)),
    "ReduceL1": lambda g: Fraction(sum(abs(v) for v in g)),
    "ReduceMean": lambda g: Fraction(sum(g), len(g)),
    "ReduceL2": lambda g: Fraction(math.isqrt(sum(v * v for v in g))) if math.isqrt(sum(v * v for v in g)) ** 2 == sum(v * v for v in g) else None,
    "ReduceLogSum": lambda g: Fraction(0) if sum(g) == 1 else None,
    # within e**-40 of the largest element when it dominates the rest by 40 or more
    "ReduceLogSumExp": lambda g: Fraction(max(g)) if len(g) == 1 or sorted(g)[-1] - sorted(g)[-2] >= 40 else None,
}


def _reduced_axes(model: onnx.ModelProto, inputs: list[np.ndarray]) -> tuple[int, ...]:
    node = model.graph.node[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    rank = inputs[0].ndim
    axes = list(attrs.get("axes", [])) if "axes" in attrs else (inputs[1].tolist() if len(inputs) > 1 else [])
    if not axes:
        return () if attrs.get("noop_with_empty_axes", 0) else tuple(range(rank))
    return tuple(sorted(a % rank for a in axes))


def test_integer_expectations_are_exact_and_never_overflow(corpus):
    out, index = corpus
    checked = 0
    for name, meta in index["cases"].items():
        if (meta["kind"] != "expect-output" or meta["op"] not in EXACT or meta.get("form")
                or not meta["dtype"].startswith(("int", "uint"))):
            continue  # the operator's own node (an expanded twin's value is its body's, node by node)
        case = case_path(out, name, meta)
        inputs, (expected,) = _tensors(case, "input"), _tensors(case, "output")
        info = np.iinfo(expected.dtype)
        model = onnx.load(str(case / "model.onnx"))
        groups = _groups(inputs[0], _reduced_axes(model, inputs))
        if not groups:
            continue  # empty set: the value comes from the schema sentence, not arithmetic
        exact = [EXACT[meta["op"]](g) for g in groups]
        assert all(e is not None and e.denominator == 1 for e in exact), f"{name}: a result is not an integer"
        assert all(info.min <= e <= info.max for e in exact), f"{name}: a result leaves {meta['dtype']}"
        assert [int(e) for e in exact] == [int(v) for v in expected.reshape(-1).tolist()], name
        checked += 1
    assert checked > 1000


# Operators whose uncovered cells no valid model can reach, and the words their reasons must carry.
UNCOVERABLE = {
    # its function body's constants are float: onnx's full checker refuses every other type
    "MeanVarianceNormalization": "checker",
    # its integer mask types (U): 'a boolean mask ... or a float mask of the same type as query'
    "Attention": "an integer mask has no stated meaning",
}


def test_coverage_of_every_operator_s_cells(corpus):
    """Every operator with a generator module covers at least 98% of its (version, type parameter,
    type) cells and every one of its versions; each uncovered cell is named with a reason."""
    from onnx_conformance.generators import coverage
    from onnx_conformance.generators.ops import all_operators

    out, index = corpus
    ops = sorted(all_operators())
    assert {m["op"] for m in index["cases"].values() if not m.get("form")} == set(ops)
    s = coverage.summarize(index, ops)
    assert s["total"] == len(coverage.cells(ops))
    assert s["versions_covered"] == s["versions"], coverage.summary_lines(s)[:20]
    for op, row in s["per_op"].items():
        if not row["cells"]:  # no type parameter (NonMaxSuppression, StringNormalizer): its versions count
            continue
        if op in UNCOVERABLE:
            reasons = {r for m, rs in s["missing"] if m[0] == op for r in rs}
            assert any(UNCOVERABLE[op] in r for r in reasons), (op, reasons)
            continue
        assert row["covered"] / row["cells"] >= 0.98, (op, [m for m in s["missing"] if m[0][0] == op][:10])
    assert all(reasons for _, reasons in s["missing"])


def test_every_type_parameter_binding_is_in_the_index_and_the_name(corpus):
    out, index = corpus
    for name, meta in index["cases"].items():
        assert meta["types"] and meta["dtype"] in meta["types"].values(), name
        assert name.split("_opset")[1].split("_", 1)[1].startswith(slug(meta["dtype"])), name


def test_every_version_is_emitted_at_its_first_and_last_opset(corpus):
    out, index = corpus
    nodes = [m for m in index["cases"].values() if not m.get("form")]  # a graph family has no versions
    seen = {(m["op"], m["since_version"], m["opset"]) for m in nodes}
    domains = {m["op"]: m.get("domain") or "" for m in nodes}
    for op in {m["op"] for m in nodes}:
        for v in versions(op, domains[op]):
            if v.deprecated:  # no valid model exists: onnx.checker refuses it
                assert not any(m[:2] == (op, v.since_version) for m in seen)
                continue
            assert (op, v.since_version, v.first_opset) in seen and (op, v.since_version, v.last_opset) in seen


def test_onnx_own_loader_reads_the_corpus(corpus, tmp_path):
    """onnx 1.23's load_model_tests(kind="node") returns its in-memory cases whatever data_dir says;
    its on-disk path (the one older releases used for node/) is reached through another kind name."""
    from onnx.backend.test.loader import load_model_tests

    out, index = corpus
    (tmp_path / "reduce").symlink_to(out / "node", target_is_directory=True)
    loaded = load_model_tests(data_dir=str(tmp_path), kind="reduce")
    assert sorted(t.name for t in loaded) == sorted(n for n, m in index["cases"].items() if not m.get("form"))
    assert all((Path(t.model_dir) / "model.onnx").is_file() for t in loaded)


def test_generate_refuses_to_clear_a_directory_it_did_not_write(tmp_path, capsys):
    (tmp_path / "node").mkdir()
    (tmp_path / "node" / "precious").write_text("x")
    assert cli.main(["--out", str(tmp_path), "--op", "ReduceMin", "--no-crosscheck"]) == 2
    assert "not a corpus written by generate-cases" in capsys.readouterr().err
    assert (tmp_path / "node" / "precious").exists()


def test_unknown_operator_is_one_line(capsys):
    assert cli.main(["--op", "ReduceNothing"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("generate-cases: no generator module for ReduceNothing") and "\n" not in err


def test_generate_cases_prints_only_its_own_lines(tmp_path):
    """The cross-check runs onnx's evaluator on overflowing data; its numpy warnings are not the user's."""
    import subprocess
    import sys

    from tests.conftest import REPO

    proc = subprocess.run([sys.executable, "-m", "onnx_conformance.generators.cli", "--out", str(tmp_path), "--op", "ReduceL2",
                           "--op", "ReduceMean", "--jobs", "1"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr == ""
    assert "Warning" not in proc.stdout


def test_op_into_a_larger_corpus_rewrites_only_that_operator(tmp_path, capsys):
    """`generate-cases --op X` into the project's corpus replaces X's cases and keeps every other
    operator's folders and index entries: the index is the one a fresh run of the same operators writes."""
    out, fresh = tmp_path / "c", tmp_path / "fresh"
    generate_corpus(out, ["Abs", "Neg"], jobs=1, crosscheck=False)
    generate_corpus(fresh, ["Abs", "Neg"], jobs=1, crosscheck=False)
    abs_case = next((out / "node").glob("test_abs_*"))
    neg_case = next((out / "node").glob("test_neg_*"))
    stale = neg_case / "stale"
    stale.write_text("x")  # a file of the regenerated operator's folder: gone after the update
    assert cli.main(["--out", str(out), "--op", "Neg", "--jobs", "1", "--no-crosscheck"]) == 0
    assert abs_case.is_dir() and neg_case.is_dir() and not stale.exists()
    assert (out / "index.json").read_bytes() == (fresh / "index.json").read_bytes()
    assert cli.main(["--check", "--out", str(out), "--op", "Abs", "--op", "Neg", "--jobs", "1"]) == 0, \
        capsys.readouterr().out


def test_op_into_a_larger_corpus_keeps_the_other_operators_crosscheck_rows(tmp_path, capsys):
    """crosscheck.md is the whole corpus's: `--op Or` replaces Or's rows (an edited one is written afresh)
    and keeps And's as they stand (an edited one stays edited), so the file is the whole run's again."""
    out, fresh = tmp_path / "c", tmp_path / "fresh"
    for where in (out, fresh):
        assert cli.main(["--out", str(where), "--op", "And", "--op", "Or", "--jobs", "1"]) == 0
    whole = (fresh / "crosscheck.md").read_text()
    assert "| And |" in whole and "| Or |" in whole
    rows = [line for line in whole.splitlines() if line.startswith("| `test_")]
    and_row = next(r for r in rows if r.startswith("| `test_and_"))
    or_row = next(r for r in rows if r.startswith("| `test_or_"))
    edited = whole.replace(and_row, and_row[:-2] + " (edited) |").replace(or_row, or_row[:-2] + " (edited) |")
    (out / "crosscheck.md").write_text(edited)
    assert cli.main(["--out", str(out), "--op", "Or", "--jobs", "1"]) == 0
    capsys.readouterr()
    assert (out / "crosscheck.md").read_text() == whole.replace(and_row, and_row[:-2] + " (edited) |")
