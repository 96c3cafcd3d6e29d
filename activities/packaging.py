"""Stage 07: an immutable publication — a Harbor task directory plus the evidence that made it.

The publication is assembled in a temp directory beside its destination and renamed into
place, so readers see all of it or nothing. `publication.json` lists every file with its sha256
and chains to the previous revision of the same task; a handoff event announces it.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from temporalio import activity

from activities.harbor_task import write_harbor_task, write_packaged_grading
from activities.store import ContentStore
from contracts.digests import canonical_json_bytes, sha256_file, sha256_hex
from contracts.payloads import PublicationResult, PublishInput
from contracts.validation import build_document


class PackagingActivities:
    def __init__(self, store: ContentStore, publications_root: Path, handoff_root: Path):
        self.store = store
        self.publications_root = publications_root
        self.handoff_root = handoff_root

    @activity.defn(name="publish_task")
    def publish_task(self, req: PublishInput) -> PublicationResult:
        task_root = self.publications_root / req.frozen.task_id
        task_root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=".staging-", dir=task_root) as tmp:
            staging = Path(tmp) / "publication"
            self._write_contents(req, staging)
            files = _file_list(staging)
            content_digest = sha256_hex(canonical_json_bytes(files))
            previous = _latest(task_root)
            if previous and previous[1].get("content_sha256") == content_digest:
                # Same content already published: make sure its handoff event exists too (an
                # earlier attempt may have died between the rename and the event).
                self._handoff(previous[1], previous[0], req)
                return self._result(previous[0], previous[1])

            revision = (previous[1]["revision"] + 1) if previous else 1
            pub_id = f"{req.frozen.task_id}-r{revision}"
            prev_ref = None
            if previous:
                prev_ref = {"publication_id": previous[1]["publication_id"],
                            "sha256": sha256_file(previous[0] / "publication.json")}
            publication = {
                "publication_id": pub_id,
                "task_id": req.frozen.task_id,
                "task_version": req.frozen.task_version,
                "revision": revision,
                "previous": prev_ref,
                "pipeline_ref": req.frozen.pipeline_ref,
                "created_at": req.created_at,
                "content_sha256": content_digest,
                "files": files,
            }
            publication = build_document("publication", publication, f"{pub_id}/publication.json")
            (staging / "publication.json").write_bytes(
                json.dumps(publication, indent=2, ensure_ascii=False).encode() + b"\n")
            final = task_root / pub_id
            os.rename(staging, final)  # fails if that revision exists: never overwritten
        self._handoff(publication, final, req)
        return self._result(final, publication)

    def _write_contents(self, req: PublishInput, out: Path) -> None:
        pkg = req.frozen.task_package
        write_harbor_task(self.store, pkg, out / "task", req.frozen.identity)
        write_packaged_grading(self.store, req.frozen.grading, out / "task" / "tests")
        self.store.materialize_tree(pkg, out / "private", prefix="private/")
        for name, ref in (("evaluation/evaluation-plan.json", req.evaluation.plan),
                          ("evaluation/trials.jsonl", req.evaluation.trials_jsonl),
                          ("evaluation/report.json", req.evaluation.report),
                          ("review/calibration-report.json", req.frozen.calibration_report),
                          ("review/frozen-task.json", req.frozen.frozen_record),
                          ("admission/admission-record.json", req.admission_record),
                          ("authoring/authoring-record.json", req.authoring_record)):
            if ref is not None:  # the authoring record: model-authored drafts only
                self.store.fetch_to(ref, out / name)

    def _handoff(self, publication: dict, final: Path, req: PublishInput) -> None:
        pub_sha = sha256_file(final / "publication.json")
        event = {
            "event_id": f"{publication['publication_id']}-{pub_sha[:12]}",
            "kind": "publication",
            "created_at": req.created_at,
            "subject": {"task_id": req.frozen.task_id, "task_version": req.frozen.task_version},
            "publication": {"publication_id": publication["publication_id"],
                            "path": str(final), "sha256": pub_sha},
        }
        event = build_document("handoff-event", event, "handoff event")
        folder = self.handoff_root / "publication"
        folder.mkdir(parents=True, exist_ok=True)
        if (folder / f"{event['event_id']}.json").exists():
            return  # at least once, and the first one written stands
        tmp = folder / f".{event['event_id']}.tmp"
        tmp.write_bytes(json.dumps(event, indent=2).encode() + b"\n")
        os.replace(tmp, folder / f"{event['event_id']}.json")

    def _result(self, path: Path, publication: dict) -> PublicationResult:
        pub_json = path / "publication.json"
        ref = self.store.put_file(pub_json)
        events = sorted((self.handoff_root / "publication").glob(f"{publication['publication_id']}-*.json"))
        return PublicationResult(
            publication_id=publication["publication_id"],
            path=str(path),
            publication_json=ref,
            file_count=len(publication["files"]),
            handoff_event=str(events[-1]) if events else "",
        )


def _file_list(root: Path) -> list[dict]:
    return [
        {"path": p.relative_to(root).as_posix(), "sha256": sha256_file(p), "size": p.stat().st_size}
        for p in sorted(root.rglob("*")) if p.is_file()
    ]


def _latest(task_root: Path) -> tuple[Path, dict] | None:
    pubs = []
    for pj in task_root.glob("*/publication.json"):
        doc = json.loads(pj.read_text())
        pubs.append((doc["revision"], pj.parent, doc))
    if not pubs:
        return None
    _, path, doc = max(pubs, key=lambda t: t[0])
    return path, doc
