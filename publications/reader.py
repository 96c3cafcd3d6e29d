"""Reading a publication: its `publication.json` (held to a sha256 a manifest recorded, when
one did), its `records.json` (held to the sha256 a chain link recorded, when the caller has
it), and each listed file held to the sha256 and size the one that lists it gives.

Every reader of publications -- campaigns, the review site, exports -- reads through here, so
"the file is what was published" is checked one way. Each caller names its own error class
(`error=`), so its command reports the failure as its own kind; the message is the same.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property

from publications.layout import DOCUMENT, RECORDS, document_key, file_key, is_version_file, records_key
from storage.objects import ObjectMissing, ObjectStore


class PublicationError(ValueError):
    """A publication is missing, or not what was published (the message names the object)."""


@dataclass
class Publication:
    objects: ObjectStore
    folder: str  # object key of the publication folder
    sha256: str  # of its publication.json
    doc: dict  # publication.json
    error: type[Exception] = PublicationError
    records: dict | None = None  # records.json; None for a publication without one
    records_sha256: str | None = None
    _cache: dict[str, bytes] = field(default_factory=dict, repr=False)

    @cached_property
    def listed(self) -> dict[str, dict]:
        """{path: {"path", "sha256", "size"}} of every file publication.json or records.json
        lists: the version's files and the run's records."""
        return {f["path"]: f for f in [*self.doc["files"], *(self.records or {}).get("files", [])]}

    @property
    def published_at(self) -> str | None:
        return (self.records or {}).get("published_at")

    def location(self, rel: str = DOCUMENT) -> str:
        return self.objects.location(file_key(self.folder, rel))

    def read(self, rel: str, *, keep: bool = True) -> bytes:
        """The listed file's bytes, held to its listed sha256 and size; kept for the next read
        unless `keep` is False (an export streams every file once)."""
        if rel in self._cache:
            return self._cache[rel]
        entry = self.listed.get(rel)
        if entry is None:
            raise self.error(f"{self.location(rel)}: not listed in its publication.json or records.json")
        try:
            data = self.objects.get(file_key(self.folder, rel))
        except ObjectMissing:
            raise self.error(f"{self.location(rel)}: listed in {_lister(rel)} but missing") from None
        sha = hashlib.sha256(data).hexdigest()
        if sha != entry["sha256"] or ("size" in entry and len(data) != entry["size"]):
            raise self.error(f"{self.location(rel)}: sha256 {sha} ({len(data)} bytes) but "
                             f"{_lister(rel)} lists {entry['sha256']} ({entry.get('size')} bytes); "
                             "run `arkevo dataset verify`")
        if keep:
            self._cache[rel] = data
        return data

    def json(self, rel: str) -> dict | None:
        """A listed JSON file's document; None when publication.json does not list it."""
        return json.loads(self.read(rel)) if rel in self.listed else None

    def under(self, prefix: str) -> list[str]:
        return sorted(p for p in self.listed if p.startswith(prefix))

    def unlisted(self, prefix: str) -> list[str]:
        """Paths under `prefix` in the store that neither publication.json nor records.json list."""
        start = len(self.folder) + 1
        return sorted({k[start:] for k in self.objects.list(file_key(self.folder, prefix))}
                      - set(self.listed) - {DOCUMENT, RECORDS})


def _lister(rel: str) -> str:
    return DOCUMENT if is_version_file(rel) else RECORDS


def read_publication(objects: ObjectStore, folder: str, expected_sha256: str | None = None, *,
                     records_sha256: str | None = None, error: type[Exception] = PublicationError,
                     missing: type[Exception] | None = None) -> Publication:
    """The publication at `folder`; `expected_sha256` is what a split manifest recorded,
    `records_sha256` what a chain link recorded of its records.json. `missing` is the error
    for no publication there (bad input to some callers), else `error`."""
    folder = folder.rstrip("/")
    key = document_key(folder)
    try:
        data = objects.get(key)
    except ObjectMissing:
        raise (missing or error)(f"{objects.location(key)}: not found: no publication at {folder}") from None
    doc, sha = _listing(objects, key, data, expected_sha256, "the split manifest", error)
    records, records_sha = None, None
    try:
        key = records_key(folder)
        records, records_sha = _listing(objects, key, objects.get(key), records_sha256, "its chain link", error)
    except ObjectMissing:
        if records_sha256 is not None:
            raise error(f"{objects.location(key)}: not found, but its chain link records one") from None
    return Publication(objects, folder, sha, doc, error, records, records_sha)


def _listing(objects: ObjectStore, key: str, data: bytes, expected_sha256: str | None, pinned_by: str,
             error: type[Exception]) -> tuple[dict, str]:
    """publication.json or records.json: held to the sha256 `pinned_by` records, with a files list."""
    sha = hashlib.sha256(data).hexdigest()
    if expected_sha256 is not None and sha != expected_sha256:
        raise error(f"{objects.location(key)}: sha256 {sha} but {pinned_by} records "
                    f"{expected_sha256}; run `arkevo dataset verify`")
    try:
        doc = json.loads(data)
        if not isinstance(doc, dict) or not isinstance(doc.get("files"), list):
            raise ValueError("no files list")
    except ValueError as exc:
        raise error(f"{objects.location(key)}: not a {key.rsplit('/', 1)[-1]} ({exc})") from None
    return doc, sha
