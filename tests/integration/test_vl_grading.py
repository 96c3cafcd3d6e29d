"""The VL channel through Temporal: evidence renders on the gpu pool, the judge on the
rate-limited arkevo-llm pool. Offline image-metric judge here (the model judge's HTTP paths are
tested against the fake endpoint in test_vl_judge.py)."""

from __future__ import annotations


import pytest

from activities.evidence import EvidenceActivities
from contracts import queues
from contracts.payloads.vl_grading import RenderEvidenceInput, VLGradingInput, VLJudgeOutcome
from tests.bpy_forks import run_bpy_script

pytestmark = [pytest.mark.blender, pytest.mark.temporal]


def bpy_script(project_root, script: str, *args: str) -> None:
    done = run_bpy_script(str(project_root / "blender" / script), *args)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


@pytest.fixture(scope="module")
def table_deliveries(tmp_path_factory, project_root):
    """The untouched (empty) start scene and the reference solution of table-model."""
    work = tmp_path_factory.mktemp("table")
    seed = project_root / "seeds" / "table-model"
    bpy_script(project_root, "build_workspace.py", "--reference", str(seed / "materials" / "build_reference.py"),
               "--start-mode", "from_scratch", "--out-start", str(work / "start.blend"),
               "--out-reference", str(work / "reference-project.blend"))
    bpy_script(project_root, "apply_script.py", "--in", str(work / "start.blend"),
               "--script", str(seed / "draft" / "solution" / "solve.py"), "--out", str(work / "solved.blend"))
    return work


async def grade(temporal_env, wid: str, req: VLGradingInput) -> VLJudgeOutcome:
    return await temporal_env.client.execute_workflow(
        "VLGrading", req, id=wid, task_queue=queues.CONTROL, result_type=VLJudgeOutcome)


async def test_image_metric_judge_through_the_llm_queue(temporal_env, workers, store, project_root,
                                                         table_deliveries, settings):
    judge = store.put_file(project_root / "seeds" / "table-model" / "draft" / "judge.json")
    solved = store.put_file(table_deliveries / "solved.blend")
    empty = store.put_file(table_deliveries / "start.blend")
    # the reference deliverable's renders, as stage 03 makes them (the same cache as the workers)
    evidence = EvidenceActivities(store, settings.var / "cache" / "evidence")
    reference = (await evidence.render_evidence(RenderEvidenceInput(solved, judge))).evidence

    same = await grade(temporal_env, "vl-solved", VLGradingInput("table-model", judge, solved, "image-metric", reference))
    assert same.judge_id.startswith("image-metric") and same.vl_score == pytest.approx(1.0, abs=0.01)
    assert not same.gated and same.missing_reason is None

    blank = await grade(temporal_env, "vl-empty", VLGradingInput("table-model", judge, empty, "image-metric", reference))
    assert blank.gated and blank.vl_score == 0.0  # A-gate: not a table at all

    nothing = await grade(temporal_env, "vl-none", VLGradingInput("table-model", judge, None, "image-metric", reference))
    assert nothing.gated and nothing.vl_score == 0.0  # no delivery: the A-gate answers 0
    assert "nothing was delivered" in str(store.get_json(nothing.result))


async def test_a_judgement_is_reused_by_content_hash(temporal_env, workers, store, project_root,
                                                    table_deliveries, settings):
    """The same evidence, reference and questions before the same judge: the stored answer comes
    back without judging again (a model judge's calls are rate-limited and paid for)."""
    from activities.vl_judge import JudgeActivities
    from contracts.payloads.vl_grading import VLJudgeRequest

    judge = store.put_file(project_root / "seeds" / "table-model" / "draft" / "judge.json")
    solved = store.put_file(table_deliveries / "solved.blend")
    evidence = EvidenceActivities(store, settings.var / "cache" / "evidence")
    rendered = (await evidence.render_evidence(RenderEvidenceInput(solved, judge))).evidence
    req = VLJudgeRequest("table-model", judge, rendered, "image-metric", rendered)
    first = await JudgeActivities(store).judge_vl(req)

    class NeverJudges(JudgeActivities):
        def _image_metric(self, *args):
            raise AssertionError("judged again although the answer was stored")

    again = await NeverJudges(store).judge_vl(req)
    assert again == first and again.vl_score == pytest.approx(1.0, abs=0.01)
