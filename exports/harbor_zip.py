"""ZIPs of frozen tasks in Harbor's layout, with a sha256 manifest (docs/exports.md).

    <task_id>/...                          export_task: the publication's task/ tree
    <ns>-<rev>-<split>/<task_id>/...       export_split: one such tree per task of the split
    manifest.json                          format, kind, source, {path in zip: sha256, size}
    SHA256SUMS                             `sha256sum -c` over every other entry

`harbor run -p` takes a folder holding task.toml as one task and any other folder as a dataset
(its sub-folders that are valid tasks), so the split's folder runs as a dataset; the manifest
and SHA256SUMS sit beside it, never inside.

Every exported file is read from the object store and held to the sha256 and size its
publication.json lists (and publication.json to the split manifest's sha256); a mismatch, a
listed file that is missing or a file under task/ that is not listed is `ExportError` naming the
object, and nothing is written: the ZIP is made in a temp file next to `out` and renamed into
place only when whole. The bytes depend on the input alone: entries sorted by name, fixed
timestamps and modes, one compression level, no comment, no directory entries.

A task retracted from its revision (dataset_revisions/retraction.py) is never exported: a split
export leaves it out and names it in the manifest's `source.retracted`; a task export of it is
`TaskRetracted`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from campaigns.tasks import CampaignSourceError, publication_key, read_split
from contracts.payloads.common import DatasetRef
from dataset_revisions.layout import RevisionKeys, revision_of
from dataset_revisions.retraction import retracted, retraction_line
from publications.layout import TASK, TASK_TOML
from publications.reader import Publication, read_publication
from storage.objects import ObjectStore, check_key

FORMAT = "arkevo-export/1"
MANIFEST, SUMS = "manifest.json", "SHA256SUMS"
DATE_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest a ZIP can say: no wall clock in the bytes
COMPRESSLEVEL = 9
TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

Progress = Callable[[int, int, str], None]  # (entries done, entries in all, entry just written)


class ExportError(ValueError):
    """A file does not hold to the sha256 its publication lists (or is missing, or unlisted)."""


class ExportSourceError(ValueError):
    """Bad input: no such publication, dataset or split, or no folder to write the ZIP in."""


class TaskRetracted(ExportError):
    """The publication's task was retracted from its dataset revision: it is never exported."""


@dataclass(frozen=True)
class ExportResult:
    path: Path
    sha256: str
    size: int
    files: int  # task files exported (manifest.json and SHA256SUMS not counted)
    tasks: list[str]  # task ids, in the order of the ZIP
    root: str  # the folder in the ZIP to give `harbor run -p`
    retracted: list[str] = field(default_factory=list)  # left out: "task (reason, by who)"


@dataclass(frozen=True)
class _Entry:
    name: str  # path in the ZIP
    pub: Publication
    rel: str  # path in the publication
    mode: int

    @property
    def sha256(self) -> str:  # as publication.json lists it
        return self.pub.listed[self.rel]["sha256"]

    @property
    def size(self) -> int:
        return self.pub.listed[self.rel]["size"]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _mode(key: str) -> int:
    """0o755 for a shell script (what Harbor executes: solve.sh, test.sh), else 0o644 — from the
    name alone, so the bytes do not depend on the store backend (S3 keeps no modes)."""
    return 0o755 if key.endswith(".sh") else 0o644


def _publication(objects: ObjectStore, folder: str, top: str | None,
                 expected_sha256: str | None) -> tuple[dict, list[_Entry]]:
    """The publication's summary for the manifest and the entries of its task/ tree, which lands
    under `<top>/<task_id>/` (`<task_id>/` without a top)."""
    pub = read_publication(objects, folder, expected_sha256, error=ExportError, missing=ExportSourceError)
    where, sha = pub.location(), pub.sha256
    task_id = pub.doc.get("task_id", "")
    if not TASK_ID.match(task_id):
        raise ExportError(f"{where}: task_id {task_id!r} cannot name a folder ({TASK_ID.pattern})")
    listed = sorted(path for path in pub.listed if path.startswith(TASK))
    if TASK_TOML not in listed:
        raise ExportError(f"{where}: lists no {TASK_TOML}: not a Harbor task")
    unlisted = pub.unlisted(TASK)
    if unlisted:
        raise ExportError(f"{pub.location(unlisted[0])}: {unlisted[0]} is not listed in {where}")
    prefix = f"{top}/{task_id}" if top else task_id
    entries = []
    for path in listed:
        try:
            file_key = check_key(f"{folder}/{path}")
        except ValueError:
            raise ExportError(f"{where}: lists {path!r}, not a path inside the publication") from None
        entries.append(_Entry(f"{prefix}/{path[len(TASK):]}", pub, path, _mode(file_key)))
    summary = {"publication_id": pub.doc["publication_id"], "task_id": task_id,
               "task_version": pub.doc.get("task_version"), "publication_sha256": sha, "key": pub.folder,
               "pipeline_ref": pub.doc.get("pipeline_ref"), "dataset": pub.doc.get("dataset")}
    return summary, entries


def _info(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=DATE_TIME)
    info.create_system = 3  # Unix: external_attr carries the mode
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _check_out(out: Path) -> Path:
    out = Path(out)
    if out.is_dir():
        raise ExportSourceError(f"--out {out}: is a folder; name the ZIP file to write")
    if not out.parent.is_dir():
        raise ExportSourceError(f"--out {out}: no folder {out.parent} to write it in")
    return out


def _write(objects: ObjectStore, out: Path, kind: str, root: str, source: dict, entries: list[_Entry],
           progress: Progress | None, left_out: list[str] | None = None) -> ExportResult:
    manifest = json.dumps({"format": FORMAT, "kind": kind, "root": root, "source": source,
                           "files": {e.name: {"sha256": e.sha256, "size": e.size}
                                     for e in sorted(entries, key=lambda e: e.name)}},
                          indent=2).encode() + b"\n"
    sums = "".join(f"{sha}  {name}\n" for name, sha in
                   sorted([(e.name, e.sha256) for e in entries] + [(MANIFEST, _sha(manifest))])).encode()
    items: dict[str, _Entry | bytes] = {e.name: e for e in entries} | {MANIFEST: manifest, SUMS: sums}
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "w+b") as fh:
            with zipfile.ZipFile(fh, "w") as zf:
                for done, name in enumerate(sorted(items), 1):
                    item = items[name]
                    data, mode = (item, 0o644) if isinstance(item, bytes) else (item.pub.read(item.rel, keep=False), item.mode)
                    zf.writestr(_info(name, mode), data, compresslevel=COMPRESSLEVEL)
                    if progress:
                        progress(done, len(items), name)
            fh.flush()
            os.fsync(fh.fileno())
            fh.seek(0)
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
            size = fh.tell()
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return ExportResult(out, digest, size, len(entries),
                        [s["task_id"] for s in source["publications"]], root, left_out or [])


def export_task(objects: ObjectStore, folder_key: str, out: Path, expected_sha256: str | None = None,
                progress: Progress | None = None) -> ExportResult:
    """One publication's task/ tree as `<task_id>/` in a ZIP at `out`. `folder_key`: the
    publication's folder as an object key or an absolute path inside a local store."""
    out = _check_out(out)
    try:
        folder = publication_key(objects, folder_key).rstrip("/")
        check_key(folder)
    except (CampaignSourceError, ValueError) as e:
        raise ExportSourceError(f"--publication {folder_key}: {e}") from None
    keys = revision_of(folder)
    if keys is not None and (gone := retracted(objects, keys).get(folder.split("/")[-2])):
        raise TaskRetracted(f"{objects.location(folder)}: task {retraction_line(gone)} is retracted from "
                            f"{keys.namespace}/{keys.revision}: not exported")
    summary, entries = _publication(objects, folder, None, expected_sha256)
    dataset = summary["dataset"] or {}
    source = {"namespace": dataset.get("namespace"), "revision": dataset.get("revision"),
              "publications": [summary]}
    return _write(objects, out, "task", summary["task_id"], source, entries, progress)


def export_split(objects: ObjectStore, namespace: str, revision: str, split: str, out: Path,
                 progress: Progress | None = None) -> ExportResult:
    """Every task of a frozen revision's split, as `<ns>-<rev>-<split>/<task_id>/` in a ZIP."""
    out = _check_out(out)
    try:
        folders, manifest_sha = read_split(objects, DatasetRef(namespace, revision), split)
    except CampaignSourceError as e:
        raise ExportSourceError(str(e)) from None
    root = f"{namespace}-{revision}-{split}"
    # retracted tasks stay in the frozen manifest but are left out of the ZIP, and named
    gone = retracted(objects, RevisionKeys(namespace, revision))
    left_out = [gone[f.split("/")[-2]] for f, _ in folders if f.split("/")[-2] in gone]
    folders = [(f, sha) for f, sha in folders if f.split("/")[-2] not in gone]
    if not folders:
        raise ExportError(f"split {split} of {namespace}/{revision}: every task is retracted "
                          f"({', '.join(retraction_line(r) for r in left_out)}): nothing to export")
    summaries, entries = [], []
    for folder, sha in folders:
        summary, files = _publication(objects, folder, root, sha)
        summaries.append(summary)
        entries += files
    ids = [s["task_id"] for s in summaries]
    if len(set(ids)) != len(ids):
        raise ExportError(f"split {split} of {namespace}/{revision} names a task twice: "
                          f"{sorted(i for i in ids if ids.count(i) > 1)[0]}")
    source = {"namespace": namespace, "revision": revision, "split": split,
              "manifest_sha256": manifest_sha,
              "publications": sorted(summaries, key=lambda s: s["task_id"])}
    if left_out:  # only then: an export of a split with none keeps its bytes
        source["retracted"] = [{k: r[k] for k in ("task_id", "publication_id", "reason", "by", "at")}
                               for r in left_out]
    return _write(objects, out, "split", root, source, entries, progress,
                  [retraction_line(r) for r in left_out])


def extract(zip_path: Path, dest: Path) -> Path:
    """Unzip as `unzip` does, modes included (Python's zipfile alone drops them); `dest`."""
    dest = Path(dest)
    with zipfile.ZipFile(zip_path) as zf:
        for info in zf.infolist():
            path = Path(zf.extract(info, dest))
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                path.chmod(mode)
    return dest
