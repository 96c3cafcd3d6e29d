"""A delivery is solver output: the worker's evidence renders open it in the trial sandbox.

Through the real activity method (`EvidenceActivities.render_evidence`, no Temporal server):
the sandboxed renders equal the unisolated ones, a cache hit starts no Blender at all, a
delivery that crashes or hangs the renderer is "nothing to judge" (not an infrastructure
retry) with every process it started killed, and a renderer that writes links or bogus
manifests gets nothing into the cache or the store.
"""

from __future__ import annotations

import json
import pwd
from pathlib import Path

import pytest

import activities.evidence as evidence_module
from blender import runner
from activities.evidence import EvidenceActivities
from storage.content import FilesystemStore
from contracts.payloads.vl_grading import RenderEvidenceInput
from sandbox.isolation.settings import SandboxSettings
from sandbox.isolation.slots import user_pids
from sandbox.script_run import LOCAL
from tests.adversarial.sandbox_helpers import TEST_USER_PREFIX, requires_landlock, sandbox_kwargs
from verifiers import bpy_procs
from verifiers.profiles import profile_of_task, score_record
from verifiers.vl import image_metric_judge_id, load_judge_config, no_evidence_result

pytestmark = [requires_landlock, pytest.mark.blender, pytest.mark.timeout(180)]

SEED = Path(__file__).resolve().parents[2] / "seeds" / "table-model"


@pytest.fixture(scope="module")
def settings(tmp_path_factory) -> SandboxSettings:
    return SandboxSettings(**sandbox_kwargs(tmp_path_factory.mktemp("evidence-sandbox")))


@pytest.fixture(scope="module")
def table_blend(tmp_path_factory, settings) -> Path:
    work = tmp_path_factory.mktemp("table")
    start, reference = work / "start.blend", work / "reference.blend"
    bpy_procs.build_workspace(SEED / "materials" / "build_reference.py", "continue", start, reference,
                              sandbox=settings)
    return reference


def request(store: FilesystemStore, blend: Path) -> RenderEvidenceInput:
    return RenderEvidenceInput(store.put_file(blend), store.put_file(SEED / "draft" / "judge.json"))


def cached_renders(cache_root: Path) -> list[Path]:
    return list((cache_root / "objects").glob("*/*"))


def slot_processes() -> list[int]:
    pids = []
    for index in range(4):
        try:
            pids += user_pids(pwd.getpwnam(f"{TEST_USER_PREFIX}{index}").pw_uid)
        except KeyError:
            pass
    return pids


async def test_sandboxed_renders_match_unisolated_ones_and_a_hit_starts_nothing(
        tmp_path, settings, table_blend, monkeypatch):
    store = FilesystemStore(tmp_path / "store")
    req = request(store, table_blend)
    sandboxed = EvidenceActivities(store, tmp_path / "cache", settings)
    first = await sandboxed.render_evidence(req)
    assert first.error is None and not first.cache_hit
    files = store.tree_entries(first.evidence)
    assert {"front.png", "side.png", "top.png", "close.png", "manifest.json"} == set(files)

    local = await EvidenceActivities(store, tmp_path / "cache-local", LOCAL).render_evidence(req)
    local_files = store.tree_entries(local.evidence)
    for name in ("front.png", "side.png", "top.png", "close.png"):  # the same pixels, byte for byte
        assert files[name] == local_files[name], name

    async def no_blender(*args, **kwargs):
        raise AssertionError("a cache hit started a sandbox")

    monkeypatch.setattr(runner, "run_sandboxed_script", no_blender)
    again = await EvidenceActivities(store, tmp_path / "cache", settings).render_evidence(req)
    assert again.cache_hit and again.evidence == first.evidence and again.error is None


@pytest.mark.parametrize("script, kind, expected", [
    ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", "DeliveryBrokeRenderer", "exited with"),
    ("import subprocess, time\nsubprocess.Popen(['sleep', '600'], start_new_session=True)\n"
     "time.sleep(600)\n", "GraderBudgetExceeded", "still running after 3s (sandboxed); killed"),
], ids=["crash", "hang"])
async def test_a_delivery_that_crashes_or_outruns_the_renderer_is_a_graded_0(
        tmp_path, settings, table_blend, monkeypatch, script, kind, expected):
    """The grader's budget is the solver's problem: the renderer dying on the delivery, or the
    delivery running it past the evidence budget, is nothing to judge -- and the score record
    of that delivery is a 0 with the failure named, never an infrastructure retry."""
    renderer = tmp_path / "render_evidence.py"
    renderer.write_text(script)
    monkeypatch.setattr(evidence_module, "RENDER_EVIDENCE", renderer)
    monkeypatch.setenv("ARKEVO_EVIDENCE_BUDGET_SEC", "3")
    store = FilesystemStore(tmp_path / "store")
    activities = EvidenceActivities(store, tmp_path / "cache", settings)
    result = await activities.render_evidence(request(store, table_blend))
    assert result.evidence is None and not result.cache_hit
    assert result.error.startswith(f"{kind}: render_evidence.py "), result.error
    assert expected in result.error.splitlines()[0] and "on this delivery" in result.error
    assert cached_renders(tmp_path / "cache") == []  # a failure is not cached
    assert slot_processes() == []  # the background sleep died with the sandbox
    # graded: the rule channel passed in full, and still the total is 0, the failure named
    config = load_judge_config(SEED / "draft" / "judge.json")
    task = json.loads((SEED / "draft" / "task.json").read_text())
    rule = {"criteria": [{"id": c["id"], "method": c["method"], "weight": c["weight"], "core": c.get("core", False),
                          "score": 1.0, "passed": True} for c in task["criteria"] if c["channel"] == "rule"],
            "blend_sha256": None, "delivery_problem": None}
    answer = no_evidence_result(config, image_metric_judge_id(), result.error)
    record = score_record(profile_of_task(task), rule, answer, task, verifier_version="test")
    assert record["total"] == 0.0 and record["success"] is False
    assert record["delivery_failure"]["type"] == kind and record["delivery_failure"]["stage"] == "evidence renders"
    assert record["vl"]["delivery_failure"]["type"] == kind


@pytest.mark.parametrize("planted, why", [
    # a manifest naming a host file: the worker would read it into the store
    ("manifest = {'files': {'../../../../etc/passwd': {'sha256': 'x'}}}", "malformed"),
    # a rendered view that is a link to a host secret: the copy-out refuses it, never follows it
    ("os.symlink('/etc/shadow', out + '/front.png')\n"
     "manifest = {'files': {'front.png': {'sha256': 'x'}}}", "front.png: not a plain file"),
], ids=["path-escape", "symlink"])
async def test_bogus_renderer_output_enters_neither_cache_nor_store(
        tmp_path, settings, table_blend, monkeypatch, planted, why):
    renderer = tmp_path / "render_evidence.py"
    renderer.write_text("import json, os\nout = '/workspace/evidence'\nos.makedirs(out)\n"
                        f"{planted}\n"
                        "json.dump(manifest, open(out + '/manifest.json', 'w'))\n")
    monkeypatch.setattr(evidence_module, "RENDER_EVIDENCE", renderer)
    store = FilesystemStore(tmp_path / "store")
    req = request(store, table_blend)
    objects = store.count()
    result = await EvidenceActivities(store, tmp_path / "cache", settings).render_evidence(req)
    assert result.evidence is None and why in result.error, result.error
    assert cached_renders(tmp_path / "cache") == [] and store.count() == objects
    assert list((tmp_path / "cache" / "tmp").iterdir()) == []  # the scratch folder is gone
