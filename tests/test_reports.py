"""Matrices and summaries: deterministic bytes, one offline HTML file, honest about incomplete runs."""

from __future__ import annotations

import json
import random
import re
from html.parser import HTMLParser

import onnx.defs
import pytest
from onnx_conformance.harness.families import FAMILIES, OTHER, family_key, family_of
from onnx_conformance.harness.matrix import build_matrix
from onnx_conformance.harness.matrix_markdown import MARKDOWN_BUDGET
from onnx_conformance.harness.reports import terminal_summary, write_matrices
from onnx_conformance.harness.statuses import SEVERITY

RUN = {
    "backend": {"requested": "onnxruntime", "name": "onnxruntime", "version": "1.31.1", "options": {}},
    "harness_version": "0.1.0",
    "corpus": {"path": "cases", "index_sha256": "ab12" * 16, "cases": 9},
    "complete": True,
}


def _result(case, op, since, dtype, status, detail=None, stage="run"):
    return {"case": case, "op": op, "domain": "", "opset": since, "since_version": since, "dtype": dtype,
            "example": "e", "kind": "expect-output", "status": status, "stage": stage, "detail": detail,
            "max_abs_err": None, "max_rel_err": None, "max_ulp": None, "mismatches": None,
            "first_bad_index": None, "seconds": 0.01}


RESULTS = [
    _result("test_reduce_min_a_opset13_float", "ReduceMin", 13, "float", "pass"),
    _result("test_reduce_min_b_opset13_float", "ReduceMin", 13, "float", "fail", "output 0: 1 of 4 values differ"),
    _result("test_reduce_min_a_opset13_int8", "ReduceMin", 13, "int8", "pass"),
    _result("test_reduce_min_a_opset20_bfloat16", "ReduceMin", 20, "bfloat16", "unsupported", "NOT_IMPLEMENTED"),
    _result("test_reduce_min_b_opset20_bfloat16", "ReduceMin", 20, "bfloat16", "crash", "signal 11", "load"),
    _result("test_abs_a_opset13_double", "Abs", 13, "double", "timeout", "no result after 30 s"),
    _result("test_abs_b_opset13_double", "Abs", 13, "double", "skip"),
    # A foreign corpus: whole-graph cases with no operator version or dtype.
    {"case": "test_resnet50", "op": "graph", "since_version": None, "dtype": None, "status": "error",
     "stage": "load", "detail": "model <too> big | really"},
    {"case": "test_squeezenet", "status": "pass"},
]


def _write(tmp_path, results, run=RUN):
    write_matrices(results, run, tmp_path)
    return {name: (tmp_path / name).read_bytes() for name in ("matrix.json", "matrix.md", "matrix.html")}


def test_same_results_give_the_same_bytes(tmp_path):
    first = _write(tmp_path / "a", RESULTS)
    shuffled = RESULTS[:]
    random.Random(1).shuffle(shuffled)
    assert _write(tmp_path / "b", shuffled) == first


def test_matrix_rows_columns_and_worst_status():
    matrix = build_matrix(RESULTS, RUN)
    assert matrix["columns"] == ["float", "int8", "double", "bfloat16", "-"]  # the spec's enum order
    labels = [(r["op"], r["since_version"]) for r in matrix["rows"]]
    assert labels == [("(none)", None), ("Abs", 13), ("graph", None), ("ReduceMin", 13), ("ReduceMin", 20)]
    cells = {(r["op"], r["since_version"]): r["cells"] for r in matrix["rows"]}
    assert cells[("ReduceMin", 13)]["float"] == {"counts": {"pass": 1, "fail": 1}, "passed": 1, "total": 2, "worst": "fail"}
    assert cells[("ReduceMin", 20)]["bfloat16"]["worst"] == "crash"
    assert cells[("Abs", 13)]["double"]["worst"] == "timeout"
    assert list(matrix["summary"]) == ["crash", "timeout", "error", "fail", "unsupported", "skip", "pass"]
    assert [f["status"] for f in matrix["failures"]] == ["crash", "timeout", "error", "fail"]
    assert [r["family"] for r in matrix["rows"]] == ["Other", "Element-wise math", "Other", "Reduce", "Reduce"]
    reduce = {f["family"]: f for f in matrix["families"]}["Reduce"]
    assert reduce == {"family": "Reduce", "operators": 1, "versions": 2, "cases": 5, "passed": 2,
                      "summary": {"crash": 1, "fail": 1, "unsupported": 1, "pass": 2}, "worst": "crash",
                      "cells": 3, "cells_passing": 1, "columns": ["float", "int8", "bfloat16"]}


class _Cells(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text, self.external = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.external += [v for k, v in attrs if k in ("src", "href") and v]

    def handle_data(self, data):
        self.text.append(data.strip())


def test_html_is_one_offline_file_with_every_cell(tmp_path):
    page = _write(tmp_path, RESULTS)["matrix.html"].decode()
    parser = _Cells()
    parser.feed(page)
    assert "script" not in parser.tags and "link" not in parser.tags and not parser.external
    assert "http" not in page.replace("http-equiv", "")
    for cell in ("1/2", "1/1", "0/2", "0/1"):
        assert cell in parser.text
    assert "ReduceMin" in parser.text and "graph" in parser.text
    assert "model <too> big | really" in parser.text  # escaped in the source, shown as written
    assert "onnxruntime 1.31.1" in page and "ab12" * 16 in page
    assert all(f"s-{s}" in page for s in SEVERITY)


def test_incomplete_run_says_so_everywhere(tmp_path):
    files = _write(tmp_path, RESULTS[:3], {**RUN, "complete": False})
    for name in ("matrix.md", "matrix.html"):
        assert "Incomplete run: 3 of 9 cases recorded" in files[name].decode(), name
    assert json.loads(files["matrix.json"])["run"]["complete"] is False
    assert "Incomplete" not in _write(tmp_path / "done", RESULTS)["matrix.md"].decode()


def test_markdown_fits_a_pull_request_comment(tmp_path):
    many = [
        _result(f"test_op{o}_v{v}_{d}_{i}", f"Operator{o:03d}", v, d, "pass" if (o + i) % 7 else "fail", "x" * 300)
        for o in range(300) for v in (1, 13, 18) for d in ("float", "double", "float16", "bfloat16", "int8",
                                                          "int16", "int32", "int64", "uint8", "uint16")
        for i in range(2)
    ]
    markdown = _write(tmp_path, many)["matrix.md"].decode()
    assert len(markdown.encode()) <= MARKDOWN_BUDGET
    # It fits without cutting, so every failing operator version is listed, with each of its failing types.
    failing = {(r["op"], r["since_version"]) for r in many if r["status"] == "fail"}
    listed = [line for line in markdown.splitlines() if line.startswith("- Operator")]
    assert len(listed) == len(failing) and "Cut to fit" not in markdown
    assert all(line.count("❌") == 10 for line in listed)


def _corpus_scale(n_cases=90_000, n_versions=650, n_types=30):
    """A synthetic run as big as the whole corpus: versions spread over every family's operators, 30
    element types, a third of the cells all passing and the rest a mix of every status, many reasons."""
    ops = [op for family in FAMILIES.values() for op in family]
    results = []
    for k in range(n_cases):
        v, t, i = k % n_versions, (k // n_versions) % n_types, k // (n_versions * n_types)
        op, since, dtype = ops[v % len(ops)], 1 + v // len(ops), TYPES_IN_SPEC_ORDER[t]
        status = "pass" if (v + t) % 3 == 0 else SEVERITY[(v * 7 + t * 3 + i * 5) % len(SEVERITY)]
        detail = None if status == "pass" else f"reason {(v * 31 + t) % 500}: output 0 differs"
        results.append(_result(f"test_{op.lower()}_e{i}_opset{since}_{dtype}", op, since, dtype, status, detail))
    return results


TYPES_IN_SPEC_ORDER = [
    "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool", "float16", "double",
    "uint32", "uint64", "complex64", "complex128", "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
    "float8e5m2fnuz", "uint4", "int4", "float4e2m1", "float8e8m0", "uint2", "int2", "float6e2m3", "float6e3m2",
    "optional(tensor(float))", "seq(tensor(float))",
]


@pytest.fixture(scope="module")
def corpus_scale(tmp_path_factory):
    results = _corpus_scale()
    out = tmp_path_factory.mktemp("scale")
    write_matrices(results, RUN, out)
    return results, build_matrix(results, RUN), out


def test_markdown_fits_at_corpus_scale_and_says_what_it_cut(corpus_scale):
    results, matrix, out = corpus_scale
    assert (matrix["total"], len({(r["op"], r["since_version"]) for r in matrix["rows"]}),
            len(matrix["columns"])) == (90_000, 650, 30)
    markdown = (out / "matrix.md").read_text(encoding="utf-8")
    assert len(markdown) <= len(markdown.encode()) <= MARKDOWN_BUDGET < 65_536

    problems = [r for r in matrix["rows"] if r["worst"] != "pass"]
    bad_cells = sum(1 for r in problems for c in r["cells"].values() if c["worst"] != "pass")
    section = markdown[markdown.index("### Cells not all passing"):markdown.index("<details><summary>Failing")]
    listed = [line for line in section.splitlines() if line.startswith("- ") and not line.startswith("- …")]
    note = re.search(r"_Cut to fit a pull-request comment: (\d+) of (\d+) operator-version rows not all passing "
                     r"\((\d+) of (\d+) such cells\) are not listed", markdown)
    assert note, "no omission note"
    assert int(note[2]) == len(problems) and int(note[4]) == bad_cells
    assert int(note[1]) == len(problems) - len(listed) > 0
    assert f"`{(out / 'matrix.html').as_posix()}`" in markdown
    # Every family keeps its line in the summary and its first failing operator version in the list.
    for family in matrix["families"]:
        assert f"| {family['family']} | " in markdown.replace("\\", "")
        assert f"**{family['family']}**" in markdown.replace("\\", "")


def test_markdown_too_many_families_for_any_budget_is_cut_too(tmp_path):
    # A foreign corpus with thousands of domains: one family each, more summary lines than a comment holds.
    results = [{**_result(f"test_x{i}", "X", 1, "float", "fail", "bad"), "domain": f"com.example{i}"}
               for i in range(3000)]
    markdown = _write(tmp_path, results)["matrix.md"].decode()
    assert len(markdown.encode()) <= MARKDOWN_BUDGET
    full = (tmp_path / "matrix.html").as_posix()
    assert markdown.endswith(f"_Cut at {MARKDOWN_BUDGET} bytes; the full report: `{full}`._\n")
    assert "| Other (com.example0) | 1 | 0/1 | ❌ 1 fail | 0/1 |" in markdown


def test_markdown_family_summary_lines(tmp_path):
    markdown = _write(tmp_path, RESULTS)["matrix.md"].decode()
    lines = markdown.splitlines()
    families = [line.split(" | ")[0][2:] for line in lines if line.startswith("| ") and "/" in line]
    assert families == ["Element-wise math", "Reduce", "Other"]
    assert "| Reduce | 1 | 2/5 | 💥 1 crash · ❌ 1 fail · ➖ 1 unsupported · ✅ 2 pass | 1/3 |" in lines
    assert "| Element-wise math | 1 | 0/2 | ⏱️ 1 timeout · ⏭️ 1 skip | 0/1 |" in lines
    assert "| Other | 2 | 1/2 | ❗ 1 error · ✅ 1 pass | 1/2 |" in lines


def test_markdown_lists_only_cells_not_all_passing(tmp_path):
    markdown = _write(tmp_path, RESULTS)["matrix.md"].decode()
    lines = markdown.splitlines()
    assert "### Cells not all passing: 4 of 6" in lines
    assert "- ReduceMin-13: float ❌ 1/2" in lines  # its int8 cell passes: not named
    assert "- ReduceMin-20: bfloat16 💥 0/2" in lines
    assert "- Abs-13: double ⏱️ 0/2" in lines
    assert "- graph: - ❗ 0/1" in lines
    assert "int8" not in markdown and "(none)" not in markdown  # the passing cells and rows


def test_an_all_passing_run_says_so_per_family(tmp_path):
    passing = [{**r, "status": "pass", "detail": None} for r in RESULTS]
    files = _write(tmp_path, passing)
    markdown = files["matrix.md"].decode()
    for family, cases in (("Element-wise math", 2), ("Reduce", 5), ("Other", 2)):
        assert f"| {family} | " in markdown and f" | {cases}/{cases} | ✅ all pass | " in markdown
    assert "Every cell passes." in markdown and "No failing cases." in markdown
    assert "❌" not in markdown and "Cut to fit" not in markdown
    parser = _Sections()
    parser.feed(files["matrix.html"].decode())
    assert [open_ for _, open_ in parser.details] == [False, False, False]


class _Sections(HTMLParser):
    """The family sections of matrix.html: (summary text, open) per <details>, and the table columns in each."""

    def __init__(self):
        super().__init__()
        self.details, self.columns, self.rows, self._in = [], [], 0, None

    def handle_starttag(self, tag, attrs):
        if tag == "details":
            self.details.append(["", "open" in dict(attrs)])
            self.columns.append([])
        elif tag == "summary":
            self._in = "summary"
        elif tag == "th" and ("class", "dt") in attrs:
            self._in = "dt"
        elif tag == "th" and ("scope", "row") in attrs:
            self.rows += 1

    def handle_endtag(self, tag):
        if tag in ("summary", "th"):
            self._in = None

    def handle_data(self, data):
        if self._in == "summary":
            self.details[-1][0] += data
        elif self._in == "dt":
            self.columns[-1].append(data)


def test_html_has_one_section_per_family_open_where_failing(tmp_path):
    results = RESULTS + [_result("test_relu_a_opset14_float", "Relu", 14, "float", "pass")]
    page = _write(tmp_path, results)["matrix.html"].decode()
    parser = _Sections()
    parser.feed(page)
    names = [" ".join(text.split()[:2]) for text, _ in parser.details]
    assert names == ["Element-wise math", "Activations 1", "Reduce 1", "Other 2"]  # the table's order
    assert [open_ for _, open_ in parser.details] == [True, False, True, True]
    assert "cases passed 2/5" in parser.details[2][0] and "cells all passing 1/3" in parser.details[2][0]
    # Each family's table has only the types its operators use, in the spec's order.
    assert parser.columns == [["double"], ["float"], ["float", "int8", "bfloat16"], ["-"]]
    assert "Failing cases (4)" in page and "Severity:" in page


def test_corpus_scale_bytes_do_not_depend_on_result_order(corpus_scale):
    results, _, out = corpus_scale
    before = {name: (out / name).read_bytes() for name in ("matrix.json", "matrix.md", "matrix.html")}
    shuffled = results[:]
    random.Random(2).shuffle(shuffled)
    write_matrices(shuffled, RUN, out)
    assert {name: (out / name).read_bytes() for name in before} == before


def test_html_at_corpus_scale_has_every_row_once(corpus_scale):
    results, matrix, out = corpus_scale
    parser = _Sections()
    parser.feed((out / "matrix.html").read_text(encoding="utf-8"))
    assert [text.split(" ")[0] for text, _ in parser.details] == [f["family"].split(" ")[0] for f in matrix["families"]]
    assert len(parser.details) == len({family_of(r["op"]) for r in results}) > 20
    assert parser.rows == len(matrix["rows"])


def test_every_operator_in_exactly_one_family():
    named = [op for ops in FAMILIES.values() for op in ops]
    assert len(named) == len(set(named)), sorted({op for op in named if named.count(op) > 1})
    spec = sorted({(s.domain, s.name) for s in onnx.defs.get_all_schemas_with_history()})
    assert [f"{d}.{n}" for d, n in spec if family_of(n, d).startswith(OTHER)] == []
    assert family_of("NotAnOperator") == OTHER and family_of("Foo", "com.example") == f"{OTHER} (com.example)"
    assert sorted(FAMILIES, key=family_key) == list(FAMILIES)


def test_markdown_escapes_table_and_emphasis_characters(tmp_path):
    markdown = _write(tmp_path, RESULTS)["matrix.md"].decode()
    assert "model &lt;too&gt; big \\| really" in markdown


def test_terminal_summary_counts_and_first_failures():
    lines = terminal_summary(RESULTS)
    assert lines[0] == "conformance: 1 crash, 1 timeout, 1 error, 1 fail, 1 unsupported, 1 skip, 3 pass (9 cases)"
    assert lines[1] == "  crash   test_reduce_min_b_opset20_bfloat16 [load]: signal 11"
    assert len(lines) == 5
    folded = terminal_summary([_result(f"c{i}", "Abs", 13, "float", "fail", "same") for i in range(30)])
    assert folded[1] == "  fail    c0 [run] (+29 more with the same reason): same"
    assert terminal_summary([]) == ["conformance: no results"]
