"""Wherever onnx's own node tests carry one of our examples (same operator version, attributes and
inputs), our expected outputs equal theirs."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import numpy_helper

from onnx_conformance.generators.onnx_node_tests import collect
from onnx_conformance.harness.compare import compare_outputs
from onnx_conformance.harness.corpus import data_sets, value_types


def _attrs(node: onnx.NodeProto) -> tuple:
    return tuple(sorted((a.name, a.SerializeToString()) for a in node.attribute))


def _asked(node: onnx.NodeProto) -> tuple:
    """Which of the node's outputs are asked for."""
    return tuple(bool(name) for name in node.output)


def _key(value) -> tuple | None:
    """A tensor's identity: type, shape and bytes (strings by their text). None for other values."""
    if isinstance(value, onnx.TensorProto):
        value = numpy_helper.to_array(value)
    if isinstance(value, np.generic):  # onnx's examples feed some scalars as numpy scalars: rank 0
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        return None
    if value.dtype.kind in "OUS":
        text = tuple(v.decode() if isinstance(v, bytes) else str(v) for v in value.reshape(-1))
        return ("string", value.shape, text)
    return (str(value.dtype), value.shape, value.tobytes())


def _node_inputs(model: onnx.ModelProto, fed: list) -> list | None:
    """The value behind each of the node's inputs, from the feeds or the model's initializers."""
    graph = model.graph
    values = {i.name: v for i, v in zip(graph.input, fed)}
    values.update({t.name: numpy_helper.to_array(t) for t in graph.initializer})
    node = graph.node[0]
    keys = []
    for name in node.input:
        if not name:
            keys.append(None)
            continue
        k = _key(values.get(name))
        if k is None:
            return None
        keys.append(k)
    return keys


def _same(a, b) -> bool:
    if isinstance(a, list) or isinstance(b, list):  # sequence outputs: element by element
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) \
            and all(_same(np.asarray(x), np.asarray(y)) for x, y in zip(a, b))
    if a is None or b is None:  # an empty optional
        return a is None and b is None
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.dtype.kind in "OUS" or b.dtype.kind in "OUS":
            return _key(a) == _key(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        fa, fb = a.astype(np.float64) if a.dtype.kind not in "iub" else a, b.astype(np.float64) if b.dtype.kind not in "iub" else b
        if a.dtype.kind in "iub":
            return np.array_equal(a, b)
        return bool(np.all((fa == fb) | (np.isnan(fa) & np.isnan(fb))))
    return False


def test_expected_outputs_equal_onnx_node_tests_where_both_carry_the_example(generated_corpus):
    out, index = generated_corpus
    ours = {}
    ops = {m["op"] for m in index["cases"].values()}
    theirs = [(c, n) for c, n in collect() if n is not None and n.op_type in ops and n.domain == ""
              and len(c.model.graph.node) == 1]
    wanted = {(n.op_type, onnx.defs.get_schema(n.op_type, c.model.opset_import[0].version).since_version)
              for c, n in theirs}
    for name, meta in index["cases"].items():
        if meta["kind"] != "expect-output" or meta.get("form") or (meta["op"], meta["since_version"]) not in wanted:
            continue  # one node against one node: not an expanded body or a graph
        case_dir = out / "node" / name
        model = onnx.load(str(case_dir / "model.onnx"))
        (ds,) = data_sets(str(case_dir), value_types(model))
        inputs = _node_inputs(model, ds.inputs)
        if inputs is None:
            continue
        # the outputs asked for are part of the example: MaxPool with and without Indices
        key = (meta["op"], meta["since_version"], _attrs(model.graph.node[0]), repr(inputs),
               _asked(model.graph.node[0]))
        ours.setdefault(key, (name, ds.outputs, meta.get("tolerance")))
    matched, differ = [], []
    for case, node in theirs:
        model = case.model
        since = onnx.defs.get_schema(node.op_type, model.opset_import[0].version).since_version
        for fed, expected in case.data_sets:
            inputs = _node_inputs(model, list(fed))
            if inputs is None:
                continue
            hit = ours.get((node.op_type, since, _attrs(model.graph.node[0]), repr(inputs),
                            _asked(model.graph.node[0])))
            if hit is None:
                continue
            name, got, tolerance = hit
            matched.append((case.name, name))
            exp = [numpy_helper.to_array(e) if isinstance(e, onnx.TensorProto) else
                   e if isinstance(e, list) or e is None else np.asarray(e) for e in expected]
            got = [g if isinstance(g, list) or g is None else np.asarray(g) for g in got]
            if len(exp) != len(got) or not all(_same(g, e) for g, e in zip(got, exp)):
                # onnx's value graded as a backend's would be against our case: within its tolerance
                # (onnx computes exp, sin, ... in float32 with numpy, a unit in the last place off at most)
                if compare_outputs(got, exp, tolerance).status != "pass" and not _printed(case.name, got, exp):
                    differ.append(f"{case.name} vs {name}")
    assert not differ, differ
    # Not vacuous: the documented examples with fixed data are mirrored.
    print(f"{len({m for m, _ in matched})} of onnx's node tests match one of our examples")
    assert len({m for m, _ in matched}) >= MIN_MATCHED, sorted({m for m, _ in matched})


# onnx node tests whose expected outputs are the documentation's printed digits, not computed values:
# ours (exact, and what onnxruntime and the reference evaluator give) must print the same.
PRINTED_DECIMALS = {"test_gridsample_bicubic": 4}  # -0.1406 for the exact -0.140625


def _printed(case: str, got: list, expected: list) -> bool:
    places = PRINTED_DECIMALS.get(case)
    return places is not None and len(got) == len(expected) and all(
        np.array_equal(np.round(np.asarray(g, np.float64), places).astype(np.asarray(e).dtype), np.asarray(e))
        for g, e in zip(got, expected))


MIN_MATCHED = 270  # 285 of onnx's node tests match one of our examples today

def test_where_onnx_rounds_twice_ours_is_the_correctly_rounded_value(generated_corpus):
    """ln(e^1 + e^2), the value onnx's ReduceLogSumExp examples print for the pair (1, 2)."""
    from decimal import Decimal, getcontext

    out, _ = generated_corpus
    getcontext().prec = 60
    exact = (Decimal(1).exp() + Decimal(2).exp()).ln()
    (ds,) = data_sets(str(out / "node" / "test_reduce_log_sum_exp_keepdims_example_opset18_double"))
    data, got = ds.inputs[0], ds.outputs[0]
    pairs = [(float(a), float(b)) for a, b in zip(data[:, 0, :].reshape(-1), data[:, 1, :].reshape(-1))]
    flat = got.reshape(-1)
    checked = 0
    for k, (a, b) in enumerate(pairs):
        if (a, b) == (1.0, 2.0):
            below, above = np.nextafter(flat[k], -np.inf), np.nextafter(flat[k], np.inf)
            mine = abs(Decimal(float(flat[k])) - exact)
            assert mine <= abs(Decimal(float(below)) - exact) and mine <= abs(Decimal(float(above)) - exact)
            checked += 1
    assert checked
