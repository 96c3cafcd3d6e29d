"""Vision-model judge: each judge question (A, B, C) is one chat-completions request through
the project's one client (`modelapi.client.ChatClient`), carrying the question's prompt and its
evidence images as ``data:image/png;base64`` parts.  The model must reply with a JSON object
``{"score": <number>, "reason": "..."}``.

Failure semantics:

* The judge sends each unanswered question once.  A 429/5xx/transport failure of any of them
  raises `ModelEndpointUnavailable` (with the server's Retry-After) after the others have been
  answered: the caller owns the retry (`modelapi.retry`).  In the llm worker that is Temporal's
  activity retry, and the answers already given are kept (`answers`, a store-backed cache), so
  the retry asks only what is still unanswered.  Outside Temporal (`verifiers.score_delivery`)
  a `SessionRetry` is passed in and retries each request in place.
* Any other 4xx, or a reply that is not a chat completion, raises `ModelEndpointError` (a
  configuration fault: bad key, bad model).
* An answer that is not such a JSON object, or whose score is outside the question's scale,
  makes that question *missing*: the VL score is then missing too (unless A, the gate, said 0)
  and the total is null with the reason.

Why not LiteLLM / RewardKit's ``LLMJudge``: the verifier needs every request to take a slot of
the shared budget, ``Retry-After`` handed to Temporal exactly, the A-gate, and each question's
images attached to that question only; the project's own chat client does all of that, and keeps
the request testable against a local fake server.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, cast

import httpx

from contracts.digests import canonical_json_bytes, sha256_hex
from modelapi.client import ChatClient, ModelEndpointError, ModelEndpointUnavailable, Timeouts
from modelapi.rate_budget import Budget
from modelapi.retry import SessionRetry
from verifiers.vl import SCALES, Answer, JudgeConfig, Question, VLResult, combine, no_evidence_result

SYSTEM_PROMPT = (
    "You are a strict visual reviewer of 3D work made in Blender. You see fixed renders made by "
    "the grader, not by the author. Answer only with one JSON object: "
    '{"score": <number>, "reason": "<one sentence>"}.'
)


def scale_instruction(q: Question) -> str:
    if q.scale == "binary":
        return 'Reply with {"score": 1, "reason": "..."} for yes or {"score": 0, "reason": "..."} for no.'
    top = int(SCALES[q.scale])
    return f'Reply with {{"score": <integer 0 to {top}>, "reason": "..."}}.'


def parse_answer(q: Question, content: str | None) -> tuple[float | None, str, str | None]:
    """(score 0..1 | None, reason, error)."""
    text = (content or "").strip()
    match = re.search(r"\{.*\}", text, re.S)
    if not match:
        return None, "", f"unparsable answer (no JSON object): {text[:160]!r}"
    try:
        obj = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None, "", f"unparsable answer (invalid JSON): {text[:160]!r}"
    score = obj.get("score") if isinstance(obj, dict) else None
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return None, "", f"unparsable answer (no numeric score): {text[:160]!r}"
    top = SCALES[q.scale]
    if q.scale == "binary" and score not in (0, 1):
        return None, "", f"unparsable answer (binary question scored {score})"
    if not 0 <= score <= top:
        return None, "", f"unparsable answer (score {score} outside 0..{top:g})"
    return float(score) / top, str(obj.get("reason", ""))[:500], None


class AnswerCache(Protocol):
    """Answers already given, by a key of the question, its images and the judge."""

    def get(self, key: str) -> Answer | None: ...

    def put(self, key: str, answer: Answer) -> None: ...


@dataclass
class JudgeSettings:
    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 120.0
    max_tokens: int = 300
    image_detail: str = "low"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "JudgeSettings":
        """``ARKEVO_VL_BASE_URL``, ``ARKEVO_VL_MODEL``, ``ARKEVO_VL_API_KEY`` (or OPENAI_*)."""
        env = os.environ if env is None else env
        base = env.get("ARKEVO_VL_BASE_URL") or env.get("OPENAI_BASE_URL")
        model = env.get("ARKEVO_VL_MODEL")
        if not base or not model:
            raise RuntimeError("set ARKEVO_VL_BASE_URL and ARKEVO_VL_MODEL for a model judge")
        return cls(base, model, env.get("ARKEVO_VL_API_KEY") or env.get("OPENAI_API_KEY"))


class OpenAIVisionJudge:
    def __init__(self, settings: JudgeSettings, budget: Budget | None = None, *,
                 retry: SessionRetry | None = None, answers: AnswerCache | None = None,
                 transport: httpx.AsyncBaseTransport | None = None):
        self.settings = settings
        self.budget = budget
        self.retry = retry
        self.answers = answers
        self._transport = transport
        self.requests = 0  # requests sent, over every judge() call

    @property
    def judge_id(self) -> dict:
        return {"id": f"model:{self.settings.model}", "kind": "model", "model": self.settings.model,
                "endpoint": self.settings.base_url.rstrip("/"),
                "label": "vision model judge (OpenAI-compatible)"}

    def _messages(self, q: Question, images: list[tuple[str, bytes]]) -> list[dict]:
        parts: list[dict] = [{"type": "text", "text": f"{q.prompt}\n\n{scale_instruction(q)}"}]
        for _name, data in images:
            url = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
            parts.append({"type": "image_url", "image_url": {"url": url, "detail": self.settings.image_detail}})
        return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": parts}]

    def answer_key(self, q: Question, images: list[tuple[str, bytes]]) -> str:
        return sha256_hex(canonical_json_bytes({
            "judge": self.judge_id["id"], "endpoint": self.judge_id["endpoint"], "system": SYSTEM_PROMPT,
            "question": {"id": q.id, "prompt": q.prompt, "scale": q.scale},
            "images": [[name, sha256_hex(data)] for name, data in images],
            "max_tokens": self.settings.max_tokens, "detail": self.settings.image_detail}))

    async def ask(self, client: ChatClient, q: Question, images: list[tuple[str, bytes]]) -> Answer:
        key = self.answer_key(q, images)
        if self.answers is not None and (known := self.answers.get(key)) is not None:
            return known

        async def send():
            return await client.complete(self._messages(q, images), temperature=0,
                                         max_tokens=self.settings.max_tokens)
        try:
            reply = await (self.retry.call(send, label=q.id) if self.retry else send())
        except ModelEndpointError as exc:
            exc.args = (f"question {q.id}: {exc}",)
            raise
        score, reason, error = parse_answer(q, reply.content)
        answer = Answer(q.id, score, reason, raw=reply.content[:1000], error=error, attempts=1)
        if self.answers is not None and error is None:  # an unreadable answer may be transient
            self.answers.put(key, answer)
        return answer

    async def judge(self, config: JudgeConfig, evidence_dir: Path, evidence_error: str | None = None) -> VLResult:
        """Ask every unanswered question concurrently about the evidence in ``evidence_dir``."""
        if evidence_error:
            return no_evidence_result(config, self.judge_id, evidence_error)
        folder = Path(evidence_dir)
        s = self.settings
        async with ChatClient(s.base_url, s.model, s.api_key, timeouts=Timeouts(read=s.timeout),
                              budget=self.budget, transport=self._transport) as client:
            async def one(q: Question) -> Answer:
                images = []
                for name in q.images:
                    path = folder / name
                    if not path.is_file():
                        return Answer(q.id, None, error=f"evidence image {name} missing")
                    images.append((name, path.read_bytes()))
                return await self.ask(client, q, images)

            # Every question runs to its end: a busy endpoint on one does not waste the others.
            results = await asyncio.gather(*(one(q) for q in config.questions), return_exceptions=True)
            self.requests += client.usage.requests
        failures = [r for r in results if isinstance(r, BaseException)]
        if refused := [f for f in failures if not isinstance(f, ModelEndpointUnavailable)]:
            raise refused[0]
        if failures:
            unavailable = cast(list[ModelEndpointUnavailable], failures)  # the others were raised above
            raise max(unavailable, key=lambda f: f.retry_after or 0.0)
        return combine(config, {a.id: a for a in cast(list[Answer], results)}, self.judge_id)  # no failures
