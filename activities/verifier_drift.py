"""The verifier drift check (docs/verifier-drift.md): a dataset revision's stored verdicts graded
again with the verifier in force -- or with a candidate's probe code -- and what would change
reported beside the revision. The frozen records are only read.

* `plan_drift` (cpu): checks the request (a dataset `NAMESPACE/REVISION` that exists, a
  tolerance >= 0, a candidate folder of probe files), lists the revision's publications (the
  latest per task; a frozen revision's splits) and the campaign trials over each, as they stand
  after any recovery, and names the verifier code (`vc-…`).
* `drift_task` (gpu: Blender): one publication. Every calibration sample of
  `review/calibration-report.json`, every trial of `evaluation/trials.jsonl` and every campaign
  trial whose delivery the content store holds is probed again in one warm probe -- in the
  verifier sandbox, with the code in force laid out by `verifiers.drift.stage_code` and the
  task's own packaged `tests/` (rubric, task probes, start scene) -- and scored under the frozen
  grading (profile and params) with its stored VL answer; the gaming operators are run again
  on the reference delivery and the author's gaming deliveries probed again (the mutation
  score). An infrastructure exception or a trial that delivered nothing is listed as not
  re-scored, never drift; a solver's failure with a delivery is a graded attempt and is
  re-scored. A probe that fails on a delivery is infrastructure (retried), as in a trial.
* `write_drift_report` (cpu): the report (`VerifierDriftReport`), written once under
  `datasets/<ns>/<rev>/drift/<code id>-<sha12>.json`.
"""

from __future__ import annotations

import json
import math
import re
import tempfile
from pathlib import Path
from typing import Any, cast

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.campaigns import CampaignActivities
from blender.runner import ScriptFailed
from campaigns.layout import CampaignKeys
from campaigns.records import failure_of, read_jsonl
from contracts.digests import sha256_hex
from contracts.errors import INVALID_DRIFT_REQUEST, author_script_failed
from contracts.models import NAME, SLUG
from contracts.payloads.common import BlobRef
from contracts.payloads.verifier_drift import (DriftCampaignRecord, DriftPlan, DriftReportInput, DriftTaskInput,
                                               DriftTaskResult, VerifierDriftInput, VerifierDriftReport,
                                               VerifierDriftResult)
from dataset_revisions.layout import RevisionKeys
from observability.heartbeats import in_thread
from publications.layout import FROZEN_TASK
from publications.reader import Publication, read_publication
from review_site.sources import SiteSourceError, Source, revision_publications
from sandbox.script_run import ScriptIsolation
from storage.content import ContentStore
from storage.objects import ObjectStore
from verifiers.bpy_procs import WarmProbe, mutate_spread
from verifiers.calibration import judge_samples
from verifiers.drift import (MUTATIONS, Graded, mutation_drift, not_rescored_mutation, record_entry, stage_code,
                             summarize, task_drifts)
from verifiers.evidence import renderer_version
from verifiers.mutation_testing import allowed_operators, gaming_table, mutation_table
from verifiers.profiles import ScoringProfile, get_profile, score_record
from verifiers.version import (TASK_VERIFIER_FILES, scoring_verifier_basis, task_verifier_digests,
                               verifier_code_id, verifier_version_from)

CALIBRATION = "review/calibration-report.json"
TRIALS = "evaluation/trials.jsonl"
TESTS = "task/tests/"
REPORT_VERSION = "1"
NOT_ASKED = "not asked: the stored deliveries only (attacks false, --deliveries-only)"


class DriftSourceError(ValueError):
    """A publication cannot be read as published (the message names the file)."""


def _bad(message: str) -> ApplicationError:
    return ApplicationError(message, type=INVALID_DRIFT_REQUEST, non_retryable=True)


class DriftActivities:
    def __init__(self, store: ContentStore, objects: ObjectStore, project_root: Path,
                 sandbox: ScriptIsolation = None):
        self.store = store
        self.objects = objects
        self.project_root = project_root  # a candidate's relative folder is taken from here
        self.sandbox = sandbox  # deliveries and a task's probes are outside code

    # -- plan ----------------------------------------------------------------------------------

    @activity.defn(name="plan_drift")
    def plan_drift(self, req: VerifierDriftInput) -> DriftPlan:
        ns, rev = req.dataset.namespace, req.dataset.revision
        if not re.fullmatch(SLUG, ns or "") or not re.fullmatch(NAME, rev or ""):
            raise _bad(f"dataset {ns}/{rev}: give NAMESPACE/REVISION (namespace {SLUG}, revision {NAME})")
        tolerance = req.tolerance
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) \
                or not math.isfinite(tolerance) or tolerance < 0:
            raise _bad(f"tolerance {tolerance!r}: a reward difference, a number >= 0")
        if not isinstance(req.attacks, bool):
            raise _bad(f"attacks {req.attacks!r}: true (attack each reference again) or false (deliveries only)")
        candidate = self.candidate(req.probe_code)
        with tempfile.TemporaryDirectory(prefix="arkevo-drift-code-") as tmp:
            code, replaced = stage_code(Path(tmp), candidate)
            code_id, files = verifier_code_id(code, extra=(MUTATIONS,))
        try:
            pubs, _ = revision_publications(Source(self.objects, self.store), ns, rev)
        except SiteSourceError as e:
            raise _bad(str(e)) from e
        if not pubs:
            raise _bad(f"dataset {ns}/{rev} holds no publication yet: nothing to check")
        records = self._campaign_records({p.sha256 for p in pubs})
        tasks = [DriftTaskInput(p.publication["task_id"], p.folder, p.sha256, float(tolerance), req.probe_code,
                                records.get(p.sha256, []), p.files.records_sha256, req.attacks) for p in pubs]
        return DriftPlan(ns, rev, self.objects.location(RevisionKeys(ns, rev).root), tasks, code_id, files,
                         replaced)

    def candidate(self, probe_code: str | None) -> Path | None:
        """The candidate's folder on this worker (absolute, or relative to the project root)."""
        if probe_code is None:
            return None
        folder = Path(probe_code) if Path(probe_code).is_absolute() else self.project_root / probe_code
        if not folder.is_dir():
            raise _bad(f"probe_code {probe_code}: no such folder on this worker ({folder})")
        return folder

    def _campaign_records(self, publications: set[str]) -> dict[str, list[DriftCampaignRecord]]:
        """{publication sha256: its campaign trials as they stand} over every campaign whose plan
        evaluates one of `publications`."""
        ids = sorted({k.split("/")[1] for k in self.objects.list("campaigns/")
                      if k.count("/") == 2 and k == CampaignKeys(k.split("/")[1]).plan})
        campaigns = CampaignActivities(self.store, self.objects, self.project_root)
        out: dict[str, list[DriftCampaignRecord]] = {}
        for cid in ids:
            plan, records = campaigns.standing_records(cid)
            shas = {t["task_id"]: t["publication_sha256"] for t in plan["tasks"]}
            for r in records:
                if (sha := shas.get(r["task_id"])) in publications:
                    out.setdefault(sha, []).append(
                        DriftCampaignRecord(cid, r["trial_id"], (r.get("recovery") or {}).get("round")))
        return out

    # -- one task ------------------------------------------------------------------------------

    @activity.defn(name="drift_task")
    async def drift_task(self, req: DriftTaskInput) -> DriftTaskResult:
        candidate = self.candidate(req.probe_code)
        with tempfile.TemporaryDirectory(prefix="arkevo-drift-") as tmp:
            try:
                entry = await in_thread(self.task_entry, req, candidate, Path(tmp),
                                        what=f"re-scoring {req.task_id}")
            except ScriptFailed as exc:  # the task's own probes raised: its author's
                file, exception = exc.problems[0]
                raise author_script_failed(f"{req.task_id}: tests/{file.name}: {exception} (under the drift "
                                           "check)", file=f"tests/{file.name}", exception=exception,
                                           log_tail=exc.log_tail[-2000:]) from exc
            except DriftSourceError as e:
                raise _bad(str(e)) from e
        records = entry["records"]
        return DriftTaskResult(req.task_id, self.store.put_json(entry), entry["drift"],
                               sum(1 for r in records if r["verdict_flip"]),
                               sum(1 for r in records if r["rescored"]),
                               sum(1 for r in records if not r["rescored"]))

    def task_entry(self, req: DriftTaskInput, candidate: Path | None, work: Path) -> dict:
        """The report's entry for one publication (a `DriftTask` document)."""
        pub = read_publication(self.objects, req.folder, req.publication_sha256, records_sha256=req.records_sha256,
                               error=DriftSourceError)
        frozen = pub.json(FROZEN_TASK)
        if frozen is None:
            raise DriftSourceError(f"{pub.location()}: lists no {FROZEN_TASK}")
        calibration = pub.json(CALIBRATION) or {}
        trials = read_jsonl(pub.read(TRIALS)) if TRIALS in pub.listed else []
        tests = _tests_folder(pub, work / "tests")
        grading = frozen["grading"]
        profile = get_profile(grading["profile"]["profile_id"], grading["profile"]["profile_version"])
        code, _ = stage_code(work / "code", candidate)
        reproduced = _verifier_version(tests, profile, grading["params"], tests) == grading["verifier_version"]
        current = _verifier_version(tests, profile, grading["params"], code)
        vl_answers = "not-weighted" if not profile.uses_vl else "reused" if reproduced else "not-comparable"
        with WarmProbe(sandbox=self.sandbox, code=code) as probe:
            regrade = Regrade(self.store, probe, tests, work, profile, grading, current, vl_answers, req.tolerance)
            samples = [(row, *regrade.calibration(row)) for row in calibration.get("samples", [])]
            records = [entry for _, entry, _ in samples]
            records += [regrade.trial("evaluation", t["trial_id"], t) for t in trials]
            for ref in req.campaign_records:
                record = json.loads(self.objects.get(CampaignKeys(ref.campaign_id).record(ref.trial_id, ref.round)))
                records.append(regrade.trial("campaign", ref.trial_id, record, ref.campaign_id))
            mutation, new_attacks = regrade.attacks(calibration) if req.attacks else (
                not_rescored_mutation(NOT_ASKED), None)
        judged = _calibration(calibration, samples, new_attacks, grading)
        return {
            "task_id": frozen["task_id"], "task_version": frozen["task_version"],
            "publication_id": pub.doc["publication_id"], "publication_sha256": pub.sha256,
            "scoring_profile": dict(grading["profile"]),
            "frozen_verifier_version": grading["verifier_version"], "current_verifier_version": current,
            "version_changed": current != grading["verifier_version"], "frozen_version_reproduced": reproduced,
            "vl_answers": vl_answers, "records": records, "calibration": judged, "mutation": mutation,
            "drift": task_drifts(records, mutation, judged),
        }

    # -- the report ----------------------------------------------------------------------------

    @activity.defn(name="write_drift_report")
    def write_drift_report(self, req: DriftReportInput) -> VerifierDriftResult:
        plan = req.plan
        tasks = [cast(dict, self.store.get_json(r.entry)) for r in req.results]
        doc: dict[str, Any] = {
            "report_version": REPORT_VERSION, "namespace": plan.namespace, "revision": plan.revision,
            "created_at": req.created_at, "tolerance": req.request.tolerance, "attacks": req.request.attacks,
            "verifier_code": {"id": plan.code_id, "files": plan.code_files, "candidate": req.request.probe_code,
                              "replaced": plan.replaced},
            "frozen_verifier_versions": sorted({t["frozen_verifier_version"] for t in tasks}),
            "current_verifier_versions": sorted({t["current_verifier_version"] for t in tasks}),
            "summary": summarize(tasks), "tasks": tasks,
        }
        report = VerifierDriftReport.model_validate(doc)  # the one description of the document
        data = json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False).encode() + b"\n"
        key = RevisionKeys(plan.namespace, plan.revision).drift_report(plan.code_id, sha256_hex(data)[:12])
        self.objects.put_if_absent(key, data)  # named by its digest: a second write is the same bytes
        s = report.summary
        return VerifierDriftResult(self.objects.location(key), key, s.zero_drift, s.tasks_checked, s.verdict_flips,
                                   list(s.tasks_with_drift))


class Regrade:
    """Grading one task's stored deliveries again in one warm probe (the code in force), under its
    frozen grading with the stored VL answers."""

    def __init__(self, store: ContentStore, probe: WarmProbe, tests: Path, work: Path, profile: ScoringProfile,
                 grading: dict, verifier_version: str, vl_answers: str, tolerance: float):
        self.store, self.probe, self.tests, self.work = store, probe, tests, work
        self.profile, self.params, self.version = profile, grading["params"], verifier_version
        self.task = {"task_id": grading["task_id"], "verification": grading["verification"]}
        self.vl_answers, self.tolerance = vl_answers, tolerance
        self.count = 0
        # delivery sha256 -> its rule report (JSON): a delivery stored more than once (a scripted
        # policy's repeats are byte-identical, a calibration reference is often a trial's
        # delivery too) is probed once -- the same bytes under the same code and tests
        self._reports: dict[str, str] = {}

    def _blob(self, doc: dict | None) -> BlobRef | None:
        ref = BlobRef(doc["key"], doc["sha256"], doc["size"]) if doc else None
        return ref if ref is not None and self.store.exists(ref) else None

    def _why_not(self, failure: dict | None, delivery: dict | None) -> str | None:
        """Why a stored record is not graded again (None: it is)."""
        if failure is not None and failure["kind"] == "infra":
            return f"infrastructure exception ({failure.get('type')}): not a graded attempt"
        if delivery is None:
            return "nothing was delivered"
        if self._blob(delivery) is None:
            return f"delivery {delivery['sha256'][:12]} is not in this content store"
        if self.vl_answers == "not-comparable":
            return ("its VL answer judged renders of another evidence renderer (the frozen verifier version "
                    "does not reproduce here); re-rendering is not part of the drift check")
        return None

    def probe_delivery(self, delivery: dict) -> dict:
        """The rule report of a stored delivery under the code in force (once per delivery)."""
        known = self._reports.get(delivery["sha256"])
        if known is None:
            self.count += 1
            blend = self.store.fetch_to(cast(BlobRef, self._blob(delivery)),
                                        self.work / "deliveries" / f"{self.count}.blend")
            try:
                report = self.probe.probe(blend, self.tests / "task.json", self.tests / "rubric.json",
                                          self.work / "reports" / f"{self.count}.json")
            finally:
                blend.unlink(missing_ok=True)
            known = self._reports[delivery["sha256"]] = json.dumps(report)
        return json.loads(known)  # a copy: a caller may add to the report it is given

    def _score(self, delivery: dict, vl: dict | None) -> dict:
        return score_record(self.profile, self.probe_delivery(delivery), vl, self.task,
                            verifier_version=self.version, params=self.params)

    def calibration(self, row: dict) -> tuple[dict, dict | None]:
        """A calibration sample's entry, and its new score record (None: not re-scored)."""
        stored = Graded.of(row["reward"], row["success"], row["criteria"])
        why = self._why_not(row.get("failure"), row.get("delivery"))
        vl_ref = self._blob(row.get("vl"))
        if why is None and self.profile.uses_vl and row.get("vl") and vl_ref is None:
            why = f"its VL answer {row['vl']['sha256'][:12]} is not in this content store"
        if why is not None:
            return record_entry("calibration", row["sample"], stored, None, self.tolerance, not_rescored=why), None
        vl = cast(dict, self.store.get_json(vl_ref)) if vl_ref is not None and self.profile.uses_vl else None
        new = self._score(row["delivery"], vl)
        return record_entry("calibration", row["sample"], stored, Graded.of_score(new), self.tolerance), new

    def trial(self, source: str, trial_id: str, record: dict, campaign_id: str | None = None) -> dict:
        """A stage-06 or campaign trial's entry, graded again from its delivery."""
        why = self._why_not(failure_of(record), record.get("delivery"))
        score_ref = self._blob(record.get("score"))
        if why is None and score_ref is None:
            why = "its stored score record is not in this content store"
        stored, stored_score = None, {}
        if score_ref is not None:
            stored_score = cast(dict, self.store.get_json(score_ref))
            stored = Graded.of(record["reward"], record["success"], stored_score["criteria"])
        if why is not None:
            return record_entry(source, trial_id, stored, None, self.tolerance, campaign_id=campaign_id,
                                not_rescored=why)
        new = self._score(record["delivery"], stored_score.get("vl") if self.profile.uses_vl else None)
        return record_entry(source, trial_id, stored, Graded.of_score(new), self.tolerance, campaign_id=campaign_id)

    def attacks(self, calibration: dict) -> tuple[dict, tuple[dict, dict | None] | None]:
        """The mutation part of the entry, and the new (mutation table, gaming table)."""
        reference = next((r for r in calibration.get("samples", []) if r["kind"] == "reference"), None)
        if reference is None or self._blob(reference.get("delivery")) is None:
            return not_rescored_mutation("no reference delivery in this content store to attack"), None
        self.count += 1
        blend = self.store.fetch_to(cast(BlobRef, self._blob(reference["delivery"])),
                                    self.work / "deliveries" / f"{self.count}.blend")
        rows = mutate_spread(self.probe, blend, self.tests / "task.json", self.tests / "rubric.json")
        task_doc = json.loads((self.tests / "task.json").read_text(encoding="utf-8"))
        table = mutation_table(rows, self.profile, self.task, self.params, allowed_operators(task_doc))
        stored_gaming = calibration.get("gaming")
        gaming = None
        samples = (stored_gaming or {}).get("samples", [])
        if samples and all(self._blob(g.get("delivery")) is not None for g in samples):
            gaming = gaming_table([{"sample": g["sample"], "script": g.get("script"), "delivery": g["delivery"],
                                    "criteria": self.probe_delivery(g["delivery"])["criteria"]} for g in samples],
                                  self.profile, self.task, self.params)
        return mutation_drift(calibration.get("mutations"), table, stored_gaming, gaming), (table, gaming)


def _tests_folder(pub: Publication, dest: Path) -> Path:
    """The task's packaged verifier files (task/tests/, top level) on disk."""
    dest.mkdir(parents=True, exist_ok=True)
    for rel in pub.under(TESTS):
        name = rel[len(TESTS):]
        if "/" not in name:
            (dest / name).write_bytes(pub.read(rel, keep=False))
    return dest


def _verifier_version(tests: Path, profile: ScoringProfile, params: dict, code: Path) -> str:
    """The task's verifier version with the probe code in `code`, computed as stage 03 and
    calibration fix it (activities/authoring.py, activities/review.py)."""
    def doc(name: str) -> dict:
        return json.loads((tests / name).read_text(encoding="utf-8"))

    files = {n: (tests / n).read_bytes() for n in TASK_VERIFIER_FILES if (tests / n).is_file()}
    basis = scoring_verifier_basis(
        task=doc("task.json"), rubric=doc("rubric.json"), profile_ref=profile.ref(),
        renderer=renderer_version() if profile.uses_vl else None,
        judge_config=doc("judge.json") if profile.uses_vl else None,
        probe_files=task_verifier_digests(files, code))
    return verifier_version_from(basis, params)


def _calibration(stored: dict, samples: list[tuple[dict, dict, dict | None]],
                 attacks: tuple[dict, dict | None] | None, grading: dict) -> dict:
    """Would the calibration still pass review with its samples graded again (its frozen
    expectations and margin; the attacks too). Unknown (None) when a sample was not re-scored."""
    passed_before = stored.get("passed")
    if not samples or any(new is None for _, _, new in samples):
        return {"passed_before": passed_before, "passed_now": None, "misses_now": [], "changed": False}
    judgement = judge_samples(
        [{"name": row["sample"], "kind": row["kind"], "total": new["total"], "success": new["success"],
          "criteria": new["criteria"], "null_reason": new.get("total_null_reason")}
         for row, _, new in samples if new is not None],
        pass_threshold=float(stored.get("pass_threshold", grading["verification"]["pass_threshold"])),
        reference_min=float(stored["reference_min"]), margin=float(stored["required_margin"]))
    misses = list(judgement.misses)
    if attacks is not None:
        table, gaming = attacks
        if table["survivors"]:
            misses.append(f"grader gameable: operators not killed: {', '.join(table['survivors'])}")
        misses += (gaming or {}).get("misses", [])
    passed_now = not misses
    return {"passed_before": passed_before, "passed_now": passed_now, "misses_now": misses,
            "changed": passed_before is not None and passed_before != passed_now}
