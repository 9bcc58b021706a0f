"""The image and signal oracles (generators/resize_family.py, generators/signal_family.py) against independent
double-precision computations and hand-worked values from the spec's formulas."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from onnx_conformance.generators import resize_family as rf
from onnx_conformance.generators import signal_family as sf


def test_resize_linear_half_pixel_by_hand():
    """[1, 2] up by 2, half_pixel: x_original = (x + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25 -> 1, 1.25, 1.75, 2."""
    x = np.array([[1.0, 2.0]], np.float32)
    y, _ = rf.resize(x, "float", rf.plan(x.shape, scales=[Fraction(1), Fraction(2)]), mode="linear")
    assert y.tolist() == [[1.0, 1.25, 1.75, 2.0]]


def test_resize_cubic_matches_float64_kernel_sum():
    rng = np.random.default_rng(0)
    x = rng.uniform(-8, 8, (5, 4))
    y, _ = rf.resize(x, "double", rf.plan(x.shape, scales=[Fraction(3, 2), Fraction(3, 4)]), mode="cubic")

    def weights(n, out, scale):
        w = np.zeros((out, n))
        for o in range(out):
            xo = (o + 0.5) / scale - 0.5
            f = int(np.floor(xo))
            for i in range(f - 1, f + 3):
                w[o, min(max(i, 0), n - 1)] += float(rf.keys(Fraction(i) - Fraction(xo), Fraction(-3, 4)))
        return w

    ref = weights(5, 7, 1.5) @ x @ weights(4, 3, 0.75).T
    assert np.max(np.abs(y - ref)) < 1e-12


def test_resize_nearest_modes_at_a_tie():
    half = Fraction(5, 2)
    assert [rf.nearest(half, m) for m in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")] == [2, 3, 2, 3]


def test_grid_sample_reflection_follows_the_doc_example():
    """'If pixel location x = -3.5 reflects by border -1 and becomes x' = 1.5, then reflects by border 1 and
    becomes x'' = 0.5' (normalised coordinates; with align_corners the borders are -1 and 1 exactly)."""
    n = 9  # pixel coordinate = (g + 1) / 2 * (n - 1)
    lo, hi = rf.bounds(n, True)
    got = rf.reflect(rf.unnormalize(Fraction(-7, 2), n, True), lo, hi)
    assert got == rf.unnormalize(Fraction(1, 2), n, True)


def test_affine_grid_identity_is_the_base_grid():
    theta = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], np.float32)
    grid, _ = rf.affine_grid(theta, [1, 1, 2, 4], "float", align_corners=False)
    assert grid[0, 0, :, 0].tolist() == [-0.75, -0.25, 0.25, 0.75]
    assert grid[0, :, 0, 1].tolist() == [-0.5, 0.5]


@pytest.mark.parametrize("inverse,onesided", [(False, False), (True, False), (False, True), (True, True)])
def test_dft_matches_numpy_fft_in_double(inverse, onesided):
    rng = np.random.default_rng(1)
    if inverse and onesided:
        spec = np.fft.rfft(rng.uniform(-4, 4, (3, 8)), axis=1)
        x = np.stack([spec.real, spec.imag], -1)
        y = sf.dft(x, 1, "double", inverse=True, onesided=True)
        ref = np.fft.irfft(spec, n=8, axis=1)[..., None]
    else:
        sig = rng.uniform(-4, 4, (3, 7)) + (0 if onesided else 1j * rng.uniform(-4, 4, (3, 7)))
        x = np.stack([sig.real, sig.imag], -1) if not onesided else sig.real[..., None]
        y = sf.dft(x, 1, "double", inverse=inverse, onesided=onesided)
        f = np.fft.ifft(sig, axis=1) if inverse else (np.fft.rfft(sig, axis=1) if onesided else np.fft.fft(sig, axis=1))
        ref = np.stack([f.real, f.imag], -1)
    assert y.shape == ref.shape
    assert np.max(np.abs(y - ref)) < 1e-12


def test_stft_frames_are_windowed_dfts():
    rng = np.random.default_rng(2)
    sig = rng.uniform(-1, 1, (1, 20, 1))
    win = np.hanning(6)
    y = sf.stft(sig, 5, 6, win, True, "double")
    for f in range(3):
        ref = np.fft.rfft(sig[0, 5 * f:5 * f + 6, 0] * win)
        assert np.max(np.abs(y[0, f, :, 0] - ref.real)) < 1e-12
        assert np.max(np.abs(y[0, f, :, 1] - ref.imag)) < 1e-12


@pytest.mark.parametrize("op,a", [("HannWindow", (0.5, 0.5, 0)), ("HammingWindow", (25 / 46, 21 / 46, 0)),
                                  ("BlackmanWindow", (0.42, 0.5, 0.08))])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_the_cosine_sum(op, a, periodic):
    n = np.arange(10)
    big_n = 10 if periodic else 9
    ref = a[0] - a[1] * np.cos(2 * np.pi * n / big_n) + a[2] * np.cos(4 * np.pi * n / big_n)
    got = np.array([float(w) for w in sf.window_values(op, 10, periodic)])
    assert np.max(np.abs(got - ref)) < 1e-15


def test_mel_weight_matrix_documented_example_is_zeros_and_ones():
    """onnx's test_melweightmatrix prints its expected output: each of the 8 filters a single 1."""
    w = sf.mel_weight_matrix(8, 16, 8192, 0.0, 4096.0)
    assert w.shape == (9, 8)
    assert sorted(set(w.reshape(-1))) == [0, 1]
    assert [int(np.argmax(w[:, i] == 1)) for i in range(8)] == [0, 0, 1, 1, 2, 3, 4, 5]


def test_onnx_bicubic_node_test_prints_our_values_to_four_decimals():
    """onnx's test_gridsample_bicubic writes its expected Y with 4 decimals (-0.1406 for -0.140625); ours are the
    exact bicubic values rounded once to float, which agree with those to the printed digits."""
    x = np.arange(6, dtype=np.float32).reshape(1, 1, 3, 2)
    g = np.array([[[[-1, -1], [-0.5, -0.5], [-0.2, -0.2], [0, 0]], [[0, 0], [-0.2, -0.2], [0.5, 0.5], [1, 1]]]],
                 np.float32)
    g_exact = np.vectorize(lambda e: Fraction(float(e)), otypes=[object])(g.astype(np.float64))
    y, _ = rf.grid_sample(x, g_exact, "float", "cubic", "zeros", False)
    printed = [[[[-0.1406, 0.3828, 1.7556, 2.9688], [2.9688, 1.7556, 5.1445, 1.3906]]]]
    assert np.array_equal(np.round(y.astype(np.float64), 4), np.array(printed))
    assert y[0, 0, 0, 0] == np.float32(-0.140625)


def test_image_decoder_lossless_formats_round_trip():
    pytest.importorskip("PIL")
    from onnx_conformance.generators.ops import image_decoder as idec

    image = idec.checkerboard()
    for fmt in ("png", "bmp", "tiff", "ppm", "jpeg2000"):
        assert np.array_equal(idec.pillow_decode(idec.encode(image, fmt), "RGB"), image), fmt
