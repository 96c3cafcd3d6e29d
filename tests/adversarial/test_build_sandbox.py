"""A seed's reference build script is outside code: stage 03 runs it in the trial sandbox.

Through the real activity method (`AuthoringActivities.build_workspace`, no Temporal server), a
build script probes its surroundings and saves what it found into the reference scene, which
the test reads back: every door is closed. A script that raises fails fast as the author's
mistake; a sandbox that cannot start stays a retryable infrastructure fault; a valid build
gives the same scene as the old unisolated one. Nothing is mocked.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.authoring import AuthoringActivities
from contracts.errors import AUTHOR_SCRIPT_FAILED
from storage.content import FilesystemStore
from contracts.payloads.authoring import BuildWorkspaceInput
from verifiers.seed_check import check_seed_dir
from sandbox.isolation.settings import SandboxSettings
from sandbox.script_run import LOCAL, SandboxUnavailable
from tests.adversarial.sandbox_helpers import (assert_doors_closed, door_probe, free_port, read_scenes,
                                              requires_landlock, sandbox_kwargs)

pytestmark = [requires_landlock, pytest.mark.blender, pytest.mark.timeout(180)]

SECRET_KEY = "sk-fake-arkevo-build-0123456789"

@pytest.fixture(scope="module")
def settings(tmp_path_factory) -> SandboxSettings:
    return SandboxSettings(**sandbox_kwargs(tmp_path_factory.mktemp("build-sandbox")))


def seed_tree(store: FilesystemStore, seed: Path):
    checked = check_seed_dir(seed)
    tree = store.put_tree(seed, sorted({*checked.material_paths, *checked.draft_files, "seed.json"}))
    return tree, checked


async def test_a_probing_build_script_finds_every_door_closed(
        tmp_path, seed_copy, settings, project_root, monkeypatch):
    monkeypatch.setenv("ARKEVO_SECRET_TEST", SECRET_KEY)
    nonce = uuid.uuid4().hex[:8]
    store = FilesystemStore(tmp_path / "store")
    store.put_bytes(b"seed data")  # the store root exists, with objects in it
    (tmp_path / "store" / "secret.txt").write_text("STORE-SECRET")
    other_seed = project_root / "seeds" / "robot-carry"
    write_targets = [f"/etc/arkevo-probe-{nonce}", f"/root/arkevo-probe-{nonce}",
                     f"{project_root}/arkevo-probe-{nonce}", f"{sys.prefix}/arkevo-probe-{nonce}",
                     f"{tmp_path}/store/arkevo-probe-{nonce}", f"/tmp/arkevo-probe-{nonce}"]
    port = free_port()
    server = socket.create_server(("127.0.0.1", port))
    accepted: list = []
    threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True).start()
    config = {
        "ports": [port, 7233, 8233],
        "outside": ["10.0.0.1", "1.1.1.1"],
        "read": [str(other_seed / "draft" / "solution" / "solve.py"),
                 *map(str, sorted((other_seed / "draft" / "calibration").rglob("*.py"))[:2]),
                 str(project_root / "seeds" / "table-model" / "draft" / "rubric.json"),
                 str(project_root / "README.md"), str(tmp_path / "store" / "secret.txt"),
                 "/root/.bashrc", "/etc/shadow", f"/proc/{os.getpid()}/environ"],
        "list": ["/", "/root", "/work", str(project_root), str(project_root / "seeds"),
                 str(project_root / "var"), str(tmp_path), "/workspace", "/workspace/seed"],
        "write": write_targets,
        "worker_pid": os.getpid(),
    }
    seed = seed_copy("table-model")
    (seed / "materials" / "build_reference.py").write_text(door_probe(config))
    tree, checked = seed_tree(store, seed)
    authoring = AuthoringActivities(store, settings)
    try:
        build = await authoring.build_workspace(
            BuildWorkspaceInput(tree, checked.reference_project, "continue"))
    finally:
        server.close()
    reference = store.fetch_to(build.reference_blend, tmp_path / "reference.blend")
    found = json.loads(read_scenes(reference)[str(reference)]["findings"])

    assert_doors_closed(found, config, accepted, SECRET_KEY)
    assert found["listing"]["/workspace/seed"] == ["materials", "seed.json"]  # no draft/


async def test_a_build_script_that_raises_fails_fast_as_the_authors_mistake(
        tmp_path, seed_copy, settings):
    seed = seed_copy("table-model")
    (seed / "materials" / "build_reference.py").write_text(
        "import bpy\n\ndef legs():\n    return 4 / 0\n\nlegs()\n")
    store = FilesystemStore(tmp_path / "store")
    tree, checked = seed_tree(store, seed)
    started = time.monotonic()
    with pytest.raises(ApplicationError) as failure:
        await AuthoringActivities(store, settings).build_workspace(
            BuildWorkspaceInput(tree, checked.reference_project, checked.manifest.start_mode))
    error = failure.value
    assert error.type == AUTHOR_SCRIPT_FAILED and error.non_retryable
    assert error.message == "materials/build_reference.py: ZeroDivisionError: division by zero"
    details = error.details[0]
    assert details["file"] == "materials/build_reference.py"
    assert "line 4, in legs" in details["log_tail"]  # the traceback travels with it
    assert time.monotonic() - started < 30


async def test_a_reference_blend_that_cannot_be_opened_is_the_authors_mistake(tmp_path, settings):
    seed = tmp_path / "seed"
    (seed / "materials").mkdir(parents=True)
    (seed / "materials" / "reference.blend").write_bytes(b"not a blend file")
    store = FilesystemStore(tmp_path / "store")
    tree = store.put_tree(seed, ["materials/reference.blend"])
    with pytest.raises(ApplicationError) as failure:
        await AuthoringActivities(store, settings).build_workspace(
            BuildWorkspaceInput(tree, "materials/reference.blend", "continue"))
    assert failure.value.type == AUTHOR_SCRIPT_FAILED
    assert failure.value.message.startswith("materials/reference.blend: Error: File format")
    assert "cannot open reference .blend" in failure.value.details[0]["log_tail"]


async def test_outputs_planted_as_links_are_refused_never_followed(tmp_path, seed_copy, settings):
    # After each save, the script swaps its output for a link to a host secret.
    seed = seed_copy("table-model")
    (seed / "materials" / "build_reference.py").write_text(
        "import os, bpy\n"
        "def swap(path):\n"
        "    os.replace(path, path + '.real')\n"
        "    os.symlink('/etc/shadow', path)\n"
        "bpy.app.handlers.save_post.append(\n"
        "    lambda *args: swap(next(a for a in args if isinstance(a, str))))\n")
    store = FilesystemStore(tmp_path / "store")
    tree, checked = seed_tree(store, seed)
    objects = store.count()
    with pytest.raises(ApplicationError) as failure:
        await AuthoringActivities(store, settings).build_workspace(
            BuildWorkspaceInput(tree, checked.reference_project, "continue"))
    assert failure.value.type == AUTHOR_SCRIPT_FAILED and "is a link" in failure.value.message
    assert store.count() == objects  # nothing of it entered the store


async def test_a_sandbox_that_cannot_start_stays_a_retryable_infrastructure_fault(
        tmp_path, seed_copy, settings):
    broken = settings.model_copy(update={"python_prefix": tmp_path / "no-venv"})
    store = FilesystemStore(tmp_path / "store")
    tree, checked = seed_tree(store, seed_copy("table-model"))
    with pytest.raises(SandboxUnavailable, match="no bin/ folder"):
        await AuthoringActivities(store, broken).build_workspace(
            BuildWorkspaceInput(tree, checked.reference_project, checked.manifest.start_mode))


async def test_a_valid_build_in_the_sandbox_gives_the_same_scene_as_before(
        tmp_path, project_root, settings):
    seed = project_root / "seeds" / "table-model"
    blends = {}
    for label, isolation in (("sandbox", settings), ("local", LOCAL)):
        store = FilesystemStore(tmp_path / label)
        tree, checked = seed_tree(store, seed)
        build = await AuthoringActivities(store, isolation).build_workspace(
            BuildWorkspaceInput(tree, checked.reference_project, checked.manifest.start_mode))
        blends[label] = [store.fetch_to(build.start_blend, tmp_path / label / "start.blend"),
                         store.fetch_to(build.reference_blend, tmp_path / label / "reference.blend")]
    scenes = read_scenes(*blends["sandbox"], *blends["local"])
    (s_start, s_ref), (l_start, l_ref) = ([scenes[str(p)]["objects"] for p in blends[k]]
                                          for k in ("sandbox", "local"))
    assert s_ref == l_ref and s_start == l_start
    assert {"Tabletop", "Leg.FL", "Leg.FR", "Leg.BL", "Leg.BR"} <= set(s_ref)
    assert s_ref["Tabletop"][2] == [1.2, 0.8, 0.04]
    assert s_start == {}  # from_scratch: the solver starts from an empty scene
