"""Extension of the FAKE OpenAI-compatible server (tests/fakes/openai_server.py) for the VL judge.

Still a fake, tests only -- no model runs.  The VL judge asks questions A, B and C
concurrently, so the order in which requests arrive says nothing about which question they
carry; ``RoutedVisionServer`` keeps one script per question and picks it by a marker in the
request's prompt text (``route``).  Everything else -- recording, canned ``Reply``s, delays,
"script exhausted" as a loud HTTP 400 -- is the base server's.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

from tests.fakes.openai_server import FakeOpenAIServer, RecordedRequest, Reply, error, final


def answer(score, reason: str = "scripted") -> Reply:
    """A judge answer in the format the client asks for."""
    return final(json.dumps({"score": score, "reason": reason}))


def user_parts(req: RecordedRequest) -> list[dict]:
    for message in (req.json or {}).get("messages", []):
        if message.get("role") == "user" and isinstance(message.get("content"), list):
            return message["content"]
    return []


def prompt_text(req: RecordedRequest) -> str:
    return " ".join(p.get("text", "") for p in user_parts(req) if p.get("type") == "text")


def image_urls(req: RecordedRequest) -> list[str]:
    return [p["image_url"]["url"] for p in user_parts(req) if p.get("type") == "image_url"]


def header(req: RecordedRequest, name: str) -> str | None:
    return next((v for k, v in req.headers.items() if k.lower() == name.lower()), None)


def question_marker(req: RecordedRequest) -> str:
    """'A', 'B' or 'C' from a 'QUESTION-<id>' marker in the prompt; '?' when absent."""
    text = prompt_text(req)
    return next((q for q in "ABC" if f"QUESTION-{q}" in text), "?")


class RoutedVisionServer(FakeOpenAIServer):
    """One script of replies per question; a question whose script runs out gets HTTP 400."""

    def __init__(self, scripts: dict[str, list[Reply]],
                 route: Callable[[RecordedRequest], str] = question_marker) -> None:
        super().__init__([])
        self.scripts = {key: list(replies) for key, replies in scripts.items()}
        self.route = route
        # the same server loop, polling for shutdown every 50 ms instead of 500 (quicker tests)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    def _record(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            if request.path.rstrip("/") != "/v1/chat/completions":
                return error(404, message=f"fake server: no route {request.path}")
            key = self.route(request)
            script = self.scripts.get(key)
            if not script:
                return error(400, message=f"fake script for question {key} exhausted")
            return script.pop(0)

    def asked(self, key: str) -> list[RecordedRequest]:
        return [r for r in self.requests if self.route(r) == key]
