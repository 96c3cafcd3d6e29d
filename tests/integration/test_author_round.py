"""Model authoring rounds against a FAKE OpenAI-compatible endpoint (tests/fakes/openai_server.py;
no model can be reached from these machines), with FAKE scripted author sessions
(tests/fakes/author_sessions.py).

`AuthorModelActivities.author_round` runs directly (no Temporal): the table-model workspace is built
once, each round starts a real authoring sandbox (slot user, Landlock, no network) with
Blender on the reference scene. The loop's file tools are also tested without Blender.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.author_model import AuthorModelActivities
from activities.authoring import AuthoringActivities
from storage.content import FilesystemStore
from contracts.model_roles import resolve_endpoint
from contracts.payloads.authoring import BuildWorkspaceInput, WorkspaceBuild
from contracts.payloads.common import BlobRef
from contracts.payloads.model_authoring import AuthorRoundInput, EndpointCheckInput
from verifiers.seed_check import check_seed_dir
from drafting.author_agent import AuthorSession
from drafting.draft_folder import DraftFolder
from drafting.model_client import ModelClient
from sandbox.isolation.settings import SandboxSettings
from tests.adversarial.sandbox_helpers import requires_landlock, sandbox_kwargs
from tests.fakes.author_sessions import (author_needs_input, author_writes, bundled_draft_files,
                                        route_by_role_and_seed)
from tests.fakes.openai_server import FakeOpenAIServer, tool_call, tool_calls

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "seeds" / "table-model"
SECRET = "sk-fake-author-0123456789-do-not-leak"
ROUTE = "author:table-model"
ESCAPES = [("write_file", {"path": "../seed.json", "content": "pwned"}),
           ("write_file", {"path": "materials/brief.md", "content": "pwned"}),
           ("write_file", {"path": "/etc/passwd", "content": "pwned"}),
           ("delete_file", {"path": "seed.json"}),
           ("read_file", {"path": "../../../etc/passwd"}),
           ("write_file", '{"path": "draft/x.md", "content": '),  # malformed JSON
           ("no_such_tool", {})]

pytestmark = [pytest.mark.timeout(300)]


@pytest.fixture
def author_env(monkeypatch):
    """The author endpoint on this 'worker', pointing at a FAKE server; the key is a secret."""
    def configure(base_url: str) -> None:
        monkeypatch.setenv("ARKEVO_AUTHOR_BASE_URL", base_url)
        monkeypatch.setenv("ARKEVO_AUTHOR_API_KEY", SECRET)
        monkeypatch.setenv("ARKEVO_AUTHOR_MODEL", "fake-model")
    return configure


def tool_answers(request) -> list[str]:
    return [m["content"] for m in request.json["messages"] if m["role"] == "tool"]


# --- the loop's file tools, without Blender ------------------------------------------------


def seed_copy(tmp_path: Path) -> DraftFolder:
    seed = tmp_path / "seed"
    (seed / "materials").mkdir(parents=True)
    for rel in ("seed.json", "materials/brief.md", "materials/build_reference.py"):
        (seed / rel).write_bytes((SEED / rel).read_bytes())
    return DraftFolder(seed)


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


async def run_session(fake: FakeOpenAIServer, folder: DraftFolder, max_steps: int = 10):
    endpoint = resolve_endpoint("author", {"ARKEVO_AUTHOR_BASE_URL": fake.base_url,
                                           "ARKEVO_AUTHOR_MODEL": "fake-model"})
    client = ModelClient(endpoint)
    try:
        session = AuthorSession(client, folder, None, seed_id="table-model", round_no=2,
                                feedback=[{"check": "ledger", "message": "REQ-X has no source"}],
                                max_steps=max_steps)
        return await session.run(), client.usage
    finally:
        await client.aclose()


async def test_escapes_are_answered_with_errors_and_nothing_leaves_draft(tmp_path):
    folder = seed_copy(tmp_path)
    folder.write("draft/task.json", "{}")  # the previous round's draft
    outside = {k: v for k, v in snapshot(tmp_path).items() if not k.startswith("seed/draft/")}
    script = [tool_calls(*ESCAPES), tool_call("write_file", {"path": "draft/public/spec.md", "content": "# S"}),
              tool_call("submit", {"summary": "done"})]
    with FakeOpenAIServer({ROUTE: script}, route=route_by_role_and_seed) as fake:
        result, usage = await run_session(fake, folder)
    first = fake.requests[0].json["messages"]
    assert first[0]["content"].startswith("ARKEVO-ROLE: author")
    user = first[1]["content"]
    assert "seed_id: table-model" in user and "round: 2" in user and "REQ-X has no source" in user
    brief = (SEED / "materials" / "brief.md").stat().st_size
    assert f"materials/brief.md ({brief})" in user and "task.json" in user  # previous draft named

    answers = tool_answers(fake.requests[1])
    assert len(answers) == len(ESCAPES) and all(a.startswith("Error:") for a in answers), answers
    assert "only files under draft/" in answers[1] and "absolute paths" in answers[2]
    assert "not valid JSON" in answers[5] and "unknown tool 'no_such_tool'" in answers[6]
    assert result.outcome == "submitted" and result.summary == "done"
    assert {k: v for k, v in snapshot(tmp_path).items() if not k.startswith("seed/draft/")} == outside
    assert folder.draft_files() == ["public/spec.md", "task.json"]
    assert usage.model_calls == 3 and usage.prompt_tokens == 300 and usage.completion_tokens == 60
    calls = result.transcript["tool_calls"]
    assert [c["error"] for c in calls] == [True] * len(ESCAPES) + [False, False]
    assert calls[5]["malformed"] and result.transcript["stop_reason"] == "submitted"


async def test_step_budget_and_empty_submit(tmp_path):
    folder = seed_copy(tmp_path)
    script = [tool_call("submit", {"summary": "nothing yet"}),  # refused: draft/ is empty
              tool_call("read_catalogue", {"section": "probes"})]
    with FakeOpenAIServer({ROUTE: script}, route=route_by_role_and_seed) as fake:
        result, usage = await run_session(fake, folder, max_steps=2)
    assert result.outcome == "no_submission" and usage.model_calls == 2
    answers = tool_answers(fake.requests[1])
    assert answers == ["Error: draft/ is empty; write the draft files before you submit"]
    assert "aabb_within" in result.transcript["tool_calls"][1]["output"]
    assert result.transcript["stop_reason"] == "step_budget_exhausted"


def test_catalogue_sections():
    from drafting.author_prompt import SECTIONS, catalogue
    assert "MOD-01" in catalogue("taxonomy") and "PRF-3DART" in catalogue("taxonomy")
    assert "blender-70-30" in catalogue("profiles")
    assert '"task_id": "table-model"' in catalogue("example")
    assert "moving_parts_shudder" in catalogue("operators") and "solid_parts" in catalogue("probes")
    assert catalogue("nope").startswith("Error: unknown catalogue section")
    assert all(len(catalogue(s)) < 20_000 for s in SECTIONS)  # one tool answer each


def test_route_by_role_and_seed():
    def body(system: str, user: str) -> dict:
        return {"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
    assert route_by_role_and_seed(body("ARKEVO-ROLE: author\n...", "seed_id: a-b\n")) == "author:a-b"
    assert route_by_role_and_seed(body("x\nARKEVO-ROLE: reviewer", "hi\nseed_id: s1")) == "reviewer:s1"
    assert route_by_role_and_seed(body("ARKEVO-ROLE: deriver", "source_id: t9")) == "deriver:t9"
    assert route_by_role_and_seed(body("no role", "seed_id: a")) == "unrouted"


# --- no endpoint, no sandbox: refused in seconds -------------------------------------------


async def test_no_author_endpoint_fails_fast(tmp_path, monkeypatch):
    monkeypatch.delenv("ARKEVO_AUTHOR_BASE_URL", raising=False)
    dummy = BlobRef("missing", "0" * 64, 0)  # never read: the endpoint is resolved first
    req = AuthorRoundInput("table-model", dummy, WorkspaceBuild(dummy, dummy), 1, None, [])
    activities = AuthorModelActivities(FilesystemStore(tmp_path / "store"))
    with pytest.raises(ApplicationError) as caught:  # before reading anything (dummy refs)
        await activities.author_round(req)
    assert caught.value.type == "ModelNotConfigured" and caught.value.non_retryable
    assert "ARKEVO_AUTHOR_BASE_URL" in str(caught.value)
    with pytest.raises(ApplicationError) as caught:
        await activities.check_model_endpoints(EndpointCheckInput(["author"]))
    assert caught.value.type == "ModelNotConfigured"

    monkeypatch.setenv("ARKEVO_AUTHOR_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ARKEVO_AUTHOR_API_KEY", SECRET)
    described = await activities.check_model_endpoints(EndpointCheckInput(["author"]))
    assert described[0]["model"] and SECRET not in json.dumps(described)
    with pytest.raises(ApplicationError) as caught:
        await AuthorModelActivities(activities.store, local=True).author_round(req)
    assert caught.value.type == "SandboxRequired" and caught.value.non_retryable


# --- whole rounds in the authoring sandbox -------------------------------------------------


@pytest.fixture(scope="module")
def sandbox_base(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("author-sandbox")


@pytest.fixture(scope="module")
async def table_round(tmp_path_factory, sandbox_base):
    """The table-model seed (seed.json + materials, no draft) in a store, its workspace built."""
    checked = check_seed_dir(SEED)
    store = FilesystemStore(tmp_path_factory.mktemp("author-store"))
    tree = store.put_tree(SEED, sorted({*checked.material_paths, "seed.json"}))
    isolation = SandboxSettings(**sandbox_kwargs(sandbox_base))
    build = await AuthoringActivities(store, isolation).build_workspace(
        BuildWorkspaceInput(tree, checked.reference_project, checked.manifest.start_mode))
    return store, AuthorRoundInput("table-model", tree, build, 1, None, [])


def activities_for(store, sandbox_base: Path) -> AuthorModelActivities:
    return AuthorModelActivities(store, sandbox_kwargs(sandbox_base))


@pytest.mark.blender
@requires_landlock
async def test_author_round_writes_the_draft_in_the_sandbox(table_round, sandbox_base, author_env):
    store, req = table_round
    bundled = bundled_draft_files(SEED)
    files = {**bundled, "draft/notes.md": f"endpoint key: {SECRET}\n"}  # a model leaking the key
    with FakeOpenAIServer({ROUTE: author_writes(files)}, route=route_by_role_and_seed) as fake:
        author_env(fake.base_url)
        result = await activities_for(store, sandbox_base).author_round(req)

    assert result.outcome == "submitted" and result.summary == "FAKE author: draft written"
    # the reference scene really is open in the sandbox's Blender
    scene = tool_answers(fake.requests[1])[0]
    assert "OBJECTS" in scene and "'Tabletop'" in scene and "'Leg.FL'" in scene, scene
    assert "Catalogue request" in tool_answers(fake.requests[2])[-1]  # read materials/brief.md

    entries = store.tree_entries(result.draft)
    assert set(entries) == {p.removeprefix("draft/") for p in files}
    for rel, text in bundled.items():
        assert store.get_bytes(store.tree_file(result.draft, rel.removeprefix("draft/"))) == text.encode()
    notes = store.get_bytes(store.tree_file(result.draft, "notes.md")).decode()
    assert notes == "endpoint key: [REDACTED:ARKEVO_AUTHOR_API_KEY]\n"

    assert result.usage.role == "author" and result.usage.model == "fake-model"
    assert result.usage.model_calls == len(fake.requests) and result.usage.prompt_tokens == 100 * len(fake.requests)
    assert result.usage.completion_tokens == 20 * len(fake.requests)
    assert all(r.headers["Authorization"] == f"Bearer {SECRET}" for r in fake.requests)
    assert not any(SECRET in r.body for r in fake.requests)
    transcript = store.get_bytes(result.transcript).decode()
    assert SECRET not in transcript and "[REDACTED:ARKEVO_AUTHOR_API_KEY]" in transcript
    record = json.loads(transcript)
    assert record["outcome"] == "submitted" and record["endpoint"]["model"] == "fake-model"
    assert "execute_blender_code" in record["tools"] and "search_assets" not in record["tools"]


@pytest.mark.blender
@requires_landlock
async def test_author_round_refuses_escapes(table_round, sandbox_base, author_env):
    store, req = table_round
    script = [tool_calls(*ESCAPES),
              tool_call("write_file", {"path": "draft/task.json", "content": "{}"}),
              tool_call("submit", {"summary": "tried"})]
    with FakeOpenAIServer({ROUTE: script}, route=route_by_role_and_seed) as fake:
        author_env(fake.base_url)
        result = await activities_for(store, sandbox_base).author_round(req)
    answers = tool_answers(fake.requests[1])
    assert len(answers) == len(ESCAPES) and all(a.startswith("Error:") for a in answers), answers
    assert result.outcome == "submitted" and set(store.tree_entries(result.draft)) == {"task.json"}
    assert "pwned" not in Path("/etc/passwd").read_text()


@pytest.mark.blender
@requires_landlock
async def test_author_round_needs_input_and_endpoint_errors(table_round, sandbox_base, author_env):
    store, req = table_round
    missing = ["the table's leg profile", "the wood colour"]
    with FakeOpenAIServer({ROUTE: author_needs_input(missing)}, route=route_by_role_and_seed) as fake:
        author_env(fake.base_url)
        result = await activities_for(store, sandbox_base).author_round(req)
    assert result.outcome == "needs_input" and result.missing == missing and result.draft is None
    assert result.usage.model_calls == 2

    # an endpoint that refuses the request (here: a FAKE script with no replies, HTTP 400)
    with FakeOpenAIServer({}, route=route_by_role_and_seed) as fake:
        author_env(fake.base_url)
        with pytest.raises(ApplicationError) as caught:
            await activities_for(store, sandbox_base).author_round(req)
    assert caught.value.type == "ModelEndpointError" and caught.value.non_retryable
    assert "fake script exhausted for route author:table-model" in str(caught.value)


@pytest.mark.blender
@requires_landlock
async def test_blender_host_killed_by_the_author_ends_the_round(table_round, sandbox_base, author_env):
    store, req = table_round
    script = [tool_call("write_file", {"path": "draft/instruction.md", "content": "# Hi"}),
              tool_call("execute_blender_code", {"code": "import os\nos._exit(3)\n"})]
    with FakeOpenAIServer({ROUTE: script}, route=route_by_role_and_seed) as fake:
        author_env(fake.base_url)
        result = await activities_for(store, sandbox_base).author_round(req)
    assert result.outcome == "no_submission" and len(fake.requests) == 2
    record = store.get_json(result.transcript)
    assert record["stop_reason"] == "blender_host_failed" and record["host_failure"]["kind"] == "author"
    assert set(store.tree_entries(result.draft)) == {"instruction.md"}  # kept for the record
