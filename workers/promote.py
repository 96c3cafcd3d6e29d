"""`python -m workers.promote`: make this code's Worker Deployment Version current.

With worker versioning on (docs/operations.md, "Worker versioning and shutdown") every worker
registers as version `<deployment name>.<build id>`, and Temporal hands new workflow tasks only
to the deployment's *current* version: a freshly started version gets nothing until promoted.
This command waits until the version has pollers on all four task queues (arkevo-control for
workflows; arkevo-cpu, arkevo-gpu, arkevo-llm for activities), then sets it current. It retries
while the version does not exist yet (workers still starting) or a queue lacks its poller, and
fails with exit status 1 and the reason once `--timeout` has passed.

    python -m workers.promote                    # ARKEVO_DEPLOYMENT_NAME, ARKEVO_TEMPORAL_ADDRESS
    python -m workers.promote --timeout 900
    python -m workers.promote --print-build-id   # this checkout's build id; no server needed

The build id is computed from the code exactly as the workers compute it (`code_digest`), so a
one-shot job run from the same image promotes exactly the version those workers registered.

Environment: ARKEVO_DEPLOYMENT_NAME (default "arkevo"); ARKEVO_TEMPORAL_ADDRESS and
ARKEVO_TEMPORAL_NAMESPACE (default localhost:7233, "default"; the connection is made as the
workers make it, so TLS and API-key settings apply alike); ARKEVO_PROMOTE_TIMEOUT_SEC (default
600).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from temporalio.api.deployment.v1 import WorkerDeploymentVersion as VersionProto
from temporalio.api.enums.v1 import TaskQueueType, WorkerDeploymentVersionStatus
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import (DescribeTaskQueueRequest,
                                               DescribeWorkerDeploymentVersionRequest,
                                               SetWorkerDeploymentCurrentVersionRequest)
from temporalio.client import Client
from temporalio.common import WorkerDeploymentVersion
from temporalio.service import RPCError, RPCStatusCode

from contracts import queues
from contracts.digests import canonical_file_bytes, canonical_json_bytes, sha256_hex
from workers.client import ClientConfigError, exit_process
from workers.client import connect as client_connect
from workflows.versioning import versioning_enabled

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DEPLOYMENT = "arkevo"
IDENTITY = "arkevo-promote"

# --- the build id: a digest of the code the workers run -----------------------------------------

# Every top-level folder holding Python modules is first-party code a worker may import
# (workflows, activities, contracts, sandbox, storage, verifiers, …; a folder without an
# __init__.py would count too). tests/ and bench/ never run in a worker; data folders (seeds,
# datasets, docs) hold no modules of their own and are left out.
CODE_EXCLUDED_DIRS = frozenset({"tests", "bench"})
CODE_FILES = ("pyproject.toml", "uv.lock")  # dependency versions (the SDK's among them)
_SKIP_SUFFIXES = frozenset({".pyc", ".pyo", ".blend1"})
BUILD_ID_LENGTH = 16


def code_dirs(root: Path) -> list[str]:
    return sorted(p.name for p in Path(root).iterdir()
                  if p.is_dir() and not p.name.startswith(".") and p.name not in CODE_EXCLUDED_DIRS
                  and any(p.glob("*.py")))


def code_files(root: Path) -> list[str]:
    """Relative POSIX paths the build id covers, sorted: every file under `code_dirs` (caches,
    hidden files and editor backups left out) plus pyproject.toml and uv.lock."""
    root = Path(root)
    paths = []
    for folder in code_dirs(root):
        base = root / folder
        for path in base.rglob("*"):
            rel = path.relative_to(base).parts
            if (path.is_file() and path.suffix not in _SKIP_SUFFIXES
                    and not any(p == "__pycache__" or p.startswith(".") for p in rel)):
                paths.append(path.relative_to(root).as_posix())
    paths += [name for name in CODE_FILES if (root / name).is_file()]
    return sorted(paths)


def _file_digest(path: Path) -> str:
    try:
        return sha256_hex(canonical_file_bytes(path))  # LF line endings, canonical JSON
    except Exception:  # noqa: BLE001 — a malformed JSON file is still code: its raw bytes
        return sha256_hex(path.read_bytes())


def code_manifest(root: Path) -> list[list[str]]:
    """`[[relpath, sha256], ...]`: what `code_digest` hashes, kept inspectable
    (`--print-manifest`) so a changed build id can be traced to the file that changed."""
    root = Path(root)
    return [[rel, _file_digest(root / rel)] for rel in code_files(root)]


def code_digest(root: Path) -> str:
    """sha256 over the canonical JSON of `code_manifest(root)`. It covers everything
    `contracts.digests.pipeline_digest` covers (contracts/ and verifiers/) and the workflow,
    activity and worker code that the pipeline digest leaves out."""
    return sha256_hex(canonical_json_bytes(code_manifest(root)))


@functools.cache
def build_id(root: Path = ROOT) -> str:
    """This checkout's build id: the first 16 hex digits of `code_digest` (computed once per
    process; the same in all four pools of one checkout or image)."""
    return code_digest(Path(root))[:BUILD_ID_LENGTH]


# --- deployment version ----------------------------------------------------------------------

def deployment_name(environ=None) -> str:
    environ = os.environ if environ is None else environ
    name = environ.get("ARKEVO_DEPLOYMENT_NAME", "").strip() or DEFAULT_DEPLOYMENT
    if "." in name:
        raise ValueError(f"ARKEVO_DEPLOYMENT_NAME={name!r}: a deployment name cannot contain '.' "
                         "(Temporal writes a version as <deployment name>.<build id>)")
    return name


def deployment_version(environ=None) -> WorkerDeploymentVersion | None:
    """The version this process's workers register as, or None when versioning is off."""
    if not versioning_enabled(environ):
        return None
    return WorkerDeploymentVersion(deployment_name(environ), build_id())


# --- promotion ------------------------------------------------------------------------------------

WORKFLOW = TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW
ACTIVITY = TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY
# What the four pools poll (workers/pools.py): workflows on control, activities on the others.
POOL_TASK_QUEUES: tuple[tuple[str, int], ...] = (
    (queues.CONTROL, WORKFLOW), (queues.CPU, ACTIVITY), (queues.GPU, ACTIVITY), (queues.LLM, ACTIVITY))

# Worth waiting out: the server is starting, busy, or a concurrent routing change won.
_TRANSIENT = {RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED, RPCStatusCode.ABORTED,
              RPCStatusCode.RESOURCE_EXHAUSTED, RPCStatusCode.FAILED_PRECONDITION,
              RPCStatusCode.INTERNAL, RPCStatusCode.UNKNOWN}


class PromoteError(RuntimeError):
    """The version was not made current; the message says why."""


@dataclass(frozen=True)
class Promotion:
    version: str  # <deployment>.<build id>
    previous: str | None  # the version current before (None: unversioned workers had it)
    already_current: bool = False


def _queue_label(name: str, kind: int) -> str:
    return f"{name} ({'workflow' if kind == WORKFLOW else 'activity'})"


async def _missing_queues(client: Client, version: WorkerDeploymentVersion,
                          task_queues) -> tuple[list[str], int]:
    """Task queues that still lack a poller of `version`, and the version's status. Raises
    RPCError NOT_FOUND while no worker of the version has polled yet."""
    described = await client.workflow_service.describe_worker_deployment_version(
        DescribeWorkerDeploymentVersionRequest(
            namespace=client.namespace,
            deployment_version=VersionProto(deployment_name=version.deployment_name,
                                            build_id=version.build_id)))
    registered = {(q.name, q.type) for q in described.version_task_queues}
    missing = []
    for name, kind in task_queues:
        if (name, kind) not in registered:
            missing.append(_queue_label(name, kind))
            continue
        pollers = (await client.workflow_service.describe_task_queue(DescribeTaskQueueRequest(
            namespace=client.namespace, task_queue=TaskQueue(name=name), task_queue_type=kind))).pollers
        if not any(p.deployment_options.build_id == version.build_id
                   and p.deployment_options.deployment_name == version.deployment_name
                   for p in pollers):
            missing.append(_queue_label(name, kind))
    return missing, described.worker_deployment_version_info.status


async def promote(client: Client, version: WorkerDeploymentVersion, *, timeout: float = 600.0,
                  interval: float = 1.0, task_queues=POOL_TASK_QUEUES, log=None) -> Promotion:
    """Wait until `version` has a poller on every queue of `task_queues`, then make it the
    deployment's current version. Raises `PromoteError` with the last reason after `timeout`
    seconds, or at once on an error that waiting cannot mend (bad argument, no permission,
    a server without worker deployments)."""
    canonical = version.to_canonical_string()
    deadline = time.monotonic() + timeout
    reason = last_logged = ""
    while True:
        try:
            missing, status = await _missing_queues(client, version, task_queues)
            if status == WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT:
                return Promotion(canonical, canonical, already_current=True)
            if not missing:
                done = await client.workflow_service.set_worker_deployment_current_version(
                    SetWorkerDeploymentCurrentVersionRequest(
                        namespace=client.namespace, deployment_name=version.deployment_name,
                        build_id=version.build_id, identity=IDENTITY))
                previous = done.previous_deployment_version
                return Promotion(canonical, f"{previous.deployment_name}.{previous.build_id}"
                                 if previous.build_id else None)
            reason = (f"no poller of build {version.build_id} on " + ", ".join(missing)
                      + " yet (are all four pools of this build running and connected?)")
        except RPCError as err:
            if err.status == RPCStatusCode.NOT_FOUND:
                reason = (f"version {canonical} does not exist yet: no worker of build "
                          f"{version.build_id} has polled (are the workers running with "
                          f"ARKEVO_DEPLOYMENT_NAME={version.deployment_name} and this code?)")
            elif err.status in _TRANSIENT:
                reason = f"server said {err.status.name}: {err.message}"
            else:
                raise PromoteError(f"cannot promote {canonical}: server said {err.status.name}: "
                                   f"{err.message}") from err
        left = deadline - time.monotonic()
        if left <= 0:
            raise PromoteError(f"version {canonical} not made current within {timeout:.0f}s: {reason}")
        if log and reason != last_logged:
            log(f"waiting: {reason}")
            last_logged = reason
        await asyncio.sleep(min(interval, left))


async def connect(address: str | None, namespace: str | None, *, timeout: float) -> Client:
    """A client, retried until `timeout` (a one-shot job may start before the server), with the
    workers' settings (workers.client: TLS, API key, profile)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return await client_connect(namespace, address)
        except ClientConfigError as err:
            raise PromoteError(str(err)) from err  # a bad profile file: waiting cannot mend it
        except Exception as err:  # noqa: BLE001 — connection refused, DNS not ready …
            if time.monotonic() >= deadline:
                raise PromoteError(f"cannot connect to Temporal at {address or 'the configured address'} "
                                   f"within {timeout:g}s: {err}") from err
            await asyncio.sleep(1.0)


EXIT_CODES = """\
exit codes:
  0  promoted, or already current (--print-build-id, --print-manifest: printed)
  1  not promoted: the server did not answer (or the client settings do not load), or the
     version's pollers did not all appear within --timeout (the reason on stderr)
  2  bad usage: an unknown option, a bad deployment name or ARKEVO_PROMOTE_TIMEOUT_SEC"""


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m workers.promote", description=__doc__,
                                epilog=EXIT_CODES,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--print-build-id", action="store_true",
                   help="print this code's build id and exit (no server needed)")
    p.add_argument("--print-manifest", action="store_true",
                   help="print the files the build id covers with their sha256, and exit")
    p.add_argument("--deployment-name", default=None,
                   help=f"deployment (ARKEVO_DEPLOYMENT_NAME, default {DEFAULT_DEPLOYMENT!r})")
    p.add_argument("--build-id", default=None,
                   help="promote this build id instead of this code's (e.g. roll back)")
    p.add_argument("--address", default=None, help="Temporal frontend (ARKEVO_TEMPORAL_ADDRESS)")
    p.add_argument("--namespace", default=None, help="namespace (ARKEVO_TEMPORAL_NAMESPACE)")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds to wait for the version's pollers (ARKEVO_PROMOTE_TIMEOUT_SEC, "
                        "default 600)")
    p.add_argument("--interval", type=float, default=2.0, help="seconds between checks")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.print_build_id:
        print(build_id())
        return 0
    if args.print_manifest:
        for rel, digest in code_manifest(ROOT):
            print(f"{digest}  {rel}")
        return 0
    try:
        name = args.deployment_name or deployment_name()
        if "." in name:
            raise ValueError(f"deployment name {name!r} cannot contain '.'")
        timeout = args.timeout if args.timeout is not None else float(
            os.environ.get("ARKEVO_PROMOTE_TIMEOUT_SEC", "600"))
    except ValueError as err:
        print(f"python -m workers.promote: {err}", file=sys.stderr)
        return 2
    version = WorkerDeploymentVersion(name, args.build_id or build_id())
    address = args.address or os.environ.get("ARKEVO_TEMPORAL_ADDRESS")
    namespace = args.namespace or os.environ.get("ARKEVO_TEMPORAL_NAMESPACE")
    where = f"{address or 'localhost:7233'}, {namespace or 'default'}"

    def log(message: str) -> None:
        print(f"promote {version.to_canonical_string()}: {message}", file=sys.stderr, flush=True)

    async def run() -> Promotion | str:
        started = time.monotonic()
        client = None
        try:
            client = await connect(address, namespace, timeout=timeout)
            return await promote(client, version, interval=args.interval, log=log,
                                 timeout=max(0.0, timeout - (time.monotonic() - started)))
        except PromoteError as err:
            return str(err)
        finally:
            # Drop the client while the loop still runs: one that outlives it can crash the
            # interpreter at exit (SDK runtime teardown), turning any exit status into 139.
            del client
            gc.collect()

    done = asyncio.run(run())
    if isinstance(done, str):
        print(f"python -m workers.promote: FAILED: {done}", file=sys.stderr)
        return 1
    if done.already_current:
        print(f"{done.version} is already the current version of {name} ({where})")
    else:
        print(f"{done.version} is now the current version of {name} ({where}); "
              f"previous: {done.previous or 'unversioned'}")
    return 0


if __name__ == "__main__":
    exit_process(main())  # the status the job reports, whatever the SDK runtime does at exit
