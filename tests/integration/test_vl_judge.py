"""The VL channel against the FAKE OpenAI-compatible server (tests/fakes/openai_server.py, routed
per question by tests/fakes/vision_judge_script.py): image inputs,
A/B/C in parallel, the A-gate, a busy endpoint (retried in place only where a `SessionRetry` is
given, as outside Temporal; handed to Temporal with its Retry-After in the activity), unparsable
answers (-> VL missing -> total null with the reason), the request budget, and the activity.
No Blender: the evidence images are small PNGs written with numpy."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from storage.content import FilesystemStore
from activities.vl_judge import JudgeActivities
from contracts.payloads.vl_grading import VLJudgeRequest
from tests.fakes.openai_server import error, final, together
from tests.fakes.vision_judge_script import RoutedVisionServer, answer, header, image_urls, question_marker
from verifiers.profiles import get_profile, score_record, task_with_profile
from modelapi.client import ModelEndpointError, ModelEndpointUnavailable
from modelapi.rate_budget import LocalBudget
from modelapi.retry import SessionRetry
from modelapi.token_bucket import TokenBucket
from verifiers.vl import image_metric_judge, load_judge_config
from verifiers.vl_model_judge import JudgeSettings, OpenAIVisionJudge, parse_answer

ROOT = Path(__file__).resolve().parents[2]
TASK = json.loads((ROOT / "seeds" / "table-model" / "draft" / "task.json").read_text())
RULE_REPORT = {"blend_sha256": "0" * 64, "criteria": [
    {"id": c["id"], "method": c["method"], "weight": c["weight"], "core": c["core"], "score": 1.0, "passed": True,
     "measured": None, "expected": None, "detail": "", "evidence": None} for c in TASK["criteria"] if c["channel"] == "rule"]}

JUDGE_RAW = {
    "judge_version": "1",
    "questions": [
        {"id": "A", "gate": True, "weight": 0.2, "scale": "binary", "images": ["front.png", "top.png"],
         "prompt": "QUESTION-A is it a table at all?", "metric": {"kind": "silhouette_iou", "pass_at": 0.5,
                                                                  "views": ["front", "top"]}},
        {"id": "B", "weight": 0.4, "scale": "0-10", "images": ["front.png"],
         "prompt": "QUESTION-B rate the form", "metric": {"kind": "view_similarity", "views": ["front", "top"]}},
        {"id": "C", "weight": 0.4, "scale": "0-10", "images": ["top.png"],
         "prompt": "QUESTION-C rate the material", "metric": {"kind": "colour_similarity", "views": ["front", "top"]}},
    ],
}
CONFIG = load_judge_config(JUDGE_RAW)


@pytest.fixture
def evidence(tmp_path) -> Path:
    folder = tmp_path / "evidence"
    folder.mkdir()
    img = np.zeros((12, 16, 4), dtype=np.uint8)
    img[3:9, 4:12] = (150, 100, 60, 255)
    Image.fromarray(img).save(folder / "front.png")
    img2 = img.copy()
    img2[3:9, 4:12, :3] = (90, 90, 90)
    Image.fromarray(img2).save(folder / "top.png")
    return folder


class Sleeps:
    def __init__(self):
        self.waits: list[float] = []

    async def __call__(self, seconds):
        self.waits.append(seconds)


def client(server, *, limiter=None, sleep=None, max_attempts=5) -> OpenAIVisionJudge:
    """The judge as `verifiers.score_delivery` builds it: retrying in place (no Temporal)."""
    s = JudgeSettings(server.base_url, "fake-vision", api_key="test-key")
    retry = SessionRetry(max_attempts, backoff_initial_sec=0.5, sleep=sleep or Sleeps())
    return OpenAIVisionJudge(s, LocalBudget(limiter or TokenBucket(60000, 100)), retry=retry)


def fast_budget() -> LocalBudget:
    return LocalBudget(TokenBucket(60000, 10))


def test_abc_are_asked_in_parallel_with_their_images(evidence):
    # Each answer waits until all three questions are in flight: a client asking one after
    # the other would get 504s (its retries: 1) and no score.
    barrier = threading.Barrier(3)
    scripts = {q: [together(answer(score), barrier)] for q, score in (("A", 1), ("B", 8), ("C", 6))}
    with RoutedVisionServer(scripts) as server:
        result = asyncio.run(client(server, max_attempts=1).judge(CONFIG, evidence))
    assert result.vl_score == pytest.approx(0.2 * 1 + 0.4 * 0.8 + 0.4 * 0.6)
    assert result.judge["id"] == "model:fake-vision" and result.judge["kind"] == "model"
    assert sorted(question_marker(r) for r in server.requests) == ["A", "B", "C"]
    for q, names in (("A", ["front.png", "top.png"]), ("B", ["front.png"]), ("C", ["top.png"])):
        (req,) = server.asked(q)
        assert req.path == "/v1/chat/completions" and header(req, "authorization") == "Bearer test-key"
        assert req.json["model"] == "fake-vision" and req.json["temperature"] == 0
        urls = image_urls(req)
        assert all(u.startswith("data:image/png;base64,") for u in urls)
        assert [base64.b64decode(u.split(",", 1)[1]) for u in urls] == [(evidence / n).read_bytes() for n in names]


def test_a_zero_gates_the_vl_score_to_zero(evidence):
    scripts = {"A": [answer(0, "not a table")], "B": [answer(10)], "C": [final("no idea")]}
    with RoutedVisionServer(scripts) as server:
        result = asyncio.run(client(server).judge(CONFIG, evidence))
    assert result.gated and result.vl_score == 0.0 and result.missing_reason is None
    assert result.answers["B"].score == 1.0 and result.answers["C"].score is None  # C unparsable: gate decides
    rec = get_profile("blender-70-30").score(RULE_REPORT, result, task_with_profile(TASK, get_profile("blender-70-30")))
    assert rec["vl_points"] == 0.0 and rec["total"] == 0.7 and rec["vl_gated"]


def test_a_429_is_retried_after_the_retry_after_delay(evidence):
    scripts = {"A": [answer(1)], "B": [error(429, retry_after="7", message="slow down"), answer(9)],
               "C": [answer(5)]}
    sleeps = Sleeps()
    with RoutedVisionServer(scripts) as server:
        judge = client(server, sleep=sleeps)
        result = asyncio.run(judge.judge(CONFIG, evidence))
    assert len(server.asked("B")) == 2 and len(server.requests) == 4 == judge.requests
    assert sleeps.waits == [7.0]  # Retry-After honoured, not the backoff
    assert len(judge.retry.retries) == 1 and result.answers["B"].score == 0.9
    assert result.vl_score == pytest.approx(0.2 + 0.36 + 0.2)


def test_5xx_backs_off_exponentially_then_gives_up_as_infrastructure(evidence):
    scripts = {"A": [answer(1)], "B": [error(503, message="down")] * 4, "C": [answer(5)]}
    sleeps = Sleeps()
    with RoutedVisionServer(scripts) as server:
        with pytest.raises(ModelEndpointUnavailable, match="question B: still failing after 4 attempts"):
            asyncio.run(client(server, sleep=sleeps, max_attempts=4).judge(CONFIG, evidence))
    # backoff 0.5, 1, 2 s, each with jitter in its upper half
    assert [b / 2 <= w <= b for w, b in zip(sleeps.waits, (0.5, 1.0, 2.0))] == [True] * 3
    assert len(server.asked("B")) == 4


def test_without_a_session_retry_the_judge_sends_each_question_once(evidence):
    """In the activity Temporal owns the retry: the judge itself never sends a request twice,
    and a busy question does not stop the others being answered."""
    scripts = {"A": [answer(1)], "B": [error(429, retry_after="7")], "C": [answer(5)]}
    with RoutedVisionServer(scripts) as server:
        judge = OpenAIVisionJudge(JudgeSettings(server.base_url, "fake-vision"), fast_budget())
        with pytest.raises(ModelEndpointUnavailable, match="question B") as info:
            asyncio.run(judge.judge(CONFIG, evidence))
    assert info.value.retry_after == 7.0
    assert [len(server.asked(q)) for q in "ABC"] == [1, 1, 1] and judge.requests == 3


def test_a_refused_request_is_not_retried(evidence):
    scripts = {q: [error(401, message="bad key")] for q in "ABC"}
    with RoutedVisionServer(scripts) as server:
        with pytest.raises(ModelEndpointError, match="HTTP 401"):
            asyncio.run(client(server).judge(CONFIG, evidence))
    assert all(len(server.asked(q)) <= 1 for q in "ABC")  # none retried


def test_an_unparsable_answer_makes_vl_missing_and_the_total_null(evidence):
    scripts = {"A": [answer(1)], "B": [final("It looks quite nice, I'd say 8 out of 10.")], "C": [answer(7)]}
    with RoutedVisionServer(scripts) as server:
        result = asyncio.run(client(server).judge(CONFIG, evidence))
    assert result.vl_score is None and not result.gated
    assert "question B: unparsable answer (no JSON object)" in result.missing_reason
    for pid in ("blender-70-30", "kuka-80-20"):
        p = get_profile(pid)
        rec = score_record(p, RULE_REPORT, result, task_with_profile(TASK, p), verifier_version="vv2-test")
        assert rec["total"] is None and "question B: unparsable" in rec["total_null_reason"]
        assert rec["vl"]["answers"]["B"]["raw"].startswith("It looks quite nice")


@pytest.mark.parametrize("content, score, error", [
    ('{"score": 7, "reason": "ok"}', 0.7, None),
    ('```json\n{"score": 10}\n```', 1.0, None),
    ('{"score": 11}', None, "outside 0..10"),
    ('{"score": "high"}', None, "no numeric score"),
    ('{"score": true}', None, "no numeric score"),
    ("{not json}", None, "invalid JSON"),
    (None, None, "no JSON object"),
])
def test_parse_answer(content, score, error):
    got, _, err = parse_answer(CONFIG.questions[1], content)
    assert got == score and (err is None if error is None else error in err)


def test_binary_gate_accepts_only_zero_or_one():
    assert parse_answer(CONFIG.questions[0], '{"score": 1}')[0] == 1.0
    assert "binary" in parse_answer(CONFIG.questions[0], '{"score": 0.5}')[2]


def test_each_request_takes_a_budget_slot(evidence):
    clock = [0.0]
    waited: list[float] = []

    async def limiter_sleep(seconds):
        waited.append(seconds)

    limiter = TokenBucket(4, 1, clock=lambda: clock[0], sleep=limiter_sleep)  # the default: 4 rpm
    scripts = {"A": [answer(1)], "B": [error(429, retry_after="0"), answer(5)], "C": [answer(5)]}
    with RoutedVisionServer(scripts) as server:
        asyncio.run(client(server, limiter=limiter).judge(CONFIG, evidence))
    assert limiter.granted == 4  # A, B, B again, C
    assert sorted(waited) == [15.0, 30.0, 45.0]  # 4 rpm, one at a time


def test_missing_evidence_is_a_gate_zero_without_calling_the_model(evidence):
    with RoutedVisionServer({}) as server:
        result = asyncio.run(client(server).judge(CONFIG, evidence, evidence_error="delivered .blend not found"))
    assert server.requests == [] and result.vl_score == 0.0 and result.gated


def test_image_metric_is_a_different_judge(evidence, tmp_path):
    same = image_metric_judge(CONFIG, evidence, evidence, [])
    assert same.vl_score == 1.0 and same.judge["id"].startswith("image-metric@") and same.judge["kind"] == "offline-metric"
    empty = tmp_path / "empty"
    empty.mkdir()
    Image.fromarray(np.zeros((12, 16, 4), dtype=np.uint8)).save(empty / "front.png")
    Image.fromarray(np.zeros((12, 16, 4), dtype=np.uint8)).save(empty / "top.png")
    gated = image_metric_judge(CONFIG, empty, evidence, [])
    assert gated.gated and gated.vl_score == 0.0 and gated.answers["A"].score == 0.0


# --- the Temporal activity ------------------------------------------------------------------------


@pytest.fixture
def store(tmp_path) -> FilesystemStore:
    return FilesystemStore(tmp_path / "store")


def request(store, evidence, **kw) -> VLJudgeRequest:
    return VLJudgeRequest(task_id="table-model", judge_config=store.put_json(JUDGE_RAW),
                          evidence=store.put_tree(evidence), **kw)


async def test_activity_judges_from_store_refs_and_stores_the_result(store, evidence):
    with RoutedVisionServer({"A": [answer(1)], "B": [answer(6)], "C": [answer(4)]}) as server:
        settings = JudgeSettings(server.base_url, "fake-vision")
        acts = JudgeActivities(store, fast_budget(), settings=settings)
        outcome = await ActivityEnvironment().run(acts.judge_vl, request(store, evidence))
    assert outcome.judge_id == "model:fake-vision" and outcome.vl_score == pytest.approx(0.2 + 0.24 + 0.16)
    stored = store.get_json(outcome.result)
    assert stored["task_id"] == "table-model" and stored["answers"]["B"]["score"] == 0.6


async def test_activity_unparsable_answer_is_a_result_not_an_error(store, evidence):
    with RoutedVisionServer({"A": [answer(1)], "B": [final("eight")], "C": [answer(4)]}) as server:
        acts = JudgeActivities(store, fast_budget(), settings=JudgeSettings(server.base_url, "m"))
        outcome = await ActivityEnvironment().run(acts.judge_vl, request(store, evidence))
    assert outcome.vl_score is None and "question B" in outcome.missing_reason


async def test_activity_busy_endpoint_is_retryable_with_its_retry_after_and_keeps_the_answers(store, evidence):
    """Sent once per question; the error asks Temporal to wait the server's Retry-After; the
    next attempt asks only the question still unanswered."""
    scripts = {"A": [answer(1)], "B": [error(429, retry_after="9"), answer(6)], "C": [answer(4)]}
    with RoutedVisionServer(scripts) as server:
        acts = JudgeActivities(store, fast_budget(), settings=JudgeSettings(server.base_url, "m"))
        with pytest.raises(ApplicationError) as info:
            await ActivityEnvironment().run(acts.judge_vl, request(store, evidence))
        assert info.value.type == "ModelEndpointUnavailable" and not info.value.non_retryable
        assert info.value.next_retry_delay.total_seconds() == 9.0
        assert len(server.requests) == 3
        outcome = await ActivityEnvironment().run(acts.judge_vl, request(store, evidence))
    assert [len(server.asked(q)) for q in "ABC"] == [1, 2, 1]
    assert outcome.vl_score == pytest.approx(0.2 + 0.24 + 0.16)


async def test_activity_endpoint_down_is_a_retryable_infrastructure_error(store, evidence):
    with RoutedVisionServer({q: [error(500, message="boom")] for q in "ABC"}) as server:
        acts = JudgeActivities(store, fast_budget(), settings=JudgeSettings(server.base_url, "m"))
        with pytest.raises(ApplicationError) as info:
            await ActivityEnvironment().run(acts.judge_vl, request(store, evidence))
    assert info.value.type == "ModelEndpointUnavailable" and not info.value.non_retryable
    assert info.value.next_retry_delay is None  # no Retry-After: the retry policy's backoff


async def test_activity_refused_request_is_not_retryable(store, evidence):
    with RoutedVisionServer({q: [error(401, message="bad key")] for q in "ABC"}) as server:
        acts = JudgeActivities(store, fast_budget(), settings=JudgeSettings(server.base_url, "m"))
        with pytest.raises(ApplicationError) as info:
            await ActivityEnvironment().run(acts.judge_vl, request(store, evidence))
    assert info.value.type == "ModelEndpointError" and info.value.non_retryable


async def test_activity_image_metric_needs_no_model(store, evidence):
    acts = JudgeActivities(store, fast_budget(), judge_factory=lambda budget, answers: pytest.fail("no model call"))
    req = request(store, evidence, judge="image-metric", reference_evidence=store.put_tree(evidence))
    outcome = await ActivityEnvironment().run(acts.judge_vl, req)
    assert outcome.judge_id.startswith("image-metric@") and outcome.vl_score == 1.0
