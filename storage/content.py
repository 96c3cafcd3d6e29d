"""Content-addressed store: blobs named by their sha256, trees as manifests of blobs.

One `ContentStore` over an `ObjectStore` (`storage/`): a directory (`FilesystemStore(root)`)
or an S3 bucket (`ContentStore(S3Objects(...))`), chosen by `ARKEVO_STORE` in
`store_from_env`. Layout in either: `objects/<2 hex>/<62 hex>` (blobs, create-only, never
replaced) and `names/<name>.json` (named pointers, the one mutable part).

A blob is first copied to a local temp file while its sha256 is computed, then written under its
key from that file, so what is stored always matches its name even if the source changes
meanwhile. On disk the temp file is fsynced and hard-linked into place (create-only; read-only
mode), so a reader never sees a half-written object and a crash leaves nothing but a stray temp
file; on S3 the write is a conditional PUT. A file whose content the store already holds is
only read, to name it. Reads verify the sha256.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, cast

from contracts.digests import canonical_json_bytes, sha256_file
from contracts.payloads.common import BlobRef
from storage.objects import FilesystemObjects, ObjectMissing, ObjectStore, check_key
from storage.uri import filesystem_root, objects_from_uri

_CHUNK = 1 << 20


class StoreIntegrityError(Exception):
    """A stored object's bytes no longer match its sha256."""


class ContentStore:
    """Blobs keyed by their content in an `ObjectStore`; `backend` is that object store (the
    same place publications and datasets go)."""

    def __init__(self, backend: ObjectStore):
        self.backend = backend

    def ref_for(self, sha256: str, size: int) -> BlobRef:
        return BlobRef(key=f"objects/{sha256[:2]}/{sha256[2:]}", sha256=sha256, size=size)

    def location(self, ref: BlobRef) -> str:
        """Where a person finds the blob: a path or an s3:// URI."""
        return self.backend.location(ref.key)

    def put_file(self, path: Path) -> BlobRef:
        # Content already stored (a scripted policy's repeated delivery, an unchanged report) is
        # only read, to name it: no temp file, copy or fsync for it.
        with open(path, "rb") as src:
            digest = hashlib.file_digest(src, "sha256")
            size = src.tell()  # what was read: the name and size of the same bytes
        known = self.ref_for(digest.hexdigest(), size)
        if self.backend.exists(known.key):
            return known
        return self._stage_file(path)

    def _stage_file(self, path: Path) -> BlobRef:
        digest = hashlib.sha256()
        size = 0
        fd, tmp_name = tempfile.mkstemp(dir=self.backend.staging_dir(), prefix="put-")
        try:
            with os.fdopen(fd, "wb") as out, open(path, "rb") as src:
                while chunk := src.read(_CHUNK):
                    digest.update(chunk)
                    size += len(chunk)
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            ref = self.ref_for(digest.hexdigest(), size)
            self.backend.put_staged_if_absent(ref.key, Path(tmp_name))
            return ref
        finally:
            Path(tmp_name).unlink(missing_ok=True)

    def put_bytes(self, data: bytes) -> BlobRef:
        ref = self.ref_for(hashlib.sha256(data).hexdigest(), len(data))
        self.backend.put_if_absent(ref.key, data)
        return ref

    def _mismatch(self, ref: BlobRef) -> StoreIntegrityError:
        return StoreIntegrityError(
            f"store object {self.location(ref)} does not match sha256 {ref.sha256}")

    def get_bytes(self, ref: BlobRef) -> bytes:
        data = self.backend.get(ref.key)
        if hashlib.sha256(data).hexdigest() != ref.sha256:
            raise self._mismatch(ref)
        return data

    def fetch_to(self, ref: BlobRef, dest: Path) -> Path:
        """Copy the blob to `dest`, verified: on a mismatch nothing is left at `dest` (an
        existing file there stays as it was)."""
        dest = Path(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            self.backend.download(ref.key, tmp)
            if sha256_file(tmp) != ref.sha256:
                raise self._mismatch(ref)
            os.chmod(tmp, 0o644)
            os.replace(tmp, dest)
        finally:
            tmp.unlink(missing_ok=True)
        return dest

    def exists(self, ref: BlobRef) -> bool:
        return self.backend.exists(ref.key)

    def count(self) -> int:
        return len(self.backend.list("objects/"))

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
        return dict(cast(dict[str, Any], self.get_json(tree))["files"])

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

    # Named pointers: the only mutable part of the store, used as caches keyed by content
    # digests (e.g. a workspace build keyed by its inputs), so a rerun reuses what matches.

    @staticmethod
    def _name_key(name: str) -> str:
        if not all(part and part not in (".", "..") for part in name.split("/")):
            raise ValueError(f"invalid store name {name!r}")
        return check_key(f"names/{name}.json")

    def set_name(self, name: str, ref: BlobRef) -> None:
        self.backend.replace(self._name_key(name), canonical_json_bytes(ref.__dict__))

    def get_name(self, name: str) -> BlobRef | None:
        try:
            ref = BlobRef(**json.loads(self.backend.get(self._name_key(name))))
        except ObjectMissing:
            return None
        return ref if self.exists(ref) else None


class FilesystemStore(ContentStore):
    """The store in a directory: `<root>/objects/<2 hex>/<62 hex>`, `<root>/names/`, temp files
    in `<root>/tmp`; identical content is stored once."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.objects = self.root / "objects"
        self.tmp = self.root / "tmp"
        super().__init__(FilesystemObjects(self.root))


def store_from_env(project_root: Path) -> ContentStore:
    """The store configured for this process: `ARKEVO_STORE` (a directory, `file://…` or
    `s3://bucket[/prefix]`), default `<project_root>/var/store`."""
    value = os.environ.get("ARKEVO_STORE") or str(project_root / "var" / "store")
    root = filesystem_root(value)
    if root is not None:
        return FilesystemStore(root)
    return ContentStore(objects_from_uri(value))
