"""Fuzzing the case loader and the comparator (issue 6): for any bytes, any tensor, any pair of
arrays, the only outcomes are a result or the documented error, never a crash or another exception.

Short in CI (50 examples per test). Longer on demand:
    FUZZ_EXAMPLES=5000 python -m pytest tests/test_fuzz.py -p no:xdist
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from onnx import TensorProto

from onnx_conformance.harness import case_files, safety
from onnx_conformance.harness.compare import compare_outputs
from onnx_conformance.harness.executor import DETAIL_LIMIT, run_case
from onnx_conformance.harness.results import STATUSES
from tests.conftest import add_case
from tests.toybackends.toy import EchoAdapter

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "50"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> dict[str, bytes]:
    """The files of a valid case, to mutate."""
    case = add_case(tmp_path_factory.mktemp("template"), "test_add")
    return {rel: (case / rel).read_bytes() for rel in
            ("model.onnx", "test_data_set_0/input_0.pb", "test_data_set_0/input_1.pb",
             "test_data_set_0/output_0.pb")}


def _load(files: dict[str, bytes]) -> dict:
    """A case directory holding `files`, loaded the way the executor loads it."""
    with tempfile.TemporaryDirectory() as tmp:
        case = Path(tmp) / "corpus" / "test_fuzz"
        (case / "test_data_set_0").mkdir(parents=True)
        (Path(tmp) / "outside.bin").write_bytes(bytes(64))  # something to climb out to
        for rel, data in files.items():
            (case / rel).write_bytes(data)
        try:
            safety.check_case(str(case))
        except case_files.UnsafeCase as e:  # the documented error: one line, naming a file
            text = str(e)
            assert text and "\n" not in text, text
        message = {"name": "test_fuzz", "path": str(case), "kind": "expect-output"}
        result = run_case(EchoAdapter(), message)
    assert result["status"] in STATUSES, result
    detail = result.get("detail")
    assert detail is None or ("\n" not in detail and len(detail) <= DETAIL_LIMIT), detail
    if result["status"] == "error":
        assert result["stage"] in ("load", "run", "compare"), result
    return result


def _mutate(data: bytes, edits) -> bytes:
    out = bytearray(data)
    for where, op, value in edits:
        i = where % (len(out) + 1)
        if op == "flip" and out:
            out[i % len(out)] ^= 1 << (value % 8)
        elif op == "set" and out:
            out[i % len(out)] = value
        elif op == "insert":
            out[i:i] = bytes([value])
        elif op == "delete" and out:
            del out[i % len(out)]
        elif op == "truncate":
            del out[i:]
    return bytes(out)


EDITS = st.lists(st.tuples(st.integers(0, 1 << 16),
                           st.sampled_from(["flip", "set", "insert", "delete", "truncate"]),
                           st.integers(0, 255)), min_size=1, max_size=8)
FILES = st.sampled_from(["model.onnx", "test_data_set_0/input_0.pb",
                         "test_data_set_0/output_0.pb"])


@FUZZ
@given(which=FILES, data=st.binary(max_size=4096))
def test_any_bytes_in_any_file(template, which, data):
    _load({**template, which: data})


@FUZZ
@given(which=FILES, edits=EDITS)
def test_mutated_valid_files(template, which, edits):
    _load({**template, which: _mutate(template[which], edits)})


LOCATIONS = st.one_of(
    st.sampled_from(["w.bin", "../outside.bin", "../../outside.bin", "/etc/passwd",
                     "sub/../../outside.bin", "..\\..\\outside.bin", "C:\\x", "", ".", "..",
                     "test_data_set_0/input_0.pb", "\x00", "a/./b/../w.bin"]),
    st.text(max_size=30))


@st.composite
def tensors(draw) -> bytes:
    """TensorProtos with arbitrary dims, types, payloads and external-data metadata."""
    t = TensorProto()
    t.data_type = draw(st.one_of(st.sampled_from(list(TensorProto.DataType.values())),
                                 st.integers(-5, 10**6)))
    t.dims.extend(draw(st.lists(st.one_of(st.integers(0, 8), st.integers(-2**63, 2**63 - 1)),
                                max_size=5)))
    payload = draw(st.sampled_from(["raw", "float", "int32", "int64", "string", "none"]))
    if payload == "raw":
        t.raw_data = draw(st.binary(max_size=256))
    elif payload == "float":
        t.float_data.extend(draw(st.lists(st.floats(width=32), max_size=40)))
    elif payload == "int32":
        t.int32_data.extend(draw(st.lists(st.integers(-2**31, 2**31 - 1), max_size=40)))
    elif payload == "int64":
        t.int64_data.extend(draw(st.lists(st.integers(-2**63, 2**63 - 1), max_size=40)))
    elif payload == "string":
        t.string_data.extend(draw(st.lists(st.binary(max_size=8), max_size=40)))
    if draw(st.booleans()):
        t.data_location = TensorProto.EXTERNAL
        keys = draw(st.lists(st.tuples(st.sampled_from(["location", "offset", "length",
                                                        "checksum", "other"]),
                                       LOCATIONS), max_size=4))
        for key, value in keys:
            entry = t.external_data.add()
            entry.key, entry.value = key, value
    return t.SerializeToString()


@FUZZ
@given(which=st.sampled_from(["test_data_set_0/input_0.pb", "test_data_set_0/output_0.pb"]),
       tensor=tensors(), external=st.binary(max_size=64))
def test_arbitrary_tensors_as_test_data(template, which, tensor, external):
    _load({**template, which: tensor, "w.bin": external})


@FUZZ
@given(tensor=tensors())
def test_arbitrary_tensors_as_initializers(template, tensor):
    model = onnx.ModelProto()
    model.ParseFromString(template["model.onnx"])
    init = model.graph.initializer.add()
    init.ParseFromString(tensor)
    init.name = "w"
    _load({**template, "model.onnx": model.SerializeToString(), "w.bin": bytes(24)})


# -- the comparator -------------------------------------------------------------------------------

NUMPY_TYPES = [np.float16, np.float32, np.float64, np.complex64, np.complex128, np.int8,
               np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.bool_]
# ml_dtypes formats, drawn as their bits and viewed
BIT_TYPES = [(ml_dtypes.bfloat16, np.uint16), (ml_dtypes.float8_e4m3fn, np.uint8),
             (ml_dtypes.float8_e5m2, np.uint8), (ml_dtypes.float8_e4m3fnuz, np.uint8),
             (ml_dtypes.int4, np.int8), (ml_dtypes.uint4, np.uint8)]
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


@st.composite
def arrays(draw, shape=None):
    shape = draw(SHAPES) if shape is None else shape
    if draw(st.integers(0, 3)) == 0:
        kind, bits = draw(st.sampled_from(BIT_TYPES))
        if kind in (ml_dtypes.int4, ml_dtypes.uint4):
            info = ml_dtypes.iinfo(kind)
            raw = draw(hnp.arrays(np.int8, shape, elements=st.integers(int(info.min),
                                                                       int(info.max))))
            return raw.astype(kind)
        return draw(hnp.arrays(bits, shape)).view(kind)
    dtype = draw(st.sampled_from(NUMPY_TYPES))
    return draw(hnp.arrays(dtype, shape))  # NaN, ±inf, -0.0 and extremes included


TOLERANCES = st.one_of(st.none(), st.fixed_dictionaries(
    {}, optional={"atol": st.floats(0, 1e3), "rtol": st.floats(0, 1e3)}))


def _check(result, expected_count: int) -> None:
    assert result.status in ("pass", "fail"), result
    assert isinstance(result.detail, str) and "\n" not in result.detail
    if result.status == "fail":
        assert result.detail


@FUZZ
@given(expected=st.lists(arrays(), max_size=3), data=st.data(), tolerance=TOLERANCES)
def test_comparator_any_arrays(expected, data, tolerance):
    actual = data.draw(st.one_of(
        st.lists(arrays(), max_size=3),
        st.just(list(expected)),
        st.lists(st.one_of(st.none(), st.integers(), st.text(max_size=3),
                           st.lists(st.integers(), max_size=2)), max_size=3),
        st.none()))
    _check(compare_outputs(expected, actual, tolerance), len(expected))


@FUZZ
@given(data=st.data(), tolerance=TOLERANCES)
def test_comparator_same_shape_pairs(data, tolerance):
    """Same shape, often the same dtype: the paths that measure errors and ulps."""
    shape = data.draw(SHAPES)
    expected = data.draw(arrays(shape))
    same = data.draw(st.booleans())
    actual = data.draw(hnp.arrays(expected.dtype, shape)) if same and \
        expected.dtype.type.__module__ == "numpy" else data.draw(arrays(shape))
    _check(compare_outputs([expected], [actual], tolerance), 1)
    # And anything equals itself, NaN included.
    assert compare_outputs([expected], [expected.copy()], tolerance).status == "pass"
