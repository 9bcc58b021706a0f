"""One-node models written to disk, for the adapter tests of each real runtime (tests/test_backend_*.py)."""

from __future__ import annotations

import onnx
import pytest
from onnx import helper


def model_file(tmp_path, op, inputs, output, opset=13, ir=8, **attrs) -> tuple[str, onnx.ModelProto]:
    """A model of one `op` node: inputs [(name, elem_type, shape)], one output y of (elem_type, shape);
    the file's path and the model."""
    node = helper.make_node(op, [n for n, _, _ in inputs], ["y"], **attrs)
    graph = helper.make_graph(
        [node], op.lower(),
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info("y", *output)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir
    path = tmp_path / f"{op}_{opset}_{output[0]}.onnx"
    onnx.save(model, path)
    return str(path), model


def prepare_model(adapter, path_and_model):
    """The adapter's prepared model, given the signature the runner would pass."""
    from onnx_conformance.harness.backends.base import signature_of

    path, model = path_and_model
    return adapter.prepare(path, signature=signature_of(model))


def raised(call, *args, **kwargs) -> BaseException:
    """The exception call(*args) raises (the test fails if it raises none)."""
    with pytest.raises(Exception) as info:
        call(*args, **kwargs)
    return info.value
