"""A .blend file's scene digest: sha256 of its bytes with the fields Blender fills from the clock
zeroed, so that the same work saved twice has one digest.

Blender 5.2 writes a scene deterministically except for two fields seeded from the wall clock
when the data is created: ``Mesh.face_sets_color_seed`` (the colours sculpt mode draws face sets
in) and ``bNode.identifier`` (a node's id inside its tree; what refers to it, such as a zone's
paired output node, is stored elsewhere and is *not* masked).  Neither changes what the scene
is, how it renders or how it is graded.  One more field is an unordered pair written in an
order that depends on where malloc put things: a screen edge's two vertices
(``ScrEdge.v1``/``v2``; Blender orders them by run-time address, which ASLR changes, then
writes stable ids), so the pair is sorted before hashing (7 of 48 saves here swapped one edge).
Every other byte counts, the file's own SDNA (its type catalogue) included, so two files share
a digest only when Blender reads the same scene from both.  (A third source, the file browser's
directory in the saved UI data, is the process's ``$HOME``; the sandbox gives every slot the
same one, see ``sandbox/isolation/slots.py``.)

``sort_unordered_pairs`` rewrites a file with those pairs sorted: with the clock frozen during
the build (``blender.runner``, reproducible jobs), that makes our own builds byte-identical
(docs/reproducibility.md).

Anything this reader does not fully understand -- a compressed file, an older header layout,
a block or type table that does not add up, a masked field whose type is not the expected one
-- gives the sha256 of the raw bytes instead, which shares nothing: the digest is only ever used
to recognise identical scenes (the evidence render cache), never to tell scenes apart.

Streaming: the DNA1 block sits at the end of the file, so one pass walks the
block headers and a second hashes the blocks, zeroing the masked fields.
Hand-written because no PyPI package reads Blender 5's large-block-header format.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from contracts.digests import sha256_file

DIGEST_VERSION = "blend-scene/2"
# (struct, field, C type): the clock-seeded fields (see the module docstring).
MASKED_FIELDS = (("Mesh", "face_sets_color_seed", "int"), ("bNode", "identifier", "int"))
# (struct, first, second, pointee type): adjacent pointers that form an unordered pair.
UNORDERED_PAIRS = (("ScrEdge", "*v1", "*v2", "ScrVert"),)

_HEADER = re.compile(rb"BLENDER17-01v\d{4}")  # Blender >= 5.0: 64-bit, little-endian, large BHead
_BHEAD = struct.Struct("<4sIQqq")  # code, SDNA index, old address, length, count
_CHUNK = 1 << 20
_MAX_DNA = 64 << 20


class Unreadable(ValueError):
    """The file is not one this reader understands completely."""


@dataclass(frozen=True)
class _Block:
    code: bytes
    sdna: int
    length: int
    count: int
    head: int  # offset of the block header


def _blocks(fh: BinaryIO, size: int) -> Iterator[_Block]:
    offset = 17
    while True:
        fh.seek(offset)
        raw = fh.read(_BHEAD.size)
        if len(raw) != _BHEAD.size:
            raise Unreadable("truncated block header")
        code, sdna, _old, length, count = _BHEAD.unpack(raw)
        if length < 0 or count < 0 or offset + _BHEAD.size + length > size:
            raise Unreadable("block runs past the end of the file")
        yield _Block(code, sdna, length, count, offset)
        if code == b"ENDB":
            if offset + _BHEAD.size + length != size:
                raise Unreadable("bytes after ENDB")
            return
        offset += _BHEAD.size + length


def _strings(dna: bytes, pos: int, count: int) -> tuple[list[str], int]:
    out = []
    for _ in range(count):
        end = dna.find(b"\0", pos)
        if end < 0:
            raise Unreadable("unterminated SDNA name")
        out.append(dna[pos:end].decode("ascii", "strict"))
        pos = end + 1
    return out, (pos + 3) & ~3


def _count(dna: bytes, pos: int, tag: bytes) -> tuple[int, int]:
    if dna[pos:pos + 4] != tag:
        raise Unreadable(f"SDNA lacks {tag.decode()}")
    (n,) = struct.unpack_from("<i", dna, pos + 4)
    if not 0 <= n <= len(dna):
        raise Unreadable(f"SDNA {tag.decode()} count out of range")
    return n, pos + 8


def _field_size(type_size: int, name: str) -> int:
    size = 8 if name.startswith(("*", "(*")) else type_size
    for dim in re.findall(r"\[(\d+)\]", name):
        size *= int(dim)
    return size


@dataclass(frozen=True)
class _Mask:
    size: int  # the struct's size
    zero: tuple[tuple[int, int], ...]  # (offset, size) of each masked field
    pairs: tuple[int, ...]  # offset of each unordered pair of adjacent 8-byte pointers


def _masks(dna: bytes) -> dict[int, _Mask]:
    """{SDNA struct index: _Mask} for the structs MASKED_FIELDS and UNORDERED_PAIRS name."""
    try:
        if dna[:4] != b"SDNA":
            raise Unreadable("DNA1 block is not SDNA")
        n, pos = _count(dna, 4, b"NAME")
        names, pos = _strings(dna, pos, n)
        n, pos = _count(dna, pos, b"TYPE")
        types, pos = _strings(dna, pos, n)
        if dna[pos:pos + 4] != b"TLEN":
            raise Unreadable("SDNA lacks TLEN")
        n_types, pos = len(types), pos + 4  # one length per type, no count of its own
        lengths = struct.unpack_from(f"<{n_types}h", dna, pos)
        pos = (pos + 2 * n_types + 3) & ~3
        n_structs, pos = _count(dna, pos, b"STRC")
        wanted = {(s, f): t for s, f, t in MASKED_FIELDS}
        paired = {s: (a, b, t) for s, a, b, t in UNORDERED_PAIRS}
        interesting = {s for s, _, _ in MASKED_FIELDS} | set(paired)
        out: dict[int, _Mask] = {}
        seen: set[str] = set()
        for index in range(n_structs):
            type_index, n_fields = struct.unpack_from("<hh", dna, pos)
            fields = struct.unpack_from(f"<{2 * n_fields}h", dna, pos + 4)
            pos += 4 + 4 * n_fields
            name = types[type_index]
            if name not in interesting:
                continue
            if name in seen:
                raise Unreadable(f"SDNA defines {name} twice")
            seen.add(name)
            offset, zero, field_at = 0, [], {}
            for ftype, fname in zip(fields[::2], fields[1::2]):
                size = _field_size(lengths[ftype], names[fname])
                if names[fname] in field_at:
                    raise Unreadable(f"SDNA struct {name} names {names[fname]} twice")
                field_at[names[fname]] = (offset, size, types[ftype])
                if (name, names[fname]) in wanted:
                    if types[ftype] != wanted[(name, names[fname])] or size != 4:
                        raise Unreadable(f"{name}.{names[fname]} is not a 4-byte {wanted[(name, names[fname])]}")
                    zero.append((offset, size))
                offset += size
            if offset != lengths[type_index]:
                raise Unreadable(f"SDNA struct {name} does not add up")
            pairs = []
            if name in paired:
                first, second, pointee = paired[name]
                a, b = field_at.get(first), field_at.get(second)
                if a is None or b is None or a[1:] != (8, pointee) or b != (a[0] + 8, 8, pointee):
                    raise Unreadable(f"{name}.{first}/{second} are not adjacent pointers to {pointee}")
                pairs.append(a[0])
            out[index] = _Mask(offset, tuple(zero), tuple(pairs))
        return out
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise Unreadable(f"malformed SDNA: {exc}") from None


def _layout(fh: BinaryIO, size: int) -> tuple[list[_Block], dict[int, _Mask]]:
    """The file's blocks and the masks of the structs it stores, read from its own SDNA."""
    if not _HEADER.fullmatch(fh.read(17)):
        raise Unreadable("not an uncompressed Blender 5 file")
    blocks = list(_blocks(fh, size))
    dna_blocks = [b for b in blocks if b.code == b"DNA1"]
    if len(dna_blocks) != 1 or dna_blocks[0].length > _MAX_DNA:
        raise Unreadable("expected one SDNA block")
    fh.seek(dna_blocks[0].head + _BHEAD.size)
    return blocks, _masks(fh.read(dna_blocks[0].length))


def _sort_pairs(data: bytearray, base: int, mask: _Mask) -> None:
    for offset in mask.pairs:
        a, b = data[base + offset:base + offset + 8], data[base + offset + 8:base + offset + 16]
        data[base + offset:base + offset + 16] = min(a, b) + max(a, b)


def _scene_digest(path: Path) -> str:
    size = path.stat().st_size
    with path.open("rb") as fh:
        blocks, masks = _layout(fh, size)
        h = hashlib.sha256(DIGEST_VERSION.encode() + b"\0")
        fh.seek(0)
        h.update(fh.read(17))
        for block in blocks:
            fh.seek(block.head)
            h.update(fh.read(_BHEAD.size))
            mask = masks.get(block.sdna) if block.code != b"DNA1" else None
            if mask is None:
                _copy(fh, block.length, h)
                continue
            if block.length != mask.size * block.count:
                raise Unreadable(f"block of {block.count} x {mask.size} bytes has length {block.length}")
            data = bytearray(fh.read(block.length))
            for i in range(block.count):
                base = i * mask.size
                for offset, span in mask.zero:
                    data[base + offset:base + offset + span] = bytes(span)
                _sort_pairs(data, base, mask)
            h.update(data)
        return h.hexdigest()


def sort_unordered_pairs(path: Path) -> int:
    """Rewrite `path` with every unordered pointer pair (UNORDERED_PAIRS) in sorted order, the
    canonical form of a file Blender wrote; returns how many pairs were swapped (0: the file is
    left as it was). Blender sorts a screen edge's two vertices again when it reads the file, so
    the scene is the same; only the bytes stop depending on where malloc put things. The clock
    fields (MASKED_FIELDS) are not touched: a build under a frozen clock writes them the same
    (`blender.runner`, reproducible jobs). A file this reader does not understand raises
    Unreadable and is left alone."""
    path = Path(path)
    data = bytearray(path.read_bytes())
    blocks, masks = _layout(io.BytesIO(data), len(data))
    swapped = 0
    for block in blocks:
        mask = masks.get(block.sdna) if block.code != b"DNA1" else None
        if mask is None or not mask.pairs:
            continue
        if block.length != mask.size * block.count:
            raise Unreadable(f"block of {block.count} x {mask.size} bytes has length {block.length}")
        start = block.head + _BHEAD.size
        for i in range(block.count):
            before = bytes(data[start + i * mask.size:start + (i + 1) * mask.size])
            _sort_pairs(data, start + i * mask.size, mask)
            swapped += before != data[start + i * mask.size:start + (i + 1) * mask.size]
    if swapped:
        tmp = path.with_name(f".{path.name}.canonical")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return swapped


def _copy(fh: BinaryIO, length: int, h) -> None:
    while length > 0:
        chunk = fh.read(min(_CHUNK, length))
        if not chunk:
            raise Unreadable("file shrank while reading")
        h.update(chunk)
        length -= len(chunk)


def scene_digest(path: Path) -> str:
    """``blend-scene/2:<sha256>`` of the masked bytes, or ``sha256:<hex>`` of the raw bytes when
    the file is not one this reader understands completely (see the module docstring)."""
    try:
        return f"{DIGEST_VERSION}:{_scene_digest(Path(path))}"
    except Unreadable:
        return f"sha256:{sha256_file(Path(path))}"
