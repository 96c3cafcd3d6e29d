"""Reviewed publications written straight into an object store, for the review site's fast
tests: every file the site reads (publication.json with real sha256s, the instruction and a
public attachment, reference renders as real PNGs, the frozen record, the calibration report,
stage 06's report and trials.jsonl) and, in the content store, the records the trials link
(delivery report, score record with VL answers, a tree of renders). Not a solvable task: the
real path is proved by tests/integration/test_dataset_production.py on produced publications."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

from PIL import Image, ImageDraw

from storage.content import ContentStore
from dataset_revisions.layout import RevisionKeys
from publications.layout import is_version_file
from storage.objects import ObjectStore

PIPELINE = {"pipeline_id": "arkevo-blender", "pipeline_version": "0.1.0", "pipeline_digest": "d" * 64}
TASKS = {  # task id → (workflow, profession, title)
    "table-model": ("MOD-01", "PRF-3DART", "Model a four-legged dining table to dimensions"),
    "mug-material": ("MAT-01", "PRF-LOOKDEV", "Set up PBR materials for a ceramic mug"),
    "render-setup": ("SCN-07", "PRF-ENV", "Configure Cycles for a delivery spec"),
}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def png(colour: tuple[int, int, int], label: str) -> bytes:
    img = Image.new("RGB", (160, 120), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    draw.rectangle((30, 30, 130, 100), fill=colour)
    draw.text((5, 5), label, fill=(0, 0, 0))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def _renders(store: ContentStore, tmp: Path, colour: tuple[int, int, int], name: str):
    folder = tmp / f"renders-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    for view in ("front", "side", "top", "close"):
        (folder / f"{view}.png").write_bytes(png(colour, f"{name} {view}"))
    (folder / "manifest.json").write_text("{}")
    return store.put_tree(folder)


def write_reviewed_publication(objects: ObjectStore, store: ContentStore, tmp: Path, namespace: str,
                               revision: str, task_id: str, sequence: int,
                               nop_reward: float = 0.3) -> tuple[str, str]:
    """(publication folder key, publication.json sha256)."""
    workflow, profession, title = TASKS[task_id]
    folder = f"{RevisionKeys(namespace, revision).publications}/{task_id}/{task_id}-r1"
    verifier = f"vv2-{_sha(task_id.encode())[:16]}"
    profile = {"profile_id": "blender-70-30", "profile_version": "1"}
    judge = {"id": "image-metric@1", "kind": "offline-metric",
             "label": "offline image-metric judge (similarity to the reference renders) - not a model result"}
    trials = []
    for config, reward, colour in (("oracle", 1.0, (40, 120, 220)), ("nop", nop_reward, (200, 60, 60))):
        renders = _renders(store, tmp, colour, f"{task_id}-{config}")
        for attempt in (1, 2, 3):
            criteria = [{"id": "C01", "requirement_id": "REQ-SIZE", "method": "dimensions", "weight": 1.0,
                         "core": True, "score": reward, "passed": reward >= 0.7,
                         "detail": f"{config}: measured against the spec"}]
            report = store.put_json({"criteria": criteria, "rule_score": reward})
            score = store.put_json({
                "trial_id": f"{task_id}/{config}/{attempt}", "total": reward, "criteria": criteria,
                "vl": {"vl_score": reward, "judge": judge, "missing_reason": None, "answers": {
                    "A": {"id": "A", "score": reward, "reason": "silhouette_iou", "raw": "{}", "error": None}}}})
            trials.append({
                "trial_id": f"dataset-{namespace}-{revision}.{task_id}.06-evaluation/{config}/{attempt}",
                "task_id": task_id, "task_version": "v1-x", "config": config, "config_kind": "scripted",
                "label": "scripted policy — not a model result", "stage": "evaluation", "attempt": attempt,
                "verifier_version": verifier, "scoring_profile": profile, "reward": reward,
                "success": reward >= 0.7, "exception": None, "failure": None, "timed_out": False,
                "judge": judge, "delivery": None, "report": report.as_dict(), "score": score.as_dict(),
                "renders": renders.as_dict(), "started_at": "2026-11-30T00:00:00+00:00",
                "finished_at": "2026-11-30T00:00:05+00:00"})
    samples = [{"sample": s, "kind": k, "policy": p, "rule_score": r, "vl_score": r, "reward": r,
                "success": r >= 0.7, "cap_applied": None, "expected": e, "met": True, "margin": 0.6,
                "failure": None, "delivery": None, "report": None, "vl": None, "criteria": []}
               for s, k, p, r, e in (("reference", "reference", "oracle", 1.0, "total >= 0.9 and success"),
                                     ("input", "input", "nop", 0.2, "not success and total <= 0.4"),
                                     ("defect:short_legs", "defect", "script:short_legs.py", 0.35,
                                      "not success and total <= 0.4"))]
    files = {
        "task/instruction.md": f"# {title}\n\nBuild it as `outputs/result.blend`.\n".encode(),
        "task/environment/workspace/inputs/spec.md": f"Spec for {task_id}: 1.2 m wide.\n".encode(),
        "task/tests/task.json": json.dumps({"task_id": task_id, "title": title, "workflow_primary": workflow,
                                            "profession_primary": profession, "scoring_profile": profile}).encode(),
        "review/frozen-task.json": json.dumps({
            "task_id": task_id, "task_version": "v1-x", "verifier_version": verifier, "input_reward": 0.2,
            "pipeline_ref": PIPELINE, "grading": {"profile": profile, "judge": "image-metric",
                                                  "verification": {"pass_threshold": 0.7,
                                                                   "weights": {"rule": 0.7, "vl": 0.3}}}}).encode(),
        "review/calibration-report.json": json.dumps({
            "task_id": task_id, "margin": 0.6, "required_margin": 0.2, "min_good": 1.0, "max_bad": 0.4,
            "pass_threshold": 0.7, "reference_min": 0.9, "passed": True, "misses": [],
            "samples": samples}).encode(),
        "evaluation/report.json": json.dumps({"task_id": task_id, "metrics": [
            {"config": c, "k": 3, "scored": 3, "avg_at_k": r, "pass_at_k": 1.0 if r >= 0.7 else 0.0,
             "reward_delta": r - 0.2} for c, r in (("oracle", 1.0), ("nop", nop_reward))]}).encode(),
        "evaluation/trials.jsonl": b"".join(json.dumps(t).encode() + b"\n" for t in trials),
        "admission/admission-record.json": json.dumps({
            "seed_id": task_id, "authoring": "human",
            "provenance": {"source": f"examples/{task_id}", "license": "CC0-1.0", "collected_by": "tests"}}).encode(),
    }
    for view, colour in (("front", (90, 160, 90)), ("side", (90, 90, 160)), ("top", (160, 90, 90)),
                         ("close", (160, 160, 90))):
        files[f"task/tests/reference_evidence/{view}.png"] = png(colour, f"{task_id} reference {view}")
    for rel, data in files.items():
        objects.put_if_absent(f"{folder}/{rel}", data)
    listed = [{"path": rel, "sha256": _sha(data), "size": len(data)} for rel, data in sorted(files.items())]
    objects.put_if_absent(f"{folder}/records.json", json.dumps({
        "publication_id": f"{task_id}-r1", "published_at": f"2026-11-30T00:00:0{sequence}+00:00",
        "files": [f for f in listed if not is_version_file(f["path"])]}, indent=2).encode())
    publication = json.dumps({
        "publication_id": f"{task_id}-r1", "task_id": task_id, "task_version": "v1-x", "revision": 1,
        "previous": None, "pipeline_ref": PIPELINE, "content_sha256": "c" * 64,
        "dataset": {"namespace": namespace, "revision": revision},
        "files": [f for f in listed if is_version_file(f["path"])],
    }, indent=2).encode()
    objects.put_if_absent(f"{folder}/publication.json", publication)
    return folder, _sha(publication)


def write_revision(objects: ObjectStore, namespace: str, revision: str, splits: dict[str, int]) -> None:
    objects.put_if_absent(RevisionKeys(namespace, revision).spec, json.dumps({
        "namespace": namespace, "revision": revision, "seeds": ["seeds/table-model", "seeds/mug-material"],
        "splits": splits, "max_per_source": 1}).encode())


def freeze(objects: ObjectStore, namespace: str, revision: str, splits: dict[str, list[tuple[str, str, str]]]) -> None:
    """splits: name → [(task_id, publication folder, publication.json sha256)]."""
    manifest = {"namespace": namespace, "revision": revision, "semantic_digest": "e" * 64,
                "splits": {s: [{"task_id": t, "publication_id": f.rsplit("/", 1)[1], "publication_sha256": sha}
                               for t, f, sha in entries] for s, entries in splits.items()}}
    objects.put_if_absent(RevisionKeys(namespace, revision).manifest, json.dumps(manifest).encode())


def frozen_revision(source, tmp: Path) -> dict[str, tuple[str, str]]:
    """Revision rv/r1: table-model (train) and mug-material (test), frozen. `source` is a
    review_site.sources.Source. Returns task → (publication folder, publication.json sha256)."""
    write_revision(source.objects, "rv", "r1", {"train": 1, "test": 1})
    pubs = {t: write_reviewed_publication(source.objects, source.store, tmp, "rv", "r1", t, i + 1,
                                          nop_reward=0.3 + 0.1 * i)
            for i, t in enumerate(("table-model", "mug-material"))}
    freeze(source.objects, "rv", "r1", {"train": [("table-model", *pubs["table-model"])],
                                        "test": [("mug-material", *pubs["mug-material"])]})
    return pubs
