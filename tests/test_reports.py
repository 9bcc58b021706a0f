"""Matrices and summaries: deterministic bytes, one offline HTML file, honest about incomplete runs."""

from __future__ import annotations

import json
import random
from html.parser import HTMLParser

from onnx_conformance.harness.reports import MARKDOWN_BUDGET, SEVERITY, build_matrix, terminal_summary, write_matrices

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
    assert len(markdown) <= MARKDOWN_BUDGET
    assert "matrix.html has them all" in markdown
    assert markdown.count("| Operator") > 10


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
