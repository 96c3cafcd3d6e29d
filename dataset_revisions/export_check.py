"""The export checkpoint over a dataset export (docs/privacy.md): before a revision freezes,
every file of every selected publication is scanned again with its task's privacy policy, and
re-hashed (`verify`). A finding, an unread file no reviewer approved, or a file that changed is
a freeze gap naming the publication and the file."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from storage.content import ContentStore
from dataset_revisions.chain import ChainLink
from dataset_revisions.freeze_rules import Gap
from privacy.extract import blend_text_lookup
from privacy.policy import load_policy_for
from privacy.scan import scan_tree
from publications.layout import records_key
from storage.objects import ObjectStore


def _published_files(objects: ObjectStore, link: ChainLink) -> list[str]:
    """Every file the publication exports: the version's and the run's records (a trial record
    can carry a model's words as much as a task file can)."""
    records = json.loads(objects.get(records_key(link.publication_key)))
    return [e["path"] for e in [*link.publication["files"], *records["files"]]]


def _local_copy(objects: ObjectStore, link: ChainLink, files: list[str], tmp: Path) -> Path:
    """The publication as a local folder: in place on a filesystem store, downloaded from S3."""
    local = objects.local_path(link.publication_key)
    if local is not None:
        return local
    for rel in files:
        objects.download(f"{link.publication_key}/{rel}", tmp / rel)
    return tmp


def privacy_gaps(objects: ObjectStore, store: ContentStore, links: list[ChainLink]) -> list[Gap]:
    gaps = []
    lookup = blend_text_lookup(store)
    for link in links:
        with tempfile.TemporaryDirectory(prefix="arkevo-export-") as tmp:
            files = _published_files(objects, link)
            root = _local_copy(objects, link, files, Path(tmp))
            task = json.loads((root / "task" / "tests" / "task.json").read_text())
            report = scan_tree(root, load_policy_for(task["sanitization_policy"]), files=files,
                               checkpoint="export", blend_texts=lookup)
            reviewed = set()
            record = root / "review" / "privacy.json"
            if record.is_file():
                review = json.loads(record.read_text()).get("review") or {}
                if review.get("approved"):
                    reviewed = {(f["file"], f["sha256"]) for f in review.get("files", [])}
        for f in report.findings:
            gaps.append(Gap("privacy", f"{link.publication_id}: {f.message()}"))
        for p in report.pending:
            if (p.file, p.sha256) not in reviewed:
                gaps.append(Gap("privacy_coverage", f"{link.publication_id}: {p.file} is coverage_pending "
                                                    f"({p.reason}) and no reviewer approved it"))
    return gaps
