"""Solver code, run through the sandbox environment's exec, tries to get out — and each attempt
is denied, on record in the trial's host-side exec log, with the host unaffected.

Every test is a real attack on a real sandbox (root, slot users, bwrap, Landlock, cgroups,
namespaces); nothing is mocked. Network probes target loopback only.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import socket
import subprocess
import sys
import threading
from pathlib import Path, PurePosixPath

import pytest

from sandbox.environment import SandboxPathError
from tests.adversarial.sandbox_helpers import (
    exec_log,
    free_port,
    make_env,
    process_alive,
    requires_landlock,
    slot_user_pids,
    started,
)

pytestmark = [requires_landlock, pytest.mark.timeout(120)]


@pytest.fixture(autouse=True, params=["held", "cold"])
def launch_path(request, monkeypatch) -> str:
    """Every attack twice: execs and transfers forked into the sandbox's held namespaces (the
    default, isolation/held.py) and each through its own bwrap and launcher."""
    monkeypatch.setenv("ARKEVO_HELD_LAUNCHES", "1" if request.param == "held" else "0")
    return request.param

SECRET_KEY = "sk-fake-arkevo-0123456789abcdef"
RUBRIC_MARK = "RUBRIC-SECRET-7f3a"
SOLUTION_MARK = "SOLUTION-SECRET-91bc"
PRIVATE_MARK = "PRIVATE-SECRET-c4d2"


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("sandbox-base")


@pytest.fixture(scope="module")
def planted_task(tmp_path_factory) -> Path:
    """A task on the host with tests/, solution/ and private/ the solver must never see."""
    task = tmp_path_factory.mktemp("planted-task")
    for rel, text in (("tests/rubric.json", RUBRIC_MARK), ("tests/test.sh", "exit 0"),
                      ("solution/solve.py", SOLUTION_MARK), ("private/reference.txt", PRIVATE_MARK)):
        (task / rel).parent.mkdir(parents=True, exist_ok=True)
        (task / rel).write_text(text)
    return task


def denied(result, *needles: str) -> bool:
    text = (result.stdout or "") + (result.stderr or "")
    return result.return_code != 0 and any(n in text for n in needles)


async def test_solver_cannot_read_tests_solution_private_or_another_slot(
        tmp_path, base_dir, planted_task, project_root):
    victim = make_env(tmp_path, "victim", base_dir=base_dir)
    solver = make_env(tmp_path, "solver", base_dir=base_dir)
    async with started(victim), started(solver):
        await victim.exec("echo OTHER-SLOT-SECRET > /workspace/victim-notes.txt")
        victim_host = victim._layout.host_path("/workspace/victim-notes.txt")
        assert victim_host.read_text().strip() == "OTHER-SLOT-SECRET"

        # 1. by known host path: the task's tests/solution/private, the other slot's
        # workspace, the project tree (seeds hold reference solutions), the worker's home.
        known = [planted_task / "tests" / "rubric.json", planted_task / "solution" / "solve.py",
                 planted_task / "private" / "reference.txt", victim_host,
                 project_root / "seeds", project_root / "README.md", Path("/root/.bashrc")]
        for path in known:
            result = await solver.exec(f"cat {shlex.quote(str(path))}")
            assert denied(result, "No such file", "Permission denied", "Is a directory"), (path, result)

        # 2. by searching: every tree it can name, and the paths Harbor would use.
        search = await solver.exec(
            "for d in / /usr /etc /tmp /workspace /home /logs /opt /work /root /var /srv /mnt "
            "/tests /solution /private; do find \"$d\" -xdev \\( -name rubric.json -o "
            "-name solve.py -o -name reference.txt -o -name victim-notes.txt \\) 2>&1; done; "
            "ls -A /tests /solution 2>&1; exit 0")
        # The worker's venv is mounted read-only for the tools the sandbox runs; its packages
        # hold files of these names that are not the task's (mypy's own solve.py).
        found = [line for line in search.stdout.splitlines() if not line.startswith(f"{sys.prefix}/")]
        assert not any("rubric.json" in line for line in found if "-name rubric.json" not in line), found
        for mark in ("solve.py", "reference.txt", "victim-notes.txt"):
            assert not any(f"/{mark}" in line for line in found), search.stdout
        grep = await solver.exec(
            f"grep -rls -e {RUBRIC_MARK} -e {SOLUTION_MARK} -e {PRIVATE_MARK} -e OTHER-SLOT-SECRET "
            "/tmp /workspace /home /logs /opt/arkevo /tests /solution 2>/dev/null; exit 0")
        assert grep.stdout is None or grep.stdout.strip() == ""

    records = [r for r in exec_log(solver) if r["event"] == "exec"]
    assert any("No such file" in r["stderr_tail"] for r in records)
    assert all(r["return_code"] is not None for r in records)


async def test_solver_cannot_read_worker_environment_or_api_keys(tmp_path, base_dir, monkeypatch):
    monkeypatch.setenv("ARKEVO_SECRET_TEST", SECRET_KEY)
    env = make_env(tmp_path, "envleak", base_dir=base_dir)
    async with started(env):
        own_env = await env.exec("env")
        assert SECRET_KEY not in own_env.stdout and "ARKEVO_SECRET_TEST" not in own_env.stdout
        procs = await env.exec(
            "for f in /proc/*/environ /proc/*/cmdline; do cat \"$f\" 2>&1; echo; done | "
            # the pattern is written so that this very command line does not match it
            f"grep -a -c '{SECRET_KEY[:-1]}[{SECRET_KEY[-1]}]'; cat /proc/{os.getpid()}/environ")
        assert procs.stdout.strip().splitlines()[0] == "0"  # grep found nothing
        assert denied(procs, "No such file")  # the worker's pid does not exist in there
        # what Harbor passes explicitly does get through (the allow-list is not "nothing")
        explicit = await env.exec("echo $HARBOR_VISIBLE", env={"HARBOR_VISIBLE": "passed"})
        assert explicit.stdout.strip() == "passed"
    assert os.environ["ARKEVO_SECRET_TEST"] == SECRET_KEY
    assert SECRET_KEY not in env.trial_paths.trial_dir.joinpath(
        "sandbox", f"{env.session_id}.jsonl").read_text()


async def test_solver_cannot_write_outside_its_folders(tmp_path, base_dir):
    env = make_env(tmp_path, "writer", base_dir=base_dir)
    settings = env.settings
    targets = ["/evil", "/usr/evil", "/etc/evil", "/etc/passwd", "/tests/evil", "/solution/evil",
               "/opt/arkevo/runtime/evil", "/opt/arkevo/launcher/launcher.py",
               f"{settings.python_prefix}/evil", f"{settings.python_base_prefix}/evil",
               "/proc/sys/kernel/hostname", "/work/evil", "/root/evil"]
    async with started(env):
        for target in targets:
            result = await env.exec(f"echo pwned > {shlex.quote(target)}")
            assert denied(result, "Read-only file system", "Permission denied",
                          "No such file"), (target, result)
        mounts = await env.exec("mkdir -p /workspace/m && mount -t tmpfs none /workspace/m 2>&1; "
                                "unshare -U -r true 2>&1; exit 1")
        assert "must be superuser" in mounts.stdout or "not permitted" in mounts.stdout
        assert "No space left on device" in mounts.stdout  # nested user namespaces disabled
        ok = await env.exec("mkdir -p /workspace/outputs && echo fine > /workspace/outputs/a "
                            "&& echo fine > /tmp/b && echo fine > ~/c && cat /workspace/outputs/a")
        assert ok.return_code == 0 and ok.stdout.strip() == "fine"
        # and the uploads Harbor makes are refused outside the mapped roots
        for bad in ("/etc/evil", "/usr/lib/evil", "relative/evil", "/workspace/../etc/evil"):
            with pytest.raises(SandboxPathError):
                await env.upload_file(__file__, bad)
    for host_path in [Path(t) for t in targets if not t.startswith(("/tests", "/solution", "/proc"))]:
        assert not host_path.exists() or "pwned" not in host_path.read_text(errors="ignore")
    assert "refused" in {r["event"] for r in exec_log(env)}


async def test_planted_symlinks_do_not_leak_host_files_on_download(tmp_path, base_dir, planted_task):
    env = make_env(tmp_path, "links", base_dir=base_dir)
    rubric = planted_task / "tests" / "rubric.json"
    async with started(env):
        await env.exec(f"mkdir -p /workspace/outputs && cd /workspace/outputs && "
                       f"ln -s /etc/shadow shadow && ln -s {rubric} rubric && echo ok > real.txt")
        for name in ("shadow", "rubric"):
            with pytest.raises(RuntimeError, match="download"):
                await env.download_file(f"/workspace/outputs/{name}", tmp_path / "got" / name)
        target = tmp_path / "dir-download"
        await env.download_dir("/workspace/outputs", target)
    assert (target / "real.txt").read_text().strip() == "ok"
    for name in ("shadow", "rubric"):  # absolute links are dropped, never followed on the host
        assert not (target / name).exists() and not (target / name).is_symlink()
    assert "download_skipped" in {r["event"] for r in exec_log(env)}


async def test_host_loopback_is_unreachable_and_only_lo_exists(tmp_path, base_dir):
    port = free_port()
    server = socket.create_server(("127.0.0.1", port))
    accepted: list = []
    thread = threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True)
    thread.start()
    env = make_env(tmp_path, "net", base_dir=base_dir)
    try:
        async with started(env):
            probe = await env.exec(
                f"{env.python} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 3)\"")
            assert denied(probe, "ConnectionRefusedError"), probe
            links = await env.exec("ip -o link show; echo ---; ip route show; ip -6 route show; "
                                   "echo ---; cat /proc/net/route")
            link_part, routes, proc_route = links.stdout.split("---\n")
            assert [line.split(":")[1].strip() for line in link_part.splitlines()] == ["lo"]
            assert routes.strip() == ""                      # no route anywhere
            assert len(proc_route.strip().splitlines()) == 1  # the header line only
        # the server was fine all along: the host reaches it, the sandbox did not
        with socket.create_connection(("127.0.0.1", port), 3):
            pass
        thread.join(5)
        assert len(accepted) == 1
    finally:
        server.close()


async def test_trial_loopback_is_shared_by_its_execs_and_private_to_it(tmp_path, base_dir):
    port = free_port()
    serve = (f"nohup {{py}} -c \"import socket; s = socket.create_server(('127.0.0.1', {port})); "
             "[c.sendall(b'hello-from-trial') or c.close() for c, _ in iter(s.accept, None)]\" "
             ">/dev/null 2>&1 &")
    client = (f"{{py}} -c \"import socket, time\nfor _ in range({{tries}}):\n    try:\n"
              f"        print(socket.create_connection(('127.0.0.1', {port}), 3).recv(64).decode()); break\n"
              "    except ConnectionRefusedError: time.sleep(0.1)\nelse: raise SystemExit('refused')\"")
    trial_a = make_env(tmp_path, "net-a", base_dir=base_dir)
    trial_b = make_env(tmp_path, "net-b", base_dir=base_dir)
    async with started(trial_a), started(trial_b):
        started_exec = await trial_a.exec(serve.format(py=trial_a.python))
        assert started_exec.return_code == 0
        # a later exec of the same trial (retrying while the server starts up)
        later = await trial_a.exec(client.format(py=trial_a.python, tries=50))
        assert later.stdout.strip() == "hello-from-trial", later
        other = await trial_b.exec(client.format(py=trial_b.python, tries=1), timeout_sec=30)
        assert other.return_code != 0 and "refused" in (other.stderr or "")
        with pytest.raises(ConnectionRefusedError):  # nor from the host
            socket.create_connection(("127.0.0.1", port), 2).close()


async def test_solver_cannot_signal_or_trace_host_processes(tmp_path, base_dir):
    victim = subprocess.Popen(["sleep", "300"])
    env = make_env(tmp_path, "signals", base_dir=base_dir)
    try:
        async with started(env):
            pid = victim.pid
            attempts = {
                "kill -0": f"kill -0 {pid}",
                "kill -9": f"kill -9 {pid}",
                "kill all": "kill -9 -1",
                "kill init": "kill -9 1",
                "mem": f"cat /proc/{pid}/mem",
                "ptrace": (f"{env.python} -c \"import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
                           f"r = libc.ptrace(16, {pid}, 0, 0); e = ctypes.get_errno(); "
                           "print(r, os.strerror(e)); raise SystemExit(r != 0)\""),
            }
            for name, command in attempts.items():
                result = await env.exec(command)
                assert denied(result, "No such process", "No such file",
                              "Operation not permitted"), (name, result)
            assert (await env.exec("echo still-here")).stdout.strip() == "still-here"
        assert victim.poll() is None and process_alive(victim.pid)
    finally:
        victim.kill()
        victim.wait()


async def test_fork_bomb_disk_fill_and_memory_hog_are_bounded(tmp_path, base_dir):
    # pids_max below nproc, so the cgroup (not the per-user rlimit) is what stops the bomb
    env = make_env(tmp_path, "bounded", base_dir=base_dir, pids_max=64, fsize_mb=64, memory_mb=256)
    async with started(env):
        uid = env._sandbox.slot.uid
        with pytest.raises(RuntimeError, match="timed out"):
            await env.exec("bomb() { bomb | bomb & }; bomb; sleep 60", timeout_sec=3)
        assert (await env.exec("echo alive")).stdout.strip() == "alive"

        fill = await env.exec("mkdir -p /workspace/outputs && "
                              "dd if=/dev/zero of=/workspace/outputs/fill bs=1M count=200")
        assert denied(fill, "File too large")
        host_file = env._layout.host_path("/workspace/outputs/fill")
        assert host_file.stat().st_size == 64 * 1024 * 1024

        hog = await env.exec(f"{env.python} -c \"x = b'x' * (1 << 30); print(len(x))\"")
        assert hog.return_code == 137  # killed by the cgroup's OOM killer, not the host's
    assert slot_user_pids(uid) == []
    records = [r for r in exec_log(env) if r["event"] == "exec"]
    bomb, _, _, hog_record = records
    assert bomb["timed_out"] and bomb["pids_limit_hits"] > 0
    assert "Resource temporarily unavailable" in bomb["stderr_tail"]
    assert hog_record["oom_kills"] >= 1
    stop = [r for r in exec_log(env) if r["event"] == "stop"][-1]
    assert stop["pids_limit_hits"] > 0 and stop["oom_kills"] >= 1


async def test_no_process_survives_the_trial_and_the_slot_starts_clean(tmp_path, base_dir):
    first = make_env(tmp_path, "leftover", base_dir=base_dir, slots=1)
    async with started(first):
        slot, uid = first._sandbox.slot.index, first._sandbox.slot.uid
        cgroup_dirs = list(first._sandbox.cgroup.dirs.values())
        bg = await first.exec("setsid nohup sleep 1000 >/dev/null 2>&1 & "
                              "echo secret > /workspace/left.txt; echo x > /tmp/t; echo y > ~/h")
        assert bg.return_code == 0
        spawned = await first.spawn(["sleep", "1000"])
        await asyncio.sleep(0.2)
        running = slot_user_pids(uid)
        assert len(running) >= 2  # the detached sleep outlived its exec; the spawned one too
        assert exec_log(first)[-2]["left_running"] == 1
    assert slot_user_pids(uid) == []
    assert spawned.returncode is not None
    assert not any(d.exists() for d in cgroup_dirs)

    second = make_env(tmp_path, "next-trial", base_dir=base_dir, slots=1)
    async with started(second):
        assert second._sandbox.slot.index == slot
        listing = await second.exec("ls -A /workspace /tmp ~")
        # Only mount points of the read-only runtime may appear (a checkout under /tmp).
        runtime = {PurePosixPath(p).relative_to("/tmp").parts[0] for p in (sys.prefix, sys.base_prefix)
                   if PurePosixPath(p).is_relative_to("/tmp")}
        assert sorted(listing.stdout.split()) == sorted(["/workspace:", "/tmp:", "/home/sandbox:", *runtime])
        assert "sleep" not in (await second.exec("ps -eo comm=")).stdout


async def test_verifier_sandbox_only_reads_back_its_verdict(tmp_path, base_dir):
    env = make_env(tmp_path, "judge", base_dir=base_dir, session_id="judge__x__verifier__trial")
    async with started(env):
        assert env.role == "verifier"
        await env.exec("mkdir -p /workspace/outputs /logs/verifier && echo 1 > /logs/verifier/reward.txt "
                       "&& echo data > /workspace/outputs/x")
        await env.download_dir("/logs/verifier", tmp_path / "verdict")
        with pytest.raises(SandboxPathError, match="only /logs/verifier"):
            await env.download_dir("/workspace", tmp_path / "not-allowed")
        net = await env.exec("ip -o link show | wc -l")
        assert net.stdout.strip() == "1"
    assert (tmp_path / "verdict" / "reward.txt").read_text().strip() == "1"
