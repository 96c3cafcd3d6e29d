"""The worker-side seed folder the author model's file tools act on.

    folder = DraftFolder(tmp / "seed")   # holds seed.json, materials/..., draft/...
    folder.read("materials/brief.md"); folder.write("draft/task.json", text)

Paths are seed-relative POSIX strings. The model may read `seed.json`, `materials/**` and
`draft/**`, and write or delete only under `draft/`. Every refusal comes back as an
``Error: ...`` string for the model (never an exception out of the tool loop). What the model
writes is data: nothing here is ever executed in the worker; drafts run only in the sandbox.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path, PurePosixPath

MAX_FILE_BYTES = 256 * 1024
MAX_DRAFT_FILES = 200
DRAFT = "draft"
READABLE = ("seed.json", "materials", DRAFT)  # top-level names the model may read


class Refused(ValueError):
    """A path or content the folder will not touch; the message is for the model."""


def _answer(method):
    """Turn a refusal (or an OS error) into the model's ``Error: ...`` answer."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs) -> str:
        try:
            return method(self, *args, **kwargs)
        except Refused as exc:
            return f"Error: {exc}"
        except OSError as exc:
            return f"Error: {type(exc).__name__}: {exc.strerror or exc}"
    return wrapper


class DraftFolder:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        (self.root / DRAFT).mkdir(parents=True, exist_ok=True)

    # -- paths -------------------------------------------------------------------------------

    def _resolve(self, path: object, *, write: bool) -> Path:
        if not isinstance(path, str) or not path.strip():
            raise Refused("path must be a non-empty string like 'draft/task.json'")
        if "\x00" in path or "\\" in path:
            raise Refused(f"{path!r}: NUL and backslashes are not allowed in paths")
        pure = PurePosixPath(path)
        if pure.is_absolute():
            raise Refused(f"{path}: absolute paths are not allowed; use seed-relative paths "
                          "like 'draft/task.json'")
        if any(part in ("..", ".") for part in path.split("/")):
            raise Refused(f"{path}: '..' and '.' are not allowed in paths")
        top = pure.parts[0]
        if write and (top != DRAFT or len(pure.parts) < 2):
            raise Refused(f"{path}: only files under draft/ may be written or deleted")
        if not write and (top not in READABLE or (top == "seed.json" and len(pure.parts) > 1)):
            raise Refused(f"{path}: only seed.json, materials/... and draft/... can be read")
        # No symlink anywhere on the way: the folder holds only what the worker put there.
        current = self.root
        for part in pure.parts:
            current = current / part
            if current.is_symlink():
                raise Refused(f"{path}: {current.relative_to(self.root).as_posix()} is a symlink")
        return current

    # -- what the model sees -----------------------------------------------------------------

    def entries(self) -> dict[str, int]:
        """Every readable file (seed-relative path -> size), symlinks left out."""
        found = {}
        for top in READABLE:
            base = self.root / top
            if base.is_symlink():
                continue
            paths = [base] if base.is_file() else sorted(base.rglob("*")) if base.is_dir() else []
            for p in paths:
                rel = p.relative_to(self.root)
                if p.is_file() and not any((self.root / q).is_symlink()
                                           for q in (rel, *rel.parents[:-1])):
                    found[p.relative_to(self.root).as_posix()] = p.stat().st_size
        return found

    def draft_files(self) -> list[str]:
        """The draft's files, relative to draft/ (the layout of a stored draft tree)."""
        return [p.removeprefix(DRAFT + "/") for p in self.entries() if p.startswith(DRAFT + "/")]

    def list_files(self) -> str:
        return json.dumps([{"path": p, "size": s} for p, s in self.entries().items()], indent=0)

    @_answer
    def read(self, path: str) -> str:
        target = self._resolve(path, write=False)
        if not target.is_file():
            raise Refused(f"{path}: no such file")
        size = target.stat().st_size
        if size > MAX_FILE_BYTES:
            raise Refused(f"{path}: {size} bytes, larger than the {MAX_FILE_BYTES} bytes a tool "
                          "can read")
        data = target.read_bytes()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(f"{path}: binary file, {len(data)} bytes") from None

    @_answer
    def write(self, path: str, content: str) -> str:
        target = self._resolve(path, write=True)
        if not isinstance(content, str):
            raise Refused("content must be a string (the whole file's text)")
        data = content.encode("utf-8")
        if len(data) > MAX_FILE_BYTES:
            raise Refused(f"{path}: {len(data)} bytes, larger than {MAX_FILE_BYTES} bytes")
        if target.is_dir():
            raise Refused(f"{path}: is a folder")
        if not target.exists() and len(self.draft_files()) >= MAX_DRAFT_FILES:
            raise Refused(f"the draft already has {MAX_DRAFT_FILES} files; delete some first")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return f"wrote {path} ({len(data)} bytes)"

    @_answer
    def delete(self, path: str) -> str:
        target = self._resolve(path, write=True)
        if not target.is_file():
            raise Refused(f"{path}: no such file")
        target.unlink()
        return f"deleted {path}"
