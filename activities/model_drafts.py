"""Model authoring's bookkeeping on the cpu pool: admit a draft the author model wrote (the same
checks stage 02 applies to a human draft, plus the rules only an authored draft has), and write
the authoring record.

A draft that fails a check is not an error here: its findings go back to the author as the
next round's feedback (`DraftAdmission.ok` False). Only a store or disk fault raises.
"""

from __future__ import annotations

import dataclasses
import tempfile
from datetime import datetime
from pathlib import Path
from typing import cast

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.admission import draft_plan
from storage.content import ContentStore
from contracts.model_roles import ModelRole, load_registry
from contracts.payloads.common import BlobRef
from contracts.payloads.model_authoring import (AuthoringRecordInput, CalibrationFeedback, CheckDraftInput,
                                                DraftAdmission)
from contracts.seed_check import CheckedSeed
from verifiers.seed_check import check_seed_dir
from contracts.validation import ContractError
from drafting.feedback import Finding, from_calibration_report, from_contract_error
from drafting.ledger import check_ledger

MIN_DEFECTS, MIN_VARIANTS = 3, 1


def authored_draft_rules(checked: CheckedSeed) -> list[Finding]:
    """What only a model-authored draft must satisfy: it is the seed's task, it has enough
    calibration samples to be judged, and its ledger traces every graded requirement."""
    task, seed_id = checked.task, checked.manifest.seed_id
    assert task is not None  # checked with authored=True: a draft was written and checked
    findings = []
    if task.task_id != seed_id:
        findings.append(Finding("draft_rules", f"task_id must be the seed's id {seed_id!r}",
                                file="draft/task.json", field="task_id"))
    for kind, least in (("defects", MIN_DEFECTS), ("variants", MIN_VARIANTS)):
        prefix = f"draft/calibration/{kind}/"
        found = [f for f in checked.draft_files
                 if f.startswith(prefix) and f.endswith(".py") and "/" not in f[len(prefix):]]
        if len(found) < least:
            findings.append(Finding("draft_rules", f"{len(found)} {kind[:-1]} script(s), at least {least} "
                                    "needed", file=prefix))
    return findings + check_ledger(checked.seed_dir, checked.manifest, task)


class ModelDraftActivities:
    def __init__(self, store: ContentStore):
        self.store = store

    def _materialise(self, req: CheckDraftInput, root: Path) -> list[str]:
        # an authored seed's draft is the model's alone
        self.store.materialize_tree(req.seed_tree, root, exclude="draft/")
        self.store.materialize_tree(req.draft, root / "draft")
        return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())

    @activity.defn(name="admit_draft")
    def admit_draft(self, req: CheckDraftInput) -> DraftAdmission:
        with tempfile.TemporaryDirectory(prefix="arkevo-draft-") as tmp:
            seed_dir = Path(tmp) / req.seed_id
            files = self._materialise(req, seed_dir)
            try:
                checked = check_seed_dir(seed_dir, authored=True)
            except ContractError as e:
                return DraftAdmission(False, [from_contract_error(e, seed_dir=str(seed_dir)).as_dict()])
            findings = authored_draft_rules(checked)
            plan = None
            try:
                plan = draft_plan(checked, req.seed_id)
            except ApplicationError as e:  # the profile and judge checks (InvalidSeed)
                findings.insert(0, Finding("admission", e.message.removeprefix(f"{req.seed_id}/"),
                                           file="draft/task.json"))
            if findings:
                return DraftAdmission(False, [f.as_dict() for f in findings])
            tree = self.store.put_tree(seed_dir, files)
        activity.logger.info("round %d: draft of %s admitted (%d files)", req.round, req.seed_id, len(files))
        return DraftAdmission(True, [], tree, plan)

    @activity.defn(name="calibration_feedback")
    def calibration_feedback(self, report: BlobRef) -> CalibrationFeedback:
        """A round's calibration report as findings for the author (workflows read no blobs)."""
        doc = cast(dict, self.store.get_json(report))
        return CalibrationFeedback([f.as_dict() for f in from_calibration_report(doc)], doc.get("margin"))

    @activity.defn(name="write_authoring_record")
    def write_authoring_record(self, req: AuthoringRecordInput) -> BlobRef:
        roles = cast(dict[str, ModelRole], load_registry().roles)  # looked up by any usage role
        models = {u.role: {"model": u.model, "validated": roles[u.role].validated
                           if u.role in roles else None} for u in req.usage}
        totals = {k: sum(getattr(u, k) for u in req.usage)
                  for k in ("model_calls", "prompt_tokens", "completion_tokens")}
        return self.store.put_json({
            "seed_id": req.seed_id,
            "outcome": req.outcome,
            "reasons": req.reasons,
            "started_at": req.started_at,
            "finished_at": req.finished_at,
            "rounds": req.rounds,
            "models": models,
            "usage": [dataclasses.asdict(u) for u in req.usage],
            "totals": {**totals, "model_seconds": round(sum(u.seconds for u in req.usage), 3),
                       "wall_seconds": (datetime.fromisoformat(req.finished_at)
                                        - datetime.fromisoformat(req.started_at)).total_seconds()},
            "draft": req.draft.as_dict() if req.draft else None,
        })
