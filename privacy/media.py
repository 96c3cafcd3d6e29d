"""The texts a known binary image or video carries besides its pixels: PNG text chunks
(tEXt, zTXt, iTXt), EXIF (PNG eXIf, JPEG APP1), XMP, JPEG comments, and the printable strings
of every other metadata chunk, segment or box. Pixels and sample data (PNG IDAT, JPEG scans,
MP4 mdat) are covered as they are: they hold no text a rule could read.

Metadata only: nothing here decodes an image, and a compressed text chunk is inflated to at
most `MAX_TEXT` bytes, so a crafted file cannot blow up the scanner. A file that does not parse
raises `MediaUnreadable`, which the scanner records as pending.

Hand-written byte walks, not Pillow (which decodes images where the pipeline needs pixels): a
decoder reads what it needs to show the image and skips the rest by design — private chunks,
bytes after IEND or EOI, JPEG segments after the first scan, EXIF entries of a type it does not
know or at an offset it cannot follow (a warning, not an error) — and it gives no byte offsets.
A privacy scan must see every one of those, say where it is, and call a file it cannot walk
unreadable rather than clean.
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass

MAX_TEXT = 1 << 20  # inflated size of one compressed text chunk
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PRINTABLE = re.compile(rb"[\t\x20-\x7e]{4,}")


class MediaUnreadable(ValueError):
    pass


@dataclass(frozen=True)
class MetaText:
    location: str  # png:tEXt:Comment, exif:Artist, jpeg:COM, mp4:moov/udta/©cmt
    offset: int  # byte offset of the chunk, segment, box or value in the file
    text: str


def media_kind(head: bytes, name: str) -> str | None:
    """png | jpeg | mp4 from the first bytes (the name only confirms an MP4-family box)."""
    if head.startswith(PNG_SIGNATURE):
        return "png"
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head[4:8] == b"ftyp" or (head[4:8] in (b"moov", b"mdat", b"free", b"wide")
                                and name.lower().endswith((".mp4", ".mov", ".m4v"))):
        return "mp4"
    return None


def read_metadata(kind: str, data: bytes) -> list[MetaText]:
    return {"png": png_texts, "jpeg": jpeg_texts, "mp4": mp4_texts}[kind](data)


def strings(data: bytes, location: str, base: int) -> list[MetaText]:
    """Runs of at least 4 printable ASCII characters, like `strings(1)`."""
    return [MetaText(location, base + m.start(), m.group().decode("ascii"))
            for m in _PRINTABLE.finditer(data)]


# --- PNG ----------------------------------------------------------------------------------------

# Chunks with no text: image header and data, palette, colour and layout facts, APNG frames.
_PNG_STRUCTURAL = {b"IHDR", b"IDAT", b"IEND", b"PLTE", b"tRNS", b"gAMA", b"cHRM", b"sRGB",
                   b"sBIT", b"bKGD", b"hIST", b"pHYs", b"sPLT", b"tIME", b"acTL", b"fcTL",
                   b"fdAT", b"cICP", b"mDCV", b"cLLI", b"oFFs", b"pCAL", b"sCAL"}


def _inflate(data: bytes, where: str) -> bytes:
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, MAX_TEXT)
    except zlib.error as exc:
        raise MediaUnreadable(f"{where}: cannot inflate: {exc}") from None
    if inflater.unconsumed_tail:
        raise MediaUnreadable(f"{where}: inflates to more than {MAX_TEXT} bytes")
    return out


def png_texts(data: bytes) -> list[MetaText]:
    if not data.startswith(PNG_SIGNATURE):
        raise MediaUnreadable("not a PNG")
    out, pos = [], len(PNG_SIGNATURE)
    while pos < len(data):
        if pos + 8 > len(data):
            raise MediaUnreadable(f"truncated chunk header at byte {pos}")
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) < length:
            raise MediaUnreadable(f"truncated {ctype!r} chunk at byte {pos}")
        name = ctype.decode("latin-1")
        if ctype == b"tEXt":
            key, _, text = body.partition(b"\0")
            out.append(MetaText(f"png:tEXt:{key.decode('latin-1')}", pos, text.decode("latin-1")))
        elif ctype == b"zTXt":
            key, _, rest = body.partition(b"\0")
            text = _inflate(rest[1:], f"zTXt chunk at byte {pos}")
            out.append(MetaText(f"png:zTXt:{key.decode('latin-1')}", pos, text.decode("latin-1")))
        elif ctype == b"iTXt":
            key, _, rest = body.partition(b"\0")
            compressed, rest = rest[:1] == b"\1", rest[2:]
            language, _, rest = rest.partition(b"\0")
            translated, _, text = rest.partition(b"\0")
            if compressed:
                text = _inflate(text, f"iTXt chunk at byte {pos}")
            label = f"png:iTXt:{key.decode('latin-1')}"
            for part in (language, translated, text):
                if part:
                    out.append(MetaText(label, pos, part.decode("utf-8", "replace")))
        elif ctype == b"eXIf":
            out += exif_texts(body, pos + 8)
        elif ctype == b"iCCP":  # a profile name; the profile itself is colour data
            out.append(MetaText("png:iCCP", pos, body.partition(b"\0")[0].decode("latin-1")))
        elif ctype not in _PNG_STRUCTURAL:  # any other (private) chunk: its printable strings
            out += strings(body, f"png:{name}", pos + 8)
        pos += 12 + length
        if ctype == b"IEND":
            break
    if pos < len(data) and data[pos:].strip(b"\0"):  # bytes after IEND: a smuggled trailer
        out += strings(data[pos:], "png:after-IEND", pos)
    return out


# --- EXIF (TIFF structure) -------------------------------------------------------------------------

_EXIF_TAGS = {
    0x010D: "DocumentName", 0x010E: "ImageDescription", 0x010F: "Make", 0x0110: "Model",
    0x0131: "Software", 0x0132: "DateTime", 0x013B: "Artist", 0x013C: "HostComputer",
    0x8298: "Copyright", 0x9286: "UserComment", 0x927C: "MakerNote", 0x9C9B: "XPTitle",
    0x9C9C: "XPComment", 0x9C9D: "XPAuthor", 0x9C9E: "XPKeywords", 0x9C9F: "XPSubject",
    0xA420: "ImageUniqueID", 0xA430: "CameraOwnerName", 0xA431: "BodySerialNumber",
    0xA433: "LensMake", 0xA434: "LensModel", 0xA435: "LensSerialNumber",
}
_SUB_IFDS = {0x8769: "Exif", 0x8825: "GPS", 0xA005: "Interop"}
_TYPE_SIZES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8}


def exif_texts(tiff: bytes, base: int) -> list[MetaText]:
    """Text values of an EXIF block (a TIFF header and its IFDs); GPS positions as
    `GPSLatitude: <degrees>` / `GPSLongitude: <degrees>`. `base`: its offset in the file."""
    if tiff[:2] not in (b"II", b"MM"):
        raise MediaUnreadable(f"EXIF at byte {base}: no TIFF byte order mark")
    order = "<" if tiff[:2] == b"II" else ">"
    out: list[MetaText] = []
    seen: set[int] = set()

    def u(fmt: str, at: int):
        if at < 0 or at + struct.calcsize(fmt) > len(tiff):
            raise MediaUnreadable(f"EXIF at byte {base}: offset {at} out of range")
        return struct.unpack(order + fmt, tiff[at:at + struct.calcsize(fmt)])

    def ifd(at: int, group: str) -> None:
        while at and at not in seen:
            seen.add(at)
            (count,) = u("H", at)
            gps: dict[int, tuple] = {}
            for i in range(count):
                entry = at + 2 + 12 * i
                tag, kind, n = u("HHI", entry)
                size = _TYPE_SIZES.get(kind, 1) * n
                where = entry + 8 if size <= 4 else u("I", entry + 8)[0]
                value = tiff[where:where + size]
                if tag in _SUB_IFDS and kind in (4, 13):
                    ifd(u("I", entry + 8)[0], _SUB_IFDS[tag])
                    continue
                if group == "GPS":
                    if kind == 5:
                        gps[tag] = tuple(a / b if b else 0.0 for a, b in (
                            u("II", where + 8 * k) for k in range(n)))
                    elif kind == 2:
                        gps[tag] = (value.rstrip(b"\0").decode("latin-1"),)
                    continue
                name = _EXIF_TAGS.get(tag, f"tag0x{tag:04X}")
                text = _exif_value(tag, kind, value, order)
                if text:
                    out.append(MetaText(f"exif:{name}", base + where, text))
            if group == "GPS":
                out.extend(_gps(gps, base + at))
            (at,) = u("I", at + 2 + 12 * count) if group == "IFD" else (0,)

    ifd(u("I", 4)[0], "IFD")
    return out


def _exif_value(tag: int, kind: int, value: bytes, order: str) -> str | None:
    if kind == 2:  # ASCII
        return value.rstrip(b"\0").decode("utf-8", "replace")
    if tag == 0x9286 and len(value) >= 8:  # UserComment: 8 bytes of character code, then text
        code, text = value[:8], value[8:]
        if code.startswith(b"UNICODE"):
            return text.decode("utf-16-be" if order == ">" else "utf-16-le", "replace").rstrip("\0")
        return text.rstrip(b"\0 ").decode("utf-8", "replace")
    if 0x9C9B <= tag <= 0x9C9F:  # Windows XP* tags: UTF-16LE in BYTEs
        return value.decode("utf-16-le", "replace").rstrip("\0")
    if tag == 0x927C or kind == 7 and len(value) >= 16:  # maker notes, other undefined blobs
        return "\n".join(m.group().decode("ascii") for m in _PRINTABLE.finditer(value)) or None
    return None


def _gps(gps: dict[int, tuple], offset: int) -> list[MetaText]:
    out = []
    for ref_tag, tag, name in ((1, 2, "GPSLatitude"), (3, 4, "GPSLongitude")):
        if tag in gps and len(gps[tag]) == 3:
            d, m, s = gps[tag]
            degrees = d + m / 60 + s / 3600
            if gps.get(ref_tag, ("",))[0] in ("S", "W"):
                degrees = -degrees
            out.append(MetaText(f"exif:GPS:{name}", offset, f"{name}: {degrees:.6f}"))
    return out


# --- JPEG ---------------------------------------------------------------------------------------

_JPEG_STRUCTURAL = {0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCC,
                    0xCD, 0xCE, 0xCF, 0xDB, 0xDD, 0xDC, 0xDE, 0xDF}


def jpeg_texts(data: bytes) -> list[MetaText]:
    if not data.startswith(b"\xff\xd8"):
        raise MediaUnreadable("not a JPEG")
    out, pos = [], 2
    while pos < len(data):
        if data[pos] != 0xFF:
            raise MediaUnreadable(f"no marker at byte {pos}")
        marker = data[pos + 1] if pos + 1 < len(data) else 0xD9
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker == 0xD9:  # end of image: anything after it is a smuggled trailer
            rest = data[pos + 2:]
            if rest.strip(b"\0"):
                out += strings(rest, "jpeg:after-EOI", pos + 2)
            return out
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            pos += 2
            continue
        if pos + 4 > len(data):
            raise MediaUnreadable(f"truncated segment at byte {pos}")
        (length,) = struct.unpack(">H", data[pos + 2:pos + 4])
        body = data[pos + 4:pos + 2 + length]
        if length < 2 or len(body) < length - 2:
            raise MediaUnreadable(f"truncated segment 0xFF{marker:02X} at byte {pos}")
        if marker == 0xFE:
            out.append(MetaText("jpeg:COM", pos, body.decode("utf-8", "replace")))
        elif marker == 0xE1 and body.startswith(b"Exif\0"):
            out += exif_texts(body[6:], pos + 10)
        elif marker == 0xE1 and body.startswith(b"http://ns.adobe.com/xap/1.0/\0"):
            out.append(MetaText("jpeg:XMP", pos, body[29:].decode("utf-8", "replace")))
        elif 0xE0 <= marker <= 0xEF:  # JFIF, ICC, IPTC, Adobe, ...: their printable strings
            out += strings(body, f"jpeg:APP{marker - 0xE0}", pos + 4)
        elif marker not in _JPEG_STRUCTURAL and marker != 0xDA:
            out += strings(body, f"jpeg:0xFF{marker:02X}", pos + 4)
        pos += 2 + length
        if marker == 0xDA:  # entropy-coded scan data up to the next real marker
            while pos + 1 < len(data) and not (data[pos] == 0xFF and data[pos + 1] not in (
                    0x00, *range(0xD0, 0xD8))):
                pos += 1
    raise MediaUnreadable("no end-of-image marker")


# --- MP4 / QuickTime (ISO base media) --------------------------------------------------------------

_MP4_CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"dinf", b"stbl", b"udta", b"edts",
                   b"mvex", b"moof", b"traf", b"ilst", b"meta"}


def mp4_texts(data: bytes) -> list[MetaText]:
    """The printable strings of every box but the sample data (mdat), walking containers."""
    out: list[MetaText] = []

    def walk(start: int, end: int, path: str, depth: int) -> None:
        pos = start
        while pos + 8 <= end:
            size, btype = struct.unpack(">I4s", data[pos:pos + 8])
            header = 8
            if size == 1:
                if pos + 16 > end:
                    raise MediaUnreadable(f"truncated box header at byte {pos}")
                (size,) = struct.unpack(">Q", data[pos + 8:pos + 16])
                header = 16
            elif size == 0:
                size = end - pos
            if size < header or pos + size > end:
                raise MediaUnreadable(f"box {btype!r} at byte {pos} runs past its container")
            name = btype.decode("latin-1")
            here = f"{path}/{name}" if path else name
            body_start = pos + header
            if btype == b"meta" and data[body_start:body_start + 4] == b"\0\0\0\0":
                body_start += 4  # ISO 'meta' is a full box (version + flags)
            if (btype in _MP4_CONTAINERS or path.endswith("ilst")) and depth < 16:
                walk(body_start, pos + size, here, depth + 1)
            elif btype != b"mdat":
                out.extend(strings(data[body_start:pos + size], f"mp4:{here}", body_start))
            pos += size
        if pos != end and data[pos:end].strip(b"\0"):
            raise MediaUnreadable(f"stray bytes at {pos} in {path or 'the file'}")

    walk(0, len(data), "", 0)
    return out
