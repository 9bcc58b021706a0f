"""The comparator: order of checks, tolerances per dtype, NaN/inf/-0.0, ulp and exact integers."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from onnx_conformance.harness.compare import TOLERANCE, Comparison, compare_outputs

bf16 = ml_dtypes.bfloat16


def _one(expected, actual, **kw) -> Comparison:
    return compare_outputs([expected], [actual], **kw)


def test_count_is_checked_first():
    result = compare_outputs([np.zeros(2)], [np.zeros(3), np.zeros(3)])
    assert (result.status, result.detail) == ("fail", "output count 2 != expected 1")


def test_shape_before_dtype_before_values():
    expected = np.zeros((3, 1, 2), np.int64)
    assert _one(expected, np.ones((3, 2), np.int32)).detail == "output 0 shape (3, 2) != expected (3, 1, 2)"
    assert _one(expected, np.ones((3, 1, 2), np.int32)).detail == \
        "output 0 dtype int32 != expected int64; the values differ too, once cast to int64 (6 of 6)"
    assert _one(expected, np.ones((3, 1, 2), np.int64)).detail.startswith("output 0: 6 of 6 values differ")


def test_outputs_are_checked_in_order():
    result = compare_outputs([np.zeros(2), np.zeros(2)], [np.zeros(2), np.zeros(3)])
    assert result.detail == "output 1 shape (3,) != expected (2,)"


def test_value_detail_says_where_got_expected_and_ulp():
    expected = np.ones((2, 2, 3), np.float32)
    actual = expected.copy()
    actual[1, 0, 1] = 1.5
    actual[0, 2 // 2, 0] = 0.75
    actual[0, 0, 0] = 1.0000001  # within tolerance
    result = _one(expected, actual)
    assert result.detail == (
        "output 0: 2 of 12 values differ; max abs err 0.5 at index (1, 0, 1): got 1.5 expected 1.0; max ulp 4194304"
    )
    assert (result.mismatches, result.first_bad_index, result.max_abs_err, result.max_ulp) == (2, (0, 1, 0), 0.5, 4194304)


def test_nan_matches_nan_by_position_only():
    expected = np.array([np.nan, 1.0], np.float32)
    assert _one(expected, np.array([np.nan, 1.0], np.float32)).status == "pass"
    result = _one(expected, np.array([1.0, np.nan], np.float32))
    assert result.status == "fail" and result.mismatches == 2 and result.first_bad_index == (0,)
    assert result.detail == "output 0: 2 of 2 values differ; at index (0,): got 1.0 expected nan"


def test_infinity_must_match_with_its_sign():
    expected = np.array([np.inf, -np.inf], np.float64)
    assert _one(expected, expected.copy()).status == "pass"
    result = _one(expected, np.array([-np.inf, -np.inf]))
    assert result.detail == "output 0: 1 of 2 values differ; at index (0,): got -inf expected inf"
    assert _one(expected, np.array([1e308, -np.inf])).status == "fail"


def test_negative_zero_equals_zero():
    result = _one(np.array([0.0, -0.0], np.float32), np.array([-0.0, 0.0], np.float32))
    assert result.status == "pass" and result.max_ulp == 0 and result.max_abs_err == 0.0


@pytest.mark.parametrize(
    ("dtype", "a", "b", "ulp"),
    [
        (np.float32, 1.0, np.nextafter(np.float32(1.0), np.float32(2.0)), 1),
        (np.float32, np.float32(-1e-45), np.float32(1e-45), 2),  # across zero: -min, (-)0, +min
        (np.float16, 1.0, 1.5, 512),
        (np.float64, 1.0, 2.0, 2**52),
        (bf16, 1.0, 2.0, 128),
    ],
)
def test_ulp_counts_representable_values(dtype, a, b, ulp):
    result = _one(np.array([a], dtype), np.array([b], dtype), tolerance={"atol": 10.0})
    assert result.status == "pass" and result.max_ulp == ulp


def test_ulp_across_the_whole_double_range_does_not_overflow():
    big = np.finfo(np.float64).max
    result = _one(np.array([big]), np.array([-big]))
    assert result.max_ulp == 2 * 0x7FEFFFFFFFFFFFFF


def test_uint64_errors_are_exact():
    result = _one(np.array([2**64 - 1, 0], np.uint64), np.array([0, 0], np.uint64))
    assert result.max_abs_err == 2**64 - 1 and isinstance(result.max_abs_err, int)
    assert result.detail == (
        "output 0: 1 of 2 values differ; max abs err 18446744073709551615 at index (0,): "
        "got 0 expected 18446744073709551615"
    )
    # Adjacent huge values that float64 cannot tell apart still differ.
    assert _one(np.array([2**64 - 1], np.uint64), np.array([2**64 - 2], np.uint64)).max_abs_err == 1


def test_int64_extremes_do_not_overflow():
    result = _one(np.array([2**63 - 1], np.int64), np.array([-(2**63)], np.int64))
    assert result.max_abs_err == 2**64 - 1


def test_integers_and_bool_are_exact_by_default():
    assert _one(np.array([1, 2], np.int8), np.array([1, 3], np.int8)).status == "fail"
    result = _one(np.array([True, False]), np.array([True, True]))
    assert result.detail == "output 0: 1 of 2 values differ; first at index (1,): got True expected False"


def test_case_tolerance_overrides_the_dtype_default():
    expected, actual = np.array([1.0, 2.0], np.float32), np.array([1.0, 2.1], np.float32)
    assert _one(expected, actual).status == "fail"
    assert _one(expected, actual, tolerance={"atol": 0.2}).status == "pass"
    assert _one(expected, actual, tolerance={"rtol": 0.06}).status == "pass"
    assert _one(np.array([10], np.int32), np.array([11], np.int32), tolerance={"atol": 1}).status == "pass"


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float", "double"])
def test_default_tolerance_passes_two_ulp_but_not_four_rtol(name):
    dtype = np.dtype({"float16": np.float16, "bfloat16": bf16, "float": np.float32, "double": np.float64}[name])
    x = np.array([3.0, 0.7, 1000.0], dtype)
    # Two representable values up: for positive floats, +2 on the bit pattern.
    bits = np.dtype(f"u{dtype.itemsize}")
    two_ulp = (x.view(bits) + bits.type(2)).view(dtype)
    assert _one(x, two_ulp).status == "pass"
    rtol = TOLERANCE[name][1]
    assert _one(x, (x.astype(np.float64) * (1 + 4 * rtol)).astype(dtype)).status == "fail"


def test_float8_is_exact_but_nan_matches_nan():
    f8 = ml_dtypes.float8_e4m3fn
    assert _one(np.array([1, np.nan], f8), np.array([1, np.nan], f8)).status == "pass"
    result = _one(np.array([1, -2], f8), np.array([1, -2.25], f8))
    assert result.detail == "output 0: 1 of 2 values differ; first at index (1,): got -2.25 expected -2"


def test_bfloat16_values_are_compared_without_bfloat16_rounding():
    result = _one(np.array([256.0], bf16), np.array([258.0], bf16))
    assert result.max_abs_err == 2.0 and result.max_ulp == 1


def test_strings_compare_text_not_bytes():
    assert _one(np.array([b"ab", b"c"], object), np.array(["ab", "c"], object)).status == "pass"
    result = _one(np.array([b"ab", b"c"], object), np.array(["ab", "d"], object))
    assert result.detail == "output 0: 1 of 2 values differ; first at index (1,): got 'd' expected 'c'"


def test_non_tensor_outputs_fail_clearly():
    expected = [np.zeros((2,), np.float32)]
    assert compare_outputs(expected, [None]).detail == "output 0 is None, expected a float tensor of shape (2,)"
    assert compare_outputs(expected, [[1.0, 2.0]]).detail == "output 0 is a list of 2, expected a float tensor of shape (2,)"
    assert compare_outputs(expected, None).detail == "outputs are NoneType, expected a list of 1"


def test_sequence_outputs_compare_elementwise():
    expected = [[np.array([1], np.int64), np.array([2], np.int64)]]
    assert compare_outputs(expected, [[np.array([1], np.int64), np.array([2], np.int64)]]).status == "pass"
    assert compare_outputs(expected, [[np.array([1], np.int64)]]).detail == "output 0 sequence length 1 != expected 2"
    result = compare_outputs(expected, [[np.array([1], np.int64), np.array([3], np.int64)]])
    assert result.detail.startswith("output 0[1]: 1 of 1 values differ")


def test_dtype_names_from_the_caller_win():
    result = compare_outputs([np.zeros(2, np.uint8)], [np.zeros(2, np.uint8)], dtype_names=["float8e4m3fn"])
    assert result.detail == "output 0 dtype uint8 != expected float8e4m3fn"


def test_numpy_scalar_outputs_are_tensors():
    assert _one(np.array(3.0, np.float32), np.float32(3.0)).status == "pass"
    assert _one(np.array(3.0, np.float32), np.float64(3.0)).detail == \
        "output 0 dtype double != expected float; the values match once cast to float"


def test_pass_reports_the_largest_error_seen():
    result = compare_outputs(
        [np.array([1.0], np.float32), np.array([2.0], np.float32)],
        [np.array([1.0], np.float32), np.array([2.0000002], np.float32)],
    )
    assert result.status == "pass" and result.max_ulp == 1 and result.mismatches == 0
    assert result.first_bad_index is None and result.detail == ""


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(max_dims=3, max_side=4)))
def test_any_float_array_matches_itself(x):
    assert _one(x, x.copy()).status == "pass"


@settings(max_examples=200, deadline=None)
@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_next_float_is_one_ulp_away(value):
    a = np.float32(value)
    with np.errstate(over="ignore"):
        b = np.nextafter(a, np.float32(np.inf))
    if np.isinf(b):
        return
    result = _one(np.array([a]), np.array([b]), tolerance={"atol": 1.0, "rtol": 1.0})
    assert result.max_ulp == 1


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_a_ulp_budget_counts_steps_from_the_correctly_rounded_value(dtype):
    """{"ulp": N}: N representable values away passes, N + 1 fails and says how far."""
    e = np.array([1.0, -3.5, np.nan, np.inf], dtype)
    two = e.copy()
    two[:2] = [np.nextafter(np.nextafter(v, dtype(np.inf)), dtype(np.inf)) for v in e[:2]]
    assert compare_outputs([e], [two], {"ulp": 2}).status == "pass"
    result = compare_outputs([e], [two], {"ulp": 1})
    assert result.status == "fail" and result.max_ulp == 2 and "max ulp 2" in result.detail
    moved_nan = two.copy()
    moved_nan[2], moved_nan[3] = 0.0, np.nan
    assert compare_outputs([e], [moved_nan], {"ulp": 1000}).status == "fail"


def test_a_ulp_budget_with_an_absolute_allowance_near_zero():
    e = np.array([1e-30, 1.0], np.float32)
    a = np.array([2e-30 + 1e-8, 1.0], np.float32)  # millions of ulp off, but within atol
    assert compare_outputs([e], [a], {"ulp": 16}).status == "fail"
    assert compare_outputs([e], [a], {"ulp": 16, "atol": 4 * 2.0**-23}).status == "pass"


def test_every_tolerance_key_the_corpus_uses_is_defined():
    """The tolerance's schema is compare.TOLERANCE_KEYS: the committed index uses no other key."""
    import json
    from pathlib import Path

    from onnx_conformance.harness.compare import TOLERANCE_KEYS

    index = json.loads((Path(__file__).resolve().parent.parent / "cases" / "index.json").read_text(encoding="utf-8"))
    used = {k for entry in index["cases"].values() for k in (entry.get("tolerance") or {})}
    assert used and used <= TOLERANCE_KEYS.keys(), used - TOLERANCE_KEYS.keys()
