"""Harbor environment backed by the isolated local trial sandbox (no Docker).

    harbor run -p <task dir> -a oracle -e sandbox.environment:ArkevoSandboxEnvironment
    # or in a trial/job config: environment.import_path = "sandbox.environment:ArkevoSandboxEnvironment"

Harbor sees a container: the task's workdir (/workspace), /tests, /solution, /logs/{agent,
verifier,artifacts} and /tmp exist at their usual paths (bind mounts of the slot's folders, see
sandbox/isolation/layout.py), `exec` runs `bash -c` with bash semantics, and the files move
with upload/download. Underneath, each exec is confined by the launcher's steps
(sandbox/isolation/): the sandbox's mount/ipc/uts namespaces, the trial's pid namespace, its own
user namespace, the slot's unprivileged uid, Landlock, rlimits, its own cgroup in the trial's and
the trial's loopback-only network namespace — through a bwrap of its own, or forked into the
namespaces the worker holds for the sandbox (isolation/held.py).

Harbor's separate verifier mode gets a second instance of this class (session id
`<trial>__verifier__<key>`): a fresh slot holding only what Harbor uploads into it — the
delivered artifacts and tests/ (and /private when configured) — with no network; only
/logs/verifier can be read back from it.

Two extras for agents whose loop runs in the worker: `spawn()` starts a long-lived process in
the same sandbox with stdio pipes (an MCP stdio server, the Blender MCP host), killed at
`stop()`, and `python` names the interpreter (venv with bpy) to use inside.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tarfile
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from harbor.environments.base import (
    BaseEnvironment,
    ExecResult,
    SandboxBuildFailedError,
    transfer_tar_filter,
)
from harbor.environments.capabilities import (
    EnvironmentCapabilities,
    EnvironmentResourceCapabilities,
)
from harbor.models.task.config import NetworkMode, NetworkPolicy, TaskOS
from harbor.models.trial.config import ResourceMode
from harbor.models.trial.paths import TrialPaths

from contracts.digests import canonical_json_bytes, sha256_file, sha256_hex
from sandbox import prestart
from sandbox.isolation import host
from sandbox.isolation.bwrap import SYSTEM_DIRS
from sandbox.isolation.execlog import ExecLog
from sandbox.isolation.layout import Layout, SandboxPathError
from sandbox.isolation.settings import SandboxSettings
from sandbox.isolation.taskimage import TaskImage, TaskImageError, read_task_image
from sandbox.isolation.trial import LaunchFailed, SandboxUnavailable, TrialSandbox

DEFAULT_WORKDIR = PurePosixPath("/workspace")
TRANSFER_TIMEOUT_SEC = 600
TRANSFER_LAUNCH_ATTEMPTS = 3
OUTPUT_GRACE_SEC = 1.0
RESERVED = (*SYSTEM_DIRS, "/proc", "/dev", "/opt/arkevo", "/tmp", "/logs", "/tests",
            "/solution", "/private", "/home")
# Harbor's own tar transfers stage archives here (BaseEnvironment.download_dir_filtered).
HARBOR_TRANSFER_PREFIX = "/tmp/.hb-transfer-"

__all__ = ["ArkevoSandboxEnvironment", "LaunchFailed", "SandboxPathError", "SandboxUnavailable"]


class ArkevoSandboxEnvironment(BaseEnvironment):
    def __init__(self, environment_dir: Path, environment_name: str, session_id: str,
                 trial_paths, task_env_config, logger=None, **kwargs):
        # Our kwargs must be read before BaseEnvironment.__init__, which already asks for
        # capabilities and validates the definition.
        self.settings, rest = SandboxSettings.split_kwargs(dict(kwargs))
        if self.settings.role == "auto":
            self.role = "verifier" if "__verifier__" in session_id else "solver"
        else:
            self.role = self.settings.role
        self._image = TaskImage()
        self._sandbox: TrialSandbox | None = None
        self._warned: set[str] = set()
        # What a twin needs (prestart.PrestartedHosts): the same task, settings and limits.
        self._made_with = dict(environment_dir=environment_dir, environment_name=environment_name,
                               task_env_config=task_env_config, logger=logger, kwargs=dict(kwargs))
        self._pool: prestart.PrestartedHosts | None = None
        self._pool_key: str | None = None
        self._refill = False
        self._handed: prestart.Prestarted | None = None
        super().__init__(environment_dir, environment_name, session_id, trial_paths,
                         task_env_config, logger=logger, **rest)
        self._log = ExecLog(Path(trial_paths.trial_dir) / "sandbox", session_id)

    # -- Harbor's description of us ------------------------------------------------------

    @staticmethod
    def type() -> str:
        return "arkevo-sandbox"

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        # Always no network, so a phase "switch" never changes anything: declaring it dynamic
        # lets tasks whose agent and verifier phases differ run instead of being refused.
        return EnvironmentCapabilities(disable_internet=True, dynamic_network_policy=True,
                                       gpus=bool(self.settings.devices))

    @classmethod
    def resource_capabilities(cls) -> EnvironmentResourceCapabilities:
        return EnvironmentResourceCapabilities(memory_limit=True, cpu_limit=True,
                                               fractional_cpus=True)

    @classmethod
    def preflight(cls) -> None:
        found = host.problems()
        if found:
            raise SystemExit("arkevo sandbox cannot run on this host:\n  - " + "\n  - ".join(found))

    def _validate_definition(self) -> None:
        if self.task_env_config.os != TaskOS.LINUX:
            raise RuntimeError("the arkevo sandbox runs Linux tasks only")
        workdir = PurePosixPath(self.task_env_config.workdir) if self.task_env_config.workdir else None
        try:
            self._image = read_task_image(Path(self.environment_dir), workdir or DEFAULT_WORKDIR)
        except TaskImageError as exc:
            raise SandboxBuildFailedError(str(exc)) from exc
        self.workdir = workdir or self._image.workdir or DEFAULT_WORKDIR
        if (not self.workdir.is_absolute() or ".." in self.workdir.parts
                or any(self.workdir.is_relative_to(r) or PurePosixPath(r).is_relative_to(self.workdir)
                       for r in RESERVED)):
            raise SandboxBuildFailedError(
                f"workdir {self.workdir} cannot be mapped: it must be an absolute path outside "
                f"{', '.join(RESERVED)}")

    def validate_network_policy_support(self, network_policy: NetworkPolicy | None = None) -> None:
        policy = network_policy or self._network_policy
        if policy.network_mode == NetworkMode.ALLOWLIST:
            raise ValueError(
                "network_mode='allowlist' is not supported by the arkevo sandbox: every trial "
                "runs with no network at all (its own loopback only). Set "
                "[environment].network_mode = 'no-network', or use Harbor's docker environment "
                "for tasks that need an egress allowlist.")

    async def _apply_network_policy(self, network_policy: NetworkPolicy) -> None:
        return  # validated above; the sandbox stays loopback-only whatever the phase

    # -- lifecycle -----------------------------------------------------------------------

    async def start(self, force_build: bool) -> None:
        if self._sandbox is not None:
            raise RuntimeError("environment already started")
        memory_mb = self._resource_limit_value("memory", auto_mode=ResourceMode.LIMIT)
        cpus = self._resource_limit_value("cpu", auto_mode=ResourceMode.LIMIT)
        if (offer := prestart.offered()) is not None and self.role == "solver":
            self._pool, self._refill = offer.pool, offer.refill
            self._pool_key = await asyncio.to_thread(self._prestart_key, memory_mb, cpus)
            if (entry := await offer.pool.take(self._pool_key)) is not None:
                self._adopt(entry)
                return
        sandbox = TrialSandbox(self.settings, name=self.session_id, workdir=self.workdir,
                               memory_bytes=self.settings.memory_bytes(memory_mb), cpus=cpus,
                               verifier=self.role == "verifier")
        if self.role == "solver" and (server := sandbox.fork_server()) is not None:
            server.start()  # ready (bpy imported) by the time a host is spawned, most often
        await sandbox.open()
        self._sandbox = sandbox
        try:
            await asyncio.to_thread(self._populate)
        except BaseException:
            await self.stop(delete=True)
            raise
        if self._network_policy.network_mode == NetworkMode.PUBLIC:
            self.logger.warning("task asks for public network; the arkevo sandbox runs it with "
                                "no network (loopback only)")
        if self._effective_storage_mb:
            self.logger.warning(f"storage_mb={self._effective_storage_mb} is not enforced by the "
                                f"arkevo sandbox; each file is capped at {self.settings.fsize_mb} MiB")
        slot = sandbox.slot
        assert slot is not None  # held since open()
        self._log.event("start", role=self.role, slot=slot.index, user=slot.user, uid=slot.uid,
                        workdir=str(self.workdir), memory_bytes=sandbox.memory_bytes, cpus=cpus,
                        pids_max=self.settings.pids_max, rlimits=self.settings.rlimits(),
                        network="loopback only", ignored_dockerfile=self._image.ignored)

    # -- pre-started sandboxes (sandbox/prestart.py) ------------------------------------------

    async def prepare_held_launches(self) -> None:
        """Build the namespaces held launches are forked into now, not at the first exec
        (a pre-started sandbox does it while it waits for its trial)."""
        await self._require_started().hold_namespaces()

    def _prestart_key(self, memory_mb, cpus) -> str:
        """What makes two solver sandboxes interchangeable before anything runs in them: the
        task's files (by content), its image's environment and workdir, the settings, limits."""
        files = []
        for source, target in self._image.copies:
            source = Path(source)
            found = sorted(p for p in source.rglob("*") if p.is_file()) if source.is_dir() else [source]
            files += [[str(target), p.relative_to(source).as_posix(), sha256_file(p)] for p in found]
        return sha256_hex(canonical_json_bytes(
            [str(self.workdir), self._image.env, self._persistent_env, self.settings.model_dump(mode="json"),
             memory_mb, cpus, self._enable_environment_dir_upload, files]))

    def _adopt(self, entry: prestart.Prestarted) -> None:
        """Take a pre-started sandbox whole: its slot, cgroup, namespaces and files, and its
        spawned host and server for this trial's MCP session (take_prestarted)."""
        twin = entry.environment
        self._sandbox, twin._sandbox = twin._sandbox, None
        self._handed = entry
        # The record of its start goes with the trial (its evidence), not left beside the slots.
        kept = self._log.folder / twin._log.path.name
        self._log.folder.mkdir(parents=True, exist_ok=True)
        if twin._log.path.is_file():
            shutil.move(twin._log.path, kept)
        if twin._log.stderr_dir.is_dir():
            shutil.move(twin._log.stderr_dir, self._log.folder / twin._log.stderr_dir.name)
        twin.discard_record()
        slot = self._sandbox.slot
        assert slot is not None  # held since the twin's open()
        self._log.event("start", role=self.role, slot=slot.index, user=slot.user, uid=slot.uid,
                        workdir=str(self.workdir), memory_bytes=self._sandbox.memory_bytes,
                        cpus=self._sandbox.cpus, pids_max=self.settings.pids_max,
                        rlimits=self.settings.rlimits(), network="loopback only",
                        ignored_dockerfile=self._image.ignored, prestarted=twin.session_id,
                        prestarted_log=str(kept), host_pid=entry.host_pid,
                        waited_sec=round(time.monotonic() - entry.created, 3))

    async def take_prestarted(self, config):
        """The pre-started session whose host and server this trial's MCP session adopts, once,
        when it was spawned with the same McpSessionConfig; else None, and a pair spawned with
        another config is stopped first (its host holds the loopback port the session's needs)."""
        entry, self._handed = self._handed, None
        if entry is None:
            return None
        if entry.session.config != config:
            await entry.session.discard_spawned()
            return None
        return entry.session

    def discard_record(self) -> None:
        """Remove a pre-started twin's own trial folder (its start's log, once moved or unwanted)."""
        shutil.rmtree(self.trial_paths.trial_dir, ignore_errors=True)

    def prestarted_replaced(self) -> None:
        if self._pool is not None:
            self._pool.note_replaced()

    async def twin(self) -> ArkevoSandboxEnvironment:
        """A started solver environment of the same task, settings and limits, for the pool:
        its own slot (never waited for), its own exec log beside the slots."""
        made = self._made_with
        name = f"prestart-{uuid.uuid4().hex[:12]}"
        paths = TrialPaths(trial_dir=self.settings.base_dir / "prestarted" / name)
        twin = ArkevoSandboxEnvironment(
            made["environment_dir"], made["environment_name"], name, paths, made["task_env_config"],
            logger=made["logger"], **{**made["kwargs"], "role": "solver", "slot_wait_sec": 0})
        try:
            await twin.start(force_build=False)
        except BaseException:
            twin.discard_record()
            raise
        return twin

    def _populate(self) -> None:
        """Lay the task's files into the fresh slot before any sandboxed process exists."""
        layout = self._layout
        if self.role == "solver" and self._enable_environment_dir_upload:
            for source, target in self._image.copies:
                root, _ = layout.locate(target)
                _host_copy(source, layout.host_path(target), self._owner(root.writable))
        private = self.settings.private_dir or Path(self.environment_dir).parent / "private"
        if self.role == "verifier" and private.is_dir():
            _host_copy(private, layout.host_path("/private"), None)

    async def stop(self, delete: bool) -> None:
        # delete=False cannot keep anything: the slot is wiped either way so the next trial
        # in it starts clean.
        sandbox, self._sandbox = self._sandbox, None
        if sandbox is None:
            return
        stats = await sandbox.close()
        self._log.event("stop", **stats)
        self.prestart_next()  # when the solve ended before any verifier started

    def prestart_next(self) -> None:
        """Have the pool start the next trial's sandbox (once), where this trial's caller said
        another of its task follows. Called when this trial's verifier starts (the solver's work
        is done: the new sandbox starts alongside the verifier, evidence and records), or at
        stop at the latest."""
        if self._pool is not None and self._pool_key is not None and self._refill:
            self._refill = False
            self._pool.refill(self._pool_key, self.twin)

    # -- exec / spawn --------------------------------------------------------------------

    @property
    def private_loopback(self) -> bool:
        """Each sandbox has a network namespace of its own: a fixed port on its loopback is
        free, so an MCP session can start its server alongside its host (sandbox/mcp_session.py)."""
        return True

    @property
    def python(self) -> str:
        """Interpreter to use inside the sandbox: the worker's venv python (with bpy)."""
        return str(self.settings.python_prefix / "bin" / "python3")

    async def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout_sec: int | None = None, user: str | int | None = None) -> ExecResult:
        sandbox = self._require_started()
        user = self._resolve_user(user)
        self._note_user(user)
        cwd = cwd or str(self.workdir)
        timeout = timeout_sec or self.settings.default_timeout_sec
        env = {**self._image.env, **(self._merge_env(env) or {})}
        seq, started = self._log.next_seq(), time.monotonic()
        record: dict[str, Any] = dict(command=command, cwd=cwd, user=user, started=started)
        limit = self.settings.max_output_mb * 1024 * 1024
        callback = self._output_callback()
        # Our own pipes, so the exec can end (and stop reading) when its command does, even
        # if a background process it started still holds them open.
        out, err = await _Capture.open(limit), await _Capture.open(limit)
        pumps = [asyncio.ensure_future(out.pump(callback, "stdout")),
                 asyncio.ensure_future(err.pump(callback, "stderr"))]
        try:
            try:
                # A verifier's scripts (test.sh: the rule probe, the packaged grader) get their
                # `python3 script.py` forked by the fork server, bpy already imported.
                process, group = await sandbox.launch(["bash", "-c", command], env=env, cwd=cwd,
                                                      stdout=out.write_fd, stderr=err.write_fd,
                                                      serve_forks=self.role == "verifier",
                                                      held=True)
            finally:
                out.close_write_end()
                err.close_write_end()
        except LaunchFailed as exc:
            await _finish(pumps, out, err)
            self._log.exec_done(seq, **record, return_code=None, timed_out=False, stdout="",
                                stderr=f"{exc}\n{err.text()}", truncated=False, launch_failed=True)
            raise
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            outcome = await sandbox.end(process, group, kill=True)
            await _finish(pumps, out, err)
            self._log.exec_done(seq, **record, return_code=None, timed_out=True,
                                stdout=out.text(), stderr=err.text(),
                                truncated=out.truncated or err.truncated, **outcome)
            raise RuntimeError(f"Command timed out after {timeout} seconds") from None
        except BaseException:
            await sandbox.end(process, group, kill=True)
            await _finish(pumps, out, err)
            raise
        # Like `docker exec`, the exec ends with its command, not with the last writer: a
        # background process still writing gets EPIPE once the grace period is over.
        await _finish(pumps, out, err)
        outcome = await sandbox.end(process, group, kill=False)
        self._log.exec_done(seq, **record, return_code=process.returncode, timed_out=False,
                            stdout=out.text(), stderr=err.text(),
                            truncated=out.truncated or err.truncated, **outcome)
        return ExecResult(stdout=out.text() or None, stderr=err.text() or None,
                          return_code=process.returncode)

    async def spawn(self, argv: list[str], *, env: dict | None = None,
                    cwd: str | None = None) -> asyncio.subprocess.Process:
        """A long-lived process in this trial's sandbox (same slot, cgroup, pid namespace and
        loopback) with stdin/stdout/stderr pipes, e.g. an MCP stdio server. Killed, with
        everything it started, at stop() at the latest."""
        sandbox = self._require_started()
        if not argv:
            raise ValueError("spawn needs a command")
        env = {**self._image.env, **(self._merge_env(env) or {})}
        process, group = await sandbox.launch(
            list(argv), env=env, cwd=cwd or str(self.workdir),
            stdin=asyncio.subprocess.PIPE, track=True, kind="s", forkable=True)
        # Its processes, bwrap aside, are its cgroup's: a forked command is not bwrap's child.
        process.arkevo_launch_pids = group.pids  # type: ignore[attr-defined]
        self._log.event("spawn", argv=list(argv), cwd=cwd or str(self.workdir), pid=process.pid)
        return process

    # -- files -----------------------------------------------------------------------------
    #
    # Slot-writable roots are only ever read or written by a process inside the sandbox
    # (tar/cat with the slot's uid and Landlock), so a symlink a solver planted can lead only
    # where the solver could go anyway. Read-only roots (/tests, /solution, /private) belong to
    # root and are copied on the host.

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        root, _ = self._locate(target_path, "upload")
        if not root.writable:
            await asyncio.to_thread(_host_copy, Path(source_path),
                                    self._layout.host_path(target_path), None)
            return
        with open(source_path, "rb") as data:
            await self._transfer(["sh", "-c", 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"',
                                  "sh", target_path], stdin=data, what=f"upload {target_path}")

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        root, _ = self._locate(target_dir, "upload")
        source = Path(source_dir)
        if not source.is_dir():
            raise FileNotFoundError(f"{source} is not a directory")
        if not root.writable:
            await asyncio.to_thread(_host_copy, source, self._layout.host_path(target_dir), None)
            return
        with self._scratch() as scratch:
            archive = scratch / "upload.tar"
            await asyncio.to_thread(_pack, source, archive)
            with open(archive, "rb") as data:
                await self._transfer(
                    ["sh", "-c", 'mkdir -p -- "$1" && tar -x --no-same-owner -C "$1" -f -',
                     "sh", target_dir], stdin=data, what=f"upload {target_dir}/")

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        root, _ = self._locate(source_path, "download")
        target = Path(target_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not root.writable:
            await asyncio.to_thread(shutil.copyfile, self._layout.host_path(source_path), target)
            return
        with self._scratch() as scratch:
            partial = scratch / "download"
            with open(partial, "wb") as sink:
                await self._transfer(["cat", "--", source_path], stdout=sink,
                                     what=f"download {source_path}")
            shutil.move(partial, target)

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        root, _ = self._locate(source_dir, "download")
        target = Path(target_dir)
        target.mkdir(parents=True, exist_ok=True)
        if not root.writable:
            await asyncio.to_thread(shutil.copytree, self._layout.host_path(source_dir), target,
                                    symlinks=True, dirs_exist_ok=True)
            return
        with self._scratch() as scratch:
            archive = scratch / "download.tar"
            with open(archive, "wb") as sink:
                await self._transfer(["tar", "-c", "-C", source_dir, "."], stdout=sink,
                                     what=f"download {source_dir}/")
            skipped = await asyncio.to_thread(_unpack, archive, target)
            if skipped:
                self._log.event("download_skipped", path=source_dir, members=skipped[:50],
                                reason="link or special file pointing outside the download")

    async def empty_dirs(self, dirs: Sequence, *, chmod: bool = True) -> ExecResult | None:
        """Harbor empties /tests "as root" before re-uploading; here the worker does it."""
        rest = []
        for directory in dirs:
            root, _ = self._locate(str(directory), "empty")
            if root.writable:
                rest.append(directory)
            else:
                await asyncio.to_thread(_empty_host_dir, self._layout.host_path(str(directory)))
        return await super().empty_dirs(rest, chmod=chmod) if rest else None

    # -- helpers -----------------------------------------------------------------------------

    @property
    def _layout(self) -> Layout:
        layout = self._require_started().layout
        assert layout is not None  # laid out by open()
        return layout

    def _require_started(self) -> TrialSandbox:
        if self._sandbox is None:
            raise RuntimeError("the arkevo sandbox environment is not started")
        return self._sandbox

    def _owner(self, writable: bool) -> tuple[int, int] | None:
        slot = self._require_started().slot
        assert slot is not None  # held while started
        return (slot.uid, slot.gid) if writable else None

    def _locate(self, path: str, action: str):
        try:
            root, rel = self._layout.locate(path)
            if (action == "download" and self.role == "verifier"
                    and not PurePosixPath(path).is_relative_to("/logs/verifier")
                    and not path.startswith(HARBOR_TRANSFER_PREFIX)):
                raise SandboxPathError(
                    f"{path}: only /logs/verifier is read back from a verifier sandbox")
        except SandboxPathError as exc:
            self._log.event("refused", action=action, path=path, reason=str(exc))
            raise
        return root, rel

    def _note_user(self, user) -> None:
        # One identity per slot: "root" and named users all run as the slot's user (the
        # sandbox never has root); the directories Harbor chmods as root are prepared for it.
        # A task's non-root user (`[agent] user`, which our tasks set for Docker) asks for
        # exactly that, so it is noted, not warned about.
        assert self._sandbox is not None and self._sandbox.slot is not None  # exec() checked it is started
        if user not in (None, 0, "root", self._sandbox.slot.user) and "user" not in self._warned:
            self._warned.add("user")
            self.logger.info(f"user {user!r} runs as the sandbox slot user "
                             f"{self._sandbox.slot.user}")

    @contextlib.contextmanager
    def _scratch(self):
        base = self.settings.base_dir / "transfers"
        base.mkdir(mode=0o700, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=base) as tmp:
            yield Path(tmp)

    async def _transfer(self, argv: list[str], *, what: str, stdin=None, stdout=None) -> None:
        # Every failed transfer is on record with its cause: "command" (tar/cat ran on the
        # sandbox's own files and failed: what the solver left there), "launch" or "timeout"
        # (the sandbox machinery). Harbor collects artifacts best-effort, so the trial backend
        # reads this record to tell a lost delivery's cause (docs/failures.md).
        sandbox = self._require_started()
        for attempt in range(1, TRANSFER_LAUNCH_ATTEMPTS + 1):
            try:
                process, group = await sandbox.launch(
                    argv, env={}, cwd="/", kind="t", held=True,
                    stdin=stdin if stdin is not None else asyncio.subprocess.DEVNULL,
                    stdout=stdout if stdout is not None else asyncio.subprocess.DEVNULL)
                break
            except LaunchFailed as exc:
                # The command never ran, so a transfer is safe to launch again: a rare
                # "bwrap exited early" under load must not cost the trial its delivery.
                self._log.event("transfer_launch_failed", what=what, attempt=attempt,
                                error=str(exc)[-2000:])
                if attempt == TRANSFER_LAUNCH_ATTEMPTS:
                    self._log.event("transfer_failed", what=what, cause="launch",
                                    error=str(exc)[-2000:])
                    raise
                for stream in (stdin, stdout):
                    if hasattr(stream, "seek"):
                        stream.seek(0)
                        if stream is stdout:
                            stream.truncate()
                await asyncio.sleep(0.5 * attempt)
        assert process.stderr is not None  # launch() pipes stderr by default
        try:
            stderr = await asyncio.wait_for(process.stderr.read(), TRANSFER_TIMEOUT_SEC)
            await asyncio.wait_for(process.wait(), TRANSFER_TIMEOUT_SEC)
        except BaseException as exc:
            await sandbox.end(process, group, kill=True)
            if isinstance(exc, TimeoutError):
                self._log.event("transfer_failed", what=what, cause="timeout")
            raise
        await sandbox.end(process, group, kill=False)
        if process.returncode != 0:
            message = stderr.decode(errors="replace").strip()
            self._log.event("transfer_failed", what=what, cause="command",
                            return_code=process.returncode, stderr=message[-2000:])
            raise RuntimeError(f"sandbox {what} failed ({process.returncode}): {message}")


class _Capture:
    """Bounded capture of one output stream of an exec, read from a pipe we own (so we can
    close it), optionally forwarded to Harbor's output callback."""

    def __init__(self, limit: int, write_fd: int, reader: asyncio.StreamReader, transport):
        self.limit = limit
        self.write_fd: int | None = write_fd
        self.reader = reader
        self.transport = transport
        self.data = bytearray()
        self.truncated = False

    @classmethod
    async def open(cls, limit: int) -> _Capture:
        read_fd, write_fd = os.pipe()
        reader = asyncio.StreamReader(limit=1024 * 1024)
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", 0))
        return cls(limit, write_fd, reader, transport)

    def close_write_end(self) -> None:
        if self.write_fd is not None:
            os.close(self.write_fd)
            self.write_fd = None

    async def pump(self, callback, name) -> None:
        while chunk := await self.reader.read(65536):
            room = self.limit - len(self.data)
            if room > 0:
                self.data += chunk[:room]
            if len(chunk) > room:
                self.truncated = True
            if callback is not None:
                await callback(chunk.decode(errors="replace"), name)

    def close(self) -> None:
        self.close_write_end()
        self.transport.close()

    def text(self) -> str:
        text = self.data.decode(errors="replace")
        return text + "\n[output truncated by the sandbox]\n" if self.truncated else text


async def _finish(pumps: Sequence[asyncio.Future], *captures: _Capture,
                  grace_sec: float = OUTPUT_GRACE_SEC) -> None:
    """Let the output pumps drain for up to grace_sec, then stop reading and close the pipes."""
    _, pending = await asyncio.wait(pumps, timeout=grace_sec)
    for pump in pending:
        pump.cancel()
    await asyncio.gather(*pumps, return_exceptions=True)
    for capture in captures:
        capture.close()


def _host_copy(source: Path, target: Path, owner: tuple[int, int] | None) -> None:
    """Worker-side copy into a slot folder. owner=None: root-owned and world-readable (the
    read-only roots); scripts keep or get their exec bit, since nobody can chmod them later."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
        paths = [target, *target.rglob("*")]
    else:
        shutil.copy2(source, target)
        paths = [target]
    for path in paths:
        if path.is_symlink():
            if owner:
                os.lchown(path, *owner)
            continue
        if owner:
            os.chown(path, *owner)
        elif path.is_dir():
            path.chmod(0o755)
        else:
            executable = path.suffix == ".sh" or path.stat().st_mode & 0o111
            path.chmod(0o755 if executable else 0o644)


def _empty_host_dir(path: Path) -> None:
    path.mkdir(mode=0o755, parents=True, exist_ok=True)
    for child in path.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def _pack(source: Path, archive: Path) -> None:
    with tarfile.open(archive, "w") as tar:
        for child in sorted(source.iterdir()):
            tar.add(child, arcname=child.name)


def _unpack(archive: Path, target: Path) -> list[str]:
    """Extract what the sandbox packed, skipping (not failing on) members that would leave
    the target: absolute or escaping links, device files. Returns the skipped names."""
    skipped: list[str] = []

    def safe(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
        try:
            return transfer_tar_filter(member, dest)
        except tarfile.FilterError:
            skipped.append(member.name)
            return None

    with tarfile.open(archive, "r") as tar:
        tar.extractall(target, filter=safe)
    return skipped
