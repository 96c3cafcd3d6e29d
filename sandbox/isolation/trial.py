"""One trial's sandbox: a slot, a cgroup, its namespaces, and a way to launch processes in it.

Harbor-agnostic (the Harbor adapter is sandbox/environment.py). Every process goes

    worker (root) -> bwrap (new mount/ipc/uts namespaces with the view; the trial's pid
    namespace) -> launcher (its cgroup, the trial's netns, rlimits, no_new_privs, uid drop, own
    user namespace, Landlock) -> the command

and is started with an empty environment plus an explicit allow-list, never the worker's. The
bwrap options (environment values included) travel through a memfd (`--args`), so they show
neither in the host's process list nor in the sandbox's /proc; only the command does.

Execs and transfers (`launch(held=True)`) after the sandbox's first skip the bwrap and the
launcher's interpreter: forked into the namespaces the worker holds for the sandbox, they go
through the launcher's own confine() (held.py, docs/sandbox.md "Held launches").
"""

from __future__ import annotations

import asyncio
import contextlib
import marshal
import os
import re
import shutil
import threading
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any

from sandbox.isolation import held, host
from sandbox.isolation.bwrap import LAUNCHER_DIR, RUNTIME_DIR, Bind, SandboxView
from sandbox.isolation.cgroups import Cgroup, TrialCgroup, remove_stale_groups
from sandbox.isolation.forkserver import ForkServer, env_prefix, fork_server
from sandbox.isolation.layout import Layout, Root
from sandbox.isolation.trialns import TrialNamespaces
from sandbox.isolation.settings import SandboxSettings
from sandbox.isolation.slots import Slot, SlotPool
from observability import telemetry

_HERE = Path(__file__).resolve().parent
_LAUNCHER_FILES = ("launcher.py", "landlock.py")
_BWRAP_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
LAUNCH_STATUS_TIMEOUT_SEC = 60.0
LAUNCH_ATTEMPTS = 3  # a bwrap that dies before its launcher runs is started again


class SandboxUnavailable(RuntimeError):
    """The host cannot run the sandbox (missing Landlock, bwrap, cgroups, root...)."""


class LaunchFailed(RuntimeError):
    """The sandbox could not be set up around a command: an infrastructure fault."""


class BwrapDiedEarly(LaunchFailed):
    """bwrap ended before the launcher inside it reported anything: the command never ran."""


def launcher_config(config: dict) -> str:
    """The launcher's config as its argv carries it: marshal (format 4, stable since Python
    3.4), hex. Not JSON: importing json costs the launcher ~6 ms of its ~19 at every launch
    (`re`), and marshal is built in; the launcher only ever reads what this worker wrote."""
    return marshal.dumps(config, 4).hex()


def sandbox_python(settings: SandboxSettings) -> str:
    return str(settings.python_prefix / "bin" / "python3")


def settings_fork_server(settings: SandboxSettings, preload: dict[str, str] | None = None) -> ForkServer | None:
    """This worker process's fork server for the sandbox's interpreter (started under `preload`'s
    variables: a frozen clock), or None when it is off."""
    if not settings.fork_server:
        return None
    return fork_server(sandbox_python(settings), home=Slot.container_home, preload=preload)


def settings_exec_server(settings: SandboxSettings) -> ForkServer | None:
    """This worker process's bare fork server (imports nothing), which forks the held
    launches' commands (held.py), or None when held launches are off."""
    if not settings.held_launches:
        return None
    return fork_server(sandbox_python(settings), home=Slot.container_home, bare=True)


def start_fork_server(settings: SandboxSettings | None = None) -> ForkServer | None:
    """Start this worker process's fork server now instead of at its first solver sandbox,
    whose launches would run cold meanwhile (the server imports bpy for ~1 s): a gpu worker
    calls it as it starts, from the event loop's thread (PDEATHSIG follows the thread that
    forked). None: it is off (ARKEVO_FORK_SERVER=0) or the sandbox cannot run here (the first
    trial says why)."""
    settings = settings or SandboxSettings()
    if host.problems(settings.python_prefix, settings.python_base_prefix):
        return None
    if (bare := settings_exec_server(settings)) is not None:
        bare.start()
    server = settings_fork_server(settings)
    if server is not None:
        server.start()
    return server


class TrialSandbox:
    def __init__(self, settings: SandboxSettings, *, name: str, workdir: PurePosixPath,
                 memory_bytes: int, cpus: float | None = None, verifier: bool = False):
        self.settings = settings
        self.name = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:80] or "trial"
        self.workdir = workdir
        self.memory_bytes = memory_bytes
        self.cpus = cpus
        self.verifier = verifier
        self.pool = SlotPool(settings.base_dir, settings.slots, settings.user_prefix,
                             uid_base=settings.uid_base)
        self.slot: Slot | None = None
        self.layout: Layout | None = None
        self.cgroup: TrialCgroup | None = None
        self.namespaces: TrialNamespaces | None = None
        self._processes: list[asyncio.subprocess.Process] = []
        self._launches = 0
        self.hits: dict[str, int] = {}
        self.early_deaths: list[str] = []  # bwraps started again (launch), for the trial's log
        self.held: held.HeldNamespaces | None = None  # the view's namespaces, once made
        self._hold_lock = asyncio.Lock()
        self._hold_failed = False
        self.launch_counts: Counter[str] = Counter()  # held, cold (by launch() with held=True)

    # -- lifecycle -----------------------------------------------------------------------

    async def open(self) -> None:
        found = host.problems(self.settings.python_prefix, self.settings.python_base_prefix)
        if found:
            telemetry.sandbox_launch(self, "unavailable")
            raise SandboxUnavailable("arkevo sandbox cannot run here: " + "; ".join(found))
        self.slot = await asyncio.to_thread(self.pool.acquire, self.settings.slot_wait_sec)
        try:
            self.namespaces = TrialNamespaces()
            await self.namespaces.create()
            await asyncio.to_thread(self._open_resources)
        except BaseException:
            telemetry.sandbox_launch(self, "failed")
            await self.close()
            raise
        telemetry.sandbox_launch(self, "started")

    def _open_resources(self) -> None:
        slot = self.slot
        assert slot is not None  # acquired by open() just before
        # Named after the slot user, whose lock we hold: whatever group of that user is still
        # there was left by a worker that died, and can go.
        remove_stale_groups(f"{slot.user}--")
        self.cgroup = TrialCgroup(f"{slot.user}--{self.name}", memory_bytes=self.memory_bytes,
                                  pids_max=self.settings.pids_max, cpus=self.cpus)
        self.cgroup.create()
        self._install_launcher()
        roots = [
            Root(self.workdir, slot.dir("workspace"), True),
            Root(PurePosixPath("/tmp"), slot.dir("tmp"), True),
            Root(PurePosixPath(slot.container_home), slot.dir("home"), True),
            Root(PurePosixPath("/logs"), slot.dir("logs"), True),
            Root(PurePosixPath("/tests"), slot.dir("tests"), False),
            Root(PurePosixPath("/solution"), slot.dir("solution"), False),
        ]
        if self.verifier:
            roots.append(Root(PurePosixPath("/private"), slot.dir("private"), False))
        self.layout = Layout(roots)

    async def close(self) -> dict:
        """Kill every process of the trial, drop its cgroup and netns, wipe and free the slot."""
        stats: dict = {}
        errors: list[BaseException] = []
        if self.namespaces is not None:
            # The trial's init dies and the kernel kills its whole pid namespace; each bwrap
            # then reaps its own child and exits.
            await self.namespaces.close()
            self.namespaces = None
        if self.held is not None:
            self.held.close()
            self.held = None
        for process in self._processes:
            await self._reap(process)
        self._processes.clear()
        if self.cgroup is not None:
            try:
                stats = {**self.cgroup.stats(), **self.hits, "bwrap_relaunched": len(self.early_deaths)}
                await asyncio.to_thread(self.cgroup.remove)
            except Exception as exc:  # noqa: BLE001 - keep releasing the rest
                errors.append(exc)
            self.cgroup = None
        if self.slot is not None:
            try:
                await asyncio.to_thread(self.pool.release, self.slot)
            except Exception as exc:  # noqa: BLE001
                errors.append(exc)
            self.slot = None
        if errors:
            raise errors[0]
        return stats

    @property
    def is_open(self) -> bool:
        return self.slot is not None

    def fork_server(self, preload: dict[str, str] | None = None) -> ForkServer | None:
        """This worker's fork server for the sandbox's interpreter, or None when it is off."""
        return settings_fork_server(self.settings, preload)

    def exec_server(self) -> ForkServer | None:
        """This worker's bare fork server for held launches, or None when they are off."""
        return settings_exec_server(self.settings)

    # -- what a process sees -------------------------------------------------------------

    @property
    def python(self) -> str:
        """The venv's interpreter (with bpy), at the same absolute path inside the sandbox."""
        return sandbox_python(self.settings)

    def base_env(self) -> dict[str, str]:
        slot = self.slot
        assert slot is not None  # only called on an open sandbox
        env = {
            "PATH": f"{self.settings.python_prefix}/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
            "HOME": slot.container_home,
            "USER": slot.user,
            "LOGNAME": slot.user,
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "VIRTUAL_ENV": str(self.settings.python_prefix),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        if self._runtime_dir() is not None:
            env["PYTHONPATH"] = RUNTIME_DIR
        return env

    def _runtime_dir(self) -> Path | None:
        runtime = self.settings.runtime_dir
        return runtime if runtime is not None and runtime.is_dir() else None

    def view(self, env: dict[str, str]) -> SandboxView:
        settings = self.settings
        # Only called on an open sandbox: open() set all of these.
        assert self.layout is not None and self.slot is not None
        assert self.namespaces is not None and self.namespaces.pid_fd is not None
        binds = [Bind(settings.python_prefix, str(settings.python_prefix), "ro")]
        if not settings.python_prefix.is_relative_to(settings.python_base_prefix):
            binds.append(Bind(settings.python_base_prefix, str(settings.python_base_prefix), "ro"))
        if (runtime := self._runtime_dir()) is not None:
            binds.append(Bind(runtime, RUNTIME_DIR, "ro"))
        binds.append(Bind(settings.base_dir / "launcher", LAUNCHER_DIR, "ro"))
        binds += self.layout.binds()
        binds += [Bind(Path(device), device, "dev") for device in settings.devices]
        return SandboxView(binds=binds, pidns_fd=self.namespaces.pid_fd,
                           hostname=f"sandbox-{self.slot.index}", env=env)

    def _install_launcher(self) -> None:
        """Copy the launcher where the sandbox can see it (never the project tree itself)."""
        folder = self.settings.base_dir / "launcher"
        folder.mkdir(mode=0o755, exist_ok=True)
        folder.chmod(0o755)
        shebang = f"#!{os.path.realpath(self.python)} -IS\n".encode()
        (folder / "forkpy").mkdir(mode=0o755, exist_ok=True)
        (folder / "forkpy").chmod(0o755)
        for name, target, data, mode in (
                *((name, folder / name, (_HERE / name).read_bytes(), 0o644) for name in _LAUNCHER_FILES),
                # the `python3` of execs offered forks (launcher.offer_forks)
                ("fork_python.py", folder / "forkpy" / "python3",
                 shebang + (_HERE / "fork_python.py").read_bytes(), 0o755)):
            if target.exists() and target.read_bytes() == data:
                continue
            tmp = target.parent / f".{name}.{os.getpid()}.{threading.get_ident()}"
            tmp.write_bytes(data)
            tmp.chmod(mode)
            os.replace(tmp, target)

    # -- launching -------------------------------------------------------------------------

    async def launch(self, argv: list[str], *, env: dict[str, str], cwd: str,
                     stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                     stderr=asyncio.subprocess.PIPE, track: bool = False, kind: str = "x",
                     forkable: bool = False, serve_forks: bool = False, held: bool = False,
                     fork_server_after: int = 0) -> tuple[asyncio.subprocess.Process, Cgroup]:
        """Start argv in the sandbox; returns once the launcher confirmed every layer holds.

        Returns the bwrap process (its stdio are the command's) and the launch's own child
        cgroup, which holds the command and everything it forks. Raises LaunchFailed when a
        layer could not be set up (the command never ran).

        forkable: a `python -m module` or `python script.py` command the fork server may fork,
        already imported, instead of the launcher exec'ing it (same confinement; isolation/forkserver.py). serve_forks: the
        command (a shell) gets a `python3` that has each `python3 script.py` it runs forked so.
        fork_server_after: a fork server this process has not started is started only once that
        many launches asked for it (ForkServer.channel).

        A bwrap that dies before the launcher runs (no status at all) is started again, up to
        LAUNCH_ATTEMPTS times: the command has not run, so nothing is repeated, and under load
        this happens now and then (docs/sandbox.md). A launcher that reports a broken layer is
        not retried: that is not transient.

        held: a command that needs no stdin pipe and is not tracked (an exec, a transfer) may be
        forked into the sandbox's held namespaces, no bwrap and no launcher of its own (held.py);
        when that cannot be done it is launched cold, as it always could.
        """
        if held and self.settings.held_launches and not track and not forkable \
                and stdin is not asyncio.subprocess.PIPE:
            launched = await self._launch_held(argv, env=env, cwd=cwd, stdin=stdin, stdout=stdout,
                                               stderr=stderr, kind=kind, serve_forks=serve_forks)
            self.launch_counts["held" if launched else "cold"] += 1
            if launched is not None:
                return launched  # type: ignore[return-value]  # what of a Process it uses (held.py)
        for attempt in range(1, LAUNCH_ATTEMPTS + 1):
            try:
                return await self._launch_once(argv, env=env, cwd=cwd, stdin=stdin, stdout=stdout,
                                               stderr=stderr, track=track, kind=kind,
                                               forkable=forkable, serve_forks=serve_forks,
                                               fork_server_after=fork_server_after)
            except BwrapDiedEarly as exc:
                self.early_deaths.append(str(exc))
                if attempt == LAUNCH_ATTEMPTS:
                    raise
                if hasattr(stdin, "seek"):
                    stdin.seek(0)
                await asyncio.sleep(0.2 * attempt)
        raise AssertionError("unreachable")

    async def _launch_once(self, argv: list[str], *, env: dict[str, str], cwd: str, stdin, stdout,
                           stderr, track: bool, kind: str,
                           forkable: bool, serve_forks: bool, fork_server_after: int = 0
                           ) -> tuple[asyncio.subprocess.Process, Cgroup]:
        if not self.is_open:
            raise LaunchFailed("the sandbox is not started")
        # Set by open() together with the slot (is_open).
        assert self.slot is not None and self.cgroup is not None and self.namespaces is not None
        assert self.namespaces.net_fd is not None and self.namespaces.pid_fd is not None
        self._launches += 1
        group = await asyncio.to_thread(self.cgroup.child, f"{kind}{self._launches}")
        inner_env = {**self.base_env(), **env}
        status_r, status_w = os.pipe()
        cgroup_fds = group.procs_fds()
        view = self.view(inner_env)
        config = {
            "uid": self.slot.uid, "gid": self.slot.gid, "cwd": cwd,
            "rlimits": self.settings.rlimits(),
            "landlock": view.landlock_rules(), "landlock_required": self.settings.require_landlock,
            "cgroup_fds": cgroup_fds, "netns_fd": self.namespaces.net_fd, "status_fd": status_w,
        }
        # a command behind `/usr/bin/env NAME=VALUE ...` (a frozen clock) goes to the fork server
        # started under exactly those variables
        preload = env_prefix(argv)[0] if forkable else {}
        server = self.fork_server(preload) if (forkable or serve_forks) and preload is not None else None
        forked = None
        if server is not None and (serve_forks or server.eligible(argv)):
            forked = server.channel(fork_server_after)
        if forked is not None:
            config["forkserver_fd"] = forked
            config["serve_forks"] = serve_forks
        launcher_python = os.path.realpath(self.python)  # base interpreter; -S: no site, no bpy
        # Options (environment values included) go through the memfd; bwrap takes the
        # command itself only from its real argv.
        command = [launcher_python, "-I", "-S", f"{LAUNCHER_DIR}/launcher.py",
                   launcher_config(config), "--", *argv]
        args_fd = os.memfd_create("arkevo-bwrap-args", 0)
        try:
            os.write(args_fd, b"".join(a.encode() + b"\0" for a in view.bwrap_args()))
            os.lseek(args_fd, 0, os.SEEK_SET)
            process = await asyncio.create_subprocess_exec(
                shutil.which("bwrap") or "bwrap", "--args", str(args_fd), "--", *command,
                stdin=stdin, stdout=stdout, stderr=stderr, env=_BWRAP_ENV,
                pass_fds=(args_fd, status_w, self.namespaces.net_fd, self.namespaces.pid_fd,
                          *cgroup_fds, *([forked] if forked is not None else [])),
                start_new_session=True, limit=1024 * 1024)
        finally:
            for fd in (args_fd, status_w, *cgroup_fds, *([forked] if forked is not None else [])):
                os.close(fd)
        if track:
            self._processes.append(process)
        # The launcher writes "ok" or its error; EOF (b"") means bwrap died before it ran.
        status = await self._status(status_r, process, group)
        if status != b"ok":
            await self.end(process, group, kill=True)
            detail = status.decode(errors="replace")
            if not detail:  # EOF: bwrap died before the launcher ran
                said = (await process.stderr.read()).decode(errors="replace").strip() if process.stderr else ""
                raise BwrapDiedEarly(f"sandbox launch failed: bwrap exited early "
                                     f"(status {process.returncode}){': ' + said if said else ''}")
            raise LaunchFailed(f"sandbox launch failed: {detail}")
        return process, group

    async def _status(self, status_r: int, process, group: Cgroup) -> bytes:
        """What the launch's confinement wrote on the status fd (ours to close): b"ok", an
        error, or b"" when nothing ever wrote it."""
        reader = asyncio.ensure_future(asyncio.to_thread(os.read, status_r, 4096))
        try:
            done, _ = await asyncio.wait({reader}, timeout=LAUNCH_STATUS_TIMEOUT_SEC)
            if done:
                return reader.result()
            await self.end(process, group, kill=True)  # closes the write ends: read returns
            await reader
            return b"launcher did not report within %ds" % LAUNCH_STATUS_TIMEOUT_SEC
        finally:
            if reader.done():
                os.close(status_r)

    async def hold_namespaces(self) -> held.HeldNamespaces | None:
        """The sandbox's view as namespace fds, made at the first held launch (or ahead, for a
        pre-started sandbox) from a holder launched cold (held.py); None when held launches are
        off or that failed (every launch then runs cold)."""
        if not self.settings.held_launches:
            return None
        async with self._hold_lock:
            if self.held is None and not self._hold_failed:
                self._hold_failed = True  # until it worked
                try:
                    process, group = await self.launch(
                        ["cat"], env={}, cwd="/", stdin=asyncio.subprocess.PIPE,
                        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL, kind="h")
                except LaunchFailed:
                    return None
                try:
                    # Confined before it reported "ok", and alone in its launch's cgroup.
                    pids = await asyncio.to_thread(group.pids)
                    self.held = held.HeldNamespaces.open_from(min(pids))
                    self._hold_failed = False
                except (OSError, ValueError):
                    pass
                finally:
                    await self.end(process, group, kill=True)
            return self.held

    async def _launch_held(self, argv: list[str], *, env: dict[str, str], cwd: str, stdin, stdout,
                           stderr, kind: str, serve_forks: bool
                           ) -> tuple[held.HeldProcess, Cgroup] | None:
        if not self.is_open or (server := self.exec_server()) is None:
            return None
        namespaces = await self.hold_namespaces()
        if namespaces is None:
            return None
        assert self.slot is not None and self.cgroup is not None and self.namespaces is not None
        assert self.namespaces.net_fd is not None
        self._launches += 1
        group = await asyncio.to_thread(self.cgroup.child, f"{kind}{self._launches}")
        view = self.view({})
        config = {
            "uid": self.slot.uid, "gid": self.slot.gid, "cwd": cwd,
            "rlimits": self.settings.rlimits(),
            "landlock": view.landlock_rules(), "landlock_required": self.settings.require_landlock,
        }
        loop = asyncio.get_running_loop()
        ours: list[int] = []  # fds this call made and closes once the child has its copies
        status_r, status_w = os.pipe()
        cgroup_fds = group.procs_fds()
        reader: asyncio.StreamReader | None = None
        transport: asyncio.BaseTransport | None = None
        agent = None
        launched = None
        try:
            stdio = []
            for stream, writable in ((stdin, False), (stdout, True), (stderr, True)):
                if stream is asyncio.subprocess.DEVNULL or stream is None:
                    fd = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
                    ours.append(fd)
                elif stream is asyncio.subprocess.PIPE:
                    read_end, fd = os.pipe()
                    ours.append(fd)
                    reader = asyncio.StreamReader(limit=1024 * 1024, loop=loop)
                    protocol = asyncio.StreamReaderProtocol(reader)
                    transport, _ = await loop.connect_read_pipe(lambda: protocol,
                                                                os.fdopen(read_end, "rb", 0))
                elif isinstance(stream, int):
                    fd = stream
                else:
                    fd = stream.fileno()
                stdio.append(fd)
            if serve_forks and (forks := self.fork_server()) is not None \
                    and (channel := forks.channel()) is not None:
                agent = await held.offer_forks(channel, namespaces, config=config,
                                               netns_fd=self.namespaces.net_fd,
                                               cgroup_fds=cgroup_fds)
            channel = server.channel()
            if channel is not None:
                launched = await held.launch(
                    channel, namespaces, argv=argv, env={**self.base_env(), **env}, config=config,
                    netns_fd=self.namespaces.net_fd, cgroup_fds=cgroup_fds, stdio=stdio,
                    status_fd=status_w, agent_fd=agent, stderr=reader)
        finally:
            for fd in (status_w, *cgroup_fds, *ours, *([agent] if agent is not None else [])):
                os.close(fd)
        if launched is None:
            os.close(status_r)
            if transport is not None:
                transport.close()
            await asyncio.to_thread(group.remove)
            return None
        status = await self._status(status_r, launched, group)
        if status != b"ok":
            await self.end(launched, group, kill=True)  # type: ignore[arg-type]
            raise LaunchFailed(f"sandbox launch failed: {status.decode(errors='replace') or 'no status'}")
        return launched, group

    async def end(self, process: asyncio.subprocess.Process, group: Cgroup, *,
                  kill: bool) -> dict[str, Any]:
        """Close one launch. kill=True: the command and everything it forked go (its cgroup
        first, so bwrap, still alive, reaps its child itself — killing bwrap first would leave
        that child a zombie of the host's init). kill=False: the command has exited; what it
        left running in the background lives on until close(), like in a container.

        Returns the limits the launch hit (oom_kills, pids_limit_hits) and, when not killed,
        how many processes it left running (left_running)."""
        def settle() -> dict[str, int]:
            events = {k: v for k, v in group.events().items() if v}
            if kill:
                group.remove()
            elif not group.remove_if_empty():
                events["left_running"] = len(group.pids())
            return events

        try:
            outcome: dict[str, Any] = await asyncio.to_thread(settle)
        except Exception as exc:  # noqa: BLE001 - still reap bwrap below
            outcome = {"cleanup_error": str(exc)}
        for key in ("oom_kills", "pids_limit_hits"):
            self.hits[key] = self.hits.get(key, 0) + outcome.get(key, 0)
        await self._reap(process)
        return outcome

    async def _reap(self, process: asyncio.subprocess.Process) -> None:
        try:
            await asyncio.wait_for(process.wait(), 2)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(process.wait(), 10)
