"""Model authoring's orchestration with every activity mocked (no model, no Blender: seconds).

The real workflow code (TaskProduction -> Authoring -> ModelAuthoring -> CheckDelivery per
round) runs on a dev server of its own; the stand-in activities say what each round's author,
check and reviewer answer. Checked: rounds and their child ids, findings fed back to the next
round, the accepted round's graded samples and gaming operators' rows reused by review (not run
again), and the three outcomes, each failing or finishing stage 03 as docs/authoring.md says.
"""

from __future__ import annotations

import dataclasses

import pytest
from temporalio import activity
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from contracts.errors import AUTHORING_NEEDS_INPUT, AUTHORING_REJECTED, MODEL_NOT_CONFIGURED
from contracts.payloads.admission import AdmissionInput, AdmissionResult
from contracts.payloads.common import BlobRef
from contracts.payloads.model_authoring import (AuthoringRecordInput, AuthorRoundInput, AuthorRoundResult,
                                                CalibrationFeedback, CheckDraftInput, DraftAdmission,
                                                EndpointCheckInput, FinalReviewInput, FinalReviewVerdict,
                                                ModelUsage)
from contracts.payloads.review import CalibrationInput, CalibrationVerdict
from contracts.payloads.vl_grading import RenderedEvidence, RenderEvidenceInput
from tests.orchestration.test_task_production_mocked import Fakes, produce, ref


def _name(fn) -> str:
    return getattr(fn, "__temporal_activity_definition").name


class AuthoringFakes(Fakes):
    """`rounds[n-1]` scripts round n: {"author": submitted|needs_input, "admit": ok|bad,
    "evidence": ok|coarse, "calibration": pass|fail, "review": accept|revise|reject}."""

    def __init__(self, rounds: list[dict], endpoints: bool = True):
        super().__init__("blender-70-30")
        self.rounds = rounds
        self.endpoints = endpoints
        self.feedback_seen: list[list[dict]] = []
        self.record: AuthoringRecordInput | None = None
        self.round_of_calibration: list[int] = []
        self.reference_renders = 0

    def script(self, n: int) -> dict:
        return {"author": "submitted", "admit": "ok", "evidence": "ok", "calibration": "pass",
                "review": "accept", **self.rounds[n - 1]}

    def activities(self) -> list:
        fakes = self
        base = {_name(a): a for a in super().activities()}

        @activity.defn(name="admit_seed")
        def admit_seed(req: AdmissionInput) -> AdmissionResult:
            human = base["admit_seed"](req)
            return dataclasses.replace(human, draft=None, authoring="model", task_id="demo-seed")

        @activity.defn(name="check_model_endpoints")
        def check_model_endpoints(req: EndpointCheckInput) -> list[dict]:
            fakes.calls["check_model_endpoints"] += 1
            if not fakes.endpoints:
                raise ApplicationError("no model endpoint for the author role on this worker: set "
                                       "ARKEVO_AUTHOR_BASE_URL", type=MODEL_NOT_CONFIGURED,
                                       non_retryable=True)
            return [{"role": r, "model": "fake"} for r in req.roles]

        @activity.defn(name="author_round")
        def author_round(req: AuthorRoundInput) -> AuthorRoundResult:
            fakes.calls["author_round"] += 1
            fakes.feedback_seen.append(req.feedback)
            assert (req.previous_draft is None) == (req.round == 1)
            what = fakes.script(req.round)["author"]
            usage = ModelUsage("author", "fake-author", 3, 300, 60, 1.5)
            if what == "needs_input":
                return AuthorRoundResult("needs_input", None, ref("transcript"), usage,
                                         "no dimensions", ["the overall dimensions of the table"])
            return AuthorRoundResult("submitted", ref(f"draft-{req.round}"), ref("transcript"),
                                     usage, "drafted")

        @activity.defn(name="admit_draft")
        def admit_draft(req: CheckDraftInput) -> DraftAdmission:
            fakes.calls["admit_draft"] += 1
            if fakes.script(req.round)["admit"] != "ok":
                return DraftAdmission(False, [{"check": "ledger", "file": "draft/ledger.json",
                                               "message": "REQ-X has no ledger entry"}])
            draft = base["admit_seed"](AdmissionInput("seeds/demo", "t")).draft
            return DraftAdmission(True, [], ref(f"merged-{req.round}"), draft)

        @activity.defn(name="render_evidence")
        def render_evidence(req: RenderEvidenceInput) -> RenderedEvidence:
            rendered = base["render_evidence"](req)
            if req.graded:  # the reference's render: one per round that reaches the trials
                fakes.reference_renders += 1
                if fakes.script(fakes.reference_renders)["evidence"] == "coarse":
                    return dataclasses.replace(rendered, unseen={"Leg.FL": "at most 5x58 px in any view"})
            return rendered

        @activity.defn(name="judge_calibration")
        def judge_calibration(req: CalibrationInput) -> CalibrationVerdict:
            fakes.calls["judge_calibration"] += 1
            n = int(req.outcomes[-1].trial_id.split(".round-")[1].split("/")[0]) \
                if ".round-" in req.outcomes[-1].trial_id else 0
            fakes.round_of_calibration.append(n)
            passed = n == 0 or fakes.script(n)["calibration"] == "pass"
            misses = [] if passed else ["sample 'defect:a' scored 0.800 (success True)"]
            return CalibrationVerdict(ref(f"calibration-{n}"), passed, misses, req.grading, 0.0)

        @activity.defn(name="calibration_feedback")
        def calibration_feedback(report: BlobRef) -> CalibrationFeedback:
            if report == ref("calibration-1") and fakes.script(1)["calibration"] != "pass":
                return CalibrationFeedback([{"check": "calibration", "sample": "defect:a",
                                             "message": "defect:a should not succeed",
                                             "scores": {"reward": 0.8}}], 0.1)
            return CalibrationFeedback([], 0.6)

        @activity.defn(name="final_review")
        def final_review(req: FinalReviewInput) -> FinalReviewVerdict:
            fakes.calls["final_review"] += 1
            verdict = fakes.script(req.round)["review"]
            reasons = [] if verdict == "accept" else [f"{verdict}: instruction names the solution"]
            return FinalReviewVerdict(verdict, reasons, {}, {"margin": 0.6}, ref("review"),
                                      ModelUsage("reviewer", "fake-reviewer", 1, 900, 40, 2.0))

        @activity.defn(name="write_authoring_record")
        def write_authoring_record(req: AuthoringRecordInput) -> BlobRef:
            fakes.record = req
            return ref("authoring-record")

        own = [admit_seed, check_model_endpoints, author_round, admit_draft, render_evidence, judge_calibration,
               calibration_feedback, final_review, write_authoring_record]
        names = {_name(a) for a in own}
        return own + [a for n, a in base.items() if n not in names]


async def test_repair_round_then_accept_publishes_with_the_authoring_record(mocked_env):
    fakes = AuthoringFakes([{"calibration": "fail"}, {}])
    wid = "mocked-model-repair"
    result, progress = await produce(mocked_env, fakes, wid)
    assert result.publication.publication_id == "demo-task-r1", result
    assert progress["authoring"] == "model" and progress["authoring_record"] == ref("authoring-record").key
    assert fakes.calls["author_round"] == 2 and fakes.calls["final_review"] == 1
    assert fakes.feedback_seen[0] == []
    assert fakes.feedback_seen[1][0]["sample"] == "defect:a"  # round 1's finding, structured
    # round 1 and 2 each graded reference, input and defect:a; review (05) judged round 2's
    # graded samples again without running any; the pilot (04) carries round 2's oracle and
    # nop: 2 x 3 trials + evaluation 4
    assert fakes.calls["run_trial"] == 2 * 3 + 4
    # the operators attacked each round's reference; review judged round 2's rows, not run again
    assert fakes.calls["mutation_test"] == 2
    assert fakes.round_of_calibration == [1, 2, 2]
    assert fakes.record.outcome == "authored" and [r["verdict"] for r in fakes.record.rounds] == [
        "check_failed", "accept"]
    assert {u.role for u in fakes.record.usage} == {"author", "reviewer"}
    children = [w.id async for w in mocked_env.client.list_workflows(f"WorkflowId STARTS_WITH '{wid}.03'")]
    assert {f"{wid}.03-authoring.model", f"{wid}.03-authoring.model.round-1",
            f"{wid}.03-authoring.model.round-2"} <= set(children)
    assert [r["check"]["passed"] for r in fakes.record.rounds] == [False, True]


async def test_admission_findings_skip_the_trials_and_go_back_to_the_author(mocked_env):
    fakes = AuthoringFakes([{"admit": "bad"}, {}])
    result, _ = await produce(mocked_env, fakes, "mocked-model-admission")
    assert result.task_version == "v1-abc"
    assert fakes.feedback_seen[1] == [{"check": "ledger", "file": "draft/ledger.json",
                                       "message": "REQ-X has no ledger entry"}]
    assert fakes.calls["run_trial"] == 3 + 4  # round 2 only (the pilot carries it), then evaluation


async def test_evidence_the_judge_cannot_see_goes_back_to_the_author_as_a_finding(mocked_env):
    fakes = AuthoringFakes([{"evidence": "coarse"}, {}])
    result, progress = await produce(mocked_env, fakes, "mocked-model-evidence")
    assert not isinstance(result, Exception), (progress.get("error"), result.cause)
    assert result.task_version == "v1-abc"
    (finding,) = fakes.feedback_seen[1]
    assert finding["check"] == "evidence" and finding["file"] == "draft/judge.json"
    assert "Leg.FL: at most 5x58 px" in finding["message"]
    assert [r["verdict"] for r in fakes.record.rounds] == ["check_failed", "accept"]


async def test_revise_gives_one_more_round_with_the_reviewers_reasons(mocked_env):
    fakes = AuthoringFakes([{"review": "revise"}, {}])
    result, _ = await produce(mocked_env, fakes, "mocked-model-revise")
    assert result.task_version == "v1-abc"
    assert fakes.feedback_seen[1] == [{"check": "review",
                                       "message": "revise: instruction names the solution"}]


@pytest.mark.parametrize("script, error_type, says", [
    ([{"review": "reject"}], AUTHORING_REJECTED, "instruction names the solution"),
    ([{"author": "needs_input"}], AUTHORING_NEEDS_INPUT, "the overall dimensions of the table"),
    ([{"calibration": "fail"}, {"calibration": "fail"}, {"calibration": "fail"}], AUTHORING_REJECTED,
     "no accepted draft after 3 round(s)"),
])
async def test_outcomes_that_end_stage_03_publish_nothing(mocked_env, script, error_type, says):
    fakes = AuthoringFakes(script)
    error, progress = await produce(mocked_env, fakes, f"mocked-model-{error_type}-{len(script)}")
    assert isinstance(error, WorkflowFailureError)
    assert progress["stages"]["03-authoring"] == "failed"
    assert progress["stages"]["07-packaging"] == "pending" and says in progress["error"]
    assert error_type in progress["error"] or says in progress["error"]
    assert fakes.record.outcome == ("needs_input" if error_type == AUTHORING_NEEDS_INPUT else "rejected")


async def test_no_endpoint_fails_stage_03_before_any_work(mocked_env):
    fakes = AuthoringFakes([{}], endpoints=False)
    error, progress = await produce(mocked_env, fakes, "mocked-model-no-endpoint")
    assert isinstance(error, WorkflowFailureError)
    assert "ARKEVO_AUTHOR_BASE_URL" in progress["error"]
    assert fakes.calls["build_workspace"] == 0 and fakes.calls["author_round"] == 0
