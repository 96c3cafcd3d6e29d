"""Final review and task derivation activities, called directly (no Temporal), against the FAKE
OpenAI-compatible endpoint (tests/fakes) with scripted replies: not a model. The API keys are
secrets that must never reach a stored transcript."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.derivation import DerivationActivities
from activities.draft_review import DraftReviewActivities
from contracts.errors import (DERIVED_SEED_CONFLICT, DERIVER_REPLY_INVALID, INVALID_SOURCE_TASK,
                               MODEL_ENDPOINT_ERROR, MODEL_NOT_CONFIGURED, REVIEWER_REPLY_INVALID)
from storage.content import FilesystemStore
from contracts.payloads.derivation import (CandidateRequest, DerivationRecordInput, DerivedTask, NoveltyInput,
                                           WriteSeedInput)
from contracts.payloads.model_authoring import FinalReviewInput
from verifiers.seed_check import check_seed_dir
from tests.fakes.derivation_sessions import (candidates_reply, harbor_task_from_draft,
                                             pattern_reply, reviewer_reply, table_like_candidate)
from tests.fakes.openai_server import FakeOpenAIServer, error, final

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "seeds" / "table-model"
THRESHOLD = json.loads((ROOT / "contracts" / "pipeline.json").read_text())["derivation_similarity_threshold"]
SECRET = "sk-fake-secret-never-stored-4711"
REPORT = {"margin": 0.45, "required_margin": 0.2, "min_good": 0.93, "max_bad": 0.48, "passed": True,
          "misses": [], "samples": []}


@pytest.fixture
def store(tmp_path) -> FilesystemStore:
    return FilesystemStore(tmp_path / "store")


def assert_no_secret(store: FilesystemStore) -> None:
    leaked = [p for p in store.objects.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert leaked == []


def review_input(store) -> FinalReviewInput:
    return FinalReviewInput("table-model", store.put_tree(SEED), store.put_json(REPORT), round=2)


@pytest.fixture
def reviewer(monkeypatch):
    def start(*replies):
        fake = FakeOpenAIServer(list(replies)).start()
        monkeypatch.setenv("ARKEVO_REVIEWER_BASE_URL", fake.base_url)
        monkeypatch.setenv("ARKEVO_REVIEWER_API_KEY", SECRET)
        monkeypatch.setenv("ARKEVO_REVIEWER_MODEL", "fake-reviewer")
        started.append(fake)
        return fake
    started: list[FakeOpenAIServer] = []
    yield start
    for fake in started:
        fake.stop()


async def test_final_review_accepts(store, reviewer):
    fake = reviewer(reviewer_reply("accept", []))
    verdict = await DraftReviewActivities(store).final_review(review_input(store))
    assert (verdict.verdict, verdict.reasons) == ("accept", [])
    assert set(verdict.checks) == {"coverage", "leaks", "client_request", "margins"}
    assert verdict.facts["coverage"]["complete"] and verdict.facts["margins"]["meets_required"]
    assert (verdict.usage.role, verdict.usage.model, verdict.usage.model_calls) == ("reviewer", "fake-reviewer", 1)
    [request] = fake.requests
    assert request.headers["Authorization"] == f"Bearer {SECRET}"
    messages = request.json["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]  # a fresh context
    assert "ARKEVO-ROLE: reviewer" in messages[0]["content"]
    assert messages[1]["content"].startswith("seed_id: table-model\n")
    transcript = store.get_json(verdict.transcript)
    assert transcript["messages"][-1]["role"] == "assistant" and transcript["round"] == 2


async def test_final_review_rejects_with_reasons_and_keeps_no_secret(store, reviewer):
    reasons = ["the instruction gives away the leg size 0.06 m", f"echoed key {SECRET}"]
    reviewer(reviewer_reply("reject", reasons, {"leaks": {"ok": False, "note": "leg size"}}))
    verdict = await DraftReviewActivities(store).final_review(review_input(store))
    assert verdict.verdict == "reject" and verdict.reasons[0] == reasons[0]
    assert SECRET not in json.dumps(verdict.reasons) and "[REDACTED:ARKEVO_REVIEWER_API_KEY]" in verdict.reasons[1]
    assert verdict.checks == {"leaks": {"ok": False, "note": "leg size"}}
    assert_no_secret(store)


async def test_an_unreadable_verdict_gets_one_follow_up_then_fails(store, reviewer):
    fake = reviewer(final("I think it is fine."), final('{"verdict": "maybe"}'))
    with pytest.raises(ApplicationError) as raised:
        await DraftReviewActivities(store).final_review(review_input(store))
    assert raised.value.type == REVIEWER_REPLY_INVALID and raised.value.non_retryable
    assert "verdict must be one of" in str(raised.value)
    follow_up = fake.requests[1].json["messages"]
    assert [m["role"] for m in follow_up] == ["system", "user", "assistant", "user"]
    assert "could not be read" in follow_up[-1]["content"]


async def test_an_endpoint_that_refuses_the_request_is_not_retried(store, reviewer):
    fake = reviewer(error(401, message="bad key"))
    with pytest.raises(ApplicationError) as raised:
        await DraftReviewActivities(store).final_review(review_input(store))
    assert raised.value.type == MODEL_ENDPOINT_ERROR and raised.value.non_retryable
    assert "reviewer model endpoint" in raised.value.message and len(fake.requests) == 1


async def test_no_reviewer_endpoint_names_the_variable(store, monkeypatch):
    monkeypatch.delenv("ARKEVO_REVIEWER_BASE_URL", raising=False)
    with pytest.raises(ApplicationError) as raised:
        await DraftReviewActivities(store).final_review(review_input(store))
    assert raised.value.type == MODEL_NOT_CONFIGURED and raised.value.non_retryable
    assert "ARKEVO_REVIEWER_BASE_URL" in str(raised.value)


# --- task derivation --------------------------------------------------------------------------

SIDE_TABLE_BRIEF = """# Bedside companion piece

Hi! For the bedroom collection we want a compact square side table in Blender, starting from
the blank file. Square board 0.50 by 0.50, floor to board surface 0.55, board 0.02 thick, four
thin posts under the corners. Objects: `SideTop`, `Post.FL`, `Post.FR`, `Post.BL`, `Post.BR`;
material `Walnut` on all of them. Acceptance list: REQ-PARTS, REQ-OVERALL-SIZE, REQ-TOP-SIZE,
REQ-ON-FLOOR, REQ-LEG-PLACEMENT, REQ-LEGS-MEET-TOP, REQ-MATERIAL. Send back result.blend.
"""


def three_candidates() -> list[dict]:
    text = (SEED / "draft/instruction.md").read_text() + "\n" + (SEED / "draft/public/spec.md").read_text()
    renamed = text.replace("dining table", "kitchen table").replace("Dining table", "Kitchen table")
    return [
        table_like_candidate("writing-desk", "Writing desk", "writing desk", 1.40, 0.70, 0.74, 0.03,
                             0.05, top_name="DeskTop", leg_prefix="DeskLeg", material="Oak"),
        table_like_candidate("side-table", "Side table", "side table", 0.50, 0.50, 0.55, 0.02,
                             0.04, top_name="SideTop", leg_prefix="Post", material="Walnut",
                             brief=SIDE_TABLE_BRIEF),
        table_like_candidate("kitchen-table", "Kitchen table", "kitchen table", 1.20, 0.80, 0.75,
                             0.04, 0.06, brief=renamed),
    ]


@pytest.fixture
def deriver(monkeypatch, tmp_path, store):
    source = harbor_task_from_draft(SEED / "draft", tmp_path / "publications" / "table-model" / "task")
    monkeypatch.setenv("ARKEVO_AUTHOR_API_KEY", SECRET)
    monkeypatch.setenv("ARKEVO_AUTHOR_MODEL", "fake-deriver")
    return DerivationActivities(store, tmp_path), source


async def test_derivation_keeps_new_seeds_and_drops_the_near_copy(deriver, store, tmp_path, monkeypatch):
    acts, source_dir = deriver
    source = acts.read_source_task(str(source_dir))
    assert source.source_id == "table-model"
    summary = store.get_json(source.summary)
    assert set(summary["public"]) == {"spec.md"} and summary["rubric"]["criteria"]

    with FakeOpenAIServer([pattern_reply(), candidates_reply(three_candidates())]) as fake:
        monkeypatch.setenv("ARKEVO_AUTHOR_BASE_URL", fake.base_url)
        pattern = await acts.extract_pattern(source)
        made = await acts.generate_candidates(CandidateRequest(source, pattern, k=3))
        sent = [r.json["messages"] for r in fake.requests]
    for messages in sent:
        assert "ARKEVO-ROLE: deriver" in messages[0]["content"]
        assert messages[1]["content"].startswith("source_id: table-model\n")
    assert store.get_json(pattern.pattern)["pattern"]["skill"]
    assert (pattern.usage.role, made.usage.role, made.usage.model) == ("deriver", "deriver", "fake-deriver")
    assert [c.seed_id for c in made.candidates] == ["writing-desk", "side-table", "kitchen-table"]
    assert made.rejected == []
    seed_json = json.loads(store.get_bytes(store.tree_file(made.candidates[0].files, "seed.json")))
    assert seed_json["provenance"] == {
        "source": f"derived from table-model ({source.summary.sha256}) by arkevo TaskDerivation",
        "license": "CC0-1.0", "collected_by": "arkevo TaskDerivation",
        # a foreign Harbor task without a lineage is its own root (docs/datasets.md, "Lineage")
        "lineage": {"root_seed": "table-model", "family": "table-model",
                    "derived_from": [{"task_id": "table-model"}]}}
    assert (source.lineage_root, source.lineage_family, source.placements) == ("table-model", "table-model", [])

    verdicts = acts.measure_novelty(NoveltyInput(source, made.candidates, THRESHOLD))
    assert [(v.seed_id, v.accepted) for v in verdicts] == [
        ("writing-desk", True), ("side-table", True), ("kitchen-table", False)]
    near = verdicts[2]
    assert near.max_similarity == near.similarity["source"]["combined"] >= THRESHOLD
    assert "near-duplicate of source" in near.reason
    assert set(verdicts[1].similarity) == {"source", "writing-desk"}  # earlier accepted ones
    assert set(verdicts[2].similarity) == {"source", "writing-desk", "side-table"}

    out = tmp_path / "derived"
    tasks = []
    for candidate, verdict in zip(made.candidates, verdicts):
        if verdict.accepted:
            path = acts.write_derived_seed(WriteSeedInput(candidate, str(out)))
            assert Path(path) == out / candidate.seed_id
            checked = check_seed_dir(Path(path))
            assert checked.reference_project == "materials/build_reference.py" and checked.task is None
            assert acts.write_derived_seed(WriteSeedInput(candidate, str(out))) == path  # reused
            tasks.append(DerivedTask("table-model", candidate.seed_id, "published", seed_path=path,
                                     max_similarity=verdict.max_similarity))
        else:
            tasks.append(DerivedTask("table-model", candidate.seed_id, "near_duplicate", verdict.reason,
                                     verdict.max_similarity))
    assert sorted(p.name for p in out.iterdir()) == ["side-table", "writing-desk"]  # no temp left
    # no out_dir: the worker's own derived/ folder, one per derivation run
    default = DerivationActivities(store, tmp_path, tmp_path / "var" / "derived")
    path = default.write_derived_seed(WriteSeedInput(made.candidates[0], None, "derive-1"))
    assert Path(path) == tmp_path / "var" / "derived" / "derive-1" / made.candidates[0].seed_id
    clash = made.candidates[1]
    clash.files = made.candidates[0].files  # other content under side-table's name
    with pytest.raises(ApplicationError) as raised:
        acts.write_derived_seed(WriteSeedInput(clash, str(out)))
    assert raised.value.type == DERIVED_SEED_CONFLICT and raised.value.non_retryable

    record = store.get_json(acts.write_derivation_record(DerivationRecordInput(
        [source], tasks, verdicts, [pattern.usage, made.usage], THRESHOLD)))
    assert record["statuses"] == {"near_duplicate": 1, "published": 2}
    assert [c["status"] for c in record["candidates"]] == ["published", "published", "near_duplicate"]
    assert_no_secret(store)


async def test_malformed_candidates_are_rejected_with_their_reason(deriver, store, monkeypatch):
    acts, source_dir = deriver
    source = acts.read_source_task(str(source_dir))
    desk, side, _ = three_candidates()
    broken = dict(side, seed_id="broken-script", build_reference="import bpy\ndef build(:\n")
    bad_workflow = dict(side, seed_id="bad-workflow", workflow_primary="MOD-99")
    bad_check = dict(side, seed_id="bad-check",
                     requirements=[{"id": "REQ-X", "check": "teleport", "params": []}])
    with FakeOpenAIServer([pattern_reply(), candidates_reply(
            [desk, broken, dict(desk, title="again"), bad_workflow, bad_check, {"title": 3}, side])]) as fake:
        monkeypatch.setenv("ARKEVO_AUTHOR_BASE_URL", fake.base_url)
        pattern = await acts.extract_pattern(source)
        made = await acts.generate_candidates(CandidateRequest(source, pattern, k=6))
    assert [c.seed_id for c in made.candidates] == ["writing-desk"]
    reasons = {r["seed_id"]: r["reason"] for r in made.rejected}
    assert "not valid Python: line 2" in reasons["broken-script"]
    assert "duplicate seed_id 'writing-desk'" in reasons["writing-desk"]
    assert "MOD-99" in reasons["bad-workflow"]
    assert "unknown probe method 'teleport'" in reasons["bad-check"]
    assert "seed_id" in reasons["candidate-6"]
    assert "beyond the 6" in reasons["side-table"]


async def test_an_unreadable_deriver_reply_fails_after_one_follow_up(deriver, monkeypatch):
    acts, source_dir = deriver
    source = acts.read_source_task(str(source_dir))
    with FakeOpenAIServer([final("a furniture task"), final("still prose")]) as fake:
        monkeypatch.setenv("ARKEVO_AUTHOR_BASE_URL", fake.base_url)
        with pytest.raises(ApplicationError) as raised:
            await acts.extract_pattern(source)
    assert raised.value.type == DERIVER_REPLY_INVALID and raised.value.non_retryable
    assert len(fake.requests) == 2


def test_a_folder_without_instruction_is_not_a_source_task(deriver, tmp_path):
    acts, source_dir = deriver
    (source_dir / "instruction.md").unlink()
    for path, says in ((str(source_dir), "instruction.md is missing"),
                       (str(tmp_path / "nowhere"), "not a Harbor task folder (no such directory)")):
        with pytest.raises(ApplicationError) as raised:
            acts.read_source_task(path)
        assert raised.value.type == INVALID_SOURCE_TASK and raised.value.non_retryable
        assert raised.value.message == f"{path}: {says}"
