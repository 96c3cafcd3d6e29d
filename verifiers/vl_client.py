"""Vision-model judge over an OpenAI-compatible ``/chat/completions`` API (httpx).

Each judge question (A, B, C) is one request carrying the question's prompt and its evidence
images as ``data:image/png;base64`` parts; the three are sent concurrently, each first taking a
slot from the rate limiter (``verifiers.rate_limit``, 4 rpm by default).  The model must reply
with a JSON object ``{"score": <number>, "reason": "..."}``.

Failure semantics:

* 429 and 5xx responses and transport errors are retried with exponential backoff
  (``backoff_base * 2**(attempt-1)``, capped), honouring ``Retry-After`` (seconds or an HTTP
  date) when the server sends one; every attempt takes a limiter slot.  When the attempts run
  out, ``JudgeUnavailable`` is raised: an infrastructure failure to retry, never a score.
* Any other 4xx raises ``JudgeRequestError`` (a configuration fault: bad key, bad model).
* An answer that is not such a JSON object, or whose score is outside the question's scale,
  makes that question *missing*: the VL score is then missing too (unless A, the gate, said 0)
  and the total is null with the reason.

Why not LiteLLM / RewardKit's ``LLMJudge``: both are available, but the verifier needs a
rate-limiter slot per attempt, ``Retry-After`` honoured exactly, the A-gate, and each
question's images attached to that question only -- a thin httpx client does all of that in
one page and keeps the request testable against a local fake server.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import httpx

from verifiers.http_retry import parse_retry_after
from verifiers.rate_limit import TokenBucket, shared_limiter
from verifiers.vl import SCALES, Answer, JudgeConfig, Question, VLResult, combine, no_evidence_result

SYSTEM_PROMPT = (
    "You are a strict visual reviewer of 3D work made in Blender. You see fixed renders made by "
    "the grader, not by the author. Answer only with one JSON object: "
    '{"score": <number>, "reason": "<one sentence>"}.'
)
RETRYABLE = {429, 500, 502, 503, 504}


class JudgeUnavailable(RuntimeError):
    """The model endpoint kept failing (429 / 5xx / transport) after every retry: infra."""


class JudgeRequestError(RuntimeError):
    """The endpoint refused the request (4xx other than 429): configuration, not retryable."""


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


@dataclass
class ClientSettings:
    base_url: str
    model: str
    api_key: str | None = None
    max_attempts: int = 5
    backoff_base: float = 2.0
    backoff_max: float = 60.0
    retry_after_max: float = 300.0  # a server's Retry-After is honoured up to this many seconds
    timeout: float = 120.0
    max_tokens: int = 300
    image_detail: str = "low"

    @classmethod
    def from_env(cls, env: dict | None = None) -> "ClientSettings":
        """``ARKEVO_VL_BASE_URL``, ``ARKEVO_VL_MODEL``, ``ARKEVO_VL_API_KEY`` (or OPENAI_*)."""
        env = os.environ if env is None else env
        base = env.get("ARKEVO_VL_BASE_URL") or env.get("OPENAI_BASE_URL")
        model = env.get("ARKEVO_VL_MODEL")
        if not base or not model:
            raise RuntimeError("set ARKEVO_VL_BASE_URL and ARKEVO_VL_MODEL for a model judge")
        return cls(base, model, env.get("ARKEVO_VL_API_KEY") or env.get("OPENAI_API_KEY"))


class OpenAIVisionJudge:
    def __init__(self, settings: ClientSettings, limiter: TokenBucket | None = None, *,
                 transport: httpx.AsyncBaseTransport | None = None, sleep=asyncio.sleep):
        self.settings = settings
        self.limiter = limiter or shared_limiter()
        self._transport = transport
        self._sleep = sleep
        self.requests = 0
        self.retries = 0
        self.waits: list[float] = []  # backoff / Retry-After waits taken

    @property
    def judge_id(self) -> dict:
        return {"id": f"model:{self.settings.model}", "kind": "model", "model": self.settings.model,
                "endpoint": self.settings.base_url.rstrip("/"),
                "label": "vision model judge (OpenAI-compatible)"}

    def _body(self, q: Question, images: list[tuple[str, bytes]]) -> dict:
        parts: list[dict] = [{"type": "text", "text": f"{q.prompt}\n\n{scale_instruction(q)}"}]
        for _name, data in images:
            url = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
            parts.append({"type": "image_url", "image_url": {"url": url, "detail": self.settings.image_detail}})
        return {"model": self.settings.model, "temperature": 0, "max_tokens": self.settings.max_tokens,
                "messages": [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": parts}]}

    async def _post(self, client: httpx.AsyncClient, body: dict, qid: str) -> tuple[dict, int]:
        s = self.settings
        headers = {"Authorization": f"Bearer {s.api_key}"} if s.api_key else {}
        url = s.base_url.rstrip("/") + "/chat/completions"
        last = ""
        for attempt in range(1, s.max_attempts + 1):
            await self.limiter.acquire()
            self.requests += 1
            wait = None
            try:
                response = await client.post(url, json=body, headers=headers)
            except httpx.TransportError as exc:
                last = f"{type(exc).__name__}: {exc}"
            else:
                if response.status_code == 200:
                    try:
                        return response.json(), attempt
                    except json.JSONDecodeError:
                        last = f"HTTP 200 with a non-JSON body: {response.text[:120]!r}"
                elif response.status_code in RETRYABLE:
                    last = f"HTTP {response.status_code}: {response.text[:200]}"
                    wait = parse_retry_after(response.headers.get("retry-after"))
                    wait = None if wait is None else min(wait, s.retry_after_max)
                else:
                    raise JudgeRequestError(f"question {qid}: HTTP {response.status_code}: {response.text[:300]}")
            if attempt == s.max_attempts:
                break
            if wait is None:
                wait = min(s.backoff_max, s.backoff_base * 2 ** (attempt - 1))
            self.retries += 1
            self.waits.append(wait)
            await self._sleep(wait)
        raise JudgeUnavailable(f"question {qid}: gave up after {s.max_attempts} attempt(s): {last}")

    async def ask(self, client: httpx.AsyncClient, q: Question, images: list[tuple[str, bytes]]) -> Answer:
        payload, attempts = await self._post(client, self._body(q, images), q.id)
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            return Answer(q.id, None, raw=json.dumps(payload)[:300],
                          error="unparsable answer (no choices[0].message.content)", attempts=attempts)
        if isinstance(content, list):  # some servers return content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        score, reason, error = parse_answer(q, content)
        return Answer(q.id, score, reason, raw=(content or "")[:1000], error=error, attempts=attempts)

    async def judge(self, config: JudgeConfig, evidence_dir: Path, evidence_error: str | None = None) -> VLResult:
        """Ask every question concurrently about the evidence in ``evidence_dir``."""
        if evidence_error:
            return no_evidence_result(config, self.judge_id, evidence_error)
        folder = Path(evidence_dir)
        async with httpx.AsyncClient(timeout=self.settings.timeout, transport=self._transport) as client:
            async def one(q: Question) -> Answer:
                images = []
                for name in q.images:
                    path = folder / name
                    if not path.is_file():
                        return Answer(q.id, None, error=f"evidence image {name} missing")
                    images.append((name, path.read_bytes()))
                return await self.ask(client, q, images)

            try:
                async with asyncio.TaskGroup() as tg:  # a failure cancels the sibling questions
                    tasks = [tg.create_task(one(q)) for q in config.questions]
            except ExceptionGroup as eg:
                raise eg.exceptions[0] from None
        answers = [t.result() for t in tasks]
        return combine(config, {a.id: a for a in answers}, self.judge_id)
