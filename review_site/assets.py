"""Files the site shows — images, videos, JSON records — copied in under their sha256.

`files/<sha256>.<ext>`: the same content is written once however many pages show it, and a
rebuild copies only what is new (incremental builds); files no page references any more are
dropped at the end of a build.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from storage.content import ContentStore
from contracts.payloads.common import BlobRef

FILES = "files"


class Assets:
    def __init__(self, out: Path, store: ContentStore):
        self.out = out
        self.store = store
        self.used: set[str] = set()
        self.written = 0

    def _target(self, sha256: str, name: str) -> tuple[str, Path]:
        ext = Path(name).suffix.lower() or ".bin"
        rel = f"{FILES}/{sha256}{ext}"
        self.used.add(rel)
        return rel, self.out / rel

    def _write(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
        self.written += 1

    def add_bytes(self, data: bytes, name: str, sha256: str | None = None) -> str:
        """URL (relative to the site root) of `data`, written when the site lacks it."""
        sha = sha256 or hashlib.sha256(data).hexdigest()
        rel, path = self._target(sha, name)
        if not path.exists():
            self._write(path, data)
        return rel

    def add_blob(self, ref: BlobRef, name: str) -> str | None:
        """URL of a content-store blob; None when this store does not hold it."""
        rel, path = self._target(ref.sha256, name)
        if path.exists():
            return rel
        if not self.store.exists(ref):
            self.used.discard(rel)
            return None
        self._write(path, self.store.get_bytes(ref))
        return rel

    def drop_unused(self) -> int:
        """Remove files (of earlier or failed builds) that no page references now."""
        return drop_unreferenced(self.out / FILES, self.out, self.used)


def drop_unreferenced(folder: Path, out: Path, used: set[str]) -> int:
    gone = 0
    for path in sorted(folder.glob("*")) if folder.is_dir() else []:
        if path.is_file() and path.relative_to(out).as_posix() not in used:
            path.unlink()
            gone += 1
    return gone
