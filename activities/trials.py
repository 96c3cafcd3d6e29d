"""One trial: write the task package as a Harbor task directory, let a policy solve it and the
verifier grade it (in the sandbox via Harbor by default), and store delivery + report. Used by
the input baseline, calibration, pilot and evaluation alike, so every grade in the pipeline
comes from the same path. The reward is not decided here: `score_trial` applies the task's
scoring profile to the rule report (and the VL judgement, when weighted).

Every outcome carries what the attempt spent (`TrialOutcome.cost`). With `keep_evidence`
(evaluation campaigns, docs/campaigns.md) Harbor's trial directory is stored as a tree
(`TrialOutcome.evidence`, named `harbor_trial`): materialized as `<jobs>/<job>/<harbor_trial>/`
it opens in Harbor's viewer. The agent's own ATIF trajectory (already redacted by the agent)
is referenced apart (`trajectory`)."""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

import os

from temporalio import activity
from temporalio.exceptions import ApplicationError

from blender.runtime import blender_version
from contracts.errors import MODEL_NOT_CONFIGURED, invalid_draft
from activities.evidence import evidence_budget_sec
from activities.harbor_task import EVIDENCE_JOB, VERIFIER_MODULES, write_harbor_task
from verifiers.verifier_bytecode import add_bytecode
from activities.policies import Policy, policy_for
from storage.content import ContentStore
from activities.trial_backends import HarborSandboxBackend, LocalBackend, TrialBackend
from contracts.payloads.campaigns import SolverEndpointCheckInput
from contracts.payloads.common import BlobRef
from contracts.payloads.trials import MeasuredCost, TrialOutcome, TrialRequest
from contracts.validation import ContractError
from privacy.checkpoints import check_dispatch, unread_blends
from privacy.policy import load_policy_for
from sandbox.isolation.settings import SandboxSettings
from sandbox.script_run import LOCAL, ScriptIsolation
from observability import telemetry
from verifiers.evidence import EvidenceRenderer, RenderFailed, resolve_spec

# What scripted policies may read on the worker side; never uploaded to the solver sandbox.
PRIVILEGED = ("solution/", "private/calibration/")
# Inside Harbor's trial directory (harbor.models.trial.paths.TrialPaths.agent_dir): the agent's
# logs, where the LLM agent writes its ATIF trajectory (sandbox/agents/llm.py).
AGENT_DIR, TRAJECTORY = "agent", "trajectory.json"
FROM_BACKEND = object()  # TrialActivities' default isolation for the .blend reader: the backend's


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class TrialActivities:
    def __init__(self, store: ContentStore, backend: TrialBackend,
                 sandbox: ScriptIsolation | object = FROM_BACKEND,
                 evidence: EvidenceRenderer | None = None):
        self.store = store
        self.backend = backend
        # The worker's evidence cache (the one render_evidence uses): a Harbor trial of a task
        # that judges its evidence renders it in the verifier, after the probe, into here.
        self.evidence = evidence if isinstance(backend, HarborSandboxBackend) else None
        # Where the dispatch privacy check opens the task's .blend files: as the trials run
        # (the one switch): unisolated with the local backend, else in the trial sandbox with
        # the backend's own sandbox settings.
        self.sandbox = _isolation_of(backend) if sandbox is FROM_BACKEND else cast(ScriptIsolation, sandbox)

    @activity.defn(name="run_trial")
    @telemetry.counts_trials  # arkevo_trials_total by outcome and failure kind
    async def run_trial(self, req: TrialRequest) -> TrialOutcome:
        return await self.trial(req)

    async def trial(self, req: TrialRequest) -> TrialOutcome:
        """The one trial path, uncounted: `run_trial`'s body, and a campaign preflight's smoke
        trial (activities/preflight.py), which is no trial of any campaign's figures."""
        started = _now()
        began = time.monotonic()
        policy = policy_for(req)
        with tempfile.TemporaryDirectory(prefix=f"arkevo-trial-{req.stage}-") as tmp:
            work = Path(tmp)
            spec = self._evidence_spec(req)
            task_dir = write_harbor_task(self.store, req.task_package, work / "task", req.identity,
                                         evidence=None if spec is None else {
                                             "spec": spec, "budget_sec": evidence_budget_sec()})
            await self._check_privacy(req, task_dir, work)
            add_bytecode(task_dir / "tests", VERIFIER_MODULES)  # the verifier compiles none of ours
            scripts = work / "privileged"
            self._fetch_script(req, policy, scripts)
            run = await self.backend.run(task_dir, policy, scripts, work,
                                         None if spec is None else self._skip_cached(task_dir, spec),
                                         prestart_next=req.prestart_next)
            # The job still there: the verifier was asked to render (not a cached delivery).
            if spec is not None and run.delivery is not None and (task_dir / EVIDENCE_JOB).is_file():
                await self._take_evidence(run.delivery, spec, run.report.parent / "evidence")
            report = json.loads(run.report.read_text())
            delivery = self.store.put_file(run.delivery) if run.delivery else None
            report_ref = self.store.put_file(run.report)
            evidence = trajectory = harbor_trial = None
            if req.keep_evidence and run.trial_dir is not None and run.trial_dir.is_dir():
                evidence, trajectory = self._keep_evidence(run.trial_dir)
                harbor_trial = run.trial_dir.name
        # At least the wall time, for a backend that measures nothing.
        cost = run.cost or MeasuredCost(wall_sec=round(time.monotonic() - began, 3))

        return TrialOutcome(
            trial_id=req.trial_id,
            policy=req.policy,
            stage=req.stage,
            attempt=req.attempt,
            reward=None,  # the task's scoring profile decides (score_trial)
            success=None,
            verifier_version=req.identity.verifier_version,
            delivery=delivery,
            report=report_ref,
            started_at=started,
            finished_at=_now(),
            failed_criteria=[c["id"] for c in report["criteria"] if not c["passed"]],
            timed_out=run.timed_out,
            failure=run.failure,  # a solver failure: the attempt is still graded
            cost=cost,
            evidence=evidence,
            trajectory=trajectory,
            harbor_trial=harbor_trial,
            blender_version=blender_version(),
        )

    def _fetch_script(self, req: TrialRequest, policy: Policy, scripts: Path) -> None:
        """The policy's own script, the one file of PRIVILEGED a scripted policy reads (a
        calibration's other scripts stay in the store). Not in the package or outside
        PRIVILEGED: nothing is written, and the backend names the missing script."""
        script = policy.script
        if script is None or not script.startswith(PRIVILEGED):
            return
        entry = self.store.tree_entries(req.task_package).get(script)
        if entry is not None:
            self.store.fetch_to(self.store.ref_for(entry["sha256"], entry["size"]), scripts / script)

    def _evidence_spec(self, req: TrialRequest) -> dict | None:
        if self.evidence is None or req.judge_config is None:
            return None
        return resolve_spec(cast(dict, self.store.get_json(req.judge_config)).get("evidence"))

    def _skip_cached(self, task_dir: Path, spec: dict):
        """Before the verifier starts: a delivery whose evidence the cache holds (a scripted
        policy's repeat) is not rendered again there."""
        async def check(artifacts: Path) -> None:
            assert self.evidence is not None  # a spec is only resolved with a cache to fill
            delivered = next(iter(sorted(artifacts.rglob("result.blend"))), None)
            try:
                known = delivered is None or await self.evidence.cached(delivered, spec)
            except Exception as exc:  # noqa: BLE001 -- a delivery the digest cannot read: the
                # verifier's own render finds out what it is (never this trial's failure here)
                activity.logger.info("evidence cache look-ahead failed (%s); the verifier renders", exc)
                known = False
            if known:
                (task_dir / EVIDENCE_JOB).unlink(missing_ok=True)
        return check

    async def _take_evidence(self, delivery: Path, spec: dict, rendered: Path) -> None:
        """The verifier's renders of `delivery` into the worker's cache, checked like any
        sandboxed render's output; without a complete set (past its budget, crashed, refused)
        the VL grading's render_evidence renders it itself."""
        assert self.evidence is not None  # a spec is only resolved with a cache to fill
        if not (rendered / "manifest.json").is_file():  # past its budget, crashed, raised
            activity.logger.info("the verifier rendered no evidence; render_evidence will")
            return

        async def bring(job: dict) -> None:
            await asyncio.to_thread(shutil.copytree, rendered, job["out"], dirs_exist_ok=True)

        try:
            await self.evidence.render_elsewhere(delivery, spec, bring, process=False)
        except (RenderFailed, OSError, ValueError) as exc:  # a prefetch: never the trial's failure
            activity.logger.warning("the verifier's evidence was refused (%s); render_evidence "
                                    "will render it", exc)

    def _keep_evidence(self, trial_dir: Path) -> tuple[BlobRef, BlobRef | None]:
        """Harbor's trial directory as a store tree, and the agent's trajectory in it."""
        tree = self.store.put_tree(trial_dir)
        rel = f"{AGENT_DIR}/{TRAJECTORY}"
        trajectory = self.store.tree_file(tree, rel) if rel in self.store.tree_entries(tree) else None
        return tree, trajectory

    @activity.defn(name="check_solver_endpoints")
    async def check_solver_endpoints(self, req: SolverEndpointCheckInput) -> list[dict]:
        """Before a campaign's first trial: this worker can reach the endpoint of every model
        agent config (`arkevo-llm`); without it each of their trials would run out its retries
        as an infra exception. Returns what it found, never a key."""
        return [solver_endpoint(spec, os.environ) for spec in req.configs if spec.agent == "arkevo-llm"]

    async def _check_privacy(self, req: TrialRequest, task_dir: Path, work: Path) -> None:
        """Privacy checkpoint 2 of 3 (docs/privacy.md): what the solver receives, before the
        agent starts. A finding is the task's content, not the solver's doing: the
        non-retryable PrivacyFinding, no trial. The .blend files are read in the sandbox once
        per content (cached); the package's other .blend files (private/reference.blend) are
        read in the same process, so the export checkpoint finds them read. Still pending
        afterwards: binaries of unknown type, which the export checkpoint finds again and a
        reviewer settles there."""
        entries = self.store.tree_entries(req.task_package)
        # The package's own statement of its policy (tests/task.json, required by the schema).
        task = cast(dict, self.store.get_json(self.store.tree_file(req.task_package, "tests/task.json")))
        try:
            policy = load_policy_for(task["sanitization_policy"])
        except ContractError as exc:  # deterministic: no retry makes the policy appear
            raise invalid_draft(f"tests/task.json: sanitization_policy: {exc}") from exc
        also = {}
        for sha, rel in unread_blends(self.store, entries).items():
            if not rel.startswith("workspace/"):  # the solver's own are in task_dir already
                also[sha] = self.store.fetch_to(self.store.tree_file(req.task_package, rel),
                                                work / "privacy" / rel)
        report = await check_dispatch(task_dir, policy, self.store, sandbox=self.sandbox,
                                      work=work, also_read=also)
        for item in report.pending:
            activity.logger.warning("privacy coverage pending for %s (%s): %s", item.file,
                                    item.sha256[:12], item.reason)


def _isolation_of(backend: TrialBackend) -> ScriptIsolation:
    if isinstance(backend, LocalBackend):
        return LOCAL
    if isinstance(backend, HarborSandboxBackend):
        return SandboxSettings.split_kwargs(dict(backend.environment_kwargs))[0]
    return None


def solver_endpoint(spec, environ) -> dict:
    """The endpoint an `arkevo-llm` config's trials will use on a worker with `environ`, or the
    non-retryable ModelNotConfigured naming the variables to set (sandbox/agents/llm.py)."""
    from sandbox.agents.llm import BASE_URL_ENV, MODEL_ENV, choose_model

    base_url, model = environ.get(BASE_URL_ENV), choose_model(spec.model, environ.get(MODEL_ENV))
    missing = [name for name, value in ((BASE_URL_ENV, base_url), (MODEL_ENV, model)) if not value]
    if missing:
        raise ApplicationError(
            f"solver config {spec.config_id!r} ({spec.agent}) has no model endpoint on this gpu "
            f"worker: set {' and '.join(missing)} in its environment"
            + (" (or name a model in the config)" if MODEL_ENV in missing else ""),
            type=MODEL_NOT_CONFIGURED, non_retryable=True)
    url = urlsplit(base_url)  # no userinfo, query or fragment: nothing secret in the answer
    host = url.hostname or "" if url.port is None else f"{url.hostname}:{url.port}"
    return {"config_id": spec.config_id, "model": model, "endpoint": f"{url.scheme}://{host}{url.path}"}
