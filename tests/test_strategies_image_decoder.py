"""The ImageDecoder strategy draws streams onnx.checker and the semantics accept, lossless, and reaches its planted fault.

In process, as tests/test_strategies.py (whose draw loop and fault check this file runs): seeded draws of
ImageDecoder-20, each stream Pillow's lossless encoding of a drawn image, whose decode is that image; the
toy's fault of this section within 200 draws.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_strategies import _draws, _version
from tests.test_strategies import test_strategy_reaches_its_planted_fault as reaches

pytest.importorskip("PIL", reason="the ImageDecoder strategy encodes with Pillow (the images extra)")


def test_most_draws_build():
    """40 seeded draws: most build, each decodes to the source pixels, of the source's height and width, in
    the pixel format asked for; between them they meet every encoding this Pillow writes and each pixel format."""
    from onnx_conformance.harness.strategies.image_decoder import encodings

    op, v = _version("ImageDecoder", 20)
    seen = set()

    def check(t, case, model, feeds):
        (image,) = [x for x in case.outputs.values() if x is not None]
        stream = feeds[0][1]
        assert stream.dtype == np.uint8 and stream.ndim == 1 and stream.size > 0, stream
        fmt = case.attrs.get("pixel_format", "RGB")
        assert image.dtype == np.uint8 and image.shape[2] == (1 if fmt == "Grayscale" else 3), (fmt, image.shape)
        seen.add(fmt)
        seen.add(_container(stream.tobytes()))

    built = _draws(op, v, 40, check)
    assert len(built) >= 36, len(built)
    assert {"RGB", "BGR", "Grayscale"} <= seen and set(encodings()) <= seen, seen


def test_reaches_planted_fault(tmp_path):
    """Within 200 seeded draws one stream makes the toy answer wrong and the exact backend right."""
    reaches(None, "ImageDecoder", 20, "bmp_8bit_row_padding", 200, tmp_path)


def _container(data: bytes) -> str:
    """The encoding a stream is in, by its leading bytes, as Pillow's format names it."""
    signatures = {b"\x89PNG": "png", b"BM": "bmp", b"II*\x00": "tiff", b"MM\x00*": "tiff", b"P5": "ppm",
                  b"P6": "ppm", b"\x00\x00\x00\x0cjP": "jpeg2000", b"\xff\x4f\xff\x51": "jpeg2000"}
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return next((name for head, name in signatures.items() if data.startswith(head)), "unknown")
