"""FAKE OpenAI-compatible Chat Completions endpoint, for tests only -- it is NOT a model.

No model endpoint can be reached from these machines, so tests of model-driven code run against
this stand-in.  It serves ``POST /v1/chat/completions`` on 127.0.0.1:<free port> and answers each
request with the next canned ``Reply`` of the test's script (a 429 with Retry-After, a 500, a
slow answer, a tool call, a malformed tool call, a final message, ...).  It never looks at what it is sent
except to record it: ``requests`` holds every request (path, headers, raw body, parsed JSON and
arrival time) so tests can assert on what the client sent.  When the script runs out it answers
HTTP 400 ``fake script exhausted``, which fails the client loudly instead of looping.

    with FakeOpenAIServer([tool_call("get_scene_info", {}), final("done")]) as fake:
        ... ARKEVO_LLM_BASE_URL=fake.base_url ...

Concurrent sessions (several roles or seeds at once) each get their own script: give a dict of
queues and a ``route(parsed_json_body) -> key`` that picks one (e.g.
``tests.fakes.author_sessions.route_by_role_and_seed``); a key with no queue, or an empty one,
answers HTTP 400 ``fake script exhausted for route <key>``.

    FakeOpenAIServer({"author:table-model": [...], "reviewer:table-model": [...]}, route=...)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One canned HTTP answer."""

    status: int = 200
    body: dict[str, Any] | str = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    delay_sec: float = 0.0  # wait before answering (a slow or hanging endpoint)
    # Answer only once every party of the barrier has a request in flight (proves a client
    # asks in parallel by events, not by timing); a barrier that never fills answers 504.
    together: threading.Barrier | None = None


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: str
    json: Any
    at: float  # time.monotonic() on arrival


_counter = iter(range(1, 1_000_000))


def _completion(message: dict[str, Any], finish_reason: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-fake-{next(_counter)}", "object": "chat.completion", "created": int(time.time()),
        "model": "fake-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


def final(text: str) -> Reply:
    """An assistant answer without tool calls (ends a tool-calling loop)."""
    return Reply(body=_completion({"role": "assistant", "content": text}, "stop"))


def tool_calls(*calls: tuple[str, dict[str, Any] | str], content: str | None = None) -> Reply:
    """An assistant turn calling tools; a str argument is sent verbatim (e.g. malformed JSON)."""
    items = [{
        "id": f"call_fake_{next(_counter)}", "type": "function",
        "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
    } for name, args in calls]
    return Reply(body=_completion({"role": "assistant", "content": content, "tool_calls": items},
                                  "tool_calls"))


def tool_call(name: str, arguments: dict[str, Any] | str, content: str | None = None) -> Reply:
    return tool_calls((name, arguments), content=content)


def slow(reply: Reply, seconds: float) -> Reply:
    reply.delay_sec = seconds
    return reply


def together(reply: Reply, barrier: threading.Barrier) -> Reply:
    reply.together = barrier
    return reply


def error(status: int, retry_after: str | None = None, message: str = "fake error") -> Reply:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Reply(status=status, body={"error": {"message": message, "type": "fake"}}, headers=headers)


class FakeOpenAIServer:
    """Threaded HTTP server answering from a script of ``Reply``s, recording every request."""

    def __init__(self, script: list[Reply] | dict[str, list[Reply]],
                 route: Callable[[Any], str] | None = None) -> None:
        if isinstance(script, dict) != (route is not None):
            raise ValueError("a dict script needs a route, and a route needs a dict script")
        self.script = {k: list(v) for k, v in script.items()} if isinstance(script, dict) else list(script)
        self.route = route
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8")
                try:
                    parsed = json.loads(body)
                except ValueError:
                    parsed = None
                reply = fake._record(RecordedRequest(self.path, dict(self.headers), body, parsed,
                                                     time.monotonic()))
                if reply.delay_sec and fake._stopping.wait(reply.delay_sec):
                    return  # server stopping: drop the connection unanswered
                if reply.together is not None:
                    try:
                        reply.together.wait(timeout=30)
                    except threading.BrokenBarrierError:
                        reply = error(504, message="fake server: the other requests never came")
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                data = payload.encode("utf-8")
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _record(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            if request.path.rstrip("/") != "/v1/chat/completions":
                return error(404, message=f"fake server: no route {request.path}")
            if self.route is None:
                queue, where = self.script, ""
            else:
                try:
                    key = self.route(request.json)
                except Exception as exc:  # a request the route cannot place: fail it loudly
                    return error(400, message=f"fake route failed: {type(exc).__name__}: {exc}")
                queue, where = self.script.get(key), f" for route {key}"
            if not queue:
                return error(400, message=f"fake script exhausted{where}")
            return queue.pop(0)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()
