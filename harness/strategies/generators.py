"""Tensor generators: Constant (every value attribute the version has, sparse_value with flat or coordinate indices), ConstantOfShape (its shape input, value left out or of any type) and EyeLike (k on and past both ends, dtype given or not).

Constant's value is any tensor of the bound type, shape and edge values included; value_float(s),
value_int(s) and value_string(s) only where the binding is their one type ('float32', 'int64', 'UTF-8
string'). A sparse_value's indices are distinct and ascending (onnx.proto: 'indices ... must appear in
ascending order'), and none is drawn for float8e8m0, which has no zero for the rest of the tensor.
Range, a generator too, is drawn in shape.py.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from onnx import helper, numpy_helper

from onnx_conformance.harness.dtypes import elem_type_of
from onnx_conformance.harness.strategies.common import Family, Probe, dims, elements_of, shapes, tensors

SCALAR_FORMS = {"float": "value_float", "int64": "value_int", "string": "value_string"}
LIST_FORMS = {"float": "value_floats", "int64": "value_ints", "string": "value_strings"}


class Generators(Family):
    name = "tensor generators"
    operators = ("Constant", "ConstantOfShape", "EyeLike")

    def strategy(self, op, v, t):
        return {"Constant": _constant, "ConstantOfShape": _constant_of_shape, "EyeLike": _eye_like}[op.name](op, v, t)


def _plain(x):
    """A value_* attribute's Python value: a string, int or float (float32's value)."""
    return x if isinstance(x, str) else x.item()


@st.composite
def _constant(draw, op, v, t):
    forms = ["value"]
    if v.has_attribute("sparse_value") and t.dtype not in ("float8e8m0", "string"):
        forms.append("sparse_value")
    if v.has_attribute("value_float") and t.dtype in SCALAR_FORMS:
        forms += ["scalar", "list"]
    form = draw(st.sampled_from(forms), label="form")
    if form == "value":
        x = draw(tensors(t.dtype, draw(shapes(0, 4), label="shape")), label="value")
        return Probe({}, {"value": numpy_helper.from_array(np.asarray(x), "value")})
    if form == "scalar":
        x = draw(tensors(t.dtype, (1,)), label="value")
        return Probe({}, {SCALAR_FORMS[t.dtype]: _plain(x.reshape(-1)[0])})
    if form == "list":
        x = draw(tensors(t.dtype, (draw(dims(64).filter(bool), label="length"),)), label="values")
        return Probe({}, {LIST_FORMS[t.dtype]: [_plain(e) for e in x]})
    # onnx.checker: 'Sparse tensor ... dimensions are not positive' for a 0 among them
    shape = tuple(max(d, 1) for d in draw(shapes(1, 4, 1024), label="dense shape"))
    size = elements_of(shape)
    flat = sorted(draw(st.sets(st.integers(0, size - 1), max_size=min(size, 32)), label="positions")) if size else []
    vals = draw(tensors(t.dtype, (len(flat),)), label="values")
    flat = np.array(flat, dtype=np.int64)
    coordinates = len(shape) > 1 and draw(st.booleans(), label="coordinate indices")
    idx = np.stack(np.unravel_index(flat, shape), axis=1).astype(np.int64) if coordinates else flat
    sparse = helper.make_sparse_tensor(numpy_helper.from_array(vals, "sparse_values"),
                                       numpy_helper.from_array(idx, "sparse_indices"), list(shape))
    return Probe({}, {"sparse_value": sparse})


@st.composite
def _constant_of_shape(draw, op, v, t):
    shape = draw(shapes(0, 5), label="output shape")
    attrs = {}
    # 'If not specified, it defaults to a tensor of value 0 and datatype float32'
    if t["T2"] != "float" or draw(st.booleans(), label="give value"):
        fill = draw(tensors(t["T2"], (1,)), label="value")
        attrs["value"] = numpy_helper.from_array(fill, "value")
    return Probe({"input": np.array(shape, dtype=np.int64)}, attrs)


@st.composite
def _eye_like(draw, op, v, t):
    rows, cols = draw(dims(256), label="rows"), draw(dims(256), label="columns")
    x = draw(tensors(t["T1"], (rows, cols)), label="input")
    attrs = {}
    if t["T2"] != t["T1"] or draw(st.booleans(), label="give dtype"):
        attrs["dtype"] = elem_type_of(t["T2"])
    if draw(st.booleans(), label="give k"):
        # every diagonal, and past both corners (an all-zero output)
        attrs["k"] = draw(st.one_of(st.integers(-rows, cols), st.sampled_from([-rows - 1, cols + 1, 2**31, -2**40])),
                          label="k")
    return Probe({"input": x}, attrs)
