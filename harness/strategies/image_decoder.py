"""ImageDecoder: new images, encoded losslessly by Pillow at draw time, decoded to RGB, BGR or Grayscale.

An image is 1 to 64 pixels high and wide (sizes around BMP's 4-byte rows and vector widths come often:
1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 33, 63, 64), of 1 or 3 channels, its pixels distinct (a misplaced one
shows: common.tensors, with up to 16 of them drawn, 0 and 255 among them), one value, a gradient along
either axis or both, or 0 and 255 in drawn tiles. It is encoded in a lossless encoding Pillow writes
(the `images` extra): PNG at a drawn compress_level with or without optimize; BMP (8-bit rows with a
grey palette for one channel, 24-bit for three); TIFF raw or compressed by LZW, deflate or PackBits, in
strips of a drawn size; PPM or PGM; lossless WebP at a drawn method and effort; JPEG 2000 with the
reversible wavelet, as a JP2 file or a bare codestream, at a drawn number of resolutions and
progression order. An encoding this Pillow lacks (webp, jpg_2000, libtiff for compressed TIFF) is not
drawn. The expected image is the semantics' (generators/ops/image_decoder.py: Pillow's decode of the
stream), which must be the source pixels themselves in the pixel format asked for; a draw whose stream
Pillow cannot write, or does not read back to the very pixels it was given, is discarded, with why.
Lossy encodings (JPEG, lossy WebP) are not drawn: their expected value is one decoder's rounding, and
the corpus's examples already cover them with a tolerance. Grayscale is asked of one-channel images
only: the spec names no RGB-to-gray formula. Without Pillow nothing is drawn (see ImageDecoding.covers).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

from onnx_conformance.harness.strategies.common import Discard, Family, Probe, element_values, tensors

MAX_SIDE = 64  # pixels: the corpus's images are 32 x 32 and smaller
SIDES = (1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 33, 63, 64)  # around BMP's 4-byte rows and vector widths
NO_PILLOW = "ImageDecoder needs Pillow, the `images` extra, to encode new streams"
PATTERNS = ("distinct", "constant", "gradient", "tiles")
TIFF_COMPRESSIONS = ("raw", "tiff_lzw", "tiff_adobe_deflate", "packbits")
JPEG2000_ORDERS = ("LRCP", "RLCP", "RPCL", "PCRL", "CPRL")


@lru_cache(maxsize=None)
def _pillow() -> bool:
    from importlib.util import find_spec

    return find_spec("PIL") is not None


@lru_cache(maxsize=None)
def encodings() -> tuple[str, ...]:
    """The lossless encodings this Pillow writes, in the order a find shrinks toward."""
    from PIL import features

    out = ["png", "bmp", "tiff", "ppm"]
    if features.check("webp"):
        out.append("webp")
    if features.check("jpg_2000"):
        out.append("jpeg2000")
    return tuple(out)


class ImageDecoding(Family):
    name = "image decoding"
    operators = ("ImageDecoder",)

    def covers(self, op, v):
        why = super().covers(op, v)
        return NO_PILLOW if why is None and not _pillow() else why

    def strategy(self, op, v, t):
        return _stream()

    def case(self, op, v, t, probe):
        from onnx_conformance.generators.ops.image_decoder import layout

        if "discard" in probe.extra:
            raise Discard(probe.extra["discard"])
        case = op.expect(v, probe.inputs, probe.attrs, tolerance=None)  # lossless: compared exactly
        image, written = probe.extra["image"], probe.extra["written"]
        if not np.array_equal(case.outputs["image"], layout(image, probe.attrs.get("pixel_format", "RGB"))):
            raise Discard(f"Pillow's {written} of this {image.shape} image does not decode to its pixels")
        return case


# ---------------------------------------------------------------------------------------------
# the image


_SIDE = st.one_of(st.sampled_from(SIDES), st.integers(1, MAX_SIDE))


@st.composite
def _image(draw):
    shape = (draw(_SIDE, label="height"), draw(_SIDE, label="width"), draw(st.sampled_from([3, 1]), label="channels"))
    pattern = draw(st.sampled_from(PATTERNS), label="pattern")
    if pattern == "distinct":
        return draw(tensors("uint8", shape), label="pixels")
    if pattern == "constant":
        return np.full(shape, draw(element_values("uint8"), label="value"), np.uint8)
    h, w, c = shape
    if pattern == "gradient":  # 0 to 255 along the drawn axes, each channel from its own start
        along = draw(st.sampled_from(["width", "height", "both"]), label="along")
        i, j = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
        ramp = {"width": j * 255 // max(w - 1, 1), "height": i * 255 // max(h - 1, 1),
                "both": (i + j) * 255 // max(h + w - 2, 1)}[along]
        return ((ramp[:, :, None] + 85 * np.arange(c)) % 256).astype(np.uint8)
    tile = draw(st.integers(1, 8), label="tile")  # 0 and 255 only: the extremes, in tiles a run-length coder meets
    i, j = np.meshgrid(np.arange(h) // tile, np.arange(w) // tile, indexing="ij")
    return np.repeat((((i + j) % 2) * 255).astype(np.uint8)[:, :, None], c, axis=2)


# ---------------------------------------------------------------------------------------------
# the stream


@st.composite
def _options(draw, fmt: str, shape) -> dict:
    """Pillow's save options for fmt, each lossless."""
    if fmt == "png":
        return {"compress_level": draw(st.integers(0, 9), label="compress_level"),
                "optimize": draw(st.booleans(), label="optimize")}
    if fmt == "tiff":
        from PIL import features

        compressions = TIFF_COMPRESSIONS if features.check("libtiff") else TIFF_COMPRESSIONS[:1]
        row = shape[1] * shape[2]
        return {"compression": draw(st.sampled_from(compressions), label="compression"),
                "strip_size": row * draw(st.sampled_from([65536, 1, 2, 3, 7]), label="rows a strip")}
    if fmt == "webp":
        return {"lossless": True, "method": draw(st.integers(0, 6), label="method"),
                "quality": draw(st.sampled_from([0, 50, 80, 100]), label="effort")}
    if fmt == "jpeg2000":  # a resolution level halves the image: at most one per halving down to 1 pixel
        levels = min(shape[0], shape[1]).bit_length()
        return {"irreversible": False, "no_jp2": draw(st.booleans(), label="bare codestream"),
                "num_resolutions": draw(st.integers(1, min(levels, 6)), label="num_resolutions"),
                "progression": draw(st.sampled_from(JPEG2000_ORDERS), label="progression")}
    return {}


@st.composite
def _stream(draw):
    from onnx_conformance.generators.ops.image_decoder import encode

    image = draw(_image(), label="image")
    fmt = draw(st.sampled_from(encodings()), label="encoding")
    options = draw(_options(fmt, image.shape), label="options")
    formats = [None, "RGB", "BGR"] + (["Grayscale"] if image.shape[2] == 1 else [])
    pixel_format = draw(st.sampled_from(formats), label="pixel_format")  # None: left out, RGB by default
    attrs = {} if pixel_format is None else {"pixel_format": pixel_format}
    written = f"{fmt} {options}" if options else fmt
    try:
        data = encode(image, fmt, **options)
    except (OSError, ValueError) as e:
        return Probe({}, attrs, extra={"discard": f"Pillow cannot write {written} of a {image.shape} image: {e}"})
    return Probe({"encoded_stream": np.frombuffer(data, np.uint8).copy()}, attrs,
                 extra={"image": image, "written": written})
