"""Cases beyond single nodes (generators/graphs.py, generators/patterns, generators/models): the
tolerance for graphs holds what the README states, with backends that behave as real ones do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onnx_conformance.generators.emit import generate_corpus
from onnx_conformance.generators.graphs import all_families, build_family
from tests.conftest import read_jsonl, run_cli

# The families whose data the rewrites below are about.
TOLERANCE_FAMILIES = ["LayerNormalization(decomposed)", "Cast+Cast", "MatMul+Add"]


@pytest.fixture(scope="module")
def graphs(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("graphs")
    generate_corpus(out, TOLERANCE_FAMILIES, jobs=1, crosscheck=False)
    return out


def _statuses(graphs: Path, tmp_path: Path, backend: str, *options: str) -> dict[str, str]:
    report = tmp_path / backend.replace(":", "_")
    args = ["--backend", backend, "--cases", str(graphs), "--report-dir", str(report), "-q"]
    for option in options:
        args += ["--backend-option", option]
    run_cli(*args, cwd=tmp_path)
    return {r["case"]: r["status"] for r in read_jsonl(report / "results.jsonl")}


def _failing(statuses: dict[str, str]) -> set[str]:
    return {name for name, status in statuses.items() if status != "pass"}


def test_a_backend_rounding_every_node_passes(graphs, tmp_path):
    # onnx's reference evaluator computes each node in its type, as an unoptimized runtime does
    statuses = _statuses(graphs, tmp_path, "reference")
    assert len(statuses) > 60 and not _failing(statuses)


def test_a_backend_keeping_intermediates_wider_passes(graphs, tmp_path):
    statuses = _statuses(graphs, tmp_path, "tests.toybackends.rewrites:Wide")
    assert len(statuses) > 60 and not _failing(statuses)


@pytest.mark.parametrize("rule, caught, of_constants", [
    ("drop_epsilon", "test_pattern_layernormalization_decomposed_large_epsilon_opset21_{}", True),
    ("remove_casts", "test_pattern_cast_cast_to_narrower_float_opset21_{}", False),
    ("remove_casts", "test_pattern_cast_cast_through_bool_opset21_{}", False),
    ("last_axis", "test_pattern_layernormalization_decomposed_middle_axis_opset21_{}", True),
])
def test_a_wrong_rewrite_fails(graphs, tmp_path, rule, caught, of_constants):
    statuses = _statuses(graphs, tmp_path, "tests.toybackends.rewrites:Rewrite", f"rule={rule}")
    failing = _failing(statuses)
    for t in ("float", "double"):
        assert caught.format(t) in failing, (rule, sorted(failing))
        # a rewrite of constants leaves the graph alone where the same weights are fed
        assert statuses[caught.format(t) + "_fed"] == ("pass" if of_constants else "fail")
    # the rewrite is harmless where the graph does not depend on it
    assert statuses["test_pattern_cast_cast_widening_opset21_float"] == "pass"
    assert statuses["test_pattern_matmul_add_bias_row_opset21_float"] == "pass"


def test_the_tolerance_widens_only_where_rounding_intermediates_matters():
    cases = {b.name: b for b in build_family("LayerNormalization(decomposed)")[0]}
    assert cases["test_pattern_layernormalization_decomposed_last_axis_opset21_double"].meta["tolerance"] is None
    widened = cases["test_pattern_layernormalization_decomposed_last_axis_opset21_float16"].meta["tolerance"]
    assert widened is not None and widened["atol"] > 1e-3  # float16's default atol, plus the spread
    exact = {b.name: b for b in build_family("MatMul+Add")[0]}
    assert all(b.meta["tolerance"] is None for b in exact.values())  # quarters: every reading is exact


def test_types_are_the_ones_the_operators_allow():
    cases, not_applicable = build_family("MatMul+Add")
    assert {b.meta["dtype"] for b in cases} == {"bfloat16", "float16", "float", "double", "int32", "int64",
                                                "uint32", "uint64"}
    refused = {r["dtype"] for r in not_applicable}
    assert refused == {"int8", "int16", "uint8", "uint16"}
    assert all("MatMul" in r["reason"] for r in not_applicable)


def test_every_family_names_what_it_targets_and_builds():
    families = all_families()
    assert families
    for family in families.values():
        assert family.targets and all(isinstance(t, str) and t for t in family.targets), family.name
        assert family.examples, family.name


def test_the_index_says_what_a_graph_case_is(graphs):
    index = json.loads((graphs / "index.json").read_text())
    entry = index["cases"]["test_pattern_matmul_add_bias_row_opset21_float_fed"]
    assert entry["form"] == "pattern" and entry["op"] == "MatMul+Add" and entry["since_version"] is None
    folded = graphs / "graph" / "test_pattern_matmul_add_bias_row_opset21_float" / "test_data_set_0"
    fed = graphs / "graph" / "test_pattern_matmul_add_bias_row_opset21_float_fed" / "test_data_set_0"
    assert len(list(folded.glob("input_*.pb"))) == 1 and len(list(fed.glob("input_*.pb"))) == 3


def test_the_readme_lists_every_family_with_what_it_targets():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    for family in all_families().values():
        row = next((line for line in readme.splitlines() if line.startswith(f"| `{family.name}` |")), None)
        assert row is not None, f"README lists no row for {family.name}"
        assert all(t in row for t in family.targets), family.name
