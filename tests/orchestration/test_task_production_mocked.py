"""TaskProduction's orchestration with every activity mocked: no Blender, no sandbox, seconds.

A fresh dev server of its own (the real `temporal` binary; the session's integration workers
must not pick these tasks up) runs the real workflow code; the activities are stand-ins with
the production names that return typed payloads. What is checked is what the workflows decide:
the stage order and child ids, VL grading per trial when the profile weights it, failures by
kind in `progress` and the result, author mistakes failing fast, infra failures reported and
kept out of the figures. `test_replay.py` replays the histories these runs recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections import Counter
from pathlib import Path

from temporalio import activity
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from contracts.errors import AUTHOR_SCRIPT_FAILED
from contracts import queues
from contracts.payloads.admission import (AdmissionInput, AdmissionResult, PrivacyPending, CalibrationSample,
                                          DraftPlan, RunPlan)
from contracts.payloads.authoring import (AssembledPackage, AssembleInput, GradingSpec, TaskIdentity,
                                          WorkspaceBuild, BuildWorkspaceInput)
from contracts.payloads.common import BlobRef, TaskProductionInput
from contracts.payloads.evaluation import EvaluationResult, PlanInput, ReportInput
from contracts.payloads.packaging import (ExportScan, PrivacyReview, ProductionResult, PublicationResult,
                                          PublishInput)
from contracts.payloads.review import (CalibrationInput, CalibrationVerdict, FreezeInput, MutationInput,
                                       FrozenTask)
from contracts.payloads.trials import (MutationRows, PilotRecordInput, ScoreTrialInput, TrialFailure, TrialOutcome,
                                       TrialRequest, TrialSolvesResult)
from contracts.payloads.vl_grading import (RenderedEvidence, RenderEvidenceInput, VLJudgeOutcome,
                                           VLJudgeRequest)
from workers.pools import WORKFLOWS
from workflows.task_production import STAGE_KEY

HISTORIES = Path(__file__).resolve().parent / "histories"


def ref(name: str) -> BlobRef:
    digest = (name.encode().hex() + "0" * 64)[:64]
    return BlobRef(f"objects/{digest[:2]}/{digest[2:]}", digest, 1)


class Fakes:
    """Stand-in activities. `behaviour[policy]` says how run_trial treats a policy:
    "ok" (a clean graded delivery), "solver" (Blender died after the first action: graded, with
    a solver failure), "infra" (the sandbox never started: raised), "author" (the script raised)."""

    def __init__(self, profile: str = "blender-70-30", behaviour: dict | None = None,
                 pending: list[PrivacyPending] | None = None, survivors: list[str] | None = None,
                 pilot: list[str] | None = None):
        self.profile = profile
        self.pilot = pilot or ["oracle", "nop"]  # stage 04's policies
        self.survivors = survivors or []  # gaming operators the grader does not kill
        self.unseen: dict[str, str] = {}
        self.graded: list[list[str]] = []  # what each render was asked to check  # graded parts the reference's renders leave unseen
        self.behaviour = {"oracle": "ok", "nop": "ok", **(behaviour or {})}
        self.calls: Counter[str] = Counter()
        self.pending = pending or []  # what the export checkpoint could not read
        self.published: list[PublishInput] = []

    def grading(self) -> GradingSpec:
        uses_vl = self.profile != "rule-only"
        return GradingSpec(
            task_id="demo-task", profile={"profile_id": self.profile, "profile_version": "1"},
            params={}, verification={"weights": {"rule": 0.7, "vl": 0.3, "agent": 0},
                                     "pass_threshold": 0.7, "core_failure_cap": 0.4},
            uses_vl=uses_vl, judge="image-metric" if uses_vl else None,
            judge_config=ref("judge") if uses_vl else None, verifier_basis="b" * 64,
            verifier_version="vv2-0000000000000001")

    def activities(self) -> list:
        fakes = self

        @activity.defn(name="admit_seed")
        def admit_seed(req: AdmissionInput) -> AdmissionResult:
            fakes.calls["admit_seed"] += 1
            samples = [CalibrationSample("reference", "reference", "oracle"),
                       CalibrationSample("input", "input", "nop"),
                       CalibrationSample("defect:a", "defect", "script:private/calibration/defects/a.py")]
            draft = DraftPlan("demo-task", "instruction.md", [], "MOD-01", "PRF-3DART",
                              {"profile_id": fakes.profile, "profile_version": "1"},
                              fakes.grading().verification, False, samples)
            run = RunPlan(list(fakes.pilot), ["oracle", "nop"], 2, 0.9, 0.2, "image-metric",
                          {"pipeline_id": "p", "pipeline_version": "1", "pipeline_digest": "d" * 64})
            return AdmissionResult("demo-seed", "demo-task", ref("seed"), ref("admission"), 1,
                                   "materials/build.py", "from_scratch", run, draft)

        @activity.defn(name="build_workspace")
        def build_workspace(req: BuildWorkspaceInput) -> WorkspaceBuild:
            fakes.calls["build_workspace"] += 1
            return WorkspaceBuild(ref("start"), ref("reference"))

        @activity.defn(name="assemble_task_package")
        def assemble_task_package(req: AssembleInput) -> AssembledPackage:
            fakes.calls["assemble_task_package"] += 1
            identity = TaskIdentity("demo-task", "draft", "vv2-0000000000000001", "", "MOD-01",
                                    "PRF-3DART")
            return AssembledPackage(ref("package"), identity, fakes.grading(), ["Leg.FL", "Wood"])

        @activity.defn(name="run_trial")
        def run_trial(req: TrialRequest) -> TrialOutcome:
            fakes.calls["run_trial"] += 1
            what = fakes.behaviour.get(req.policy, "ok")
            if what == "infra":  # stands for "still failing after Temporal's retries"
                raise ApplicationError("sandbox launch failed", type="TrialInfraError",
                                       non_retryable=True)
            if what == "author":
                raise ApplicationError(f"{req.policy}: ZeroDivisionError", type=AUTHOR_SCRIPT_FAILED,
                                       non_retryable=True)
            failure = (TrialFailure("solver", "BlenderHostDied", "host exited 137", {"call": 2})
                       if what == "solver" else None)
            return TrialOutcome(req.trial_id, req.policy, req.stage, req.attempt, None, None,
                                req.identity.verifier_version, ref(f"delivery-{req.policy}"),
                                ref(f"report-{req.policy}"), "t0", "t1", [], None, False, failure)

        @activity.defn(name="render_evidence")
        def render_evidence(req: RenderEvidenceInput) -> RenderedEvidence:
            fakes.calls["render_evidence"] += 1
            fakes.graded.append(req.graded)
            return RenderedEvidence(ref("evidence"), None, False, fakes.unseen if req.graded else {})

        @activity.defn(name="judge_vl")
        def judge_vl(req: VLJudgeRequest) -> VLJudgeOutcome:
            fakes.calls["judge_vl"] += 1
            assert req.reference_evidence is not None  # image-metric compares with the reference
            return VLJudgeOutcome(ref("vl"), "image-metric@1", 1.0, None, False)

        @activity.defn(name="score_trial")
        def score_trial(req: ScoreTrialInput) -> TrialOutcome:
            fakes.calls["score_trial"] += 1
            assert (req.vl is not None) == req.grading.uses_vl
            good = req.outcome.policy == "oracle" and req.outcome.failure is None
            return dataclasses.replace(req.outcome, reward=1.0 if good else 0.0, success=good)

        @activity.defn(name="write_pilot_record")
        def write_pilot_record(req: PilotRecordInput) -> BlobRef:
            return ref("pilot")

        @activity.defn(name="mutation_test")
        def mutation_test(req: MutationInput) -> MutationRows:
            fakes.calls["mutation_test"] += 1
            assert req.delivery == ref("delivery-oracle")  # the reference trial's delivery
            return MutationRows(ref("mutation-rows"), 17, 8)

        @activity.defn(name="judge_calibration")
        def judge_calibration(req: CalibrationInput) -> CalibrationVerdict:
            fakes.calls["judge_calibration"] += 1
            assert req.mutations is not None and req.package == ref("package")
            misses = [f"grader gameable: operators not killed: {', '.join(fakes.survivors)}"] \
                if fakes.survivors else []
            return CalibrationVerdict(ref("calibration"), not misses, misses, req.grading, 0.0,
                                      list(fakes.survivors))

        @activity.defn(name="freeze_task")
        def freeze_task(req: FreezeInput) -> FrozenTask:
            identity = dataclasses.replace(req.identity, task_version="v1-abc")
            return FrozenTask("demo-task", "v1-abc", ref("frozen"), ref("frozen-record"),
                              req.calibration_report, identity, req.grading, req.input_reward,
                              req.pipeline_ref)

        @activity.defn(name="write_evaluation_plan")
        def write_evaluation_plan(req: PlanInput) -> BlobRef:
            return ref("plan")

        @activity.defn(name="write_evaluation_report")
        def write_evaluation_report(req: ReportInput) -> EvaluationResult:
            from activities.evaluation import config_metrics
            configs = list(dict.fromkeys(o.policy for o in req.outcomes))
            metrics = [config_metrics(c, req.k, req.outcomes, req.frozen.input_reward) for c in configs]
            return EvaluationResult(req.plan, ref("trials"), ref("report"), metrics)

        @activity.defn(name="scan_export")
        def scan_export(req: PublishInput) -> ExportScan:
            return ExportScan(ref("export-report"), list(self.pending))

        @activity.defn(name="publish_task")
        def publish_task(req: PublishInput) -> PublicationResult:
            self.published.append(req)
            return PublicationResult("demo-task-r1", "/pub/demo-task-r1", ref("pub"), 3, "/h/e.json")

        return [admit_seed, build_workspace, assemble_task_package, run_trial, render_evidence,
                judge_vl, score_trial, write_pilot_record, mutation_test, judge_calibration, freeze_task,
                write_evaluation_plan, write_evaluation_report, scan_export, publish_task]


@contextlib.asynccontextmanager
async def running_workers(env, fakes: Fakes):
    """The control worker and `fakes` on the cpu, gpu and llm queues, until the block ends."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(8) as pool:
        workers = [Worker(env.client, task_queue=queues.CONTROL, workflows=WORKFLOWS)]
        workers += [Worker(env.client, task_queue=q, activities=fakes.activities(),
                           activity_executor=pool) for q in (queues.CPU, queues.GPU, queues.LLM)]
        async with workers[0], workers[1], workers[2], workers[3]:
            yield


def before_each_trial(fakes: Fakes, hook) -> None:
    """`hook(req)` runs before each of `fakes`' run_trial calls (it may raise, or wait)."""
    original = fakes.activities

    def activities():
        acts = original()
        run_trial = next(a for a in acts if a.__temporal_activity_definition.name == "run_trial")

        @activity.defn(name="run_trial")
        def hooked(req: TrialRequest) -> TrialOutcome:
            hook(req)
            return run_trial(req)
        return [hooked if a is run_trial else a for a in acts]

    fakes.activities = activities


async def produce(env, fakes: Fakes, wid: str) -> tuple[ProductionResult | Exception, dict]:
    """Run TaskProduction with `fakes` on all four queues; return its result (or the error)
    and its `progress` query (answered while the workers still run)."""
    async with running_workers(env, fakes):
        try:
            result = await asyncio.wait_for(env.client.execute_workflow(
                "TaskProduction", TaskProductionInput("seeds/demo"), id=wid,
                task_queue=queues.CONTROL, result_type=ProductionResult), 120)
        except WorkflowFailureError as e:
            result = e
        progress = await env.client.get_workflow_handle(wid).query("progress")
    return result, progress


def named_cause(error, error_type: str):
    """The ApplicationError of `error_type` in a failed workflow's chain of causes."""
    assert isinstance(error, WorkflowFailureError), error
    cause = error.cause
    while getattr(cause, "cause", None) is not None and getattr(cause, "type", None) != error_type:
        cause = cause.cause
    return cause


async def record_history(env, wid: str) -> None:
    """Keep the histories for the replay test (only when asked: they are committed files)."""
    import os
    if not os.environ.get("ARKEVO_RECORD_HISTORIES"):
        return
    HISTORIES.mkdir(exist_ok=True)
    ids = [wid] + [f"{wid}.{s}" for s in ("02-admission", "03-authoring", "04-trial-solves",
                                            "05-review", "06-evaluation", "07-packaging")]
    for one in ids:
        history = await env.client.get_workflow_handle(one).fetch_history()
        (HISTORIES / f"{one}.json").write_text(json.dumps(json.loads(history.to_json()), indent=1))


async def test_all_stages_run_in_order_with_vl_graded_per_trial(mocked_env):
    fakes = Fakes("blender-70-30")
    wid = "task-production"  # also the recorded histories' id (test_replay.py)
    result, progress = await produce(mocked_env, fakes, wid)
    assert result.task_version == "v1-abc" and result.publication.publication_id == "demo-task-r1"
    # trials: baseline + reference (03), none in the pilot (04: its oracle and nop are stage
    # 03's, carried), 1 defect (05), 2 configs x k=2 (06)
    assert fakes.calls["run_trial"] == 2 + 1 + 4
    assert fakes.calls["score_trial"] == fakes.calls["run_trial"]  # every trial scored by profile
    assert fakes.calls["judge_vl"] == fakes.calls["run_trial"]  # ... with its VL judgement
    assert fakes.calls["render_evidence"] == fakes.calls["run_trial"] + 1  # + the reference's
    assert fakes.calls["admit_seed"] == 1  # the seed is validated once
    assert fakes.calls["mutation_test"] == 1  # the grader attacked once, on the reference
    oracle = next(m for m in result.metrics if m.config == "oracle")
    assert oracle.avg_at_k == 1.0 and oracle.pass_at_k == 1.0
    assert result.failures == {"infra": 0, "solver": 0, "author": 0}
    handle = mocked_env.client.get_workflow_handle(wid)
    assert progress["stage"] == "done" and set(progress["stages"].values()) == {"completed"}
    assert progress["pilot_findings"] == [], progress.get("pilot_findings")
    # the counts inside each stage, as the stages' workflows signalled them (stage_progress)
    assert progress["detail"] == {
        "03-authoring": {"trials graded": "2/2"},
        "04-trial-solves": {"trials oracle": "1/1", "trials nop": "1/1"},
        "05-review": {"samples graded": "3/3", "mutation testing": "1/1"},
        "06-evaluation": {"trials oracle": "2/2", "trials nop": "2/2"}}, progress.get("detail")
    history = await handle.fetch_history()
    children = [e.start_child_workflow_execution_initiated_event_attributes.workflow_id
                for e in history.events
                if e.HasField("start_child_workflow_execution_initiated_event_attributes")]
    assert children == [f"{wid}.{s}" for s in ("02-admission", "03-authoring", "04-trial-solves",
                                                "05-review", "06-evaluation", "07-packaging")]
    await record_history(mocked_env, wid)


async def test_pilot_carries_the_scripted_trials_of_stage_03_and_runs_every_other_policy(mocked_env):
    fakes = Fakes("blender-70-30", pilot=["oracle", "nop", "llm"])
    wid = "mocked-pilot"
    await produce(mocked_env, fakes, wid)
    pilot = await mocked_env.client.get_workflow_handle(
        f"{wid}.04-trial-solves", result_type=TrialSolvesResult).result()
    assert [(t.policy, t.stage, t.trial_id) for t in pilot.trials] == [
        ("oracle", "authoring", f"{wid}.03-authoring/reference"),
        ("nop", "authoring", f"{wid}.03-authoring/input-baseline"),
        ("llm", "pilot", f"{wid}.04-trial-solves/llm")]
    assert all(t.reward is not None for t in pilot.trials)  # graded, carried or not
    # baseline + reference (03), the llm pilot (04), 1 defect (05), 2 configs x k=2 (06)
    assert fakes.calls["run_trial"] == 2 + 1 + 1 + 4


async def test_a_gameable_grader_is_refused_at_review_by_name_and_nothing_is_published(mocked_env):
    fakes = Fakes("blender-70-30", survivors=["bbox_vertices", "occluder"])
    error, progress = await produce(mocked_env, fakes, "mocked-gameable")
    cause = named_cause(error, "GraderGameable")
    assert cause.type == "GraderGameable" and cause.non_retryable
    assert "operators not killed: bbox_vertices, occluder" in str(cause)
    assert progress["stages"]["05-review"] == "failed" and progress["stages"]["07-packaging"] == "pending"
    assert fakes.calls["mutation_test"] == 1 and fakes.published == []


async def test_a_reference_whose_graded_part_the_judge_cannot_see_fails_authoring_by_name(mocked_env):
    fakes = Fakes("blender-70-30")
    fakes.unseen = {"Leg.FL": "at most 5x58 px in any view (needs 8x8)"}
    error, progress = await produce(mocked_env, fakes, "mocked-unseen")
    cause = named_cause(error, "EvidenceTooCoarse")
    assert cause.type == "EvidenceTooCoarse" and cause.non_retryable
    assert "Leg.FL: at most 5x58 px" in str(cause)
    assert fakes.graded == [["Leg.FL", "Wood"]]  # only the reference's render checks the rubric's names
    assert progress["stages"]["03-authoring"] == "failed" and fakes.published == []
    assert progress["failures"]["author"] == 1  # judge.json is the author's


async def test_rule_only_profile_starts_no_vl_grading(mocked_env):
    fakes = Fakes("rule-only")
    await produce(mocked_env, fakes, "mocked-rule-only")  # completes: asserted by the counts
    assert fakes.calls["judge_vl"] == 0 and fakes.calls["render_evidence"] == 0
    assert fakes.calls["score_trial"] == fakes.calls["run_trial"]


async def test_solver_failures_are_graded_attempts_counted_by_kind(mocked_env):
    """A solver that crashes Blender in every attempt scores 0 in every attempt: it is in the
    figures (avg@k 0, pass@k 0), not erased as an exception."""
    fakes = Fakes("blender-70-30", {"nop": "solver"})
    result, progress = await produce(mocked_env, fakes, "mocked-solver")
    nop = next(m for m in result.metrics if m.config == "nop")
    assert nop.scored == 2 and nop.exceptions == 0 and nop.avg_at_k == 0.0 and nop.pass_at_k == 0.0
    assert nop.failures["solver"] == 2
    # baseline nop + eval nop x2 (the pilot's nop and the input sample are the baseline: one
    # attempt, counted once)
    assert result.failures["solver"] == 3 and progress["failures"]["solver"] == 3


async def test_the_progress_query_shows_the_counts_inside_a_running_stage(mocked_env):
    """Mid-stage: one evaluation trial held until the query has shown the stage's counts with
    it still to do; then released. Polled until every other trial has been counted (events, not
    timings: under load the first nop trial may end after both oracle trials)."""
    import threading

    fakes = Fakes("rule-only")
    release = threading.Event()

    def held(req: TrialRequest) -> None:
        if req.stage == "evaluation" and req.policy == "nop" and req.attempt == 2:
            assert release.wait(120), "never released"

    before_each_trial(fakes, held)
    wid = "mocked-sub-progress"
    async with running_workers(mocked_env, fakes):
        handle = await mocked_env.client.start_workflow(
            "TaskProduction", TaskProductionInput("seeds/demo"), id=wid,
            task_queue=queues.CONTROL, result_type=ProductionResult)
        seen = None
        for _ in range(600):
            progress = await handle.query("progress")
            if progress.get("detail", {}).get("06-evaluation", {}) == {"trials oracle": "2/2", "trials nop": "1/2"}:
                seen = progress
                break
            await asyncio.sleep(0.1)
        release.set()
        assert seen is not None, "the evaluation's counts never showed"
        assert seen["stage"] == "06-evaluation" and seen["stages"]["06-evaluation"] == "running"
        assert seen["detail"]["06-evaluation"] == {"trials oracle": "2/2", "trials nop": "1/2"}
        assert seen["detail"]["05-review"]["samples graded"] == "3/3"
        await handle.result()
        done = await handle.query("progress")
    assert done["detail"]["06-evaluation"] == {"trials oracle": "2/2", "trials nop": "2/2"}


async def test_infra_failures_are_reported_apart_and_never_scored(mocked_env):
    fakes = Fakes("blender-70-30", {"nop": "ok"})

    def flaky(req: TrialRequest) -> None:
        if req.stage == "evaluation" and req.policy == "nop":
            raise ApplicationError("sandbox launch failed", type="TrialInfraError", non_retryable=True)

    before_each_trial(fakes, flaky)
    result, progress = await produce(mocked_env, fakes, "mocked-infra")
    nop = next(m for m in result.metrics if m.config == "nop")
    assert nop.scored == 0 and nop.exceptions == 2 and nop.avg_at_k is None
    assert nop.failures["infra"] == 2 and result.failures["infra"] == 2
    assert progress["failures"]["infra"] == 2


async def test_an_author_script_failure_fails_authoring_fast_and_nothing_later_runs(mocked_env):
    fakes = Fakes("blender-70-30", {"oracle": "author"})
    error, progress = await produce(mocked_env, fakes, "mocked-author")
    assert isinstance(error, WorkflowFailureError) and "03-authoring" in str(error.cause)
    assert progress["stages"]["03-authoring"] == "failed"
    assert progress["stages"]["04-trial-solves"] == "pending"
    assert progress["failures"]["author"] == 1
    assert "ZeroDivisionError" in progress["error"]
    assert fakes.calls["judge_calibration"] == 0



async def test_coverage_pending_holds_the_publication_until_a_reviewer_signals(mocked_env):
    """Files no scanner could read wait in 07 for `review_privacy_coverage`: visible as
    ArkevoStage "07-packaging:coverage-pending" and in the `privacy_review` query; an approval
    publishes with the decision, a rejection fails the stage, never retried."""
    from concurrent.futures import ThreadPoolExecutor

    pending = [PrivacyPending("task/environment/workspace/inputs/scan.lut", "c" * 64, "unknown binary type")]
    for approved, wid in ((True, "mocked-coverage-ok"), (False, "mocked-coverage-rejected")):
        fakes = Fakes("rule-only", pending=pending)
        with ThreadPoolExecutor(8) as pool:
            workers = [Worker(mocked_env.client, task_queue=queues.CONTROL, workflows=WORKFLOWS)]
            workers += [Worker(mocked_env.client, task_queue=q, activities=fakes.activities(),
                               activity_executor=pool) for q in (queues.CPU, queues.GPU, queues.LLM)]
            async with workers[0], workers[1], workers[2], workers[3]:
                handle = await mocked_env.client.start_workflow(
                    "TaskProduction", TaskProductionInput("seeds/demo"), id=wid,
                    task_queue=queues.CONTROL, result_type=ProductionResult)
                packaging = mocked_env.client.get_workflow_handle(f"{wid}.07-packaging")
                for _ in range(200):  # until 07 waits
                    try:
                        review = await packaging.query("privacy_review")
                        if review["pending"]:
                            break
                    except Exception:  # noqa: BLE001 — not started yet
                        pass
                    await asyncio.sleep(0.1)
                assert review == {"pending": [p.__dict__ for p in pending], "review": None}
                desc = await packaging.describe()
                assert desc.typed_search_attributes.get(STAGE_KEY) == "07-packaging:coverage-pending"
                await asyncio.sleep(0.5)
                assert fakes.published == [] and (await handle.query("progress"))["stage"] == "07-packaging"
                await packaging.signal("review_privacy_coverage",
                                       PrivacyReview(approved, "ana", "a colour LUT, no text"))
                try:
                    result = await asyncio.wait_for(handle.result(), 60)
                except WorkflowFailureError as e:
                    result = e
        if approved:
            assert isinstance(result, ProductionResult)
            [published] = fakes.published
            assert published.privacy_review.approved and published.privacy_review.reviewer == "ana"
            assert published.privacy_review.files == pending
        else:
            assert isinstance(result, WorkflowFailureError)
            assert "PrivacyCoverageRejected" in str(result.cause) or "rejected by ana" in str(result.cause)
            assert fakes.published == []
