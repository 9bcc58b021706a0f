"""Grades a backend's outputs against the expected ones: count, then per output shape, dtype, values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from onnx_conformance.harness import distribution, dtypes

# A case's tolerance: its index entry's `tolerance`, a dict with any of these keys (none: TOLERANCE).
TOLERANCE_KEYS: dict[str, str] = {
    "atol": "absolute: |got - expected| <= atol + rtol * |expected|, replacing the type's default (TOLERANCE)",
    "rtol": "relative, in the same inequality",
    "ulp": "float16, bfloat16, float, double: within this many units in the last place, or within atol",
    "distribution": "a random operator's case: output `output` (default 0) judged on its distribution "
                    "(harness/distribution.py's specs), not its values; the other outputs by the keys above",
}

# Default tolerance per ONNX dtype: |got - expected| <= atol + rtol * |expected|.
# rtol is a few units in the last place of the format, so a backend that rounds once more than
# the reference, reorders a small sum, or uses a vectorised exp/tanh/erf passes, while one that
# computes in a narrower type does not (float in float16: ~5e-4; double in float: ~6e-8).
# atol covers results that should be ~0 but come out as rounding noise of larger intermediates
# (x - mean, sin(pi)); it sits near the format's ulp at 1.0.
# Not listed = exact: integers, bool and string by definition; the float8/float4/e8m0 formats
# because the operators that accept them (Cast, QuantizeLinear, Identity, Reshape, Where, ...)
# either move data or round by a rule the spec states, so any difference is a rounding bug.
# A case's tolerance may override them (TOLERANCE_KEYS).
TOLERANCE: dict[str, tuple[float, float]] = {
    #             atol    rtol
    "double": (1e-12, 1e-9),  # eps 2.2e-16; still far below float's 6e-8 rounding
    "float": (1e-6, 1e-5),  # eps 1.2e-7: ~80 ulp, room for ORT's approximated transcendentals
    "float16": (1e-3, 2e-3),  # eps 9.8e-4: 2 ulp anywhere in a binade
    "bfloat16": (1e-2, 1.6e-2),  # eps 7.8e-3: 2 ulp anywhere in a binade
    "complex64": (1e-6, 1e-5),  # as float, on the modulus of the difference
    "complex128": (1e-12, 1e-9),  # as double
}

# Floats whose bit patterns are sign-magnitude with the sign in the top bit, for the ulp figure.
_ULP_INT = {"float16": np.int16, "bfloat16": np.int16, "float": np.int32, "double": np.int64}


@dataclass
class Comparison:
    status: str  # 'pass' or 'fail'
    detail: str = ""  # one line: what, where, got, expected
    max_abs_err: float | int | None = None  # over finite values; exact int for integer dtypes
    max_rel_err: float | None = None
    max_ulp: int | None = None  # float16/bfloat16/float/double only
    mismatches: int | None = None  # values outside tolerance, NaN/inf misplacements included
    first_bad_index: tuple[int, ...] | None = None  # first mismatch in C order, in the failing output


def compare_outputs(
    expected: list[np.ndarray],
    actual: list,
    tolerance: dict | None = None,
    dtype_names: list[str] | None = None,
) -> Comparison:
    """`dtype_names` gives the expected outputs' ONNX types when the caller knows them from the
    TensorProtos; otherwise they are read from the expected arrays. `tolerance`: TOLERANCE_KEYS."""
    if actual is None or not isinstance(actual, (list, tuple)):
        return Comparison("fail", f"outputs are {type(actual).__name__}, expected a list of {len(expected)}")
    if len(actual) != len(expected):
        return Comparison("fail", f"output count {len(actual)} != expected {len(expected)}")
    if tolerance and "distribution" in tolerance:
        return _judge(expected, actual, tolerance, dtype_names)
    total = Comparison("pass", mismatches=0)
    for k, (e, a) in enumerate(zip(expected, actual)):
        name = dtype_names[k] if dtype_names and k < len(dtype_names) else None
        one = _compare(f"output {k}", e, a, tolerance, name)
        if one.status != "pass":
            return one
        total.max_abs_err = _max(total.max_abs_err, one.max_abs_err)
        total.max_rel_err = _max(total.max_rel_err, one.max_rel_err)
        total.max_ulp = _max(total.max_ulp, one.max_ulp)
    return total


def _judge(expected: list, actual: list, tolerance: dict, dtype_names: list[str] | None) -> Comparison:
    """A random operator's case: the judged output's shape and type as any output's, then its values'
    distribution (distribution.check); every other output compared as usual."""
    spec = tolerance["distribution"]
    which = int(spec.get("output", 0))
    rest = {k: v for k, v in tolerance.items() if k != "distribution"} or None
    result = None
    for k, (e, a) in enumerate(zip(expected, actual)):
        name = dtype_names[k] if dtype_names and k < len(dtype_names) else None
        where = f"output {k}"
        if k != which:
            one = _compare(where, e, a, rest, name)
            if one.status != "pass":
                return one
            continue
        failed, e, a, want = _tensor_form(where, np.asarray(e), a, name, cast=False)
        if failed is not None:
            return failed
        status, detail, bad = distribution.check(a, spec, want)
        result = Comparison(status, f"{where}: {detail}", mismatches=bad)
        if status != "pass":
            return result
    return result or Comparison("fail", f"no output {which} to judge")


def _max(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def _compare(where: str, e: Any, a: Any, tolerance: dict | None, name: str | None) -> Comparison:
    if isinstance(e, (list, tuple)):  # a sequence output (foreign corpora)
        if not isinstance(a, (list, tuple)):
            return Comparison("fail", f"{where} is {_kind(a)}, expected a sequence of {len(e)}")
        if len(a) != len(e):
            return Comparison("fail", f"{where} sequence length {len(a)} != expected {len(e)}")
        total = Comparison("pass", mismatches=0)
        for i, (ei, ai) in enumerate(zip(e, a)):
            one = _compare(f"{where}[{i}]", ei, ai, tolerance, name)
            if one.status != "pass":
                return one
            total.max_abs_err = _max(total.max_abs_err, one.max_abs_err)
            total.max_rel_err = _max(total.max_rel_err, one.max_rel_err)
            total.max_ulp = _max(total.max_ulp, one.max_ulp)
        return total
    if isinstance(e, dict):  # a map output: the same keys, each value compared as a tensor
        return _compare_map(where, e, a, tolerance, name)
    if e is None:  # an empty optional
        if a is None:
            return Comparison("pass", mismatches=0)
        return Comparison("fail", f"{where} is {_kind(a)}, expected an empty optional")
    failed, e, a, want = _tensor_form(where, e, a, name, tolerance)
    if failed is not None:
        return failed
    if want == "string":
        es, as_ = _strings(e), _strings(a)
        return _compare_exact(where, es, as_, es, as_)
    if e.size == 0:
        return Comparison("pass", mismatches=0)
    if want in TOLERANCE or (tolerance and want != "bool"):
        return _compare_close(where, e, a, want, tolerance)
    return _compare_exact(where, e, a, e, a)


def _tensor_form(where: str, e: Any, a: Any, name: str | None, tolerance: dict | None = None,
                 cast: bool = True) -> tuple[Comparison | None, Any, Any, str | None]:
    """(the failure, or None when `a` is a tensor of `e`'s shape and type; both as arrays; the ONNX type).
    A tensor of another type is a failure that says, unless not `cast`, whether its values match once
    cast to the declared type (`tolerance`: the case's), as an adapter that widens a result would."""
    e = np.asarray(e) if isinstance(e, np.generic) else e
    a = np.asarray(a) if isinstance(a, np.generic) else a
    want = name or _name(e.dtype)
    if not isinstance(a, np.ndarray):
        return Comparison("fail", f"{where} is {_kind(a)}, expected a {want} tensor of shape {e.shape}"), e, a, want
    if a.shape != e.shape:
        return Comparison("fail", f"{where} shape {a.shape} != expected {e.shape}"), e, a, want
    got = _name(a.dtype)
    if got != want:
        said = f"{where} dtype {got} != expected {want}"
        if cast and _name(e.dtype) == want:  # (an expected array of another type than declared: no cast to try)
            said += f"; {_once_cast(e, a, want, tolerance)}"
        return Comparison("fail", said), e, a, want
    return None, e, a, want


def _once_cast(e: np.ndarray, a: np.ndarray, want: str, tolerance: dict | None) -> str:
    """Whether an answer of the wrong type would pass cast to the declared one: an adapter that hands
    back bfloat16 widened to float is told apart from a runtime that computes wrongly."""
    try:
        with np.errstate(all="ignore"):
            again = _compare("", e, a.astype(e.dtype), tolerance, want)
    except Exception:  # noqa: BLE001 - values no cast carries over (text as numbers): say so
        return f"the values cannot be cast to {want}"
    if again.status == "pass":
        return f"the values match once cast to {want}"
    return f"the values differ too, once cast to {want} ({again.mismatches} of {e.size})"


def _map_key(k: Any) -> str:
    """A map key as text: str and bytes keys alike (a MapProto holds bytes), integers as digits."""
    if isinstance(k, bytes):
        return k.decode("utf-8", "surrogateescape")
    return str(int(k)) if isinstance(k, (int, np.integer)) else str(k)


def _map_value(a: Any, e: Any) -> Any:
    """A runtime's map value as an array: Python scalars (onnxruntime's ZipMap returns dicts of
    Python floats) take the expected value's type; a 0-d array or numpy scalar stays as it is."""
    if isinstance(a, (bool, int, float, str, bytes)) and isinstance(e, np.ndarray):
        if e.dtype.kind in "OUS":
            return np.array(a, dtype=object)
        return np.array(a, dtype=e.dtype)
    return a


def _compare_map(where: str, e: dict, a: Any, tolerance: dict | None, name: str | None) -> Comparison:
    """A map output: the same keys (compared as text), each value compared as a 0-d tensor."""
    if not isinstance(a, dict):
        return Comparison("fail", f"{where} is {_kind(a)}, expected a map of {len(e)}")
    by_key_e = {_map_key(k): v for k, v in e.items()}
    by_key_a = {_map_key(k): v for k, v in a.items()}
    if sorted(by_key_a) != sorted(by_key_e):
        return Comparison("fail", f"{where} map keys {sorted(by_key_a)} != expected {sorted(by_key_e)}")
    keys = sorted(by_key_e)
    exp = [np.asarray(by_key_e[k]) for k in keys]
    return _compare(where, exp, [_map_value(by_key_a[k], x) for k, x in zip(keys, exp)], tolerance, name)


def _kind(x: Any) -> str:
    if x is None:
        return "None"
    if isinstance(x, (list, tuple)):
        return f"a {type(x).__name__} of {len(x)}"
    return type(x).__name__


_NAMES: dict[np.dtype, str] = {}  # numpy dtype -> its ONNX name, looked up once per dtype


def _name(dtype: np.dtype) -> str:
    name = _NAMES.get(dtype)
    if name is None:
        name = _NAMES[dtype] = _name_of(dtype)
    return name


def _name_of(dtype: np.dtype) -> str:
    if dtype.kind in "OUS":
        return "string"
    try:
        return dtypes.name_of_numpy(dtype)
    except (KeyError, TypeError, ValueError):
        return str(dtype)


def _strings(x: np.ndarray) -> np.ndarray:
    """TensorProto strings load as bytes, runtimes return str: compare the text."""
    flat = [v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else str(v) for v in x.reshape(-1)]
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(x.shape)


def _compare_exact(where: str, e: np.ndarray, a: np.ndarray, e_show: np.ndarray, a_show: np.ndarray) -> Comparison:
    """Integers, bool, strings and the 8/4-bit float formats: every value must be identical."""
    if _is_small_int(e.dtype):  # int4/uint4/int2/uint2: numpy integers carry the same values
        wide = np.int8 if ml_dtypes.iinfo(e.dtype).min < 0 else np.uint8
        e, a = e.astype(wide), a.astype(wide)
    if e.dtype.kind in "OUS":
        bad = e != a
    elif e.dtype.type.__module__ == "numpy":  # integers and bool: equal values are equal bytes
        if e.tobytes() == a.tobytes():
            return Comparison("pass", max_abs_err=_zero(e), mismatches=0)
        bad = e != a
    else:
        # ml_dtypes floats (float8*, float4e2m1): NaN matches NaN by position; +0 and -0 are equal.
        ef, af = e.astype(np.float32), a.astype(np.float32)
        bad = ~((ef == af) | (np.isnan(ef) & np.isnan(af)))
    count = int(np.count_nonzero(bad))
    if count == 0:
        return Comparison("pass", max_abs_err=_zero(e), mismatches=0)
    first = _index(np.argmax(bad.reshape(-1)), e.shape)
    result = Comparison("fail", mismatches=count, first_bad_index=first)
    idx = first
    head = f"{where}: {count} of {e.size} values differ"
    if e.dtype.kind in "iu":
        diff = _int_absdiff(e, a)
        flat = int(np.argmax(np.where(bad, diff, 0).reshape(-1)))
        idx = _index(flat, e.shape)
        result.max_abs_err = int(diff.reshape(-1)[flat])
        result.max_rel_err = _max_rel(diff, np.abs(e.astype(np.float64)), bad)
        head += f"; max abs err {result.max_abs_err} at index {idx}"
    else:
        head += f"; first at index {idx}"
    result.detail = f"{head}: got {_show(a_show, idx)} expected {_show(e_show, idx)}"
    return result


def _compare_close(where: str, e: np.ndarray, a: np.ndarray, name: str, tolerance: dict | None) -> Comparison:
    if e.tobytes() == a.tobytes():  # the common case: bit-identical, nothing to measure
        ulp = 0 if name in _ULP_INT else None
        return Comparison("pass", max_abs_err=_zero(e), max_rel_err=0.0, max_ulp=ulp, mismatches=0)
    atol, rtol = TOLERANCE.get(name, (0.0, 0.0))
    if tolerance:
        atol = float(tolerance.get("atol", atol))
        rtol = float(tolerance.get("rtol", rtol))
    if e.dtype.kind in "iu":  # an integer output given a tolerance by its case
        diff = _int_absdiff(e, a)
        ok = diff.astype(np.float64) <= atol + rtol * np.abs(e.astype(np.float64))
        return _close_result(where, e, a, ok, diff, None, None, finite=np.ones(e.shape, bool))
    # Widen losslessly so bfloat16/float16 arithmetic does not round the error itself.
    wide = np.complex128 if e.dtype.kind == "c" else np.float64
    ef, af = e.astype(wide), a.astype(wide)
    e_nan, a_nan = np.isnan(ef), np.isnan(af)
    e_inf, a_inf = np.isinf(ef), np.isinf(af)
    finite = ~(e_nan | a_nan | e_inf | a_inf)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(finite, np.abs(af - ef), 0.0)
        within = diff <= atol + rtol * np.abs(ef)
    if tolerance and "ulp" in tolerance and name in _ULP_INT:
        # a budget in representable steps from the correctly rounded value (generators/accuracy.py),
        # or within the case's absolute allowance where one is given
        steps = np.zeros(e.shape, np.uint64)
        steps[finite] = _ulp(e, a, finite)
        within = (steps <= int(tolerance["ulp"])) | (diff <= float(tolerance.get("atol", 0.0)))
    # NaN must sit where NaN is expected; an infinity must match exactly, sign included.
    ok = np.where(finite, within, (e_nan & a_nan) | ((e_inf & a_inf) & (ef == af)))
    ulp = _ulp(e, a, finite) if name in _ULP_INT else None
    return _close_result(where, e, a, ok, diff, ulp, ef, finite)


def _close_result(where, e, a, ok, diff, ulp, ef, finite) -> Comparison:
    bad = ~ok
    count = int(np.count_nonzero(bad))
    is_int = e.dtype.kind in "iu"
    result = Comparison("pass" if count == 0 else "fail", mismatches=count)
    if finite.any():
        flat_diff = np.where(finite, diff, 0).reshape(-1)
        result.max_abs_err = int(flat_diff.max()) if is_int else float(flat_diff.max())
        base = np.abs(e.astype(np.float64)) if ef is None else np.abs(ef)
        result.max_rel_err = _max_rel(diff, base, finite)
    else:
        result.max_abs_err, result.max_rel_err = (0 if is_int else 0.0), 0.0
    if ulp is not None:
        result.max_ulp = int(ulp.max()) if ulp.size else 0
    if count == 0:
        return result
    flat_bad = bad.reshape(-1)
    result.first_bad_index = _index(int(np.argmax(flat_bad)), e.shape)
    flat_finite = finite.reshape(-1)
    misplaced = flat_bad & ~flat_finite
    off = flat_bad & flat_finite
    parts = [f"{where}: {count} of {e.size} values differ"]
    if misplaced.any():
        # A NaN or infinity in the wrong place has no error figure; show it first.
        idx = _index(int(np.argmax(misplaced)), e.shape)
        parts.append(f"at index {idx}: got {_show(a, idx)} expected {_show(e, idx)}")
    if off.any():
        flat = int(np.argmax(np.where(off, diff.reshape(-1), 0)))
        idx = _index(flat, e.shape)
        err = _fmt(diff.reshape(-1)[flat])
        parts.append(f"max abs err {err} at index {idx}: got {_show(a, idx)} expected {_show(e, idx)}")
        if result.max_ulp:
            parts.append(f"max ulp {result.max_ulp}")
    text = "; ".join(parts)
    result.detail = text
    return result


def _max_rel(diff: np.ndarray, base: np.ndarray, mask: np.ndarray) -> float:
    """Largest |got - expected| / |expected| where expected is non-zero (elsewhere it is undefined)."""
    use = mask & (base != 0)
    if not use.any():
        return 0.0
    return float(np.max(diff[use].astype(np.float64) / base[use]))


def _is_small_int(dtype: np.dtype) -> bool:
    if dtype.type.__module__ == "numpy":
        return False
    try:
        ml_dtypes.iinfo(dtype)
        return True
    except ValueError:
        return False


def _ulp(e: np.ndarray, a: np.ndarray, finite: np.ndarray) -> np.ndarray:
    """Distance in representable values, over finite pairs. -0.0 and +0.0 are 0 apart."""
    ints = _ULP_INT[_name(e.dtype)]
    return _int_absdiff(_ordered(e.view(ints)), _ordered(a.view(ints)))[finite]


def _ordered(bits: np.ndarray) -> np.ndarray:
    """Sign-magnitude bit patterns -> integers in the same order as the floats they encode."""
    wide = bits.astype(np.int64)
    magnitude = wide & np.int64(np.iinfo(bits.dtype).max)
    return np.where(wide < 0, -magnitude, magnitude)


def _int_absdiff(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """|x - y| exactly, as uint64, for any integer arrays up to 64 bits (int64 extremes included).

    Subtracting in uint64 wraps modulo 2**64, and the true distance is below 2**64, so taking
    the larger minus the smaller is exact without ever going through float64.
    """
    if x.dtype.kind == "u" or y.dtype.kind == "u":
        xs, ys = x.astype(np.uint64), y.astype(np.uint64)
        larger = xs > ys
    else:
        xi, yi = x.astype(np.int64), y.astype(np.int64)
        xs, ys = xi.view(np.uint64), yi.view(np.uint64)
        larger = xi > yi
    return np.where(larger, xs - ys, ys - xs)


def _index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(int(flat), shape)) if shape else ()


def _zero(e: np.ndarray):
    return 0 if e.dtype.kind in "iub" else 0.0


def _show(x: np.ndarray, idx: tuple[int, ...]) -> str:
    """The value in its own type's shortest form: float32 0.1 reads 0.1, not 0.10000000149."""
    value = x[idx]
    return repr(value) if isinstance(value, str) else str(value)


def _fmt(value) -> str:
    return str(value) if isinstance(value, (int, np.integer)) else f"{float(value):.6g}"

