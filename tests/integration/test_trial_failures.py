"""Who a failed trial belongs to (docs/failures.md), through the real trial path: Harbor's Trial
in the sandbox, real Blender, the separate verifier sandbox running tests/test.sh, and the model
played by the FAKE OpenAI-compatible endpoint (tests/fakes/openai_server.py; it is NOT a model).

* solver: a model that kills or hangs Blender, or whose delivery is not a .blend or is cut short,
  gets a graded attempt (the delivery as it stands; nothing -> 0) with `failure` kind solver;
  a delivery that crashes or hangs the rule probe is scored 0 by the verifier itself;
* author: a reference solution that raises is AuthorScriptFailed, non-retryable, in seconds;
* infra: a sandbox or Blender host that fails before the first action is TrialInfraError.

Trials go through `HarborSandboxBackend.run` on a Harbor task written here from the robot-carry
draft, its rule criteria only (so the rule report carries the reward).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from contracts.errors import AUTHOR_SCRIPT_FAILED
from activities.harbor_task import TEST_SH, dockerfile, task_toml
from activities.policies import policy_from_name
from activities.trial_backends import HarborSandboxBackend, LocalBackend, TrialInfraError, TrialRun
from contracts.payloads.authoring import TaskIdentity
from tests.adversarial.sandbox_helpers import requires_landlock, sandbox_kwargs
from tests.fakes.openai_server import FakeOpenAIServer, final, tool_call
from tests.integration.test_agents import DRAFT, FAST, start_blend  # noqa: F401 (session fixture)
from verifiers.version import PROBE_FILES, VERIFIERS

pytestmark = [pytest.mark.blender, requires_landlock, pytest.mark.timeout(180)]

TOOL_TIMEOUT_SEC = 5
# The model's options for these trials: a short tool-call timeout, so a hang is seen quickly.
MODEL_OPTIONS = {"mcp": {"tool_timeout_sec": TOOL_TIMEOUT_SEC, "shutdown_timeout_sec": 3},
                 "max_steps": 5, **FAST}
LOOK = "import bpy\nprint(sorted(o.name for o in bpy.data.objects))\n"
SAVE = "import bpy\nbpy.ops.wm.save_as_mainfile(filepath='outputs/result.blend', copy=True)\n"
# bpy code that spoils the delivery right after the agent saves it (a save_post handler).
SPOIL = ("import bpy, os\n"
         "def spoil(path, *_):\n"
         "    {how}\n"
         "bpy.app.handlers.save_post.append(spoil)\n")
NOT_A_BLEND = SPOIL.format(how="open(path, 'wb').write(b'not a blend at all\\n' * 50)")
TRUNCATED = SPOIL.format(how="os.truncate(path, os.path.getsize(path) // 2)")


def write_task(root: Path, start: Path) -> Path:
    """A Harbor task dir shaped like `activities.harbor_task.write_harbor_task` writes it."""
    task = json.loads((DRAFT / "task.json").read_text())
    task["criteria"] = [c for c in task["criteria"] if c["channel"] == "rule"]
    task["verification"]["weights"] = {"rule": 1.0, "vl": 0.0, "agent": 0.0}
    tests = root / "tests"
    tests.mkdir(parents=True)
    for name in PROBE_FILES:
        shutil.copy(VERIFIERS / name, tests / name)
    (tests / "task.json").write_text(json.dumps(task))
    for name in ("rubric.json", "start_scene.json", "task_probes.py"):  # as packaging lays tests/ out
        if (DRAFT / name).is_file():
            shutil.copy(DRAFT / name, tests / name)
    (tests / "test.sh").write_text(TEST_SH)
    (tests / "test.sh").chmod(0o755)
    workspace = root / "environment" / "workspace"
    (workspace / "inputs").mkdir(parents=True)
    (workspace / "outputs").mkdir()
    shutil.copy(start, workspace / "inputs" / "start.blend")
    shutil.copy(DRAFT / "public" / "spec.md", workspace / "inputs" / "spec.md")
    (root / "environment" / "Dockerfile").write_text(dockerfile())
    shutil.copy(DRAFT / "instruction.md", root / "instruction.md")
    (root / "task.toml").write_text(task_toml(TaskIdentity(
        "robot-carry", "draft", "vv-test", "", task["workflow_primary"], task["profession_primary"])))
    return root


@pytest.fixture(scope="module")
def task_dir(tmp_path_factory, start_blend) -> Path:  # noqa: F811
    return write_task(tmp_path_factory.mktemp("failures") / "task", start_blend)


@pytest.fixture
def llm_env(monkeypatch):
    def configure(base_url: str) -> None:
        monkeypatch.setenv("ARKEVO_LLM_BASE_URL", base_url)
        monkeypatch.setenv("ARKEVO_LLM_MODEL", "fake-model")
        monkeypatch.setenv("ARKEVO_LLM_API_KEY", "sk-fake-do-not-record")
    return configure


async def run(task_dir: Path, tmp_path: Path, policy: str, **backend) -> TrialRun:
    kwargs = sandbox_kwargs(tmp_path / "slots", **backend.pop("environment", {}))
    trial = HarborSandboxBackend(kwargs, **backend)
    return await trial.run(task_dir, policy_from_name(policy), tmp_path / "scripts", tmp_path / "work")


async def run_model(task_dir: Path, tmp_path: Path, llm_env, replies) -> tuple[TrialRun, dict, int]:
    """One trial of the fake model; returns the run, its rule report and the model calls made."""
    with FakeOpenAIServer(replies) as fake:
        llm_env(fake.base_url)
        trial = await run(task_dir, tmp_path, "llm", agent_kwargs=MODEL_OPTIONS)
    return trial, json.loads(trial.report.read_text()), len(fake.requests)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- solver ---------------------------------------------------------------------------------


async def test_model_that_kills_blender_gets_a_graded_zero(task_dir, tmp_path, llm_env):
    kill = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"
    trial, report, calls = await run_model(task_dir, tmp_path, llm_env, [
        tool_call("execute_blender_code", {"code": LOOK}),
        tool_call("execute_blender_code", {"code": kill})])
    # Returned, not raised: a graded attempt, never retried. No model call after Blender died.
    assert calls == 2
    assert report["reward"] == 0.0 and report["success"] is False
    assert trial.delivery is None and report["delivery_problem"]["type"] == "DeliveryMissing"
    failure = trial.failure
    assert (failure.kind, failure.type) == ("solver", "BlenderHostDied"), failure
    assert failure.evidence["tool_call"] == 2
    assert failure.evidence["exit_code"] in (-signal.SIGKILL, 128 + signal.SIGKILL)
    assert failure.evidence["delivery_problem"]["type"] == "DeliveryMissing"


async def test_model_that_hangs_blender_is_graded_on_what_it_saved(task_dir, tmp_path, llm_env):
    started = time.monotonic()
    trial, report, calls = await run_model(task_dir, tmp_path, llm_env, [
        tool_call("execute_blender_code", {"code": SAVE}),
        tool_call("execute_blender_code", {"code": "while True:\n    pass\n"})])
    assert time.monotonic() - started < 90  # the tool timeout, not the 180 s of the MCP server
    assert calls == 2
    failure = trial.failure
    assert (failure.kind, failure.type) == ("solver", "BlenderHostHung"), failure
    assert failure.evidence["tool_call"] == 2 and failure.evidence["timeout_sec"] == TOOL_TIMEOUT_SEC
    # the delivery it saved before hanging is what was graded
    assert trial.delivery is not None and report["blend_sha256"] == sha256(trial.delivery)
    assert report["delivery_problem"] is None and report["reward"] is not None


@pytest.mark.parametrize(("spoil", "problem"), [(NOT_A_BLEND, "DeliveryNotBlend"),
                                                (TRUNCATED, "DeliveryTruncated")])
async def test_delivery_that_is_not_a_whole_blend_scores_zero(task_dir, tmp_path, llm_env, spoil, problem):
    trial, report, _ = await run_model(task_dir, tmp_path, llm_env, [
        tool_call("execute_blender_code", {"code": spoil}), final("Done.")])
    assert report["reward"] == 0.0 and report["success"] is False
    assert report["delivery_problem"]["type"] == problem
    assert (trial.failure.kind, trial.failure.type) == ("solver", problem)
    assert trial.delivery is not None and report["blend_sha256"] == sha256(trial.delivery)


BREAKING_PROBES = '''\
import os, signal
from probe_core import Outcome, primitive

if os.environ.get("BREAK") == "import":  # before the probe starts on the delivery
    raise RuntimeError("task probes broken")


@primitive(group="task")
def breaks_the_probe(probe, params):
    if os.environ.get("BREAK") == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    while os.environ.get("BREAK") == "hang":
        pass
    return Outcome(1.0, True, None, None, "fine")
'''


def verifier(tmp_path: Path, blend: Path):
    """tests/test.sh as the verifier sandbox runs it (its container paths mapped to folders): the
    tests folder, the logs folder and `grade(BREAK, **env) -> (exit status, report or None)`."""
    tests = tmp_path / "tests"
    tests.mkdir()
    for name in PROBE_FILES:
        shutil.copy(VERIFIERS / name, tests / name)
    (tests / "task_probes.py").write_text(BREAKING_PROBES)
    criterion = {"id": "C01", "requirement_id": "REQ-X", "channel": "rule", "method": "breaks_the_probe",
                 "weight": 1.0, "core": False, "description": "x"}
    (tests / "task.json").write_text(json.dumps({"criteria": [criterion], "verification": {
        "weights": {"rule": 1.0, "vl": 0.0, "agent": 0.0}, "pass_threshold": 0.7, "core_failure_cap": 0.4}}))
    (tests / "rubric.json").write_text(json.dumps({"criteria": [{"id": "C01", "method": "breaks_the_probe",
                                                                 "params": {}}]}))
    logs = tmp_path / "logs"
    script = (TEST_SH.replace("/tests/", f"{tests}/").replace("/logs/verifier", str(logs))
              .replace("/workspace/outputs/result.blend", str(blend)))
    python_dir = str(Path(sys.executable).parent)  # the venv python, with bpy

    def grade(how: str, **extra: str) -> tuple[int, dict | None]:
        shutil.rmtree(logs, ignore_errors=True)
        # 20 s: the probe must get to its start marker within it on a loaded machine
        env = {"PATH": f"{python_dir}:/usr/bin:/bin", "BREAK": how, "ARKEVO_PROBE_TIMEOUT_SEC": "20",
               "HOME": str(tmp_path), **extra}
        done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=180)
        report = logs / "report.json"
        return done.returncode, json.loads(report.read_text()) if report.is_file() else None

    return tests, logs, grade


def test_delivery_that_breaks_the_probe_scores_zero_in_the_verifier(tmp_path, start_blend):  # noqa: F811
    """A probe that dies after its start marker scores the delivery 0 with the reason; one that
    fails before the marker writes no report (the verifier failed: infra)."""
    _, logs, grade = verifier(tmp_path, start_blend)

    status, report = grade("crash")
    assert status == 0 and report["reward"] == 0.0 and report["success"] is False
    assert report["delivery_problem"]["type"] == "DeliveryCrashedProbe"
    assert f"status {128 + signal.SIGSEGV}" in report["delivery_problem"]["detail"]
    assert report["blend_sha256"] == sha256(start_blend)
    assert json.loads((logs / "probe-started.json").read_text())["blend_sha256"] == sha256(start_blend)
    assert json.loads((logs / "reward.json").read_text()) == {"reward": 0.0}

    status, report = grade("hang")
    assert status == 0 and report["reward"] == 0.0
    assert report["delivery_problem"]["type"] == "DeliveryHungProbe"

    status, report = grade("import")
    assert status != 0 and report is None and not (logs / "probe-started.json").exists()


# A renderer that misbehaves after the probe has written its report (probe_and_render.py
# imports its sibling render_evidence).
RENDER_STANDIN = """\
import os, signal, time
def run_job(job):
    how = os.environ.get("RENDER")
    if how == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if how == "hang":
        time.sleep(600)
    raise RuntimeError("the renderer is broken")
"""


def test_evidence_rendered_after_the_probe_never_changes_its_grade(tmp_path, start_blend):  # noqa: F811
    """A pipeline trial's verifier renders the evidence after the probe, in the probe's process
    (tests/evidence_job.json present): whatever the render does — crash, run past its budget,
    raise — the probe's report stands and no evidence manifest appears (the gpu worker renders
    it then); with the real renderer the manifest comes out beside the report. A probe that
    breaks before its report is still the delivery's 0, as without the renders."""
    from verifiers.evidence import resolve_spec

    tests, logs, grade = verifier(tmp_path, start_blend)
    shutil.copy(VERIFIERS / "probe_and_render.py", tests)
    (tests / "evidence_job.json").write_text(json.dumps(
        {"spec": resolve_spec({"target": {"center": [0, 0, 0], "radius": 2}}), "budget_sec": 3,
         "out": str(logs / "evidence")}))
    (tests / "render_evidence.py").write_text(RENDER_STANDIN)
    for how in ("crash", "hang", "raise"):
        status, report = grade("", RENDER=how)
        assert status == 0 and report["reward"] == 1.0 and report["delivery_problem"] is None, how
        assert json.loads((logs / "reward.json").read_text()) == {"reward": 1.0}, how
        assert (logs / "probe-done.json").is_file() and not (logs / "evidence" / "manifest.json").exists(), how

    status, report = grade("crash")
    assert status == 0 and report["delivery_problem"]["type"] == "DeliveryCrashedProbe"
    assert not (logs / "probe-done.json").exists()

    shutil.copy(VERIFIERS / "render_evidence.py", tests)
    status, report = grade("")
    assert status == 0 and report["reward"] == 1.0
    manifest = json.loads((logs / "evidence" / "manifest.json").read_text())
    assert {"front.png", "side.png", "top.png"} <= set(manifest["files"]) and "error" not in manifest


# --- author ---------------------------------------------------------------------------------


def raising_solution(tmp_path: Path) -> None:
    solve = tmp_path / "scripts" / "solution" / "solve.py"
    solve.parent.mkdir(parents=True)
    solve.write_text("import bpy\n\nbpy.data.objects['NoSuchObject'].location.x = 1\n")


def assert_names_the_script(error: ApplicationError) -> None:
    assert error.type == AUTHOR_SCRIPT_FAILED and error.non_retryable
    assert error.message.startswith("solution/solve.py, line 3: KeyError: ")
    assert "NoSuchObject" in error.message
    details = error.details[0]
    assert details["file"] == "solution/solve.py" and details["line"] == 3
    assert details["type"] == "ScriptRaised"


async def test_reference_solution_that_raises_is_the_authors_failure(task_dir, tmp_path):
    raising_solution(tmp_path)
    started = time.monotonic()
    with pytest.raises(ApplicationError) as raised:
        await run(task_dir, tmp_path, "oracle")
    assert time.monotonic() - started < 60  # one attempt, no verifier, no retries
    assert_names_the_script(raised.value)


async def test_local_backend_reports_the_authors_failure_the_same_way(task_dir, tmp_path):
    raising_solution(tmp_path)
    with pytest.raises(ApplicationError) as raised:
        await LocalBackend().run(task_dir, policy_from_name("oracle"), tmp_path / "scripts", tmp_path / "work")
    assert_names_the_script(raised.value)


async def test_local_backend_grades_the_oracle_and_times_the_trial(task_dir, tmp_path):
    # The unisolated path end to end (ARKEVO_TRIAL_BACKEND=local): solution, rule probe, cost.
    solve = tmp_path / "scripts" / "solution" / "solve.py"
    solve.parent.mkdir(parents=True)
    shutil.copy(DRAFT / "solution" / "solve.py", solve)
    run = await LocalBackend().run(task_dir, policy_from_name("oracle"), tmp_path / "scripts", tmp_path / "work")
    assert run.delivery is not None and run.failure is None
    assert json.loads(run.report.read_text())["reward"] == 1.0
    assert run.cost.wall_sec > 0


# --- infra ----------------------------------------------------------------------------------


async def test_failures_before_the_first_action_are_infra(task_dir, tmp_path):
    # The sandbox cannot be set up: the task's Dockerfile copies a file that does not exist.
    broken = tmp_path / "broken-task"
    shutil.copytree(task_dir, broken)
    (broken / "environment" / "Dockerfile").write_text("FROM python:3.13-slim\nCOPY missing /workspace\n")
    with pytest.raises(TrialInfraError, match="missing"):
        await run(broken, tmp_path / "a", "nop")
    # The Blender host cannot start (no memory for it) before the agent's first action. Exec'd:
    # a host forked from the fork server shares its import and needs far less than 64 MB.
    with pytest.raises(TrialInfraError, match="before it was ready"):
        await run(task_dir, tmp_path / "b", "nop", environment={"memory_mb": 64, "fork_server": False})


# --- a delivery that never reaches the verifier -------------------------------------------------
# Harbor collects artifacts best-effort: a failed transfer leaves the verifier with nothing. Whose
# doing it was is on the sandbox's own record (sandbox/environment.py `_transfer`).


async def test_a_delivery_the_solver_made_unreadable_is_its_graded_zero(task_dir, tmp_path, llm_env):
    spoil = ("import os\nopen('outputs/locked', 'w').write('x')\nos.chmod('outputs/locked', 0)\n")
    trial, report, calls = await run_model(task_dir, tmp_path, llm_env, [
        tool_call("execute_blender_code", {"code": spoil}), final("Done.")])
    assert report["reward"] == 0.0 and report["delivery_problem"]["type"] == "DeliveryMissing"
    failure = trial.failure
    assert (failure.kind, failure.type) == ("solver", "DeliveryUncollectable"), failure
    assert failure.evidence["transfer_failures"][0]["return_code"] != 0


async def test_a_transfer_the_sandbox_could_not_launch_is_infra(task_dir, tmp_path, monkeypatch):
    from sandbox.isolation.trial import LaunchFailed, TrialSandbox

    launch = TrialSandbox.launch

    async def failing_downloads(self, argv, **kwargs):
        if kwargs.get("kind") == "t" and argv[0] == "tar" and "-c" in argv and not self.verifier:
            raise LaunchFailed("sandbox launch failed: injected by the test")
        return await launch(self, argv, **kwargs)

    monkeypatch.setattr(TrialSandbox, "launch", failing_downloads)
    with pytest.raises(TrialInfraError, match="could not be collected for the verifier .launch."):
        await run(task_dir, tmp_path, "nop")


async def test_a_transient_transfer_launch_failure_is_absorbed(task_dir, tmp_path, monkeypatch):
    """One "bwrap exited early" while collecting the delivery (seen under load in CI): the
    transfer is launched again and the trial ends cleanly, graded on its real delivery."""
    from sandbox.isolation.trial import LaunchFailed, TrialSandbox

    launch, failed = TrialSandbox.launch, []

    async def first_download_fails(self, argv, **kwargs):
        if kwargs.get("kind") == "t" and argv[0] == "tar" and "-c" in argv and not failed:
            failed.append(argv)
            raise LaunchFailed("sandbox launch failed: bwrap exited early")
        return await launch(self, argv, **kwargs)

    monkeypatch.setattr(TrialSandbox, "launch", first_download_fails)
    trial = await run(task_dir, tmp_path, "nop")
    assert failed and trial.failure is None and trial.delivery is not None
    assert json.loads(trial.report.read_text())["delivery_problem"] is None
