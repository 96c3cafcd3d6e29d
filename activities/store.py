"""Content-addressed store: blobs named by their sha256, trees as manifests of blobs.

The filesystem backend writes atomically (temp file in the same directory, fsync, rename), so a
reader never sees a half-written object and a crash leaves nothing but a stray temp file. An S3
backend implements the same `ContentStore` interface.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from abc import ABC, abstractmethod
from pathlib import Path

from contracts.digests import canonical_json_bytes, sha256_file
from contracts.payloads import BlobRef

_CHUNK = 1 << 20


class StoreIntegrityError(Exception):
    """A stored object's bytes no longer match its sha256."""


class ContentStore(ABC):
    """Minimal interface the pipeline needs; keys are derived from content only."""

    @abstractmethod
    def put_file(self, path: Path) -> BlobRef: ...

    @abstractmethod
    def put_bytes(self, data: bytes) -> BlobRef: ...

    @abstractmethod
    def get_bytes(self, ref: BlobRef) -> bytes: ...

    @abstractmethod
    def fetch_to(self, ref: BlobRef, dest: Path) -> Path: ...

    @abstractmethod
    def exists(self, ref: BlobRef) -> bool: ...

    @abstractmethod
    def count(self) -> int: ...

    # Trees are JSON manifests {"files": {relpath: {"sha256", "size"}}} stored as blobs.

    def put_json(self, obj: object) -> BlobRef:
        return self.put_bytes(canonical_json_bytes(obj))

    def get_json(self, ref: BlobRef) -> object:
        return json.loads(self.get_bytes(ref))

    def put_tree(self, root: Path, files: list[str] | None = None) -> BlobRef:
        """Store every regular file under `root` (or just `files`, relative paths)."""
        rels = files if files is not None else sorted(
            p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()
        )
        entries = {}
        for rel in rels:
            ref = self.put_file(root / rel)
            entries[rel] = {"sha256": ref.sha256, "size": ref.size}
        return self.put_tree_manifest(entries)

    def put_tree_manifest(self, entries: dict[str, dict]) -> BlobRef:
        return self.put_json({"files": dict(sorted(entries.items()))})

    def tree_entries(self, tree: BlobRef) -> dict[str, dict]:
        return dict(self.get_json(tree)["files"])

    def tree_file(self, tree: BlobRef, rel: str) -> BlobRef:
        entry = self.tree_entries(tree)[rel]
        return self.ref_for(entry["sha256"], entry["size"])

    def materialize_tree(self, tree: BlobRef, dest: Path, prefix: str = "",
                         exclude: str | None = None) -> Path:
        """Write the tree's files (optionally only those under `prefix`, and none under
        `exclude`) below `dest`."""
        for rel, entry in self.tree_entries(tree).items():
            if (prefix and not rel.startswith(prefix)) or (exclude and rel.startswith(exclude)):
                continue
            out = dest / rel[len(prefix):]
            self.fetch_to(self.ref_for(entry["sha256"], entry["size"]), out)
        return dest

    @abstractmethod
    def ref_for(self, sha256: str, size: int) -> BlobRef: ...

    # Named pointers: the only mutable part of the store, used as caches keyed by content
    # digests (e.g. a workspace build keyed by its inputs), so a rerun reuses what matches.

    @abstractmethod
    def set_name(self, name: str, ref: BlobRef) -> None: ...

    @abstractmethod
    def get_name(self, name: str) -> BlobRef | None: ...


class FilesystemStore(ContentStore):
    """`<root>/objects/<2 hex>/<62 hex>`; identical content is stored once."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.objects = self.root / "objects"
        self.tmp = self.root / "tmp"

    def ref_for(self, sha256: str, size: int) -> BlobRef:
        return BlobRef(key=f"objects/{sha256[:2]}/{sha256[2:]}", sha256=sha256, size=size)

    def _path(self, ref: BlobRef) -> Path:
        return self.root / ref.key

    def put_file(self, path: Path) -> BlobRef:
        self.tmp.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        size = 0
        fd, tmp_name = tempfile.mkstemp(dir=self.tmp, prefix="put-")
        try:
            with os.fdopen(fd, "wb") as out, open(path, "rb") as src:
                while chunk := src.read(_CHUNK):
                    digest.update(chunk)
                    size += len(chunk)
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            return self._commit(Path(tmp_name), digest.hexdigest(), size)
        finally:
            Path(tmp_name).unlink(missing_ok=True)

    def put_bytes(self, data: bytes) -> BlobRef:
        self.tmp.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=self.tmp, prefix="put-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            return self._commit(Path(tmp_name), hashlib.sha256(data).hexdigest(), len(data))
        finally:
            Path(tmp_name).unlink(missing_ok=True)

    def _commit(self, tmp: Path, sha256: str, size: int) -> BlobRef:
        ref = self.ref_for(sha256, size)
        dest = self._path(ref)
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.chmod(tmp, 0o444)
            os.replace(tmp, dest)
        return ref

    def get_bytes(self, ref: BlobRef) -> bytes:
        data = self._path(ref).read_bytes()
        if hashlib.sha256(data).hexdigest() != ref.sha256:
            raise StoreIntegrityError(f"store object {ref.key} does not match sha256 {ref.sha256}")
        return data

    def fetch_to(self, ref: BlobRef, dest: Path) -> Path:
        dest = Path(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        src = self._path(ref)
        if not src.exists():
            raise FileNotFoundError(f"store object {ref.key} is missing under {self.root}")
        tmp = dest.with_name(f".{dest.name}.part")
        shutil.copyfile(src, tmp)
        os.chmod(tmp, 0o644)
        if sha256_file(tmp) != ref.sha256:
            tmp.unlink()
            raise StoreIntegrityError(f"store object {ref.key} does not match sha256 {ref.sha256}")
        os.replace(tmp, dest)
        return dest

    def exists(self, ref: BlobRef) -> bool:
        return self._path(ref).exists()

    def _name_path(self, name: str) -> Path:
        if not all(part and part not in (".", "..") for part in name.split("/")):
            raise ValueError(f"invalid store name {name!r}")
        return self.root / "names" / f"{name}.json"

    def set_name(self, name: str, ref: BlobRef) -> None:
        path = self._name_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(canonical_json_bytes(ref.__dict__))
        os.replace(tmp, path)

    def get_name(self, name: str) -> BlobRef | None:
        path = self._name_path(name)
        if not path.exists():
            return None
        ref = BlobRef(**json.loads(path.read_text()))
        return ref if self.exists(ref) else None

    def count(self) -> int:
        if not self.objects.exists():
            return 0
        return sum(1 for p in self.objects.rglob("*") if p.is_file())


def store_from_env(project_root: Path) -> ContentStore:
    """The store configured for this process: `ARKEVO_STORE` (a directory) or `var/store`."""
    root = os.environ.get("ARKEVO_STORE") or str(project_root / "var" / "store")
    return FilesystemStore(Path(root))
