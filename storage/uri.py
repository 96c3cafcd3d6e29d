"""Which object store a configuration value names: a directory, `file://…` or `s3://…`."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

from storage.objects import FilesystemObjects, ObjectStore

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def filesystem_root(uri: str, *, variable: str = "ARKEVO_STORE") -> Path | None:
    """The directory a plain path or `file://` URI names; None for any other scheme."""
    match = _SCHEME.match(uri)
    if not match:
        return Path(uri).expanduser()
    if match.group(1).lower() != "file":
        return None
    parts = urlsplit(uri)
    if parts.netloc not in ("", "localhost"):
        raise ValueError(f"{variable}={uri!r}: a file:// URI names a local path "
                         f"(file:///abs/path), not host {parts.netloc!r}")
    if not parts.path:
        raise ValueError(f"{variable}={uri!r}: the file:// URI has no path")
    return Path(url2pathname(unquote(parts.path)))


def objects_from_uri(uri: str, *, variable: str = "ARKEVO_STORE") -> ObjectStore:
    """A directory path or `file://…` → `FilesystemObjects`; `s3://bucket[/prefix]` →
    `S3Objects` with a client from the environment (`storage.s3.s3_client_from_env`).
    `variable` names the setting in error messages."""
    if not uri:
        raise ValueError(f"{variable} is empty: give a directory, file://… or s3://bucket[/prefix]")
    root = filesystem_root(uri, variable=variable)
    if root is not None:
        return FilesystemObjects(root)
    match = _SCHEME.match(uri)
    assert match is not None  # filesystem_root gives None only for a URI with a scheme
    scheme = match.group(1).lower()
    if scheme != "s3":
        raise ValueError(f"{variable}={uri!r}: unknown scheme {scheme!r}; "
                         "use a directory, file://… or s3://bucket[/prefix]")
    parts = urlsplit(uri)
    if not parts.netloc:
        raise ValueError(f"{variable}={uri!r}: no bucket name; use s3://bucket[/prefix]")
    from storage.s3 import S3Objects, s3_client_from_env
    return S3Objects(parts.netloc, parts.path.strip("/"), s3_client_from_env())
