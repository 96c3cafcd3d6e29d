"""Evaluation campaigns (docs/campaigns.md): solver configurations over frozen tasks.

`EvaluationCampaign` registers `evaluation-plan.json` before anything runs, then runs one
`CampaignTrial` child per (task, config, attempt) under per-pool caps — every trial holds a gpu
sandbox, a model agent's also spends the llm endpoint's budget — and writes trials.jsonl and the
report. Submitted again with the same id it resumes: trials already recorded are not run again.

`CampaignRecovery` reruns exactly the named trial ids (infrastructure exceptions only), keeps
the records it replaces in a backup, runs the preflight for the reruns first, writes the audit and a report with the original and the
recovered figures side by side.

    temporal workflow start --type EvaluationCampaign --task-queue arkevo-control \\
        --workflow-id campaign-demo-test --input '{"campaign_id": "demo-test", "mode": "pilot",
        "dataset": {"namespace": "demo", "revision": "…"}, "split": "test"}'
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from datetime import timedelta

from temporalio import workflow
from temporalio.common import VersioningBehavior, WorkflowIDReusePolicy
from temporalio.exceptions import ApplicationError, ChildWorkflowError, is_cancelled_exception

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from activities.campaigns import CampaignActivities, pools_of
    from activities.preflight import PreflightActivities
    from campaigns.breaker import Finished, pause_reason, tripped
    from contracts.errors import RECOVERY_INCOMPLETE
    from activities.trials import TrialActivities
    from contracts import queues
    from contracts.payloads.campaigns import (BreakerOptions, CampaignInput, CampaignRecord,
                                              CampaignReportInput, CampaignResult, CampaignTrialInput,
                                              EndpointCheck,
                                              FinishRecoveryInput, PlanCampaignInput,
                                              PlanRecoveryInput, PreflightInput, PreflightReport,
                                              RecordTrialInput,
                                              RecoveryInput, SolverEndpointCheckInput)
    from contracts.payloads.trials import TrialRequest
    from workflows.activity_options import CPU, PREFLIGHT, ActivityOptions, endpoint_check
    from workflows.failures import root_cause
    from workflows.trial_calls import grade_trial_reporting

# Writing the report re-reads every record and renders figures with bootstrap intervals.
REPORT: ActivityOptions = {**CPU, "start_to_close_timeout": timedelta(minutes=20)}
# Campaigns started before the preflight and the circuit breaker replay without them.
PREFLIGHT_AND_BREAKER = "campaign-preflight-breaker"
# Recoveries started before it replay with the older env-only endpoint check.
RECOVERY_PREFLIGHT = "campaign-recovery-preflight"
# Campaigns started before it ran the smoke trial alone, every other gpu slot idle.
SMOKE_BESIDE_TRIALS = "campaign-smoke-beside-trials"


@workflow.defn(name="CampaignTrial", versioning_behavior=versioned(VersioningBehavior.PINNED))
class CampaignTrial:
    """One attempt: run and grade it (an infra failure that outlives its retries becomes the
    record, kind infra), then record it once."""

    @workflow.run
    async def run(self, req: CampaignTrialInput) -> CampaignRecord:
        frozen = req.task.frozen
        outcome = await grade_trial_reporting(
            TrialRequest(frozen.task_package, frozen.identity, req.solver.config_id, req.run_id,
                         "campaign", req.attempt, solver=req.solver, keep_evidence=True,
                         prestart_next=req.prestart_next),
            frozen.grading, attempts=req.trial_attempts)
        return await workflow.execute_activity_method(
            CampaignActivities.record_campaign_trial, RecordTrialInput(req, outcome), **CPU)


class _Runner:
    """Children under per-pool caps and the circuit breaker; progress for the `progress` query."""

    def __init__(self) -> None:
        self.state: dict[str, str] = {}  # trial id -> pending | running | recorded | failed
        self.failed: dict[str, str] = {}
        self.infra: list[str] = []
        self.in_use: dict[str, int] = {}
        self.breaker: BreakerOptions | None = None  # None: off
        self.finished: list[Finished] = []  # in finishing order, since the start or last resume
        self.paused: dict | None = None  # reason, trials, since: no new trial starts
        self.pauses: list[dict] = []  # the pauses resumed so far
        self.preflight: dict | None = None  # the last preflight, as `progress` shows it
        self.reserved: dict[str, int] = {}  # slots the smoke trial holds while trials start beside it
        self.cancelling = False  # the smoke trial failed: the trials beside it are being cancelled

    def progress(self) -> dict:
        counts = {s: 0 for s in ("pending", "running", "recorded", "failed", "already_recorded")}
        for s in self.state.values():
            counts[s] += 1
        return {"total": len(self.state), "counts": counts, "infra_exceptions": list(self.infra),
                "running": sorted(t for t, s in self.state.items() if s == "running"),
                "failed": dict(self.failed), "preflight": self.preflight, "paused": self.paused,
                "pauses": list(self.pauses),
                "breaker": None if self.breaker is None else dataclasses.asdict(self.breaker)}

    def finish(self, done: Finished) -> None:
        """A trial finished: does the breaker trip? Running trials go on; none starts after."""
        if self.breaker is None:
            return
        self.finished.append(done)
        b = self.breaker
        if self.paused is None and (infra := tripped(self.finished, b.failures, b.window)):
            reason = pause_reason(infra, b.failures, b.window)
            self.paused = {"reason": reason, "trials": {f.trial_id: f.infra for f in infra},
                           "since": workflow.now().isoformat(timespec="seconds")}
            workflow.logger.warning("paused, waiting for the resume signal: %s", reason)

    async def check(self, campaign_id: str, todo: list[CampaignTrialInput],
                    recovery_round: int | None = None) -> None:
        """The preflight, shown in `progress`; a failed check is the run's named, non-retryable
        failure, before any trial starts."""
        self.check_report(await preflight(campaign_id, todo, recovery_round))

    async def run_checked(self, campaign_id: str, trials: list[tuple[CampaignTrialInput, list[str]]],
                          caps: dict[str, int]) -> None:
        """The preflight with the smoke trial beside the first trials: model endpoints first (no
        trial starts before every one answered), then the smoke trial on one gpu slot while
        trials take the cap's others, so no slot idles while trials wait. A failed smoke
        trial is stored, cancels the trials running beside it (nothing is recorded for a
        cancelled one) and fails the campaign with its named, non-retryable error; no
        further trial starts."""
        todo = [t for t, _ in trials]
        endpoints: list[EndpointCheck] = []
        if any(t.solver.agent == "arkevo-llm" for t in todo):  # nothing to ping otherwise
            first = await preflight(campaign_id, todo, smoke=False)
            self.check_report(first)  # raises on a failed endpoint
            endpoints = first.endpoints
        self.preflight = {"endpoints": [dataclasses.asdict(e) for e in endpoints], "smoke": None,
                          "ok": None, "smoke_running": True}
        self.reserved = {"gpu": 1}
        running = asyncio.create_task(self.run_all(trials, caps))
        try:
            smoke = await preflight(campaign_id, todo, endpoints_checked=endpoints)
        except BaseException:  # the preflight's own retries ran out, or the campaign was cancelled
            await self.cancel_beside(running)
            raise
        self.reserved = {}
        if smoke.failure is not None:
            await self.cancel_beside(running)
        self.check_report(smoke)
        await running

    async def cancel_beside(self, running: asyncio.Task) -> None:
        """Cancel the trials started beside the smoke trial and wait for them: none records."""
        self.cancelling = True
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running

    def check_report(self, report: PreflightReport) -> None:
        """Shown in `progress`; a failed check is the run's named, non-retryable failure."""
        self.preflight = {**dataclasses.asdict(report), "ok": report.failure is None}
        if failure := report.failure:
            raise ApplicationError(failure[1], type=failure[0], non_retryable=True)

    def resume(self) -> bool:
        """The resume signal: new trials may start; the window starts fresh. False: it was not
        paused (nothing changes)."""
        if self.paused is None:
            workflow.logger.info("resume signal ignored: the campaign is not paused")
            return False
        self.pauses.append({**self.paused, "resumed": workflow.now().isoformat(timespec="seconds")})
        self.paused, self.finished = None, []
        return True

    async def run_all(self, trials: list[tuple[CampaignTrialInput, list[str]]],
                      caps: dict[str, int]) -> None:
        for t, _ in trials:
            self.state.setdefault(t.trial_id, "pending")

        async def one(t: CampaignTrialInput, pools: list[str]) -> None:
            self.state[t.trial_id] = "running"
            try:
                rec: CampaignRecord = await workflow.execute_child_workflow(
                    CampaignTrial.run, t, id=f"campaign-{t.campaign_id}.{t.run_id}",
                    task_queue=queues.CONTROL,
                    id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY)
                self.state[t.trial_id] = "recorded"
                if rec.failure_kind == "infra":
                    self.infra.append(t.trial_id)
                self.finish(Finished(t.trial_id, (rec.failure or "infrastructure exception")
                                     if rec.failure_kind == "infra" else None))
            except asyncio.CancelledError:
                self.state[t.trial_id] = "pending"  # cancelled beside a failed smoke: not recorded
                raise
            except ChildWorkflowError as e:
                if self.cancelling and is_cancelled_exception(e):
                    self.state[t.trial_id] = "pending"
                    raise
                # An author's broken script, a record conflict: named, the others go on.
                self.state[t.trial_id] = "failed"
                self.failed[t.trial_id] = str(root_cause(e))
                self.finish(Finished(t.trial_id, None))
            finally:
                for p in pools:
                    self.in_use[p] -= 1

        tasks = []
        try:
            for t, pools in trials:
                # ignore: mypy cannot infer a lambda whose default binds `pools` (it takes no argument)
                await workflow.wait_condition(
                    lambda pools=pools: self.paused is None  # type: ignore[misc]
                    and all(self.in_use.get(p, 0) + self.reserved.get(p, 0) < caps.get(p, 1) for p in pools))
                for p in pools:
                    self.in_use[p] = self.in_use.get(p, 0) + 1
                tasks.append(asyncio.create_task(one(t, pools)))
            await asyncio.gather(*tasks)
        except asyncio.CancelledError:
            if self.cancelling:  # the children started so far are cancelled and waited for
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            raise


@workflow.defn(name="EvaluationCampaign", versioning_behavior=versioned(VersioningBehavior.AUTO_UPGRADE))
class EvaluationCampaign:
    def __init__(self) -> None:
        self._runner = _Runner()
        self._location: str | None = None

    @workflow.query
    def progress(self) -> dict:
        return {"location": self._location, **self._runner.progress()}

    @workflow.signal
    def resume(self) -> None:
        """After a circuit breaker pause: start trials again (ignored when not paused)."""
        self._runner.resume()

    @workflow.run
    async def run(self, req: CampaignInput) -> CampaignResult:
        plan = await workflow.execute_activity_method(
            CampaignActivities.plan_campaign,
            PlanCampaignInput(req, workflow.now().isoformat(timespec="seconds")), **CPU)
        self._location = plan.location
        new = workflow.patched(PREFLIGHT_AND_BREAKER)
        if not new:
            await check_endpoints(plan.configs)
        recorded = set(plan.recorded)
        for tid in recorded:
            self._runner.state[tid] = "already_recorded"
        todo = [(CampaignTrialInput(plan.campaign_id, s.trial_id, plan.tasks[s.task],
                                    plan.configs[s.config], s.attempt, plan.trial_attempts), s.pools)
                for s in plan.trials if s.trial_id not in recorded]
        if new:
            self._runner.breaker = req.breaker if req.breaker.failures > 0 else None
        trials = prestart_hints(todo, plan.caps)
        if not new or not todo:  # a resume with every trial recorded runs nothing: nothing to check
            await self._runner.run_all(trials, plan.caps)
        elif workflow.patched(SMOKE_BESIDE_TRIALS):
            await self._runner.run_checked(plan.campaign_id, trials, plan.caps)
        else:
            await self._runner.check(plan.campaign_id, [t for t, _ in todo])
            await self._runner.run_all(trials, plan.caps)
        result = await workflow.execute_activity_method(
            CampaignActivities.write_campaign_report, CampaignReportInput(plan.campaign_id), **REPORT)
        return dataclasses.replace(result, failed=dict(self._runner.failed),
                                   pauses=[*self._runner.pauses, *filter(None, [self._runner.paused])])


def prestart_hints(trials: list[tuple[CampaignTrialInput, list[str]]],
                   caps: dict[str, int]) -> list[tuple[CampaignTrialInput, list[str]]]:
    """Mark each trial after which a trial of the same task still waits for a gpu slot: one
    that starts at least a cap's worth of trials later, so not alongside it. Its worker then
    pre-starts that trial's sandbox as this one ends (sandbox/prestart.py); trials started
    together, and a task's last, start nothing that would wait unused."""
    cap = max(1, caps.get("gpu", 1))
    order = [t.task.frozen.task_package.sha256 for t, _ in trials]
    return [(dataclasses.replace(t, prestart_next=order[i] in order[i + cap:]), pools)
            for i, (t, pools) in enumerate(trials)]


async def preflight(campaign_id: str, todo: list[CampaignTrialInput],
                    recovery_round: int | None = None, *, smoke: bool = True,
                    endpoints_checked: list[EndpointCheck] | None = None) -> PreflightReport:
    """Every model endpoint the trials to run need answers a real request, and a smoke trial
    runs in the sandbox on the first of them; the result is stored (the campaign's
    preflight.json, or the recovery round's) before anyone acts on it.

    smoke=False: the endpoints alone (stored only when one failed: the smoke trial's report,
    which carries them, follows). endpoints_checked: those already answered; the smoke trial
    alone runs and its report carries them."""
    configs = [] if endpoints_checked is not None else list({t.solver.config_id: t.solver for t in todo}.values())
    report = await workflow.execute_activity_method(
        PreflightActivities.preflight_campaign,
        PreflightInput(campaign_id, configs, todo[0].task if smoke else None, recovery_round), **PREFLIGHT)
    if endpoints_checked is not None:
        report = dataclasses.replace(report, endpoints=endpoints_checked)
    if smoke or report.failure is not None:
        await workflow.execute_activity_method(CampaignActivities.record_preflight, report, **CPU)
    return report


@workflow.defn(name="CampaignRecovery", versioning_behavior=versioned(VersioningBehavior.AUTO_UPGRADE))
class CampaignRecovery:
    def __init__(self) -> None:
        self._runner = _Runner()

    @workflow.query
    def progress(self) -> dict:
        return self._runner.progress()

    @workflow.run
    async def run(self, req: RecoveryInput) -> CampaignResult:
        now = lambda: workflow.now().isoformat(timespec="seconds")  # noqa: E731
        plan = await workflow.execute_activity_method(
            CampaignActivities.plan_recovery, PlanRecoveryInput(req, now()), **CPU)
        if not workflow.patched(RECOVERY_PREFLIGHT):
            await check_endpoints([t.solver for t in plan.trials])
        elif plan.trials:  # an interrupted round whose every trial was rerun: nothing to check
            # After plan_recovery, which only wrote the backup (a rerun of the same ids finishes
            # the round): a failed check reruns nothing and replaces no record.
            await self._runner.check(req.campaign_id, plan.trials, plan.round)
        await self._runner.run_all(prestart_hints([(t, pools_of(t.solver)) for t in plan.trials],
                                                  plan.caps), plan.caps)
        if self._runner.failed:
            # Without a record for every named trial the round cannot be audited; the backup
            # stays, and a rerun of the same ids finishes the round.
            raise workflow_failure(self._runner.failed)
        await workflow.execute_activity_method(
            CampaignActivities.finish_recovery,
            FinishRecoveryInput(req.campaign_id, plan.round, list(req.trial_ids), req.requested_by,
                                req.reason, now()), **CPU)
        result = await workflow.execute_activity_method(
            CampaignActivities.write_campaign_report,
            CampaignReportInput(req.campaign_id, plan.round), **REPORT)
        return result


async def check_endpoints(configs) -> None:
    """A model agent's endpoint is configured on the gpu workers, or the campaign fails now,
    naming the variables, instead of every such trial running out its retries."""
    if any(c.agent == "arkevo-llm" for c in configs):
        await workflow.execute_activity_method(
            TrialActivities.check_solver_endpoints, SolverEndpointCheckInput(list(configs)),
            **endpoint_check(queues.GPU))


def workflow_failure(failed: dict[str, str]) -> ApplicationError:
    return ApplicationError("recovery trials did not record: " + "; ".join(
        f"{t}: {why}" for t, why in sorted(failed.items())), type=RECOVERY_INCOMPLETE,
        non_retryable=True)
