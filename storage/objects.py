"""Where immutable bytes live: a flat key space on the local filesystem (the default) or on S3.

The content store (`storage/content.py`), publications, handoff events and dataset revisions
are all written through this interface, so one configuration (`ARKEVO_STORE`) moves all of them
between a directory and a bucket. Keys are relative POSIX paths (`publications/x/x-r1/...`).

Writes are create-only (`put_if_absent`): an object, once written, is never replaced — on S3 by
a conditional PUT (`If-None-Match: *`), on disk by linking a finished temp file into place. The
one mutable kind is a named pointer (`replace`), used for caches keyed by content digests.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


class ObjectMissing(FileNotFoundError):
    """No object under that key."""


def write_atomically(dest: Path, write: Callable[[BinaryIO], object]) -> Path:
    """`write(file)` into a temporary file beside `dest`, then rename it into place: a reader
    never sees half an object, and a failed download leaves nothing behind."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, dest)
    finally:
        Path(tmp_name).unlink(missing_ok=True)
    return dest


def check_key(key: str) -> str:
    """Keys are relative POSIX paths without empty, '.' or '..' parts."""
    parts = key.split("/")
    if not key or key.startswith("/") or not all(p and p not in (".", "..") for p in parts):
        raise ValueError(f"invalid object key {key!r}")
    return key


class ObjectStore(ABC):
    """A flat, create-only key space of byte objects."""

    @abstractmethod
    def put_if_absent(self, key: str, data: bytes) -> bool:
        """Write `data` under `key` unless an object is there: True when this call wrote it."""

    @abstractmethod
    def put_file_if_absent(self, key: str, path: Path) -> bool:
        """As `put_if_absent`, streaming the file's bytes."""

    @abstractmethod
    def replace(self, key: str, data: bytes) -> None:
        """Overwrite (named pointers only; everything else is create-only)."""

    @abstractmethod
    def get(self, key: str) -> bytes:
        """The object's bytes; `ObjectMissing` when there is none."""

    @abstractmethod
    def download(self, key: str, dest: Path) -> Path:
        """Copy the object to `dest` (parents created); `ObjectMissing` when there is none."""

    @abstractmethod
    def exists(self, key: str) -> bool: ...

    @abstractmethod
    def list(self, prefix: str) -> list[str]:
        """Keys under `prefix` (a folder: 'a/b/'), sorted, recursively."""

    @abstractmethod
    def delete(self, key: str) -> None:
        """Remove an object (test clean-up and abandoned staging only; never a publication)."""

    @abstractmethod
    def location(self, key: str) -> str:
        """Where a person finds the object: a filesystem path or an s3:// URI."""

    @abstractmethod
    def local_path(self, key: str) -> Path | None:
        """The object's file when the store is a local directory, else None."""

    # Staging: a writer that must finish a local file before it knows the key (the content
    # store hashes while it copies) makes it in `staging_dir()` and hands it over whole.

    def staging_dir(self) -> Path | None:
        """Where to make temp files bound for this store (None: the system's temp folder)."""
        return None

    def put_staged_if_absent(self, key: str, path: Path) -> bool:
        """As `put_file_if_absent` for a finished temp file made in `staging_dir()`, which the
        store may take over (link into place) instead of copying; the caller removes `path`."""
        return self.put_file_if_absent(key, path)


class FilesystemObjects(ObjectStore):
    """`<root>/<key>`; create-only via a finished (fsynced) temp file hard-linked into place: the
    link fails if the name exists, so a concurrent writer never replaces an object. Temp files
    live in `<root>/tmp` (same filesystem, so linking is atomic); `tmp/` is not a key."""

    STAGING = "tmp"

    def __init__(self, root: Path):
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        if check_key(key).split("/", 1)[0] == self.STAGING:
            raise ValueError(f"invalid object key {key!r}: {self.STAGING}/ holds temp files")
        return self.root / key

    def _tmp(self) -> Path:
        tmp = self.root / self.STAGING
        tmp.mkdir(parents=True, exist_ok=True)
        return tmp

    def _link_into_place(self, tmp_name: str | Path, key: str) -> bool:
        dest = self._path(key)
        if dest.exists():
            return False
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(tmp_name, 0o444)
        try:
            os.link(tmp_name, dest)
        except FileExistsError:
            return False
        return True

    def _put_with(self, key: str, write) -> bool:
        if self._path(key).exists():
            return False
        fd, tmp_name = tempfile.mkstemp(dir=self._tmp(), prefix="put-")
        try:
            with os.fdopen(fd, "wb") as out:
                write(out)
                out.flush()
                os.fsync(out.fileno())
            return self._link_into_place(tmp_name, key)
        finally:
            Path(tmp_name).unlink(missing_ok=True)

    def put_if_absent(self, key: str, data: bytes) -> bool:
        return self._put_with(key, lambda out: out.write(data))

    def put_file_if_absent(self, key: str, path: Path) -> bool:
        def copy(out):
            with open(path, "rb") as src:
                shutil.copyfileobj(src, out, 1 << 20)
        return self._put_with(key, copy)

    def staging_dir(self) -> Path | None:
        return self._tmp()

    def put_staged_if_absent(self, key: str, path: Path) -> bool:
        if self._path(key).exists():
            return False
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        if Path(path).parent.resolve() != self._tmp().resolve():
            return self.put_file_if_absent(key, path)  # elsewhere: maybe another filesystem
        return self._link_into_place(path, key)

    def replace(self, key: str, data: bytes) -> None:
        dest = self._path(key)
        dest.parent.mkdir(parents=True, exist_ok=True)
        # A private temp name per call: two writers of one pointer never share a temp file.
        fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp_name, 0o644)
            os.replace(tmp_name, dest)
        finally:
            Path(tmp_name).unlink(missing_ok=True)

    def get(self, key: str) -> bytes:
        try:
            return self._path(key).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise ObjectMissing(f"no object {key!r} under {self.root}") from None

    def download(self, key: str, dest: Path) -> Path:
        src = self._path(key)
        if not src.is_file():
            raise ObjectMissing(f"no object {key!r} under {self.root}")
        def copy(out: BinaryIO) -> None:
            with open(src, "rb") as f:
                shutil.copyfileobj(f, out)

        return write_atomically(Path(dest), copy)

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def list(self, prefix: str) -> list[str]:
        folder = prefix.strip("/")
        if folder:
            base = self._path(folder)
        else:
            base = self.root
        if not base.is_dir():
            return []
        staging = self.root / self.STAGING
        return sorted(p.relative_to(self.root).as_posix() for p in base.rglob("*")
                      if p.is_file() and not p.name.startswith(".")
                      and not p.is_relative_to(staging))

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def location(self, key: str) -> str:
        return str(self._path(key))

    def local_path(self, key: str) -> Path | None:
        return self._path(key)
