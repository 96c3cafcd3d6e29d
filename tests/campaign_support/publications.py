"""Frozen publications written straight into an object store for campaign tests that mock the
trials: the files the campaign reads (publication.json and records.json with their file lists,
review/frozen-task.json,
task/task.toml, the split manifest), with real sha256s, and a real (tiny) task package tree in
the content store. Not a published task: nothing here can be solved."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tempfile
from pathlib import Path

from contracts.payloads.authoring import AssembledPackage
from storage.content import ContentStore
from dataset_revisions.layout import RevisionKeys
from publications.layout import is_version_file
from storage.objects import ObjectStore

PIPELINE = {"pipeline_id": "arkevo-blender", "pipeline_version": "0.1.0", "pipeline_digest": "d" * 64}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_publication(objects: ObjectStore, store: ContentStore, folder: str, task_id: str,
                      input_reward: float = 0.2, profile: str = "blender-70-30",
                      assembled: AssembledPackage | None = None) -> str:
    """Returns the sha256 of the publication.json written under `folder`. With `assembled` (a
    real package, `tests.conftest.assemble_seed`) the publication carries its package, identity
    and grading, so a campaign over it runs real trials."""
    if assembled is None:
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "instruction.md").write_text(f"Fix {task_id}.\n")
            package = store.put_tree(Path(tmp))
        version = f"v1-{_sha(task_id.encode())[:12]}"
        verifier = f"vv2-{_sha(('v' + task_id).encode())[:16]}"
        grading = {"task_id": task_id, "profile": {"profile_id": profile, "profile_version": "1"},
                   "params": {}, "verification": {"weights": {"rule": 1.0, "vl": 0, "agent": 0},
                                                  "pass_threshold": 0.7, "core_failure_cap": 0.4},
                   "uses_vl": False, "judge": None, "judge_config": None, "verifier_basis": "b" * 64,
                   "verifier_version": verifier, "reference_evidence": None}
    else:
        package, version = assembled.task_package, assembled.identity.task_version
        verifier, grading = assembled.identity.verifier_version, dataclasses.asdict(assembled.grading)
    frozen = json.dumps({"task_id": task_id, "task_version": version, "task_package": package.as_dict(),
                         "calibration_report": package.as_dict(), "grading": grading,
                         "input_reward": input_reward, "pipeline_ref": PIPELINE,
                         "frozen_at": "2026-11-30T00:00:00+00:00", "verifier_version": verifier}).encode()
    who = assembled.identity if assembled else None
    toml = (f'schema_version = "1.4"\n[metadata]\ntask_id = "{task_id}"\ntask_version = "{version}"\n'
            f'verifier_version = "{verifier}"\npipeline_digest = "{who.pipeline_digest if who else "d" * 64}"\n'
            f'workflow_primary = "{who.workflow_primary if who else "MOD-01"}"\n'
            f'profession_primary = "{who.profession_primary if who else "PRF-MODEL"}"\n').encode()
    files = {"review/frozen-task.json": frozen, "task/task.toml": toml}
    for rel, data in files.items():
        objects.put_if_absent(f"{folder}/{rel}", data)
    listed = [{"path": rel, "sha256": _sha(data), "size": len(data)} for rel, data in sorted(files.items())]
    objects.put_if_absent(f"{folder}/records.json", json.dumps({
        "publication_id": f"{task_id}-r1", "published_at": "2026-11-30T00:00:00+00:00",
        "files": [f for f in listed if not is_version_file(f["path"])]}, indent=2).encode())
    publication = json.dumps({"publication_id": f"{task_id}-r1", "task_id": task_id, "task_version": version,
                              "files": [f for f in listed if is_version_file(f["path"])]}, indent=2).encode()
    objects.put_if_absent(f"{folder}/publication.json", publication)
    return _sha(publication)


def write_frozen_revision(objects: ObjectStore, store: ContentStore, namespace: str, revision: str,
                          splits: dict[str, list[str]]) -> None:
    keys = RevisionKeys(namespace, revision)
    manifest = {"namespace": namespace, "revision": revision, "splits": {}}
    for split, tasks in splits.items():
        entries = []
        for i, task in enumerate(tasks):
            sha = write_publication(objects, store, f"{keys.publications}/{task}/{task}-r1", task,
                                    input_reward=0.1 * (i + 1))
            entries.append({"task_id": task, "publication_id": f"{task}-r1", "publication_sha256": sha})
        manifest["splits"][split] = entries
    objects.put_if_absent(keys.manifest, json.dumps(manifest, indent=2).encode())


def write_candidate_revision(objects: ObjectStore, store: ContentStore, spec: dict,
                             tasks: list[str]) -> None:
    """An unfrozen revision: `spec` as its dataset.json and one publication per task, each
    committed by a chain link (publication.json and records.json sha256, the previous link's)."""
    from dataset_revisions.chain import ChainLink, claim

    keys = RevisionKeys(spec["namespace"], spec["revision"])
    objects.put_if_absent(keys.spec, json.dumps(spec, indent=2).encode())
    previous = None
    for n, task in enumerate(tasks, start=1):
        folder = f"{keys.publications}/{task}/{task}-r1"
        sha = write_publication(objects, store, folder, task)
        publication = json.loads(objects.get(f"{folder}/publication.json"))
        link = ChainLink(sequence=n, publication_id=f"{task}-r1", task_id=task,
                         task_version=publication["task_version"], seed_id=task, content_sha256="c" * 64,
                         publication_key=folder, publication_sha256=sha,
                         records_sha256=_sha(objects.get(f"{folder}/records.json")),
                         previous_link_sha256=previous, published_at="2026-11-30T00:00:00+00:00",
                         source=f"src-{task}", workflow_primary="MOD-01", profession_primary="PRF-MODEL",
                         publication=publication)
        assert claim(objects, keys, link)
        previous = _sha(link.to_bytes())
