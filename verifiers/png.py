"""Minimal PNG reading and writing with numpy + zlib (no Pillow in this environment).

Reads the non-interlaced 8-bit greyscale / RGB / RGBA (and grey+alpha) PNGs Blender writes;
writes 8-bit RGB or RGBA with filter 0.  Enough for evidence renders and contact sheets.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


class PNGError(ValueError):
    pass


def _paeth_row(filt: bytes, prev: bytes, bpp: int) -> bytearray:
    out = bytearray(len(filt))
    for i, x in enumerate(filt):
        a = out[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        out[i] = (x + pred) & 0xFF
    return out


def _average_row(filt: bytes, prev: bytes, bpp: int) -> bytearray:
    out = bytearray(len(filt))
    for i, x in enumerate(filt):
        a = out[i - bpp] if i >= bpp else 0
        out[i] = (x + ((a + prev[i]) >> 1)) & 0xFF
    return out


def size(path: Path | str) -> tuple[int, int]:
    """(width, height) from the IHDR chunk, which a valid PNG has first."""
    with open(path, "rb") as f:
        head = f.read(24)
    if not head.startswith(SIGNATURE) or head[12:16] != b"IHDR":
        raise PNGError(f"{path}: not a PNG")
    return struct.unpack(">II", head[16:24])


def read_png(path: Path | str) -> np.ndarray:
    """(height, width, channels) uint8."""
    data = Path(path).read_bytes()
    if not data.startswith(SIGNATURE):
        raise PNGError(f"{path}: not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise PNGError(f"{path}: no IHDR")
    width, height, depth, ctype, _, _, interlace = header
    if depth != 8 or ctype not in _CHANNELS or interlace:
        raise PNGError(f"{path}: unsupported PNG (depth {depth}, colour type {ctype}, interlace {interlace})")
    ch = _CHANNELS[ctype]
    stride = width * ch
    # Never inflate past what the header promises: a crafted file cannot blow up memory.
    raw = zlib.decompressobj().decompress(b"".join(idat), max(1, height * (stride + 1)))
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.uint8)
    for y in range(height):
        ftype, filt = rows[y, 0], rows[y, 1:]
        if ftype == 0:
            cur = filt.copy()
        elif ftype == 1:  # Sub: running sum per channel
            cur = (np.cumsum(filt.reshape(width, ch).astype(np.int64), axis=0) & 0xFF).astype(np.uint8).reshape(-1)
        elif ftype == 2:
            cur = filt + prev  # uint8 wraps
        elif ftype == 3:
            cur = np.frombuffer(_average_row(filt.tobytes(), prev.tobytes(), ch), dtype=np.uint8)
        elif ftype == 4:
            cur = np.frombuffer(_paeth_row(filt.tobytes(), prev.tobytes(), ch), dtype=np.uint8)
        else:
            raise PNGError(f"{path}: bad filter type {ftype}")
        out[y] = cur
        prev = out[y]
    return out.reshape(height, width, ch)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def encode_png(image: np.ndarray) -> bytes:
    """8-bit RGB or RGBA array -> PNG bytes (deterministic)."""
    img = np.asarray(image, dtype=np.uint8)
    if img.ndim != 3 or img.shape[2] not in (3, 4):
        raise PNGError(f"cannot write an image of shape {img.shape}")
    h, w, ch = img.shape
    raw = np.concatenate([np.zeros((h, 1), dtype=np.uint8), img.reshape(h, w * ch)], axis=1).tobytes()
    header = struct.pack(">IIBBBBB", w, h, 8, 6 if ch == 4 else 2, 0, 0, 0)
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b"")


def write_png(path: Path | str, image: np.ndarray) -> None:
    Path(path).write_bytes(encode_png(image))


def rgba(image: np.ndarray) -> np.ndarray:
    """Any supported channel layout as RGBA uint8."""
    ch = image.shape[2]
    if ch == 4:
        return image
    if ch == 3:
        return np.concatenate([image, np.full(image.shape[:2] + (1,), 255, np.uint8)], axis=2)
    grey = image[..., :1]
    alpha = image[..., 1:2] if ch == 2 else np.full(grey.shape, 255, np.uint8)
    return np.concatenate([grey, grey, grey, alpha], axis=2)


def contact_sheet(images: list[np.ndarray], columns: int = 4, background=(40, 40, 40)) -> np.ndarray:
    """Tile equally sized images row-major onto an opaque RGB sheet (alpha composited)."""
    if not images:
        raise PNGError("no images for a contact sheet")
    h, w = images[0].shape[:2]
    rows = (len(images) + columns - 1) // columns
    sheet = np.empty((rows * h, columns * w, 3), dtype=np.uint8)
    sheet[:] = np.array(background, dtype=np.uint8)
    bg = np.array(background, dtype=np.float64)
    for i, img in enumerate(images):
        px = rgba(img).astype(np.float64)
        alpha = px[..., 3:4] / 255.0
        tile = px[..., :3] * alpha + bg * (1 - alpha)
        r, c = divmod(i, columns)
        sheet[r * h:(r + 1) * h, c * w:(c + 1) * w] = np.round(tile).astype(np.uint8)
    return sheet
