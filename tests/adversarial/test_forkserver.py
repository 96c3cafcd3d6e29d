"""The sandbox's fork server (sandbox/isolation/forkserver.py): a `python -m` process it forks,
already imported, into a trial's sandbox is confined exactly like one the launcher execs, carries
nothing of another trial, cannot reach the fork server, and a dead fork server costs nothing but
a cold start. Real sandboxes (root, slot users, bwrap, Landlock, cgroups, namespaces) and a real
fork server that imports bpy; nothing is mocked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import textwrap
from pathlib import Path

import pytest

from sandbox.isolation import forkserver
from tests.adversarial.sandbox_helpers import make_env, requires_landlock, started

pytestmark = [requires_landlock, pytest.mark.blender, pytest.mark.timeout(180)]

WORKER_SECRET = "sk-worker-secret-forkserver-55aa"

# Reports what the process can see and do, as JSON on stdout. It runs as `python -m report`.
REPORT = textwrap.dedent('''
    import json, os, socket, sys, time
    def attempt(fn):
        try:
            fn()
            return "allowed"
        except OSError as exc:
            return type(exc).__name__
    def status(key):
        return [l.split(":", 1)[1].strip() for l in open("/proc/self/status") if l.startswith(key + ":")][0]
    preloaded = "bpy" in sys.modules
    import bpy  # in both modes, so that its own variables are in both environments
    out = {
        "preloaded": preloaded,
        "marker_seen": getattr(bpy, "arkevo_marker", None),
        "ids": [os.getresuid(), os.getresgid(), os.getgroups()],
        "caps": [status(k) for k in ("CapInh", "CapPrm", "CapEff", "CapAmb")],
        "no_new_privs": status("NoNewPrivs"),
        "uid_map": open("/proc/self/uid_map").read().split(),
        "max_user_namespaces": open("/proc/sys/user/max_user_namespaces").read().strip(),
        "write_usr": attempt(lambda: open("/usr/arkevo-probe", "w")),
        "write_runtime": attempt(lambda: open("/opt/arkevo/runtime/x", "w")),
        "write_workspace": attempt(lambda: open("/workspace/ok.txt", "w").write("ok")),
        "project_visible": os.path.exists("FORKSERVER_SOURCE"),
        "links": sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").readlines()[2:]),
        "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "fds": sorted(int(f) for f in os.listdir("/proc/self/fd")),
        "env": sorted(os.environ),
        "environ_has_secret": b"WORKER_SECRET" in open("/proc/self/environ", "rb").read(),
        "cgroup": [l.split(":")[2].strip() for l in open("/proc/self/cgroup")
                   if ":memory:" in l or l.startswith("0::/arkevo")],
        "hostname": socket.gethostname(),
        "cwd": os.getcwd(),
        "argv": sys.argv[1:],
        "session_leader": os.getsid(0) == os.getpid(),
        "now": int(time.time()),
    }
    if len(sys.argv) > 1 and sys.argv[1] == "--kill":
        out["kill_fork_server"] = attempt(lambda: os.kill(int(sys.argv[2]), 9))
    if len(sys.argv) > 1 and sys.argv[1] == "--taint":
        bpy.arkevo_marker = "tainted by a solver"
        bpy.data.objects.new("SolverLeftThis", None)
    out["objects"] = sorted(o.name for o in bpy.data.objects)
    with open("/workspace/runs.txt", "a") as f:
        f.write("run\\n")
    print(json.dumps(out))
''').replace("WORKER_SECRET", WORKER_SECRET).replace(
    "FORKSERVER_SOURCE", str(Path(forkserver.__file__).with_name("forkserver_process.py")))


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("forkserver-base")


async def _install(env) -> None:
    await env.exec("mkdir -p /tmp/m && cat > /tmp/m/report.py <<'EOF'\n" + REPORT + "EOF\n")


async def _report(env, *args: str) -> dict:
    process = await env.spawn([env.python, "-m", "report", *args], env={"PYTHONPATH": "/tmp/m"})
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    return json.loads(out.decode().strip().splitlines()[-1])


def _server(env) -> forkserver.ForkServer:
    server = env._sandbox.fork_server()
    assert server is not None
    assert server.wait_ready(120), "the fork server did not get ready"
    return server


async def test_a_forked_process_is_confined_like_an_execed_one(tmp_path, base_dir, monkeypatch):
    monkeypatch.setenv("ARKEVO_WORKER_API_KEY", WORKER_SECRET)  # the worker's, never the sandbox's
    reports = {}
    for mode, fork in (("forked", True), ("cold", False)):
        async with started(make_env(tmp_path, mode, base_dir=base_dir, fork_server=fork,
                                    held_launches=False)) as env:
            if fork:
                _server(env)
            await _install(env)
            reports[mode] = await _report(env, "--flag")
            reports[mode]["slot"] = env._sandbox.slot.uid
    forked, cold = reports["forked"], reports["cold"]
    assert forked["preloaded"] and not cold["preloaded"]  # the one was forked, the other exec'd
    for report in (forked, cold):
        uid = report["slot"]
        assert report["ids"] == [[uid] * 3, report["ids"][1], []] and report["ids"][1][0] != 0
        assert report["caps"] == ["0000000000000000"] * 4
        assert report["no_new_privs"] == "1"
        assert report["uid_map"] == [str(uid), str(uid), "1"]
        assert report["max_user_namespaces"] == "0"
        assert report["write_usr"] != "allowed" and report["write_runtime"] != "allowed"
        assert report["write_workspace"] == "allowed"
        assert report["project_visible"] is False
        assert report["links"] == ["lo"]
        assert report["fds"] == [0, 1, 2, 3]  # stdio and listdir's own
        assert not report["environ_has_secret"] and "ARKEVO_WORKER_API_KEY" not in report["env"]
        assert report["hostname"].startswith("sandbox-")
        assert report["cwd"] == "/workspace" and report["argv"] == ["--flag"]
        assert report["session_leader"]
    # The same confinement, environment and view; only pids differ (the forked one has its
    # launcher waiting beside it, root, in the trial's pid namespace).
    same = ("ids", "caps", "no_new_privs", "uid_map", "max_user_namespaces", "write_usr",
            "write_runtime", "write_workspace", "project_visible", "links", "fds", "env",
            "hostname", "cwd", "argv", "session_leader")
    assert {k: forked[k] for k in same} == {k: cold[k] for k in same}
    assert all(pid < 10 for pid in forked["pids"])  # the trial's pid namespace, not the host's
    # The launch's own cgroup in the trial's (v1's memory hierarchy, or v2's unified one).
    assert [g.rsplit("--", 1)[1] for g in forked["cgroup"]] == ["forked__test__env/s2"]
    assert [g.rsplit("--", 1)[1] for g in cold["cgroup"]] == ["cold__test__env/s2"]


async def test_a_held_exec_is_confined_like_a_cold_one(tmp_path, base_dir, monkeypatch):
    """An exec forked into the sandbox's held namespaces (isolation/held.py) against the same
    exec through bwrap and the launcher: the same ids, capabilities, user namespace, Landlock,
    network, fds, environment, view and session; its own launch cgroup."""
    monkeypatch.setenv("ARKEVO_WORKER_API_KEY", WORKER_SECRET)
    reports, counts = {}, {}
    for mode, held in (("held", True), ("coldexec", False)):
        async with started(make_env(tmp_path, mode, base_dir=base_dir, fork_server=False,
                                    held_launches=held)) as env:
            if held:
                assert env._sandbox.exec_server().wait_ready(60), "the bare fork server did not start"
            await _install(env)
            result = await env.exec(f"{env.python} -m report --flag", env={"PYTHONPATH": "/tmp/m"})
            assert result.return_code == 0, result.stderr
            reports[mode] = json.loads(result.stdout.strip().splitlines()[-1])
            reports[mode]["slot"] = env._sandbox.slot.uid
            counts[mode] = dict(env._sandbox.launch_counts)
    assert counts["held"] == {"held": 2} and counts["coldexec"] == {}
    held, cold = reports["held"], reports["coldexec"]
    for report in (held, cold):
        uid = report["slot"]
        assert report["ids"] == [[uid] * 3, report["ids"][1], []] and report["ids"][1][0] != 0
        assert report["caps"] == ["0000000000000000"] * 4
        assert report["no_new_privs"] == "1" and report["max_user_namespaces"] == "0"
        assert report["uid_map"] == [str(uid), str(uid), "1"]
        assert report["write_usr"] != "allowed" and report["write_runtime"] != "allowed"
        assert report["write_workspace"] == "allowed" and report["project_visible"] is False
        assert report["links"] == ["lo"] and not report["environ_has_secret"]
        assert report["session_leader"] and report["cwd"] == "/workspace"
    same = ("ids", "caps", "no_new_privs", "uid_map", "max_user_namespaces", "write_usr",
            "write_runtime", "write_workspace", "project_visible", "links", "fds", "env",
            "hostname", "cwd", "argv", "session_leader")
    assert {k: held[k] for k in same} == {k: cold[k] for k in same}
    assert all(pid < 10 for pid in held["pids"])  # the trial's pid namespace
    # Its own launch cgroup (x<n>) in the trial's, after the holder's (h1) and the install's.
    assert [g.rsplit("--", 1)[1] for g in held["cgroup"]] == ["held__test__env/x3"]


async def test_a_forked_process_cannot_reach_the_fork_server_or_leave_state(tmp_path, base_dir):
    async with started(make_env(tmp_path, "first", base_dir=base_dir)) as env:
        server = _server(env)
        server_pid = server.pid
        await _install(env)
        tainted = await _report(env, "--taint")
        killed = await _report(env, "--kill", str(server_pid))
    # The fork server's pid means nothing in the trial's pid namespace (or names a process of
    # the trial, never the server), and the server lives on.
    assert killed["kill_fork_server"] != "allowed" or server_pid not in tainted["pids"]
    os.kill(server_pid, 0)
    assert server.pid == server_pid and server.counts["died"] == 0
    assert "SolverLeftThis" in tainted["objects"]
    async with started(make_env(tmp_path, "second", base_dir=base_dir)) as env:
        await _install(env)
        after = await _report(env)
    assert after["preloaded"] and after["marker_seen"] is None
    assert "SolverLeftThis" not in after["objects"]  # a fork of the untouched server, not of it


async def test_a_killed_exec_server_costs_cold_execs_once_each_and_is_replaced(tmp_path, base_dir):
    """The bare fork server of held launches killed mid-trial: the next exec finds it dead and
    runs through its own bwrap (once: one line in the workspace), and once the replacement is
    ready, execs are held again."""
    async with started(make_env(tmp_path, "xkilled", base_dir=base_dir, fork_server=False)) as env:
        server = env._sandbox.exec_server()
        assert server.wait_ready(60)
        assert (await env.exec("echo held >> /workspace/runs.txt")).return_code == 0
        os.kill(server.pid, signal.SIGKILL)
        for _ in range(100):
            if server._process.poll() is not None:
                break
            await asyncio.sleep(0.05)
        assert (await env.exec("echo cold >> /workspace/runs.txt")).return_code == 0
        assert server.wait_ready(60)
        again = await env.exec("echo held >> /workspace/runs.txt; cat /workspace/runs.txt")
        counts = dict(env._sandbox.launch_counts)
    assert again.stdout.split() == ["held", "cold", "held"]
    assert counts == {"held": 2, "cold": 1}


async def test_a_killed_fork_server_costs_a_cold_start_and_is_replaced(tmp_path, base_dir):
    async with started(make_env(tmp_path, "killed", base_dir=base_dir)) as env:
        server = _server(env)
        before = dict(server.counts)
        os.kill(server.pid, signal.SIGKILL)
        for _ in range(100):
            if server._process.poll() is not None:
                break
            await asyncio.sleep(0.05)
        await _install(env)
        cold = await _report(env)  # the launch finds the server dead: it runs cold, once
        assert not cold["preloaded"]
        assert server.counts["died"] == before.get("died", 0) + 1
        assert server.wait_ready(120)
        forked = await _report(env)  # the replacement serves the next one
        assert forked["preloaded"]
        runs = await env.exec("cat /workspace/runs.txt")
    assert runs.stdout.split() == ["run", "run"]


async def test_a_stopped_fork_server_is_replaced_and_the_launch_runs_once(tmp_path, base_dir):
    async with started(make_env(tmp_path, "stopped", base_dir=base_dir)) as env:
        server = _server(env)
        stopped_pid = server.pid
        await _install(env)
        os.kill(stopped_pid, signal.SIGSTOP)  # wedged: it would take launches and fork nothing
        for _ in range(200):  # the stop lands asynchronously
            with open(f"/proc/{stopped_pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "T":
                    break
            await asyncio.sleep(0.01)
        cold = await _report(env)
        assert not cold["preloaded"] and server.counts["died"] >= 1
        assert server.pid != stopped_pid and not Path(f"/proc/{stopped_pid}/status").exists()
        assert server.wait_ready(120)
        forked = await _report(env)
        runs = await env.exec("cat /workspace/runs.txt")
    assert forked["preloaded"]
    assert runs.stdout.split() == ["run", "run"]


async def test_a_launch_a_stopped_server_took_runs_cold_once_and_its_streams_end(
        tmp_path, base_dir, monkeypatch):
    # The server stops after the worker looked: the launch waits FORKSERVER_ANSWER_SEC for a
    # child that never comes, then runs cold. Its stdio never went into the stopped server's
    # queue, so its output ends; resumed, the late child finds the launcher gone and does nothing.
    monkeypatch.setattr(forkserver.ForkServer, "_wedged", lambda self: False)
    async with started(make_env(tmp_path, "raced", base_dir=base_dir)) as env:
        server = _server(env)
        await _install(env)
        os.kill(server.pid, signal.SIGSTOP)
        try:
            cold = await asyncio.wait_for(_report(env), 60)
        finally:
            os.kill(server.pid, signal.SIGCONT)
        assert not cold["preloaded"]
        await asyncio.sleep(1)  # time for the late child to act, if it wrongly did
        runs = await env.exec("cat /workspace/runs.txt")
    assert runs.stdout.split() == ["run"]


async def test_a_launch_the_fork_server_drops_runs_cold_once(tmp_path, base_dir, monkeypatch):
    # A channel whose far end is already closed: what the launcher sees when the fork server's
    # child dies before forking. The launcher launches cold; the command runs once.
    def dead_channel(self, start_after=0):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        theirs.close()
        return ours.detach()

    monkeypatch.setattr(forkserver.ForkServer, "channel", dead_channel)
    async with started(make_env(tmp_path, "dropped", base_dir=base_dir)) as env:
        await _install(env)
        report = await _report(env)
        runs = await env.exec("cat /workspace/runs.txt")
    assert not report["preloaded"]
    assert runs.stdout.split() == ["run"]


RENDER = textwrap.dedent('''
    import os, sys
    import bpy
    preloaded_threads = len(os.listdir("/proc/self/task"))
    bpy.ops.mesh.primitive_monkey_add()
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.samples = 4
    scene.render.resolution_x, scene.render.resolution_y = 64, 48
    scene.render.filepath = "/tmp/render.png"
    bpy.ops.render.render(write_still=True)
    threads = len(os.listdir("/proc/self/task"))
    # OpenEXR's pool: an .exr saved and read back (it hung in a fork before the pool restarted)
    image = bpy.data.images.new("exr", 256, 256, float_buffer=True)
    image.pixels = [0.25] * (256 * 256 * 4)
    image.filepath_raw, image.file_format = "/tmp/check.exr", "OPEN_EXR"
    image.save()
    loaded = bpy.data.images.load("/tmp/check.exr")
    print("EXR", loaded.size[0], round(loaded.pixels[0], 2))
    print("THREADS", preloaded_threads, threads)
''')


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one CPU: Blender's thread pool "
                    "has no worker threads to start, forked or not")
async def test_a_forked_process_gets_blenders_thread_pools_back(tmp_path, base_dir):
    # A fork inherits thread pools whose workers it does not have: unless the fork server ended
    # them before forking, every parallel job of the fork runs on one thread (oneTBB) or waits
    # forever for a worker (OpenEXR).
    async with started(make_env(tmp_path, "threads", base_dir=base_dir)) as env:
        _server(env)
        await env.exec("mkdir -p /tmp/m && cat > /tmp/m/render_job.py <<'EOF'\n" + RENDER + "EOF\n")
        process = await env.spawn([env.python, "-m", "render_job"], env={"PYTHONPATH": "/tmp/m"})
        out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode == 0, err.decode()
    assert "EXR 256 0.25" in out.decode()
    before, after = (int(n) for n in out.decode().split("THREADS")[1].split())
    assert after > before  # the render started oneTBB worker threads of its own


async def test_a_script_run_is_forked_and_confined_like_an_execed_one(tmp_path, base_dir, monkeypatch):
    """A worker's script run (an evidence render, a warm probe: sandbox/script_run.py) is forked
    where the worker's fork server is ready, from whatever thread asks (a blocking run's own
    event loop ends with its thread; the server must not die with it), and sees what an exec'd
    run sees. One under a frozen clock (`/usr/bin/env LD_PRELOAD=libfaketime ...`) is forked by
    the fork server started under exactly those variables, and its clock is frozen."""
    from blender.runner import frozen_clock_env
    from sandbox.isolation.settings import SandboxSettings
    from sandbox.isolation.trial import settings_fork_server
    from sandbox.script_run import run_sandboxed_script
    from tests.adversarial.sandbox_helpers import sandbox_kwargs

    monkeypatch.setenv("ARKEVO_WORKER_API_KEY", WORKER_SECRET)
    script = tmp_path / "report.py"
    script.write_text(REPORT)
    frozen_env = frozen_clock_env()
    reports = {}
    for mode, fork, env in (("forked", True, None), ("cold", False, None), ("frozen", True, frozen_env),
                            ("frozen-cold", False, frozen_env)):
        settings = SandboxSettings(**sandbox_kwargs(base_dir, fork_server=fork, held_launches=False))
        if fork:  # started from a thread that ends at once
            server = settings_fork_server(settings, env)
            await asyncio.to_thread(server.start)
            assert await asyncio.to_thread(server.wait_ready, 120)
        log = tmp_path / f"{mode}.log"
        run = await run_sandboxed_script(script, ["--flag"], inputs={}, outputs={}, timeout=120, log=log,
                                         settings=settings, env=env)
        assert run.ok, run.log_tail
        reports[mode] = json.loads(log.read_text().strip().splitlines()[-1])
    forked, cold = reports["forked"], reports["cold"]
    assert forked["preloaded"] and reports["frozen"]["preloaded"]
    assert not cold["preloaded"] and not reports["frozen-cold"]["preloaded"]
    assert forked["caps"] == ["0000000000000000"] * 4 and forked["links"] == ["lo"]
    assert forked["write_usr"] != "allowed" and forked["write_workspace"] == "allowed"
    assert not forked["environ_has_secret"] and "ARKEVO_WORKER_API_KEY" not in forked["env"]
    same = ("caps", "no_new_privs", "max_user_namespaces", "write_usr", "write_runtime", "write_workspace",
            "project_visible", "links", "env", "cwd", "argv", "session_leader")
    assert {k: forked[k] for k in same} == {k: cold[k] for k in same}
    # libfaketime exports the shared memory it made at start (FAKETIME_SHARED): a cold process's
    # own; a fork's would be the fork server's (root's, outside every sandbox), so a fork goes
    # without, and what it starts makes its own, as a cold start does
    reports["frozen-cold"]["env"].remove("FAKETIME_SHARED")
    assert {k: reports["frozen"][k] for k in same} == {k: reports["frozen-cold"][k] for k in same}
    assert forked["objects"] == cold["objects"]  # the factory scene, as a fresh Blender has it
    assert reports["frozen"]["now"] == reports["frozen-cold"]["now"] == 946684800  # 2000-01-01, UTC
    assert forked["now"] > 946684800


def test_only_python_dash_m_or_a_script_of_the_sandbox_interpreter_is_forked(tmp_path):
    server = forkserver.ForkServer("/venv/bin/python3", home="/home/sandbox", tmp_dir=tmp_path)
    assert server.eligible(["/venv/bin/python3", "-m", "blender_mcp_host", "--blend", "x"])
    assert server.eligible(["/venv/bin/python3", "/tests/render_evidence.py", "--jobs", "j"])  # a script run
    assert not server.eligible(["/usr/bin/python3", "-m", "blender_mcp_host"])
    assert not server.eligible(["/usr/bin/env", "LD_PRELOAD=x", "/venv/bin/python3", "/tests/build.py"])
    frozen = forkserver.ForkServer("/venv/bin/python3", home="/home/sandbox", tmp_dir=tmp_path,
                                   preload={"LD_PRELOAD": "x"})  # started under exactly that prefix
    assert frozen.eligible(["/usr/bin/env", "LD_PRELOAD=x", "/venv/bin/python3", "/tests/build.py"])
    assert not frozen.eligible(["/usr/bin/env", "LD_PRELOAD=y", "/venv/bin/python3", "/tests/build.py"])
    assert not frozen.eligible(["/usr/bin/env", "-i", "LD_PRELOAD=x", "/venv/bin/python3", "/tests/b.py"])
    assert not frozen.eligible(["/venv/bin/python3", "/tests/build.py"])
    assert not server.eligible(["bash", "-c", "python3 -m x"])
    assert not server.eligible(["/venv/bin/python3", "-m"])
    assert not server.eligible(["/venv/bin/python3", "-c", "print(1)"])
    assert not server.eligible(["/venv/bin/python3", "/tests/data.json"])


# -- a verifier's scripts: `python3 script.py` in an exec, forked (launcher.offer_forks) --------

@contextlib.asynccontextmanager
async def _verifier(tmp_path, base_dir, name: str, fork: bool = True):
    """A started verifier sandbox (Harbor's separate verifier mode) with a ready fork server."""
    env = make_env(tmp_path, name, base_dir=base_dir, fork_server=fork,
                   session_id=f"{name}__verifier__x")
    async with started(env) as env:
        if fork:
            _server(env)
        yield env


async def _script_report(env, command: str = "python3 /tmp/m/report.py --flag") -> dict:
    result = await env.exec(command)
    assert result.return_code == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


async def test_a_verifier_scripts_python3_is_forked_and_confined_like_the_real_one(tmp_path, base_dir):
    reports = {}
    for mode, fork in (("vforked", True), ("vcold", False)):
        async with _verifier(tmp_path, base_dir, mode, fork) as env:
            await _install(env)
            reports[mode] = await _script_report(env)
    forked, cold = reports["vforked"], reports["vcold"]
    assert forked["preloaded"] and not cold["preloaded"]
    same = ("ids", "caps", "no_new_privs", "uid_map", "max_user_namespaces", "write_usr",
            "write_runtime", "write_workspace", "project_visible", "links", "fds", "env",
            "hostname", "cwd", "argv", "session_leader")
    assert {k: forked[k] for k in same} == {k: cold[k] for k in same}
    assert forked["caps"] == ["0000000000000000"] * 4 and forked["write_usr"] != "allowed"
    assert forked["fds"] == [0, 1, 2, 3]  # not the channel its python3 asked on
    assert "ARKEVO_FORK_FD" not in forked["env"]


async def test_a_forked_scripts_exit_status_and_signals_pass_through(tmp_path, base_dir):
    async with _verifier(tmp_path, base_dir, "vstatus") as env:
        await env.exec("mkdir -p /tmp/m && cat > /tmp/m/s.py <<'EOF'\n"
                       "import sys, time\n"
                       "if sys.argv[1] == 'exit': sys.exit(7)\n"
                       "if sys.argv[1] == 'raise': raise ValueError('from the script')\n"
                       "if sys.argv[1] == 'sleep': time.sleep(60)\n"
                       "EOF\n")
        assert (await env.exec("python3 /tmp/m/s.py exit")).return_code == 7
        raised = await env.exec("python3 /tmp/m/s.py raise")
        assert raised.return_code == 1 and "ValueError: from the script" in raised.stderr
        # `timeout` TERMs the python3 it started; the forked script gets the TERM and ends.
        timed = await env.exec("timeout -k 5 1 python3 /tmp/m/s.py sleep; echo $?")
        assert timed.stdout.split()[-1] == "124"
        # KILLed, its python3 cannot pass anything on: the fork server's child kills the script.
        killed = await env.exec("timeout -s KILL 1 python3 /tmp/m/s.py sleep; echo $?")
        assert killed.stdout.split()[-1] == "137"  # timeout's own status for a KILL
        left = await env.exec("ps -eo args= | grep -c '[s].py sleep' || true")
        assert left.stdout.strip() == "0"


async def test_other_python3_forms_and_a_fifth_at_once_run_the_real_python3(tmp_path, base_dir):
    async with _verifier(tmp_path, base_dir, "vforms") as env:
        await env.exec("mkdir -p /tmp/m && printf '%s\\n' "
                       "'import sys, time' 'print(\"bpy\" in sys.modules)' 'time.sleep(1.5)' "
                       "> /tmp/m/slow.py")
        dash_c = await env.exec("python3 -c 'import sys; print(\"bpy\" in sys.modules)'")
        stdin = await env.exec("echo 'import sys; print(\"bpy\" in sys.modules)' | python3 -")
        assert dash_c.stdout.strip() == "False" and stdin.stdout.strip() == "False"
        # Six at once: four forked (the bound), the other two exec'd; all six run, once.
        many = await env.exec("for i in 1 2 3 4 5 6; do python3 /tmp/m/slow.py > /tmp/o$i & done; "
                              "wait; cat /tmp/o1 /tmp/o2 /tmp/o3 /tmp/o4 /tmp/o5 /tmp/o6")
        assert sorted(many.stdout.split()) == ["False", "False", "True", "True", "True", "True"]


async def test_a_solver_exec_gets_the_real_python3(tmp_path, base_dir):
    async with started(make_env(tmp_path, "solver", base_dir=base_dir)) as env:
        _server(env)
        which = await env.exec("command -v python3; echo ${ARKEVO_FORK_FD:-none}")
    assert which.stdout.split() == [f"{env.python}", "none"]


WARM = textwrap.dedent('''
    import asyncio, json, sys
    from activities.trial_backends import warm_sandbox
    from sandbox.isolation import forkserver
    async def main():
        warm_sandbox()  # what `python -m workers gpu` calls as it starts
        servers = list(forkserver._SERVERS.values())
        ready = [s.wait_ready(120) for s in servers]
        print(json.dumps({"servers": len(servers), "ready": ready,
                          "counts": [dict(s.counts) for s in servers]}))
    asyncio.run(main())
''')


@pytest.mark.parametrize("env, servers", [({}, 2), ({"ARKEVO_FORK_SERVER": "0"}, 1),
                                          ({"ARKEVO_FORK_SERVER": "0", "ARKEVO_HELD_LAUNCHES": "0"}, 0),
                                          ({"ARKEVO_TRIAL_BACKEND": "local"}, 0)])
def test_a_gpu_worker_starts_its_fork_server_before_its_first_launch(env, servers):
    """Started as the worker starts, they are ready before any launch asked for them (none
    ran cold): the bpy fork server and the bare one of held launches; each off with its switch,
    both with the unsandboxed backend."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", WARM], cwd=root, capture_output=True, text=True,
                         timeout=150, env={**os.environ, **env})
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout.splitlines()[-1])
    assert found["servers"] == servers and found["ready"] == [True] * servers
    assert found["counts"] == [{"started": 1}] * servers  # started once; no launch went cold
