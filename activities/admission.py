"""Stage 02: admit a seed folder — validate it whole, then hash every file into the store.

Validation happens before the first write, so a bad seed leaves the store untouched.
"""

from __future__ import annotations

import json
from pathlib import Path

from temporalio import activity

from activities.errors import invalid_seed
from activities.store import ContentStore
from contracts.payloads import AdmissionInput, AdmissionResult, PipelineDefaults
from contracts.seed_check import check_seed_dir
from contracts.validation import ContractError


class AdmissionActivities:
    def __init__(self, store: ContentStore, project_root: Path):
        self.store = store
        self.project_root = project_root

    def resolve_seed(self, seed: str) -> Path:
        path = Path(seed)
        if not path.is_absolute():
            path = self.project_root / path
        if not (path / "seed.json").is_file():
            raise invalid_seed(f"{seed}/seed.json: <file>: no seed.json in seed folder {path}")
        return path.resolve()

    @activity.defn(name="admit_seed")
    def admit_seed(self, req: AdmissionInput) -> AdmissionResult:
        seed, admitted_at = req.seed, req.admitted_at
        seed_dir = self.resolve_seed(seed)
        try:
            checked = check_seed_dir(seed_dir)
        except ContractError as e:
            raise invalid_seed(str(e)) from e
        manifest = checked.manifest

        files = sorted(set(checked.material_paths) | set(checked.draft_files) | {"seed.json"})
        tree = self.store.put_tree(seed_dir, files)
        entries = self.store.tree_entries(tree)
        record = {
            "seed_id": manifest.seed_id,
            "seed_path": seed,
            "admitted_at": admitted_at,
            "seed_tree": {"key": tree.key, "sha256": tree.sha256},
            "provenance": manifest.provenance.model_dump(),
            "sanitization_policy": manifest.sanitization_policy.model_dump(),
            "materials": [
                {**m.model_dump(), **entries[m.path]} for m in manifest.materials
            ],
            "draft_files": {rel: entries[rel] for rel in checked.draft_files},
        }
        record_ref = self.store.put_json(record)
        reference = next(m.path for m in manifest.materials if m.role == "reference_project")
        activity.logger.info("admitted seed %s: %d files", manifest.seed_id, len(files))
        return AdmissionResult(
            seed_id=manifest.seed_id,
            task_id=checked.task.task_id if checked.task else manifest.seed_id,
            seed_tree=tree,
            admission_record=record_ref,
            material_count=len(manifest.materials),
            reference_project=reference,
            start_mode=manifest.start_mode,
            pipeline=self.pipeline_defaults(),
        )

    def pipeline_defaults(self) -> PipelineDefaults:
        config = json.loads((self.project_root / "contracts" / "pipeline.json").read_text())
        return PipelineDefaults(
            pilot_policies=config["pilot_policies"],
            evaluation_policies=config["evaluation_policies"],
            k=config["k"],
            calibration_reference_min=config["calibration_reference_min"],
        )
