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
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.authoring import AuthoringActivities
from activities.errors import AUTHOR_SCRIPT_FAILED
from activities.store import FilesystemStore
from contracts.payloads import BuildWorkspaceInput
from contracts.seed_check import check_seed_dir
from sandbox.isolation.settings import SandboxSettings
from sandbox.script_run import LOCAL, SandboxUnavailable
from tests.adversarial.sandbox_helpers import free_port, requires_landlock, sandbox_kwargs

pytestmark = [requires_landlock, pytest.mark.blender, pytest.mark.timeout(180)]

SECRET_KEY = "sk-fake-arkevo-build-0123456789"

# Runs as materials/build_reference.py (bpy in scope); CONFIG is filled in by the test.
PROBE = r'''
import json, os, socket
import bpy

CONFIG = json.loads(%r)
found = {"uid": os.getuid(), "connect": {}, "outside": {}, "read": {}, "listing": {},
         "write": {}, "signal": {}}

def outcome(fn):
    try:
        return fn()
    except OSError as exc:
        return type(exc).__name__

for port in CONFIG["ports"]:
    found["connect"][str(port)] = outcome(
        lambda: socket.create_connection(("127.0.0.1", port), 2).close() or "connected")
for address in CONFIG["outside"]:
    found["outside"][address] = outcome(
        lambda: socket.create_connection((address, 80), 2).close() or "connected")
found["interfaces"] = [name for _, name in socket.if_nameindex()]
found["ipv4_routes"] = open("/proc/net/route").read().splitlines()[1:]
found["ipv6_route_devices"] = sorted({line.split()[-1] for line in open("/proc/net/ipv6_route")})
for path in CONFIG["read"]:
    found["read"][path] = outcome(lambda: open(path, "rb").close() or "read")
for path in CONFIG["list"]:
    found["listing"][path] = outcome(lambda: sorted(os.listdir(path)))
for path in CONFIG["write"]:
    found["write"][path] = outcome(lambda: open(path, "w").write("pwned") and "written")
found["signal"]["worker"] = outcome(lambda: os.kill(CONFIG["worker_pid"], 0) or "delivered")
found["processes"] = {pid: outcome(lambda: open(f"/proc/{pid}/cmdline").read().replace("\0", " "))
                      for pid in os.listdir("/proc") if pid.isdigit()}
found["env"] = dict(os.environ)
bpy.context.scene["arkevo_findings"] = json.dumps(found)
'''

# Reads scenes back in a fresh bpy process: {file: {object: [type, location, dimensions]}}.
LIST_SCENES = r'''
import json, sys, bpy
out = {}
for path in sys.argv[1:]:
    bpy.ops.wm.open_mainfile(filepath=path, load_ui=False, use_scripts=False)
    scene = bpy.context.scene
    out[path] = {"objects": {o.name: [o.type, [round(v, 4) for v in o.location],
                                      [round(v, 4) for v in o.dimensions]]
                             for o in bpy.data.objects},
                 "findings": scene.get("arkevo_findings")}
print("SCENES " + json.dumps(out))
'''


def read_scenes(*blends: Path) -> dict[str, dict]:
    proc = subprocess.run([sys.executable, "-c", LIST_SCENES, *map(str, blends)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("SCENES "))
    return json.loads(line[len("SCENES "):])


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
    (seed / "materials" / "build_reference.py").write_text(PROBE % json.dumps(config))
    tree, checked = seed_tree(store, seed)
    authoring = AuthoringActivities(store, settings)
    try:
        build = await authoring.build_workspace(
            BuildWorkspaceInput(tree, checked.reference_project, "continue"))
    finally:
        server.close()
    reference = store.fetch_to(build.reference_blend, tmp_path / "reference.blend")
    found = json.loads(read_scenes(reference)[str(reference)]["findings"])

    assert found["uid"] != 0
    # network: no loopback service of the host (a live listener, Temporal's 7233/8233),
    # nothing outside, only `lo`, no route
    assert set(found["connect"].values()) == {"ConnectionRefusedError"}, found["connect"]
    assert accepted == []
    assert set(found["outside"].values()) <= {"OSError", "TimeoutError"}, found["outside"]
    assert found["interfaces"] == ["lo"]
    assert found["ipv4_routes"] == [] and found["ipv6_route_devices"] in ([], ["lo"])
    # files: other seeds, its own draft/, the project tree, the store, /root, the worker
    assert all(r in ("FileNotFoundError", "PermissionError") for r in found["read"].values()), found["read"]
    runtime = {Path(p) for p in (sys.prefix, sys.base_prefix)}  # bound read-only, as for trials
    for path, listing in found["listing"].items():
        if isinstance(listing, str):
            assert listing in ("FileNotFoundError", "PermissionError"), (path, listing)
            continue
        below = {(Path(path) / name) for name in listing}
        assert all(any(r == b or r.is_relative_to(b) for r in runtime) or str(b).startswith(
            ("/usr", "/etc", "/bin", "/sbin", "/lib", "/proc", "/dev", "/tmp", "/home",
             "/workspace", "/logs", "/tests", "/solution", "/opt"))
                   for b in below), (path, listing)
    assert found["listing"]["/workspace/seed"] == ["materials", "seed.json"]  # no draft/
    # writes: nowhere on the host; the sandbox's /tmp is its own
    for target in write_targets[:-1]:
        assert found["write"][target] in ("PermissionError", "OSError", "FileNotFoundError"), target
        assert not Path(target).exists()
    assert found["write"][write_targets[-1]] == "written" and not Path(write_targets[-1]).exists()
    # processes: the worker is out of reach and out of sight; no secret in the environment
    assert found["signal"]["worker"] == "ProcessLookupError"
    assert str(os.getpid()) not in found["processes"] and len(found["processes"]) < 10
    assert not any("pytest" in cmd for cmd in found["processes"].values())
    assert SECRET_KEY not in json.dumps(found["env"]) and found["env"]["HOME"].startswith("/home/")


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
