"""ImageDecoder: an encoded image (uint8 bytes) in, its pixels (H, W, C) uint8 out, in RGB, BGR or Grayscale.

The images are encoded with Pillow once, by `python -m onnx_conformance.generators.ops.image_decoder` (the
`images` extra's pinned release), which writes every stream and its decode to image_decoder_pinned.json beside
this module; cases are written from those bytes, so the corpus is the same whether Pillow is installed or not
(issue 32), and a test re-encodes them when it is. Lossless encodings (PNG, BMP, TIFF, PNM, lossless JPEG 2000
and WebP) must decode to the very pixels encoded: the expected output is the source image itself, compared
exactly. Lossy encodings (JPEG, lossy WebP) decode to what the decoder makes of them: the expected output is
Pillow's decode (libjpeg-turbo, libwebp), and another conforming decoder may differ by its IDCT / colour-conversion
rounding, so those cases allow ATOL_LOSSY levels (ATOL_LOSSY_GRAY where a colour image is decoded to Grayscale,
whose conversion the spec leaves to the decoder). Grayscale from lossless data is exercised with grayscale sources
only (a single channel stored as is); the spec names no RGB-to-gray formula.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.semantics import Rejected, Undefined, attr

OPERATOR = Operator("ImageDecoder")

ATOL_LOSSY = 2
ATOL_LOSSY_GRAY = 3
PINNED = Path(__file__).with_name("image_decoder_pinned.json")
_pinning: dict | None = None  # while pin() runs: what Pillow encodes and decodes, recorded


class PinError(Exception):
    """The pinned streams are unreadable or lack one an example asks for: a generator bug, not a bad stream."""


def checkerboard(height=32, width=32, tile=5, seed=12345) -> np.ndarray:
    """onnx's documented test image: tiles of `tile` pixels, each a random colour (numpy's legacy generator
    seeded 12345, as the documented example seeds it); the right and bottom remainders stay black."""
    colors = np.random.RandomState(seed).randint(0, 256, size=(height // tile, width // tile, 3), dtype=np.uint8)
    image = np.zeros((height, width, 3), np.uint8)
    for i in range(height // tile):
        for j in range(width // tile):
            image[i * tile:(i + 1) * tile, j * tile:(j + 1) * tile] = colors[i, j]
    return image


def request_key(image: np.ndarray, fmt: str, options: dict) -> str:
    """What an encoding is of: the format, the encoder's options and the source pixels (so a changed example
    finds no stale stream)."""
    h = hashlib.sha256(json.dumps([fmt, options, list(image.shape), str(image.dtype)], sort_keys=True).encode())
    h.update(np.ascontiguousarray(image).tobytes())
    return h.hexdigest()


@lru_cache(maxsize=None)
def pinned() -> dict:
    """image_decoder_pinned.json: streams by request_key, decodes by '<sha256 of the stream> <pixel format>'."""
    try:
        data = json.loads(PINNED.read_bytes())
        return {"streams": {k: base64.b64decode(r["stream"]) for k, r in data["streams"].items()},
                "decoded": {k: np.frombuffer(base64.b64decode(r["pixels"]), np.uint8).reshape(r["shape"])
                            for k, r in data["decoded"].items()}}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise PinError(f"{PINNED}: cannot read the pinned images ({type(e).__name__}: {e})") from None


def encoded(image: np.ndarray, fmt: str, **options) -> bytes:
    """The stream Pillow writes for image in fmt, as pinned."""
    key = request_key(image, fmt, options)
    if _pinning is not None:
        _pinning["streams"][key] = {"format": fmt, "options": options, "stream": encode(image, fmt, **options)}
        return _pinning["streams"][key]["stream"]
    try:
        return pinned()["streams"][key]
    except KeyError:
        raise PinError(f"{PINNED}: no {fmt} stream pinned for this {image.shape} image with options {options}; "
                       f"pin it with `python -m onnx_conformance.generators.ops.image_decoder` "
                       f"(needs the images extra)") from None


def decoded(data: bytes, pixel_format: str) -> np.ndarray:
    """Pillow's decode of data in pixel_format: as pinned where data is a pinned stream."""
    key = f"{hashlib.sha256(data).hexdigest()} {pixel_format}"
    if _pinning is not None:
        _pinning["decoded"][key] = pillow_decode(data, pixel_format)
        return _pinning["decoded"][key]
    found = pinned()["decoded"].get(key)
    return found.copy() if found is not None else pillow_decode(data, pixel_format)


def encode(image: np.ndarray, fmt: str, **options) -> bytes:
    import PIL.Image  # noqa: PLC0415  (optional dependency)

    pil = PIL.Image.fromarray(image[:, :, 0] if image.shape[-1] == 1 else image)
    with io.BytesIO() as f:
        pil.save(f, format=fmt, **options)
        return f.getvalue()


def pillow_decode(data: bytes, pixel_format: str) -> np.ndarray:
    import PIL.Image  # noqa: PLC0415

    pil = PIL.Image.open(io.BytesIO(data))
    if pixel_format == "Grayscale":
        return np.array(pil.convert("L"))[:, :, np.newaxis]
    rgb = np.array(pil.convert("RGB"))
    return rgb[:, :, ::-1] if pixel_format == "BGR" else rgb


def layout(image: np.ndarray, pixel_format: str) -> np.ndarray:
    """The source pixels as the decoder must return them (lossless)."""
    if pixel_format == "Grayscale":
        assert image.shape[-1] == 1
        return image
    if image.shape[-1] == 1:  # a grayscale source decoded to colour: R = G = B
        image = np.repeat(image, 3, axis=-1)
    return image[:, :, ::-1] if pixel_format == "BGR" else image


@OPERATOR.semantics
def decode(v, attrs, inputs):
    """The image the stream encodes, (Height, Width, Channels) uint8 in pixel_format ('Can be one of "RGB", "BGR",
    or "Grayscale"'). Lossless encodings decode to the very pixels encoded. A lossy encoding (JPEG, lossy WebP)
    decodes to what a decoder makes of it, and colour decoded to Grayscale by a formula the spec does not name: the
    value here is Pillow's (libjpeg-turbo, libwebp; ITU-R 601-2 luma), one conforming decoder's, which the examples
    compare with a tolerance. A stream that cannot be decoded gives 'an empty matrix', of no stated shape."""
    pixel_format = attr(attrs, "pixel_format", "RGB")
    if pixel_format not in ("RGB", "BGR", "Grayscale"):
        raise Rejected(f"pixel_format: {v.schema.attributes['pixel_format'].description} (given {pixel_format!r})")
    try:
        return {"image": decoded(np.asarray(inputs["encoded_stream"], np.uint8).tobytes(), pixel_format)}
    except (OSError, ValueError):  # Pillow's UnidentifiedImageError is an OSError
        raise Undefined("'If it can't decode for any reason (e.g. corrupted encoded stream, invalid format, it will "
                        "return an empty matrix)': an empty matrix of no stated shape") from None


def decoder_case(v, image: np.ndarray, fmt: str, pixel_format: str, lossy: bool = False, **options):
    data = encoded(image, fmt, **options)
    inputs = {"encoded_stream": np.frombuffer(data, np.uint8).copy()}
    if lossy:
        atol = ATOL_LOSSY_GRAY if pixel_format == "Grayscale" and image.shape[-1] == 3 else ATOL_LOSSY
        return OPERATOR.expect(v, inputs, {"pixel_format": pixel_format}, tolerance={"atol": atol})
    case = OPERATOR.expect(v, inputs, {"pixel_format": pixel_format}, tolerance=None)
    # the generator's own check that the encoding is lossless (the decode is the source itself)
    if not np.array_equal(case.outputs["image"], layout(image, pixel_format)):
        raise ValueError(f"{fmt} with {options} is not lossless here")
    return case


# onnx's documented examples (test_image_decoder_decode_<name>): the 32x32 checkerboard


@OPERATOR.example
def decode_jpeg_rgb(v, t, rng):
    return decoder_case(v, checkerboard(), "jpeg", "RGB", lossy=True)


@OPERATOR.example
def decode_jpeg_grayscale(v, t, rng):
    return decoder_case(v, checkerboard(), "jpeg", "Grayscale", lossy=True)


@OPERATOR.example
def decode_jpeg_bgr(v, t, rng):
    return decoder_case(v, checkerboard(), "jpeg", "BGR", lossy=True)


@OPERATOR.example
def decode_jpeg2k_rgb(v, t, rng):
    """Pillow writes JPEG 2000 with the reversible (lossless) wavelet by default."""
    return decoder_case(v, checkerboard(), "jpeg2000", "RGB")


@OPERATOR.example
def decode_bmp_rgb(v, t, rng):
    return decoder_case(v, checkerboard(), "bmp", "RGB")


@OPERATOR.example
def decode_png_rgb(v, t, rng):
    return decoder_case(v, checkerboard(), "png", "RGB")


@OPERATOR.example
def decode_tiff_rgb(v, t, rng):
    return decoder_case(v, checkerboard(), "tiff", "RGB")


@OPERATOR.example
def decode_webp_rgb(v, t, rng):
    """Pillow's default WebP is lossy (quality 80)."""
    return decoder_case(v, checkerboard(), "webp", "RGB", lossy=True)


@OPERATOR.example
def decode_pnm_rgb(v, t, rng):
    return decoder_case(v, checkerboard(), "ppm", "RGB")


# the other pixel formats on lossless data, odd sizes, grayscale sources


def noise(rng, height, width, channels) -> np.ndarray:
    return rng.integers(0, 256, size=(height, width, channels), dtype=np.uint8)


@OPERATOR.example
def decode_png_bgr_odd_size(v, t, rng):
    """7 x 5 random pixels (odd), BGR: the channels reversed."""
    return decoder_case(v, noise(rng, 7, 5, 3), "png", "BGR")


@OPERATOR.example
def decode_png_grayscale_source(v, t, rng):
    """A single-channel PNG to Grayscale: the stored values, shape (H, W, 1)."""
    return decoder_case(v, noise(rng, 6, 9, 1), "png", "Grayscale")


@OPERATOR.example
def decode_pgm_grayscale_source_to_rgb(v, t, rng):
    """A PGM (grayscale PNM) decoded to RGB: R = G = B = the stored value."""
    return decoder_case(v, noise(rng, 5, 4, 1), "ppm", "RGB")


@OPERATOR.example
def decode_bmp_bgr(v, t, rng):
    return decoder_case(v, noise(rng, 3, 11, 3), "bmp", "BGR")


@OPERATOR.example
def decode_tiff_grayscale_source(v, t, rng):
    return decoder_case(v, noise(rng, 4, 3, 1), "tiff", "Grayscale")


@OPERATOR.example
def decode_webp_lossless_rgb(v, t, rng):
    return decoder_case(v, noise(rng, 6, 7, 3), "webp", "RGB", lossless=True)


@OPERATOR.example
def decode_jpeg2k_bgr(v, t, rng):
    return decoder_case(v, noise(rng, 8, 6, 3), "jpeg2000", "BGR")


# Where onnx's ReferenceEvaluator (1.23) differs from our value, and why ours stands (cases/crosscheck.md).
OPERATOR.reference_differs(
    r"^decode_pgm_grayscale_source_to_rgb .*shape \(5, 4\) != expected \(5, 4, 3\)",
    "the evaluator returns a grayscale image's single plane as (H, W) for pixel_format RGB; RGB output is "
    "(H, W, 3) ('Decoded images follow a channel-last layout: (Height, Width, Channels)')")


def pin() -> bytes:
    """Encode and decode every example's image with Pillow: image_decoder_pinned.json's bytes."""
    global _pinning
    import PIL  # noqa: PLC0415
    from onnx_conformance.generators.emit import build_version  # noqa: PLC0415  (emit imports this module)
    from onnx_conformance.generators.spec import versions  # noqa: PLC0415

    _pinning = {"streams": {}, "decoded": {}}
    try:
        for v in versions(OPERATOR.name, OPERATOR.domain):
            build_version(OPERATOR.name, v.since_version)
        record = _pinning
    finally:
        _pinning = None
    streams = {k: dict(r, stream=base64.b64encode(r["stream"]).decode()) for k, r in record["streams"].items()}
    images = {k: {"shape": list(x.shape), "pixels": base64.b64encode(np.ascontiguousarray(x).tobytes()).decode()}
              for k, x in record["decoded"].items()}
    return (json.dumps({"pillow": PIL.__version__, "streams": streams, "decoded": images}, indent=1, sort_keys=True)
            + "\n").encode()


if __name__ == "__main__":  # the script that writes the pinned streams (needs the images extra)
    # the module the generator registered, not this __main__ copy of it: pin() records in that one's _pinning
    from onnx_conformance.generators.ops import image_decoder

    image_decoder.PINNED.write_bytes(image_decoder.pin())
    print(f"wrote {image_decoder.PINNED}", file=sys.stderr)
