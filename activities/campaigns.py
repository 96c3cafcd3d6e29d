"""Evaluation campaigns (docs/campaigns.md): the plan registered before the first trial, one
create-only record per attempt, recovery by exact trial ids with a backup and an audit, and the
report with original and recovered figures side by side.

Every file goes through the object store (`storage/objects.py`), so a campaign on S3 behaves as
one on disk. Records are create-only: a trial recorded twice with other content is the
non-retryable `DuplicateTrialRecord`, never a second line.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from typing import Any
from pathlib import Path

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.policies import policy_from_solver
from contracts.errors import (CAMPAIGN_PLAN_CONFLICT, DUPLICATE_TRIAL_RECORD, INCOMPARABLE_FIGURES,
                               INVALID_CAMPAIGN, INVALID_RECOVERY)
from storage.content import ContentStore
from campaigns.breaker import breaker_problem
from campaigns.layout import CAMPAIGN_ID, CampaignKeys, trial_id
from campaigns.records import failure_of, is_infra, jsonl, read_jsonl, record_bytes, record_sha256, trial_record
from campaigns.report import cost_sum, figures, render_markdown
from campaigns.statistics import IncomparableFigures
from campaigns.difficulty import difficulty_record
from campaigns.tasks import CampaignSourceError, publication_key, read_candidates, read_split, read_task
from contracts.digests import sha256_hex
from contracts.payloads.campaigns import (PlannedCampaign, CampaignRecord, CampaignReportInput, CampaignResult,
                                          PlannedTask, CampaignTrialInput, PlannedTrial, PreflightReport,
                                          FinishRecoveryInput, PlanCampaignInput, PlanRecoveryInput,
                                          RecordTrialInput, RecoveryPlan)
from contracts.payloads.common import DatasetRef
from contracts.payloads.trials import SolverSpec
from contracts.solver_configs import REGISTRY_PATH, load_solver_registry
from contracts.validation import ContractError, build_document
from dataset_revisions.chain import links_of
from dataset_revisions.layout import RevisionKeys, revision_of
from dataset_revisions.retraction import retracted, retraction_line
from storage.objects import ObjectMissing, ObjectStore

METRICS = ["avg@k", "pass@k", "reward_delta", "win_tie_loss", "mcnemar_exact",
           "paired_mean_difference"]
CONFIDENCE = 0.95


def _error(kind: str, message: str) -> ApplicationError:
    return ApplicationError(message, type=kind, non_retryable=True)


def pools_of(spec: SolverSpec) -> list[str]:
    """Which caps a trial counts against: every trial holds a gpu sandbox; a model agent also
    spends the model endpoint's budget."""
    return ["gpu", "llm"] if spec.kind == "model" else ["gpu"]


def spec_from_plan(config: dict) -> SolverSpec:
    """The plan is the authority on what a config was, not today's registry."""
    return SolverSpec(config_id=config["config_id"], agent=config["agent"], kind=config["kind"],
                      label=config["label"], model=config["model"],
                      reasoning_effort=config["reasoning_effort"], timeout_sec=config["timeout_sec"],
                      agent_kwargs=dict(config["agent_kwargs"]), validated=config["validated"])


def _without_time(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "created_at"}


class CampaignActivities:
    def __init__(self, store: ContentStore, objects: ObjectStore, project_root: Path):
        self.store = store
        self.objects = objects
        self.project_root = project_root

    # -- plan ----------------------------------------------------------------------------------

    def _tasks(self, dataset: DatasetRef | None, split: str | None,
               publications: list[str]) -> tuple[list[PlannedTask], dict]:
        if (dataset is None) == (not publications):
            raise _error(INVALID_CAMPAIGN, "a campaign evaluates either a dataset revision (dataset + "
                                           "split: a frozen split; dataset alone: its candidates) or a list "
                                           "of publications, not both or neither")
        listed: list[tuple[str, str | None]]  # (publication folder, its publication.json sha256 if pinned)
        source: dict[str, Any]
        try:
            if dataset is not None and not split:
                # The candidates target: bands are measured before the freeze.
                listed = list(read_candidates(self.objects, dataset))
                source = {"dataset": {"namespace": dataset.namespace, "revision": dataset.revision,
                                      "split": None, "manifest_sha256": None, "target": "candidates"},
                          "publications": []}
            elif dataset is not None and split:
                pinned, manifest_sha = read_split(self.objects, dataset, split)
                listed = list(pinned)
                source = {"dataset": {"namespace": dataset.namespace, "revision": dataset.revision,
                                      "split": split, "manifest_sha256": manifest_sha},
                          "publications": []}
            else:
                listed = [(publication_key(self.objects, p), None) for p in publications]
                source = {"dataset": None, "publications": []}
            # Whatever the target, a retracted task is left out and named.
            gone = self._retracted_of([key for key, _ in listed])
            listed = [(key, sha) for key, sha in listed if key not in gone]
            if source["dataset"] is None:
                source["publications"] = [key for key, _ in listed]
            links = links_of(self.objects, [key for key, _ in listed])
            tasks = [read_task(self.objects, self.store, key, sha, split or None, links.get(key))
                     for key, sha in listed]
            return tasks, _with_retracted(source, list(gone.values()))
        except CampaignSourceError as e:
            raise _error(INVALID_CAMPAIGN, str(e)) from e

    def _retracted_of(self, folders: list[str]) -> dict[str, dict]:
        """{publication folder: its task's retraction} of those folders whose task was retracted
        from its dataset revision; `InvalidCampaign` when that is every one."""
        by_revision: dict[RevisionKeys, dict[str, dict]] = {}
        gone = {}
        for folder in folders:
            keys = revision_of(folder)
            if keys is None:
                continue
            if keys not in by_revision:
                by_revision[keys] = retracted(self.objects, keys)
            if (retraction := by_revision[keys].get(folder.strip("/").split("/")[-2])) is not None:
                gone[folder] = retraction
        if folders and len(gone) == len(folders):
            raise _error(INVALID_CAMPAIGN, "every task is retracted: "
                                           + ", ".join(retraction_line(r) for r in gone.values()))
        return gone

    @activity.defn(name="plan_campaign")
    def plan_campaign(self, req: PlanCampaignInput) -> PlannedCampaign:
        c = req.campaign
        if not CAMPAIGN_ID.match(c.campaign_id or ""):
            raise _error(INVALID_CAMPAIGN, f"campaign_id {c.campaign_id!r}: lowercase letters, digits, "
                                           f"'.', '_' and '-', starting with a letter or digit ({CAMPAIGN_ID.pattern})")
        if c.trial_attempts < 1 or c.bootstrap_samples < 100:
            raise _error(INVALID_CAMPAIGN, "trial_attempts must be ≥ 1 and bootstrap_samples ≥ 100")
        bad_caps = {k: v for k, v in c.caps.items() if k not in ("gpu", "llm") or v < 1}
        if bad_caps or "gpu" not in c.caps:
            raise _error(INVALID_CAMPAIGN, f"caps {c.caps}: give gpu (and llm) as counts ≥ 1")
        if problem := breaker_problem(c.breaker.failures, c.breaker.window):
            raise _error(INVALID_CAMPAIGN, problem)
        registry_path = (self.project_root / c.registry) if c.registry else None
        try:
            registry = load_solver_registry(registry_path)
            chosen = registry.resolve(c.mode, c.configs)
        except ContractError as e:
            raise _error(INVALID_CAMPAIGN, str(e)) from e
        except ValueError as e:
            raise _error(INVALID_CAMPAIGN, f"{registry_path or 'contracts/solver_configs.json'}: {e}") from e
        registry_bytes = (registry_path or REGISTRY_PATH).read_bytes()
        tasks, source = self._tasks(c.dataset, c.split, c.publications)
        ids = [t.frozen.task_id for t in tasks]
        if len(set(ids)) != len(ids):
            raise _error(INVALID_CAMPAIGN, f"publications: task(s) named twice: "
                                           f"{', '.join(sorted({i for i in ids if ids.count(i) > 1}))}")
        specs = [config.spec() for config, _ in chosen]
        for spec in specs:  # an agent no worker can load is the request's mistake, found now
            try:
                policy_from_solver(spec)
            except ValueError as e:
                raise _error(INVALID_CAMPAIGN, f"{registry_path or 'contracts/solver_configs.json'}: {e}") from e
        trials = [PlannedTrial(trial_id(c.campaign_id, t.frozen.task_id, s.config_id, n),
                                    ti, ci, n, pools_of(s))
                  for ti, t in enumerate(tasks) for ci, (s, (_, k)) in enumerate(zip(specs, chosen))
                  for n in range(1, k + 1)]
        doc = {
            "campaign_id": c.campaign_id,
            "created_at": req.created_at,
            "mode": c.mode,
            "registry_version": registry.registry_version,
            "registry_sha256": sha256_hex(registry_bytes),
            "source": source,
            "configs": [{"config_id": s.config_id, "agent": s.agent, "kind": s.kind, "label": s.label,
                         "model": s.model, "reasoning_effort": s.reasoning_effort,
                         "timeout_sec": s.timeout_sec, "attempts": k, "validated": s.validated,
                         "agent_kwargs": s.agent_kwargs} for s, (_, k) in zip(specs, chosen)],
            "tasks": [{"task_id": t.frozen.task_id, "task_version": t.frozen.task_version,
                       "publication_id": t.publication_id, "publication_sha256": t.publication_sha256,
                       "split": t.split, "verifier_version": t.frozen.verifier_version,
                       "scoring_profile": t.frozen.grading.profile,
                       "pass_threshold": t.frozen.grading.pass_threshold,
                       "input_reward": t.frozen.input_reward, "pipeline_ref": t.frozen.pipeline_ref}
                      for t in tasks],
            "trials": [{"trial_id": s.trial_id, "task_id": tasks[s.task].frozen.task_id,
                        "config_id": specs[s.config].config_id, "attempt": s.attempt} for s in trials],
            "metrics": METRICS,
            "statistics": {"bootstrap_samples": c.bootstrap_samples, "confidence": CONFIDENCE,
                           "seed": c.seed},
            "caps": dict(c.caps),
            "trial_attempts": c.trial_attempts,
        }
        doc = build_document("campaign-plan", doc, "evaluation-plan.json")
        keys = CampaignKeys(c.campaign_id)
        data = json.dumps(doc, indent=2, ensure_ascii=False).encode() + b"\n"
        if not self.objects.put_if_absent(keys.plan, data):
            stored = json.loads(self.objects.get(keys.plan))
            if _without_time(stored) != _without_time(doc):
                raise _error(CAMPAIGN_PLAN_CONFLICT,
                             f"campaign {c.campaign_id} already has another plan "
                             f"({self.objects.location(keys.plan)}): a changed campaign needs a new id")
            data = self.objects.get(keys.plan)
            activity.logger.info("campaign %s: plan already registered, resuming", c.campaign_id)
        recorded = [s.trial_id for s in trials if self.objects.exists(keys.record(s.trial_id))]
        return PlannedCampaign(c.campaign_id, self.objects.location(keys.root), sha256_hex(data), tasks,
                            specs, trials, dict(c.caps), c.trial_attempts, recorded,
                            [retraction_line(r) for r in source.get("retracted", [])])

    # -- preflight -----------------------------------------------------------------------------

    @activity.defn(name="record_preflight")
    def record_preflight(self, report: PreflightReport) -> str:
        """preflight.json: what the latest preflight checked and found (each start or resume of
        the campaign replaces it; the error, when one failed, is the workflow's failure). A
        recovery round's goes into its own folder: the campaign's stays the start's."""
        keys = CampaignKeys(report.campaign_id)
        key = keys.preflight if report.recovery_round is None else keys.recovery_preflight(report.recovery_round)
        failure = report.failure
        doc = build_document("preflight", {
            **dataclasses.asdict(report), "ok": failure is None,
            "failure": None if failure is None else {"type": failure[0], "message": failure[1]}},
            self.objects.location(key))
        self.objects.replace(key, json.dumps(doc, indent=2, ensure_ascii=False).encode() + b"\n")
        return self.objects.location(key)

    # -- records -------------------------------------------------------------------------------

    @activity.defn(name="record_campaign_trial")
    def record_campaign_trial(self, req: RecordTrialInput) -> CampaignRecord:
        t, outcome = req.trial, req.outcome
        keys = CampaignKeys(t.campaign_id)
        if outcome.evidence is not None:
            self._publish_evidence(keys, t.run_id, outcome)
        record = trial_record(t.campaign_id, t.trial_id, t.task, t.solver, outcome,
                              t.replaces_sha256, t.recovery)
        data = record_bytes(record)
        key = keys.record(t.trial_id, t.recovery)
        if not self.objects.put_if_absent(key, data) and self.objects.get(key) != data:
            raise _error(DUPLICATE_TRIAL_RECORD, f"{self.objects.location(key)}: trial {t.trial_id} "
                                                 "already has another record; a trial is recorded once")
        failure = failure_of(record)
        return CampaignRecord(t.trial_id, t.solver.config_id, t.task.frozen.task_id, t.attempt,
                              record["reward"], record["success"], failure["kind"] if failure else None,
                              sha256_hex(data), _failure_line(failure))

    def _publish_evidence(self, keys: CampaignKeys, run_id: str, outcome) -> None:
        """Harbor's trial directory where `harbor view <campaign>/harbor` finds it."""
        with tempfile.TemporaryDirectory(prefix="arkevo-evidence-") as tmp:
            root = Path(tmp)
            self.store.materialize_tree(outcome.evidence, root)
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                rel = path.relative_to(root).as_posix()
                self.objects.put_file_if_absent(f"{keys.harbor_trial(run_id)}/{rel}", path)

    def _records(self, keys: CampaignKeys, plan: dict, recovery: int | None = None) -> list[dict]:
        """The original run's records (recovery None) in plan order; missing ones left out."""
        out = []
        for t in plan["trials"]:
            try:
                out.append(json.loads(self.objects.get(keys.record(t["trial_id"], recovery))))
            except ObjectMissing:
                continue
        return out

    def _plan(self, campaign_id: str) -> dict:
        return json.loads(self._plan_bytes(campaign_id))

    def _plan_bytes(self, campaign_id: str) -> bytes:
        keys = CampaignKeys(campaign_id)
        try:
            return self.objects.get(keys.plan)
        except ObjectMissing:
            raise _error(INVALID_CAMPAIGN, f"campaign {campaign_id} not found "
                                           f"(no {self.objects.location(keys.plan)})") from None

    def _rounds(self, keys: CampaignKeys) -> list[int]:
        """Finished recovery rounds (those with an audit), ascending."""
        return sorted({int(k.removeprefix(keys.recoveries).split("/", 1)[0])
                       for k in self.objects.list(keys.recoveries) if k.endswith("/audit.json")})

    def standing_records(self, campaign_id: str) -> tuple[dict, list[dict]]:
        """A campaign's plan and its records as they stand (a recovered trial's newest record;
        the verifier drift check re-scores these)."""
        plan = self._plan(campaign_id)
        return plan, self._current(CampaignKeys(campaign_id), plan)[0]

    def _current(self, keys: CampaignKeys, plan: dict) -> tuple[list[dict], int | None]:
        """The campaign's records as they stand: the latest recovery's set, else the original."""
        rounds = self._rounds(keys)
        if rounds:
            return read_jsonl(self.objects.get(keys.recovered_trials(rounds[-1]))), rounds[-1]
        return self._records(keys, plan), None

    # -- report --------------------------------------------------------------------------------

    @activity.defn(name="write_campaign_report")
    def write_campaign_report(self, req: CampaignReportInput) -> CampaignResult:
        keys = CampaignKeys(req.campaign_id)
        plan_bytes = self._plan_bytes(req.campaign_id)
        plan = json.loads(plan_bytes)
        original = self._records(keys, plan)
        trials_data = jsonl(original)
        self.objects.replace(keys.trials, trials_data)  # derived from create-only records
        rounds = self._rounds(keys)
        round_ = req.recovery if req.recovery is not None else (rounds[-1] if rounds else None)
        try:
            report = {
                "campaign_id": req.campaign_id,
                "mode": plan["mode"],
                "source": plan["source"],
                "source_text": _source_text(plan["source"]),
                "plan": {"location": self.objects.location(keys.plan),
                         "sha256": sha256_hex(plan_bytes)},
                "configs": [{k: c[k] for k in ("config_id", "agent", "kind", "label", "model",
                                                "validated", "attempts")} for c in plan["configs"]],
                "statistics": plan["statistics"],
                "harbor_view": self.objects.location(keys.harbor_jobs),
                "original": {"trials_jsonl": {"location": self.objects.location(keys.trials),
                                              "sha256": sha256_hex(trials_data)},
                             **figures(plan, original)},
                "recovered": None,
            }
            if round_ is not None:
                data = self.objects.get(keys.recovered_trials(round_))
                audit = self.objects.get(keys.audit(round_))
                audit_doc = json.loads(audit)
                recovered_records = read_jsonl(data)
                mine = [r for r in recovered_records if (r.get("recovery") or {}).get("round") == round_]
                report["recovered"] = {
                    "round": round_, "trial_ids": audit_doc["trial_ids"],
                    "audit": {"location": self.objects.location(keys.audit(round_)),
                              "sha256": sha256_hex(audit)},
                    "trials_jsonl": {"location": self.objects.location(keys.recovered_trials(round_)),
                                     "sha256": sha256_hex(data)},
                    **figures(plan, recovered_records),
                    "round_cost": cost_sum(mine),
                }
        except IncomparableFigures as e:
            raise _error(INCOMPARABLE_FIGURES, f"campaign {req.campaign_id}: {e}") from e
        self._harbor_job(keys, plan)
        self._difficulty(plan, sha256_hex(plan_bytes), round_)
        report_bytes = json.dumps(report, indent=2, ensure_ascii=False).encode() + b"\n"
        self.objects.replace(keys.report_json, report_bytes)
        self.objects.replace(keys.report_md, render_markdown(report).encode())
        standing = report["recovered"]["exceptions"] if report["recovered"] else report["original"]["exceptions"]
        return CampaignResult(req.campaign_id, self.objects.location(keys.root),
                              self.objects.location(keys.report_json),
                              self.objects.location(keys.report_md), len(original),
                              [e["trial_id"] for e in standing], round_)

    def _difficulty(self, plan: dict, plan_sha256: str, round_: int | None) -> None:
        """The campaign's difficulty record beside its revision (docs/datasets.md "Difficulty
        bands"), from the records as they stand; written with the report so each recovery
        updates it, and so no workflow changes (stored histories replay as they are)."""
        keys = CampaignKeys(plan["campaign_id"])
        records = (read_jsonl(self.objects.get(keys.recovered_trials(round_))) if round_ is not None
                   else self._records(keys, plan))
        doc = difficulty_record(plan, plan_sha256, records, round_)
        if doc is not None:
            revision = RevisionKeys(doc["namespace"], doc["revision"])
            self.objects.replace(revision.difficulty(doc["campaign_id"]),
                                 json.dumps(doc, indent=2, ensure_ascii=False).encode() + b"\n")

    def _harbor_job(self, keys: CampaignKeys, plan: dict) -> None:
        """The job folder's own config.json (Harbor's JobConfig), so `harbor view
        <campaign>/harbor` recognises a jobs folder without `--jobs`."""
        from harbor.models.job.config import JobConfig
        from harbor.models.trial.config import AgentConfig, EnvironmentConfig

        from activities.trial_backends import SANDBOX_ENVIRONMENT

        agents = [AgentConfig(**policy_from_solver(spec_from_plan(c)).agent_config(None))
                  for c in plan["configs"]]
        job = JobConfig(job_name=keys.campaign_id, jobs_dir=Path(self.objects.location(keys.harbor_jobs)),
                        n_attempts=max(c["attempts"] for c in plan["configs"]), agents=agents,
                        environment=EnvironmentConfig(import_path=SANDBOX_ENVIRONMENT))
        self.objects.replace(f"{keys.harbor_jobs}/{keys.campaign_id}/config.json",
                             job.model_dump_json(indent=2).encode())

    # -- recovery ------------------------------------------------------------------------------

    @activity.defn(name="plan_recovery")
    def plan_recovery(self, req: PlanRecoveryInput) -> RecoveryPlan:
        r = req.recovery
        keys = CampaignKeys(r.campaign_id)
        plan = self._plan(r.campaign_id)
        ids = list(r.trial_ids)
        if not ids:
            raise _error(INVALID_RECOVERY, "trial_ids: name the trials to rerun, one by one "
                                           "(a recovery never reruns 'all trials of a kind')")
        if len(set(ids)) != len(ids):
            raise _error(INVALID_RECOVERY, f"trial_ids: {', '.join(sorted({i for i in ids if ids.count(i) > 1}))} "
                                           "named twice")
        if not r.reason.strip() or not r.requested_by.strip():
            raise _error(INVALID_RECOVERY, "reason and requested_by: a recovery says why and who asks")
        planned = {t["trial_id"]: t for t in plan["trials"]}
        unknown = [i for i in ids if i not in planned]
        if unknown:
            raise _error(INVALID_RECOVERY, f"trial_ids: not trials of campaign {r.campaign_id}: "
                                           f"{', '.join(unknown)}")
        current, _ = self._current(keys, plan)
        by_id = {rec["trial_id"]: rec for rec in current}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise _error(INVALID_RECOVERY, f"trial_ids: no record yet for {', '.join(missing)} "
                                           "(rerun the campaign to finish its trials)")
        graded = [i for i in ids if not is_infra(by_id[i])]
        if graded:
            raise _error(INVALID_RECOVERY, f"trial_ids: {', '.join(graded)} ended as graded attempts, "
                                           "not infrastructure exceptions; a graded attempt is never rerun")
        rounds = self._rounds(keys)
        round_ = (rounds[-1] if rounds else 0) + 1
        backup = jsonl([by_id[i] for i in ids])
        if not self.objects.put_if_absent(keys.backup(round_), backup) \
                and self.objects.get(keys.backup(round_)) != backup:
            raise _error(INVALID_RECOVERY, f"recovery round {round_} of {r.campaign_id} was started for "
                                           "other trials and did not finish; finish it first")
        tasks = self._tasks_of(plan, {planned[i]["task_id"] for i in ids})
        configs = {c["config_id"]: c for c in plan["configs"]}
        trials = []
        for i in ids:
            if self.objects.exists(keys.record(i, round_)):
                continue  # an interrupted round being finished: this one was rerun already
            t = planned[i]
            trials.append(CampaignTrialInput(
                r.campaign_id, i, tasks[t["task_id"]], spec_from_plan(configs[t["config_id"]]),
                t["attempt"], r.trial_attempts or plan["trial_attempts"], round_,
                record_sha256(by_id[i])))
        return RecoveryPlan(r.campaign_id, round_, trials, self.objects.location(keys.backup(round_)),
                            dict(plan["caps"]))

    def _tasks_of(self, plan: dict, task_ids: set[str]) -> dict[str, PlannedTask]:
        """Those of the plan's tasks, re-read from their publications and held to the plan's
        sha256."""
        source = plan["source"]
        if source["dataset"]:
            d = source["dataset"]
            root = RevisionKeys(d["namespace"], d["revision"]).publications
            folders = {t["task_id"]: f"{root}/{t['task_id']}/{t['publication_id']}" for t in plan["tasks"]}
        else:
            folders = {t["task_id"]: f for t, f in zip(plan["tasks"], source["publications"])}
        links = links_of(self.objects, [f for t, f in folders.items() if t in task_ids])
        try:
            return {t["task_id"]: read_task(self.objects, self.store, folders[t["task_id"]],
                                            t["publication_sha256"], t["split"], links.get(folders[t["task_id"]]))
                    for t in plan["tasks"] if t["task_id"] in task_ids}
        except CampaignSourceError as e:
            raise _error(INVALID_RECOVERY, str(e)) from e

    @activity.defn(name="finish_recovery")
    def finish_recovery(self, req: FinishRecoveryInput) -> str:
        keys = CampaignKeys(req.campaign_id)
        plan = self._plan(req.campaign_id)
        previous, _ = self._current(keys, plan)
        backup = self.objects.get(keys.backup(req.round))
        replaced = {}
        for i in req.trial_ids:
            replaced[i] = json.loads(self.objects.get(keys.record(i, req.round)))
        merged = [replaced.get(rec["trial_id"], rec) for rec in previous]
        data = jsonl(merged)
        original_data = self.objects.get(keys.trials) if self.objects.exists(keys.trials) \
            else jsonl(self._records(keys, plan))
        old = {rec["trial_id"]: rec for rec in read_jsonl(backup)}
        audit = {
            "campaign_id": req.campaign_id, "round": req.round, "requested_by": req.requested_by,
            "reason": req.reason, "created_at": req.created_at, "trial_ids": list(req.trial_ids),
            "backup": {"location": self.objects.location(keys.backup(req.round)),
                       "sha256": sha256_hex(backup), "records": len(old)},
            "replaced": [{
                "trial_id": i, "original_sha256": record_sha256(old[i]),
                "original_failure": _kind_type(failure_of(old[i])),
                "recovered_sha256": record_sha256(replaced[i]),
                "recovered_reward": replaced[i]["reward"], "recovered_success": replaced[i]["success"],
                "recovered_failure": _kind_type(failure_of(replaced[i])),
            } for i in req.trial_ids],
            "trials_jsonl": {"original_sha256": sha256_hex(original_data),
                             "recovered_sha256": sha256_hex(data)},
        }
        audit = build_document("recovery-audit", audit, "audit.json")
        self.objects.put_if_absent(keys.recovered_trials(req.round), data)
        # Written last: a round with an audit is finished (`_rounds`).
        self.objects.put_if_absent(keys.audit(req.round),
                                   json.dumps(audit, indent=2, ensure_ascii=False).encode() + b"\n")
        return self.objects.location(keys.audit(req.round))


def _failure_line(failure: dict | None) -> str | None:
    """"<type>: <message>", shortened (the message may already start with its type)."""
    if failure is None:
        return None
    message = failure.get("message") or ""
    return (message if message.startswith(failure["type"]) else f"{failure['type']}: {message}")[:300]


def _kind_type(failure: dict | None) -> dict | None:
    return None if failure is None else {"kind": failure["kind"], "type": failure["type"]}


def _with_retracted(source: dict, gone: list[dict]) -> dict:
    """The plan's source naming the retracted tasks it left out (only when any: a plan without
    keeps its bytes)."""
    if gone:
        source["retracted"] = [{k: r[k] for k in ("task_id", "publication_id", "reason", "by", "at")}
                               for r in gone]
    return source


def _source_text(source: dict) -> str:
    if source["dataset"]:
        d = source["dataset"]
        if d.get("target") == "candidates":
            text = f"dataset {d['namespace']}/{d['revision']} candidates"
        else:
            text = f"dataset {d['namespace']}/{d['revision']} split {d['split']}"
    else:
        text = f"{len(source['publications'])} publication(s)"
    if source.get("retracted"):
        text += "; left out, retracted: " + ", ".join(retraction_line(r) for r in source["retracted"])
    return text
