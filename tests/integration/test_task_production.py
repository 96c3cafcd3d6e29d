"""TaskProduction end to end on a real dev server with real Blender: robot-carry through 02–07
with the pipeline's full evaluation, and its publication under Harbor's CLI and RewardKit.
(Submission with the `temporal workflow start` CLI, table-model and the other bundled seeds
through the pipeline: tests/integration/test_dataset_production.py.)"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from harbor.models.task.task import Task as HarborTask

from contracts.digests import sha256_file
from contracts.payloads.common import BlobRef
from contracts.payloads.packaging import ProductionResult
from contracts.validation import validate_document
from exports.harbor_zip import export_task, extract
from publications.layout import OUTSIDE_REVISIONS, folder
from tests.adversarial.sandbox_helpers import TEST_USER_PREFIX
from blender.runtime import blender_version
from workers.settings import PROJECT_ROOT
from workflows.task_production import STAGES

pytestmark = [pytest.mark.temporal, pytest.mark.blender]


def check_publication(result: ProductionResult, settings) -> dict:
    path = settings.var / folder(OUTSIDE_REVISIONS, result.task_id, result.publication.publication_id)
    assert str(path) == result.publication.path
    publication = json.loads((path / "publication.json").read_text())
    validate_document("publication", publication, "publication.json")
    records = json.loads((path / "records.json").read_text())
    validate_document("publication-records", records, "records.json")
    version = {f["path"]: f for f in publication["files"]}
    assert {rel.split("/")[0] for rel in version} == {"task", "private"}  # the version, no records
    listed = {**version, **{f["path"]: f for f in records["files"]}}
    on_disk = {p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file()}
    assert on_disk - {"publication.json", "records.json"} == set(listed)
    for rel, f in listed.items():
        assert sha256_file(path / rel) == f["sha256"], rel

    harbor_task = HarborTask(path / "task")  # Harbor itself loads the package
    assert "box" in harbor_task.instruction.lower() or "table" in harbor_task.instruction.lower()
    for needed in ("task.toml", "instruction.md", "environment/Dockerfile", "tests/test.sh",
                   "tests/rule_probe.py", "tests/rubric.json", "solution/solve.sh"):
        assert f"task/{needed}" in listed, needed

    trials = [json.loads(line) for line in (path / "evaluation/trials.jsonl").read_text().splitlines()]
    plan = json.loads((path / "evaluation/evaluation-plan.json").read_text())
    assert all(t["started_at"] >= plan["created_at"] for t in trials)
    assert {t["verifier_version"] for t in trials} == {plan["verifier_version"]}
    assert all(t["label"] == "scripted policy — not a model result" for t in trials)
    for t in trials:
        validate_document("trial-record", t, "trials.jsonl")
        assert t["failure"] is None  # scripted policies on a healthy stack: nothing failed
        assert t["blender_version"] == blender_version()  # the Blender the trial's worker ran
        assert t["cost"]["wall_sec"] > 0  # stage 06 records what each trial spent, as campaigns do
    pilot = json.loads((path / "trial-solves/pilot-record.json").read_text())  # stage 03-04 trials
    assert {t["stage"] for t in pilot["trials"]} <= {"authoring", "pilot"} and all(t["cost"] for t in pilot["trials"])
    assert harbor_task.config.metadata["blender_version"] == blender_version()  # built the workspace
    admission = json.loads((path / "admission/admission-record.json").read_text())
    assert admission["runtime"] == {"blender": blender_version()}
    frozen = json.loads((path / "review/frozen-task.json").read_text())
    assert len(frozen["pipeline_ref"]["pipeline_digest"]) == 64
    calibration = json.loads((path / "review/calibration-report.json").read_text())
    assert calibration["passed"] and {s["kind"] for s in calibration["samples"]} == {
        "reference", "input", "defect", "variant"}
    assert all(s["cost"]["wall_sec"] > 0 for s in calibration["samples"] if s["trial_stage"] == "calibration")
    gaming = calibration["gaming"]  # the author's attacks: applied, probed, every one refused
    assert gaming["total"] >= 2 and gaming["refused"] == gaming["total"], gaming
    assert all(g["delivery"]["sha256"] for g in gaming["samples"])  # kept in the store
    # the grader was attacked on the reference delivery and killed every applicable operator
    mutations = calibration["mutations"]
    assert mutations["survivors"] == [] and mutations["killed"] == mutations["applicable"] >= 6, mutations
    assert mutations["cost"]["wall_sec"] > 0  # what `arkevo dataset report` counts for it in 05
    # graded with the VL part, by the offline judge, labelled as such
    assert calibration["judge"] == "image-metric" and calibration["margin"] >= 0.2
    assert all(s["vl_score"] is not None for s in calibration["samples"])
    assert all(t["scoring_profile"] == calibration["scoring_profile"] for t in trials)
    store = settings.content_store()
    for row in [*trials, *calibration["samples"]]:  # the renders the VL judge saw, kept by reference
        renders = store.tree_entries(BlobRef(**row["renders"]))
        assert {"front.png", "side.png", "top.png", "close.png"} <= set(renders), row.get("trial_id")
    return {"trials": trials, "plan": plan, "calibration": calibration}


def check_metrics(result: ProductionResult, threshold: float) -> None:
    by_config = {m.config: m for m in result.metrics}
    assert set(by_config) == {"oracle", "nop"}
    assert by_config["oracle"].k == 3 and by_config["oracle"].scored == 3
    assert by_config["oracle"].avg_at_k >= 0.9 and by_config["oracle"].pass_at_k == 1.0
    assert by_config["nop"].avg_at_k < threshold and by_config["nop"].pass_at_k == 0.0
    assert by_config["nop"].reward_delta == pytest.approx(0.0)


def robot_carry_with_one_defect(tmp_path: Path) -> Path:
    """robot-carry as bundled, but calibrated on its first defect, its first variant and the two
    gaming samples review requires (each calibration sample is a trial plus an animation render: `make
    test` keeps its time; every sample of every seed is calibrated by
    test_blender_calibration.py, test_calibration_step.py and the demo)."""
    seed = tmp_path / "robot-carry"
    shutil.copytree(Path(__file__).resolve().parents[2] / "seeds" / "robot-carry", seed)
    for defect in sorted((seed / "draft" / "calibration" / "defects").glob("*.py"))[1:]:
        defect.unlink()
    for variant in sorted((seed / "draft" / "calibration" / "variants").glob("*.py"))[1:]:
        variant.unlink()
    for gaming in sorted((seed / "draft" / "calibration" / "gaming").glob("*.py"))[2:]:
        gaming.unlink()
    return seed


async def arkevo(settings, *args: str) -> subprocess.CompletedProcess:
    """The `arkevo` command as a user runs it, awaited: the workers run in this event loop."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cli", *args, cwd=PROJECT_ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "ARKEVO_VAR": str(settings.var), "COLUMNS": "200"})
    out, errs = await proc.communicate()
    return subprocess.CompletedProcess(args, proc.returncode, out.decode(), errs.decode())


async def test_robot_carry_through_all_stages(temporal_env, workers, settings, tmp_path):
    wid = "it-robot-carry"
    seed = robot_carry_with_one_defect(tmp_path)
    # submitted as an author does (docs/seed-authoring.md): checked, then started and followed
    submitted = await arkevo(settings, "seed", "submit", str(seed), "--wait", "--workflow-id", wid,
                             "--address", settings.address)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    assert "published robot-carry v1-" in submitted.stdout, submitted.stdout
    handle = temporal_env.client.get_workflow_handle(wid, result_type=ProductionResult)
    result = await handle.result()
    assert result.seed_id == "robot-carry" and result.task_version.startswith("v1-")
    check_metrics(result, threshold=0.7)
    evidence = check_publication(result, settings)
    assert len(evidence["trials"]) == 6

    progress = await handle.query("progress")
    assert progress["stage"] == "done"
    assert all(progress["stages"][s] == "completed" for s in STAGES)
    # the counts inside the stages, as their workflows signalled them: every one done
    detail = progress["detail"]
    assert set(detail) == {"03-authoring", "04-trial-solves", "05-review", "06-evaluation"}, detail
    assert detail["06-evaluation"] == {"trials oracle": "3/3", "trials nop": "3/3"}, detail
    assert all(v.split("/")[0] == v.split("/")[1] for counts in detail.values() for v in counts.values()), detail
    children = [c async for c in temporal_env.client.list_workflows(f"WorkflowId STARTS_WITH '{wid}.'")]
    stages = sorted(c.id for c in children if "/" not in c.id)
    assert stages == sorted(f"{wid}.{s}" for s in STAGES)
    # kuka-80-20 weights VL: every trial had its VL grading child (baseline, reference,
    # 2 calibration samples, 6 evaluation trials; the pilot's oracle and nop are the baseline
    # and reference, carried; gaming samples are judged without VL)
    vl = [c.id for c in children if c.id.endswith(".vl")]
    assert len(vl) == 2 + 2 + 6, vl
    assert not any(".04-trial-solves" in c for c in vl), vl
    review_site_of_the_publication(settings, result, tmp_path)


def review_site_of_the_publication(settings, result: ProductionResult, tmp_path: Path) -> None:
    """The publication's review site in headless Chromium: an animated task's reference and
    delivery renders, frame strips and MP4 players all load (docs/review-site.md)."""
    from review_site.build import build_site
    from review_site.sources import Source
    from tests.site_support.browser import chromium, keep_screenshots, load_and_check, screenshot

    site = build_site(Source(settings.objects(), settings.content_store()), tmp_path / "site",
                      publications=[result.publication.path])
    with chromium() as driver:
        media = load_and_check(driver, (site.out / "tasks" / "robot-carry.html").as_uri())
        # the reference and one delivery per configuration (oracle, nop): 4 views, 16 frames
        # and an MP4 each, and the score plot
        assert media["videos"] == 3 and media["images"] == 3 * (4 + 16) + 1, media
        screenshot(driver, tmp_path / "shots" / "task-animated.png")
        trial = next((site.out / "trials" / "robot-carry").glob("calibration-defect*.html"))
        assert load_and_check(driver, trial.as_uri())["videos"] == 1
    keep_screenshots(tmp_path / "shots", os.environ.get("ARKEVO_SCREENSHOTS"))


def test_published_task_runs_under_harbors_own_cli(tmp_path, settings, project_root):
    """`harbor run` on a publication exported as a ZIP and unzipped, with the sandbox environment:
    what docs/exports.md and docs/sandbox.md say."""
    # robot-carry's (the VL-weighted task the lane's first test publishes: score.json below);
    # other tests of the lane publish into the same store
    published = sorted((settings.var / OUTSIDE_REVISIONS).glob("robot-carry/*/task"))
    assert published, "the end-to-end test above publishes robot-carry first"
    exported = export_task(settings.objects(), str(published[0].parent), tmp_path / "task.zip")
    task_dir = extract(exported.path, tmp_path / "unzipped") / exported.root
    assert exported.root == published[0].parent.parent.name and (task_dir / "task.toml").is_file()
    jobs = tmp_path / "jobs"
    command = [str(Path(sys.prefix) / "bin" / "harbor"), "run", "-p", str(task_dir),
               "-a", "oracle", "-e", "sandbox.environment:ArkevoSandboxEnvironment",
               "-o", str(jobs), "-y", "-q",
               "--ek", f"base_dir={tmp_path / 'slots'}", "--ek", f"user_prefix={TEST_USER_PREFIX}"]
    env = {**os.environ, "PYTHONPATH": str(project_root), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [result] = list(jobs.glob("*/*/result.json"))
    assert json.loads(result.read_text())["exception_info"] is None
    verifier = result.parent / "verifier"
    assert json.loads((verifier / "report.json").read_text())["rule_score"] == 1.0
    # A VL-weighted publication grades as the pipeline did: the scoring profile, with the
    # offline image-metric judge against the shipped reference renders.
    score = json.loads((verifier / "score.json").read_text())
    assert score["judge"]["kind"] == "offline-metric" and score["success"]
    reward = json.loads((verifier / "reward.json").read_text())["reward"]
    pipeline = [json.loads(line) for line in
                (published[0].parent / "evaluation" / "trials.jsonl").read_text().splitlines()]
    assert reward == score["total"] == next(t["reward"] for t in pipeline if t["config"] == "oracle")


def test_published_task_grades_under_rewardkit_as_the_pipeline_did(tmp_path, settings):
    """RewardKit on a published VL-weighted task's tests/: `total` is the scoring profile's
    total with the offline judge — the pipeline's reward for the same (oracle) delivery."""
    [task] = sorted((settings.var / OUTSIDE_REVISIONS).glob("robot-carry/*/task"))[:1]
    tests = task / "tests"
    assert (tests / "grading.json").is_file()
    publication = task.parent
    trials = [json.loads(line) for line in (publication / "evaluation" / "trials.jsonl").read_text().splitlines()]
    oracle = next(t for t in trials if t["config"] == "oracle")
    ws, logs = tmp_path / "ws", tmp_path / "logs"
    (ws / "outputs").mkdir(parents=True)
    logs.mkdir()
    store_root = settings.store_root
    (ws / "outputs" / "result.blend").write_bytes((store_root / oracle["delivery"]["key"]).read_bytes())
    env = {**os.environ, "ARKEVO_PROBE_REPORT": str(logs / "report.json"), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run([sys.executable, "-m", "rewardkit", str(tests), "--workspace", str(ws),
                           "--output", str(logs / "reward.json")], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads((logs / "reward.json").read_text())["reward"] == oracle["reward"]
    details = json.loads((logs / "reward-details.json").read_text())["reward"]
    total = next(c for c in details["criteria"] if c["name"] == "total")
    assert "kuka-80-20" in total["reasoning"] and "image-metric" in total["reasoning"]
