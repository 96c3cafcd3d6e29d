"""A dataset revision end to end, on a stack like `make up` runs it: the `temporal` dev server
and the four worker pools as separate processes (so one can be killed), real Blender in the
sandbox, the `temporal` and `arkevo` command lines.

Two bundled seeds, table-model and fence-array — lightened copies (rules only, one defect, one
oracle attempt: `light_copy`), to keep the suite's time — go through DatasetProduction with
`review: human`: each waits in 05 until a reviewer accepts it (`arkevo review accept`, and
the Temporal CLI's signal), and a decision for a task no longer waiting is refused;
table-model's copy carries one more material, a binary no scanner can read, so its
publication waits in 07 (coverage_pending) until a reviewer approves it with
`temporal workflow signal`; the control worker — the one running DatasetProduction and its
TaskProductions — is killed -9 mid-run and started again; the revision still ends with each
seed published exactly once, every trial recorded once, and a chain that verifies. Then the
same spec, submitted again with `temporal workflow start`, resumes: nothing produced twice.
Every task carries its lineage. The spec asks each split for a difficulty band, so the first
`arkevo dataset freeze-check` refuses (bands unmeasured). An evaluation campaign
(`arkevo campaign start`, docs/campaigns.md) over the revision's candidates
with oracle, nop and the LLM agent against the local FAKE endpoint (not a model), preflighted:
the endpoint is down for table-model's model trial (503s outlive the trial's retries: an infra
exception, kept out of the figures), `arkevo campaign recover` reruns exactly that trial id,
and the backup, the audit manifest and both sets of figures are checked, as is Harbor's own
viewer reading the stored trial directories; its difficulty record puts both tasks in band, and
`freeze-check / freeze / verify` freeze the revision into two splits. `arkevo verifier drift` re-scores every stored
verdict of the revision, with the workers' verifier (zero drift) and with a candidate's changed
probe (the flips named: tests/integration/verifier_drift_checks.py). `arkevo site build` makes the review site of
the revision and headless Chromium opens its index, a task page, the campaign page and a trial
page (docs/review-site.md). Last, the test split's task is retracted (`arkevo dataset retract`):
freeze-check, a campaign of that split, exports and the site leave it out and say so; one
changed byte makes `verify` fail naming the file.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from contracts import queues
from contracts.payloads.datasets import DatasetProductionInput, DatasetProductionResult
from dataset_revisions.layout import RevisionKeys
from tests.conftest import free_port
from tests.integration.verifier_drift_checks import check_verifier_drift
from workers.settings import PROJECT_ROOT
from workers.stack import Stack
from workflows.task_production import STAGES

pytestmark = [pytest.mark.blender, pytest.mark.temporal]

SPEC = {
    "namespace": "it",
    "revision": "r1",
    "seeds": ["<table copy>", "seeds/fence-array"],
    "splits": {"train": 1, "test": 1},
    "max_per_source": 1,
    "coverage": {"min_groups_per_split": 1, "min_professions_per_split": 1, "min_sources": 2},
    "selection_seed": 5,
    "concurrency": 2,
    "options": {"pilot_policies": ["oracle"], "evaluation_policies": ["oracle"], "k": 1,
                "review": "human", "review_timeout_sec": 3600},
    "bands": {"train": {"solved_by": "oracle"}, "test": {"solved_by": "oracle", "not_always_solved_by": "nop"}},
}
KEYS = RevisionKeys("it", "r1")
ARKEVO = PROJECT_ROOT / ".venv" / "bin" / "arkevo"


def light_copy(name: str, tmp_path: Path) -> Path:
    """A bundled seed as the test runs it: graded on rules alone (its VL criteria and judge.json
    dropped: no evidence renders) with one defect, its variant and two gaming samples as
    calibration samples. What
    this test checks — orchestration, durability, the chain, freeze, verify, the review signal —
    does not depend on either; every bundled seed's full calibration is test_blender_calibration's
    and the demo's business."""
    seed = tmp_path / "seeds" / name
    shutil.copytree(PROJECT_ROOT / "seeds" / name, seed)
    # its draft changes below, so it is no longer its family at the defaults: a plain seed
    shutil.rmtree(seed / "family", ignore_errors=True)
    manifest = json.loads((seed / "seed.json").read_text())
    manifest.pop("family", None)
    (seed / "seed.json").write_text(json.dumps(manifest, indent=2) + "\n")
    draft = seed / "draft"
    task = json.loads((draft / "task.json").read_text())
    task["criteria"] = [c for c in task["criteria"] if c["channel"] == "rule"]
    task["verification"]["weights"] = {"rule": 1.0, "vl": 0.0, "agent": 0}
    task["scoring_profile"] = {"profile_id": "rule-only", "profile_version": "1"}
    (draft / "task.json").write_text(json.dumps(task, indent=2))
    for extra in ("judge.json", "ledger.json"):
        (draft / extra).unlink(missing_ok=True)
    for defect in sorted((draft / "calibration" / "defects").glob("*.py"))[1:]:
        defect.unlink()
    for gaming in sorted((draft / "calibration" / "gaming").glob("*.py"))[2:]:  # the two review needs
        gaming.unlink()
    return seed


def table_with_a_binary_material(tmp_path: Path) -> Path:
    seed = light_copy("table-model", tmp_path)
    (seed / "materials" / "grade.lut").write_bytes(bytes(range(256)) * 16)  # no known format
    manifest = json.loads((seed / "seed.json").read_text())
    manifest["materials"].append({"path": "materials/grade.lut", "role": "other", "public": False})
    (seed / "seed.json").write_text(json.dumps(manifest, indent=2))
    return seed


async def wait_for_query(client, wid: str, query: str, waits, timeout: float = 600) -> dict:
    """The query's answer once `waits(answer)` holds (the workflow may not have started yet)."""
    handle = client.get_workflow_handle(wid)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        try:
            answer = await handle.query(query)
            if waits(answer):
                return answer
        except Exception:  # noqa: BLE001 — not started yet
            pass
        await asyncio.sleep(1)
    raise AssertionError(f"{wid} never answered {query} as awaited")


async def wait_for_pending_review(client, wid: str, timeout: float = 600) -> dict:
    return await wait_for_query(client, wid, "privacy_review", lambda r: r["pending"], timeout)


async def human_review_by_signal(stack: Stack, client, wid: str, temporal: str) -> None:
    """`review: human`: both seeds wait in 05 (across the worker kill) and nothing is published
    until a reviewer decides — table-model by `arkevo review accept`, fence-array with the
    Temporal CLI's signal; a decision for a task no longer waiting is refused, nothing sent."""
    for seed_id in ("table-model", "fence-array"):
        state = await wait_for_query(client, f"{wid}.{seed_id}.05-review", "human_review", lambda r: r["waiting"])
        assert state["request"]["task_id"] == seed_id
        pending = json.loads((stack.var / "reviews" / "pending" / f"{seed_id}.json").read_text())
        assert pending["workflow_id"] == f"{wid}.{seed_id}.05-review" and pending["state"] == "waiting"
    assert not (stack.var / KEYS.publications).exists()  # nothing published without the decision
    # the evidence: the review site's page of each waiting task, from what stage 05 holds
    evidence = stack.var.parent / "pending-site"
    built = run_cli(stack, str(ARKEVO), "site", "build", "--pending-reviews", "--out", str(evidence))
    assert built.returncode == 0, built.stdout + built.stderr
    for seed_id in ("table-model", "fence-array"):
        page = (evidence / "reviews" / f"{seed_id}.html").read_text()
        assert 'id="review"' in page and "arkevo review accept" in page and "calibration" in page
    accepted = run_cli(stack, str(ARKEVO), "review", "accept", "table-model", "--by", "it-reviewer",
                       "--reason", "the legs stand on the floor")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    signalled = run_cli(stack, temporal, "workflow", "signal", "--address", stack.address,
                        "--workflow-id", f"{wid}.fence-array.05-review", "--name", "review_decision",
                        "--input", json.dumps({"decision": "accept", "by": "it-reviewer", "reason": "evenly spaced"}))
    assert signalled.returncode == 0, signalled.stderr
    for seed_id in ("table-model", "fence-array"):
        await wait_for_query(client, f"{wid}.{seed_id}.05-review", "human_review",
                             lambda r: r["request"]["state"] == "accepted")
    again = run_cli(stack, str(ARKEVO), "review", "reject", "table-model", "--by", "it-reviewer", "--reason", "late")
    assert again.returncode == 2 and "ReviewNotWaiting" in again.stderr, again.stdout + again.stderr


def fake_model_route(body) -> str:
    """FAKE endpoint route: the campaign's preflight ping, or which task's model trial is asking
    (by its instruction)."""
    from activities.preflight import PING_PROMPT

    if body.get("messages") == [{"role": "user", "content": PING_PROMPT}]:
        return "preflight"
    return "fence" if "fence" in json.dumps(body).lower() else "table"


@pytest.fixture
def fake_model():
    from tests.fakes.openai_server import FakeOpenAIServer, error, final, tool_call

    solve = (PROJECT_ROOT / "seeds" / "fence-array" / "draft" / "solution" / "solve.py").read_text()
    script = {
        "fence": [tool_call("execute_blender_code", {"code": solve}), final("Fence arrayed.")],
        # down for both tries of the campaign's trial, up again for the recovery's
        "table": [error(503, message="upstream overloaded"), error(503, message="upstream overloaded"),
                  final("Nothing to change.")],
        # the campaign's one preflight, before its first trial; the recovery's, before its rerun
        "preflight": [final("ok"), final("ok")],
    }
    with FakeOpenAIServer(script, route=fake_model_route) as fake:
        yield fake


@pytest.fixture
def stack(tmp_path, fake_model, monkeypatch):
    # the gpu worker runs the LLM agent's loop: its endpoint is the worker's environment
    monkeypatch.setenv("ARKEVO_LLM_BASE_URL", fake_model.base_url)
    monkeypatch.setenv("ARKEVO_LLM_API_KEY", "sk-fake-do-not-record")
    stack = Stack(tmp_path / "var", free_port(), free_port())
    stack.up()
    yield stack
    stack.down()


REGISTRY = {
    "registry_version": "it",
    "configs": [
        {"id": "oracle", "description": "reference solution", "agent": "oracle", "validated": True},
        {"id": "nop", "description": "start scene untouched", "agent": "nop", "validated": True},
        {"id": "llm-it", "description": "the MCP LLM agent on the FAKE endpoint", "agent": "arkevo-llm",
         "model": "fake-model", "agent_kwargs": {"max_steps": 3, "max_attempts": 1}},
    ],
    "modes": {"it": {"description": "one of each", "attempts": {"oracle": 1, "nop": 1, "llm-it": 1}}},
}


def run_cli(stack: Stack, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "ARKEVO_VAR": str(stack.var), "ARKEVO_TEMPORAL_ADDRESS": stack.address}
    return subprocess.run([*argv], env=env, capture_output=True, text=True, timeout=timeout, cwd=PROJECT_ROOT)


async def wait_for_stage(client, wid: str, stages: set[str], timeout: float = 300) -> None:
    """Until a TaskProduction child of `wid` is in one of `stages`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        for seed_id in ("table-model", "fence-array"):
            try:
                p = await client.get_workflow_handle(f"{wid}.{seed_id}").query("progress")
            except Exception:  # noqa: BLE001 — not started yet
                continue
            if p.get("stage") in stages:
                return
        await asyncio.sleep(1)
    raise AssertionError(f"no child of {wid} reached {stages} in {timeout}s")


async def test_a_dataset_revision_survives_a_worker_kill_resumes_freezes_and_verifies(stack, tmp_path):
    from workers.client import connect

    client = await connect(address=stack.address)
    wid = "dataset-it-r1"
    spec = {**SPEC, "seeds": [str(table_with_a_binary_material(tmp_path)), str(light_copy("fence-array", tmp_path))]}
    handle = await client.start_workflow("DatasetProduction", DatasetProductionInput(spec=spec), id=wid,
                                         task_queue=queues.CONTROL, result_type=DatasetProductionResult)
    await wait_for_stage(client, wid, {"03-authoring", "04-trial-solves", "05-review"})
    control = stack._alive("worker-control")
    os.killpg(control, signal.SIGKILL)  # mid-run: workflows in flight on that worker
    await asyncio.sleep(1)
    assert not stack._alive("worker-control")
    stack.up()  # starts the dead worker again
    temporal = str(Path(sys.executable).parent / "temporal")
    await human_review_by_signal(stack, client, wid, temporal)

    packaging = f"{wid}.table-model.07-packaging"
    review = await wait_for_pending_review(client, packaging)
    assert [p["file"] for p in review["pending"]] == ["admission:materials/grade.lut"]
    await asyncio.sleep(2)
    assert not (stack.var / KEYS.publications / "table-model").exists()  # held until reviewed
    signalled = run_cli(stack, temporal, "workflow", "signal", "--address", stack.address,
                        "--workflow-id", packaging, "--name", "review_privacy_coverage",
                        "--input", json.dumps({"approved": True, "reviewer": "it", "note": "a colour LUT"}))
    assert signalled.returncode == 0, signalled.stderr

    result = await asyncio.wait_for(handle.result(), 600)
    assert result.failed == {}
    assert sorted(result.published) == ["fence-array", "table-model"] and result.skipped == []

    objects_root = stack.var
    links = sorted((objects_root / KEYS.root / "chain").glob("*.json"))
    assert [json.loads(p.read_text())["seed_id"] for p in links].count("table-model") == 1
    assert len(links) == 2  # nothing lost, nothing published twice
    for link in map(lambda p: json.loads(p.read_text()), links):
        # every task carries its lineage: these seeds are roots, their family their source
        assert (link["lineage_root"], link["lineage_family"]) == (link["seed_id"], link["source"])
        toml = (objects_root / link["publication_key"] / "task" / "task.toml").read_text()
        assert f'lineage_root = "{link["seed_id"]}"' in toml and f'lineage_family = "{link["source"]}"' in toml
    table = json.loads(next(p for p in links if json.loads(p.read_text())["seed_id"] == "table-model").read_text())
    privacy = json.loads((objects_root / table["publication_key"] / "review" / "privacy.json").read_text())
    assert privacy["review"]["approved"] and privacy["review"]["reviewer"] == "it"
    human = json.loads((objects_root / table["publication_key"] / "review" / "frozen-task.json").read_text())
    assert {k: human["human_review"][k] for k in ("decision", "by", "reason")} == {
        "decision": "accept", "by": "it-reviewer", "reason": "the legs stand on the floor"}
    # the Web UI's filter: a seed's whole run, parent and stage children, by ArkevoSeedId
    listed = run_cli(stack, temporal, "workflow", "list", "--address", stack.address, "--query",
                     "ArkevoSeedId = 'table-model'", "--output", "json")
    ids = {w["execution"]["workflowId"] for w in json.loads(listed.stdout)}
    child = f"{wid}.table-model"
    assert {child} | {f"{child}.{s}" for s in STAGES[1:]} <= ids
    for link in map(lambda p: json.loads(p.read_text()), links):
        trials = (objects_root / link["publication_key"] / "evaluation" / "trials.jsonl").read_text().splitlines()
        ids = [json.loads(t)["trial_id"] for t in trials]
        assert len(ids) == len(set(ids)) == 1, ids  # one oracle attempt, recorded once

    # the same spec again, as a user would submit it: everything is already there
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec))
    started = run_cli(stack, temporal, "workflow", "start", "--address", stack.address,
                      "--task-queue", queues.CONTROL, "--type", "DatasetProduction",
                      "--workflow-id", "dataset-it-r1-again",
                      "--input", json.dumps({"spec_path": str(spec_file)}))
    assert started.returncode == 0, started.stderr
    again = await client.get_workflow_handle("dataset-it-r1-again",
                                             result_type=DatasetProductionResult).result()
    assert sorted(again.skipped) == ["fence-array", "table-model"] and again.failed == {}
    assert len(list((objects_root / KEYS.root / "chain").glob("*.json"))) == 2

    revision = ["--namespace", "it", "--revision", "r1"]
    refused = run_cli(stack, str(ARKEVO), "dataset", "freeze", *revision)
    assert refused.returncode == 1 and "difficulty_bands: split test:" in refused.stderr, refused.stdout + refused.stderr
    assert not (stack.var / KEYS.manifest).exists()  # a band not measured yet: no freeze
    await campaign_with_a_recovery(stack, tmp_path, ["--dataset", "it/r1"])  # the candidates
    difficulty = json.loads((stack.var / KEYS.root / "difficulty" / "it-c1.json").read_text())
    assert sorted(t["task_id"] for t in difficulty["tasks"]) == ["fence-array", "table-model"], difficulty
    check = run_cli(stack, str(ARKEVO), "dataset", "freeze-check", *revision, "--json")
    assert check.returncode == 0, check.stdout + check.stderr
    report = json.loads(check.stdout)
    assert report["freeze_ready"] and {s: v["count"] for s, v in report["splits"].items()} == {"train": 1, "test": 1}
    assert {b["task_id"]: b["status"] for b in report["bands"]} == {"fence-array": "in_band", "table-model": "in_band"}
    assert report["possibly_impossible"] == []
    frozen = run_cli(stack, str(ARKEVO), "dataset", "freeze", *revision, "--json")
    assert frozen.returncode == 0, frozen.stdout + frozen.stderr
    frozen = json.loads(frozen.stdout)
    manifest = Path(frozen["manifest"])
    assert json.loads(manifest.read_text())["semantic_digest"] == frozen["semantic_digest"]
    assert run_cli(stack, str(ARKEVO), "dataset", "verify", *revision).returncode == 0

    check_verifier_drift(stack, tmp_path, run_cli, str(ARKEVO))
    review_site_in_a_browser(stack, tmp_path)
    retraction_leaves_the_task_out(stack, tmp_path, [json.loads(p.read_text())["publication_key"] for p in links])

    target = objects_root / json.loads(links[0].read_text())["publication_key"] / "task" / "instruction.md"
    target.chmod(0o644)
    target.write_bytes(target.read_bytes() + b"\n")  # one byte more
    verify = run_cli(stack, str(ARKEVO), "dataset", "verify", *revision)
    assert verify.returncode == 1
    assert f"changed: {target} (sha256" in verify.stdout


async def campaign_with_a_recovery(stack: Stack, tmp_path: Path, target: list[str]) -> None:
    from campaigns.layout import CampaignKeys

    registry = tmp_path / "solver_configs.json"
    registry.write_text(json.dumps(REGISTRY))
    keys = CampaignKeys("it-c1")
    root = stack.var / keys.root
    started = run_cli(stack, str(ARKEVO), "campaign", "start", "--id", "it-c1", "--mode", "it",
                      "--registry", str(registry), "--trial-attempts", "2", "--bootstrap", "500",
                      *target, "--wait")
    assert started.returncode == 0, started.stdout + started.stderr
    assert "Evaluation campaign `it-c1`" in started.stdout  # the report, printed
    broken = "it-c1.table-model.llm-it.1"
    lines = [json.loads(line) for line in (root / "trials.jsonl").read_text().splitlines()]
    assert sorted(r["trial_id"] for r in lines) == sorted(
        f"it-c1.{t}.{c}.1" for t in ("fence-array", "table-model") for c in ("oracle", "nop", "llm-it"))
    by_id = {r["trial_id"]: r for r in lines}
    assert by_id[broken]["reward"] is None and by_id[broken]["failure"]["kind"] == "infra"
    assert "ModelEndpoint" in by_id[broken]["failure"]["message"]
    assert by_id[broken]["failure"]["evidence"]["retries_exhausted"]
    from temporalio.api.enums.v1 import RetryState

    from workers.client import connect

    history = await (await connect(address=stack.address)).get_workflow_handle(
        f"campaign-it-c1.{broken}").fetch_history()
    failed = [e for e in history.events if e.HasField("activity_task_failed_event_attributes")]
    assert [e.activity_task_failed_event_attributes.retry_state for e in failed] == [
        RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED]  # retried (--trial-attempts 2), then reported
    started = [e for e in history.events if e.HasField("activity_task_started_event_attributes")]
    assert started[0].activity_task_started_event_attributes.attempt == 2
    model = by_id["it-c1.fence-array.llm-it.1"]
    assert model["success"] is True and model["label"].startswith("model agent arkevo-llm: fake-model")
    assert model["cost"]["model_calls"] == 2 and model["cost"]["input_tokens"] == 200
    assert model["cost"]["sandbox_cpu_sec"] > 0 and model["trajectory"] is not None
    assert by_id["it-c1.fence-array.oracle.1"]["label"] == "scripted policy — not a model result"
    assert by_id["it-c1.fence-array.oracle.1"]["cost"]["model_calls"] == 0

    # Harbor's own viewer reads the stored trial directories (`harbor view <campaign>/harbor`)
    from harbor.viewer.scanner import JobScanner

    scanner = JobScanner(root / "harbor")
    assert scanner.list_jobs() == ["it-c1"]
    assert scanner.get_job_config("it-c1").job_name == "it-c1"  # `harbor view` sees a jobs folder
    assert len(scanner.list_trials("it-c1")) == 5  # the infra exception left no trial directory
    assert scanner.get_trial_result("it-c1", "it-c1.fence-array.llm-it.1") is not None
    from activities.trial_backends import trial_cost

    oracle = "it-c1.fence-array.oracle.1"
    assert by_id[oracle]["cost"]["agent_steps"] == 2  # the script and the save, both through MCP
    kept = trial_cost(scanner.get_trial_result("it-c1", oracle), root / "harbor" / "it-c1" / oracle)
    assert dataclasses.asdict(kept) == by_id[oracle]["cost"]  # the evidence accounts for the cost

    report = json.loads((root / "report.json").read_text())
    figs = {c["config"]: c for c in report["original"]["groups"][0]["configs"]}
    assert figs["oracle"]["avg_at_k"]["mean"] == 1.0 and figs["oracle"]["pass_at_k"]["n"] == 2
    assert figs["llm-it"]["avg_at_k"]["n"] == 1 and figs["llm-it"]["missing"] == 1
    assert [e["trial_id"] for e in report["original"]["exceptions"]] == [broken]

    refused = run_cli(stack, str(ARKEVO), "campaign", "recover", "it-c1", "--trial-id",
                      "it-c1.fence-array.nop.1", "--reason", "looks low", "--by", "it", "--wait")
    assert refused.returncode == 2 and "graded attempts" in refused.stderr
    recovered = run_cli(stack, str(ARKEVO), "campaign", "recover", "it-c1", "--trial-id", broken,
                        "--reason", "model endpoint 503s", "--by", "it", "--wait")
    assert recovered.returncode == 0, recovered.stdout + recovered.stderr
    audit = json.loads((stack.var / keys.audit(1)).read_text())
    assert audit["trial_ids"] == [broken] and audit["reason"] == "model endpoint 503s"
    assert audit["replaced"][0]["original_failure"]["kind"] == "infra"
    assert audit["replaced"][0]["recovered_failure"] is None
    backup = json.loads((stack.var / keys.backup(1)).read_text())
    assert backup == by_id[broken]  # the replaced record, as it was
    # The recovery's preflight, for the rerun's config and task, in the round's folder
    checked = json.loads((stack.var / keys.recovery_preflight(1)).read_text())
    assert checked["ok"] is True and checked["recovery_round"] == 1
    assert [e["config_ids"] for e in checked["endpoints"]] == [["llm-it"]]
    assert checked["smoke"]["task_id"] == "table-model" and checked["smoke"]["blender_version"]
    report = json.loads((root / "report.json").read_text())
    before = {c["config"]: c for c in report["original"]["groups"][0]["configs"]}["llm-it"]
    after = {c["config"]: c for c in report["recovered"]["groups"][0]["configs"]}["llm-it"]
    assert before["avg_at_k"]["n"] == 1 and after["avg_at_k"]["n"] == 2  # side by side, not merged
    assert report["recovered"]["exceptions"] == []
    assert (root / "trials.jsonl").read_text().count(broken) == 1  # the original run untouched


def retraction_leaves_the_task_out(stack: Stack, tmp_path: Path, publications: list[str]) -> None:
    """The frozen test split's task retracted: an unknown task is refused with nothing written;
    the chain still verifies; freeze-check, a campaign, an export and the site leave it out
    and say so, and the publication stays where it was."""
    manifest = json.loads((stack.var / KEYS.manifest).read_text())
    [entry] = manifest["splits"]["test"]
    task_id = entry["task_id"]
    retractions = stack.var / KEYS.root / "retractions"
    unknown = run_cli(stack, str(ARKEVO), "dataset", "retract", "it/r1", "no-such-task",
                      "--reason", "typo", "--by", "it-reviewer")
    assert unknown.returncode == 2 and "UnknownTask" in unknown.stderr, unknown.stdout + unknown.stderr
    assert not retractions.exists() or not list(retractions.iterdir())  # nothing written
    done = run_cli(stack, str(ARKEVO), "dataset", "retract", "it/r1", task_id, "--json",
                   "--reason", "reference build leaves a stray vertex", "--by", "it-reviewer")
    assert done.returncode == 0, done.stdout + done.stderr
    retraction = json.loads(done.stdout)
    assert (retraction["sequence"], retraction["publication_sha256"]) == (1, entry["publication_sha256"])
    assert retraction["previous_retraction_sha256"] is None
    again = run_cli(stack, str(ARKEVO), "dataset", "retract", "it/r1", task_id, "--json",
                    "--reason", "twice", "--by", "it-reviewer")
    assert json.loads(again.stdout)["already_retracted"] and len(list(retractions.iterdir())) == 1
    assert (stack.var / entry_publication(publications, entry) / "publication.json").is_file()  # it stays
    assert run_cli(stack, str(ARKEVO), "dataset", "verify", "--namespace", "it", "--revision", "r1").returncode == 0

    check = json.loads(run_cli(stack, str(ARKEVO), "dataset", "freeze-check", "--namespace", "it",
                               "--revision", "r1", "--json").stdout)
    assert [r["task_id"] for r in check["retracted"]] == [task_id]
    assert task_id not in [t for s in check["splits"].values() for t in s["tasks"]]
    # a campaign of the split holds nothing else: refused, naming the retraction; no trial runs
    registry = tmp_path / "solver_configs.json"
    refused = run_cli(stack, str(ARKEVO), "campaign", "start", "--id", "it-c2", "--mode", "it",
                      "--registry", str(registry), "--dataset", "it/r1", "--split", "test", "--wait")
    assert refused.returncode == 2 and "every task is retracted" in refused.stdout + refused.stderr, (
        refused.stdout + refused.stderr)
    assert not (stack.var / "campaigns" / "it-c2" / "records").exists()
    export = run_cli(stack, str(ARKEVO), "export", "split", "--dataset", "it/r1", "--split", "train",
                     "--out", str(tmp_path / "train.zip"))
    assert export.returncode == 0, export.stdout + export.stderr
    single = run_cli(stack, str(ARKEVO), "export", "task", "--publication", entry_publication(publications, entry),
                     "--out", str(tmp_path / "retracted.zip"))
    assert single.returncode != 0 and "retracted" in single.stdout + single.stderr
    assert not (tmp_path / "retracted.zip").exists()
    out = tmp_path / "site"
    assert run_cli(stack, str(ARKEVO), "site", "build", "--dataset", "it/r1", "--out", str(out)).returncode == 0
    assert 'id="retractions"' in (out / "index.html").read_text()
    assert "reference build leaves a stray vertex" in (out / "tasks" / f"{task_id}.html").read_text()


def entry_publication(publications: list[str], entry: dict) -> str:
    """The publication folder (object key) of a split-manifest entry."""
    return next(p for p in publications if p.rstrip("/").endswith(entry["publication_id"]))


def review_site_in_a_browser(stack: Stack, tmp_path: Path) -> None:
    from tests.site_support.browser import chromium, keep_screenshots, load_and_check, screenshot

    out = tmp_path / "site"
    built = run_cli(stack, str(ARKEVO), "site", "build", "--dataset", "it/r1", "--out", str(out))
    assert built.returncode == 0, built.stdout + built.stderr
    assert f"site: {out / 'index.html'}" in built.stdout
    again = run_cli(stack, str(ARKEVO), "site", "build", "--dataset", "it/r1", "--out", str(out))
    assert "0 pages written" in again.stdout  # nothing changed: nothing rewritten
    campaign = out / "campaigns" / "it-c1.html"
    html = campaign.read_text()
    assert "it-c1.table-model.llm-it.1" in html and "recovered" in html and "McNemar" in html
    shots = tmp_path / "screenshots"
    with chromium() as driver:
        index = load_and_check(driver, (out / "index.html").as_uri())
        assert driver.execute_script("return document.querySelectorAll('#tasks tbody tr').length") == 2
        screenshot(driver, shots / "index.png")
        task = load_and_check(driver, (out / "tasks" / "fence-array.html").as_uri())
        # the light copies are rule-only (no renders): the score plot is the picture here;
        # renders on the real path: tests/integration/test_task_production.py
        assert task["images"] == 1 and "plots/scores-" in driver.page_source
        screenshot(driver, shots / "task.png")
        bars = load_and_check(driver, campaign.as_uri())
        assert bars["images"] == 2  # original and recovered figures, one plot each
        screenshot(driver, shots / "campaign.png")
        trial = next((out / "trials" / "it-c1").glob("it-c1.fence-array.llm-it.1.html"))
        load_and_check(driver, trial.as_uri())
        assert "trajectory (redacted ATIF)" in driver.find_element("tag name", "body").text
        screenshot(driver, shots / "trial.png")
    assert index["images"] == 1  # the revision's funnel (yield and cost), no task picture
    keep_screenshots(shots, os.environ.get("ARKEVO_SCREENSHOTS"))
