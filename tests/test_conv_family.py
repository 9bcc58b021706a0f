"""The exact convolution oracles (generators/conv_family.py) against independent formulations, on small integer data."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from onnx_conformance.generators.conv_family import auto_pads, conv_transpose, convolve, deform_convolve, out_size, sample


def windowed(x, w, strides, pads, dilations, group):
    """Conv by explicit zero padding and numpy slicing (2-D, integers): a second formulation."""
    n, c = x.shape[:2]
    m, cg = w.shape[:2]
    kh, kw = w.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (xp.shape[3] - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    y = np.zeros((n, m, oh, ow), dtype=np.int64)
    per = m // group
    for b, o in itertools.product(range(n), range(m)):
        g = o // per
        for i, j in itertools.product(range(oh), range(ow)):
            patch = xp[b, g * cg:(g + 1) * cg,
                       i * strides[0]:i * strides[0] + dilations[0] * (kh - 1) + 1:dilations[0],
                       j * strides[1]:j * strides[1] + dilations[1] * (kw - 1) + 1:dilations[1]]
            y[b, o, i, j] = int((patch * w[o]).sum())
    return y


GEOMETRIES = [
    dict(strides=[1, 1], pads=[0, 0, 0, 0], dilations=[1, 1], group=1),
    dict(strides=[2, 3], pads=[1, 0, 2, 1], dilations=[1, 2], group=1),
    dict(strides=[1, 2], pads=[2, 2, 0, 1], dilations=[2, 1], group=2),
    dict(strides=[3, 1], pads=[0, 1, 1, 0], dilations=[1, 1], group=4),
]


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_convolve_equals_padded_windows(geometry):
    rng = np.random.default_rng(7)
    group = geometry["group"]
    x = rng.integers(-5, 6, size=(2, 4, 7, 6))
    w = rng.integers(-3, 4, size=(4, 4 // group, 3, 2))
    got = np.array(convolve(x, w, **geometry), dtype=np.int64)
    assert np.array_equal(got, windowed(x, w, **geometry))


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_conv_transpose_is_the_adjoint_of_convolve(geometry):
    """<conv(x, w), y> == <x, conv_transpose(y, w)>, W read as (C_in_of_transpose, ...) = conv's (M, C/group, ...)."""
    rng = np.random.default_rng(11)
    group = geometry["group"]
    x = rng.integers(-5, 6, size=(1, 4, 7, 6))
    w = rng.integers(-3, 4, size=(4, 4 // group, 3, 2))
    y_shape = np.array(convolve(x, w, **geometry)).shape
    y = rng.integers(-5, 6, size=y_shape)
    # conv_transpose of y must land back on x's spatial shape: output_padding makes up what the stride dropped
    full = [geometry["strides"][i] * (y_shape[2 + i] - 1) + geometry["dilations"][i] * (w.shape[2 + i] - 1) + 1
            - geometry["pads"][i] - geometry["pads"][2 + i] for i in range(2)]
    adj = [x.shape[2 + i] - full[i] for i in range(2)]
    back = conv_transpose(y, w, output_padding=adj, **geometry)
    assert back.shape == x.shape
    lhs = sum(int(a) * int(b) for a, b in zip(np.array(convolve(x, w, **geometry)).reshape(-1), y.reshape(-1)))
    rhs = sum(int(a) * int(b) for a, b in zip(x.reshape(-1), back.reshape(-1)))
    assert lhs == rhs


@pytest.mark.parametrize("mode", ["SAME_UPPER", "SAME_LOWER"])
def test_auto_pads_give_ceil_of_input_over_stride(mode):
    for size, k, s, d in itertools.product(range(1, 9), range(1, 5), range(1, 4), range(1, 3)):
        p = auto_pads([size], [k], [s], [d], mode)
        assert out_size(size, k, s, d, p[0], p[1]) == -(-size // s)
        begin, end = p
        assert abs(begin - end) <= 1
        assert (end >= begin) if mode == "SAME_UPPER" else (begin >= end)


def test_deform_convolve_with_integer_offsets_shifts_the_window():
    rng = np.random.default_rng(3)
    x = rng.integers(-5, 6, size=(1, 2, 5, 5))
    w = rng.integers(-3, 4, size=(3, 2, 2, 2))
    zero = np.zeros((1, 8, 4, 4), dtype=np.int64)
    assert np.array_equal(np.array(deform_convolve(x, w, zero), dtype=np.int64),
                          np.array(convolve(x, w), dtype=np.int64))
    down = zero.copy()
    down[:, 0::2] = 1  # every kernel element's row offset 1: each window one row further down
    shifted = np.array(deform_convolve(x, w, down), dtype=np.int64)
    raised = np.pad(x, ((0, 0), (0, 0), (0, 1), (0, 0)))[:, :, 1:]  # row r holds x's row r + 1, then a zero row
    assert np.array_equal(shifted, np.array(convolve(raised, w), dtype=np.int64))


def test_sample_interpolates_linearly_and_reads_zero_outside():
    from fractions import Fraction

    ch = np.array([[0, 10], [20, 30]], dtype=object)
    assert sample(ch, [Fraction(1, 2), Fraction(1, 4)]) == Fraction(25, 2)
    assert sample(ch, [Fraction(-1, 2), 1]) == 5  # halfway to the zero row above: half of 10
    assert sample(ch, [Fraction(3, 2), 1]) == 15  # halfway below the last row: half of 30
    assert sample(ch, [-1, 0]) == 0
