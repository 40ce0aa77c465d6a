"""A fake OpenAI-compatible chat completions server on 127.0.0.1, for tests that go through real HTTP.

    with FakeLLM() as srv:
        srv.script(Reply.json({...}), Reply.error(429), Reply.json({...}))
        ... memgit sync --model openai/fake-model --api-base {srv.url}/v1 ...
        srv.requests  # every request received: path, headers, body (parsed JSON) and raw text

Replies are served from the queue in order; when it is empty, `default` answers. A reply may be a
status code with an OpenAI-style error body, a delay before answering (to trip a client timeout),
a body that is not JSON at all, or a message whose content is empty.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

USAGE = {"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200}


@dataclass(frozen=True)
class Reply:
    """One scripted answer."""

    content: str | None = ""  # the assistant message's content (None: a null content)
    status: int = 200
    delay: float = 0.0  # seconds to wait before answering
    raw: bytes | None = None  # send these bytes as the body instead of a completion
    usage: dict = field(default_factory=lambda: dict(USAGE))
    headers: dict = field(default_factory=dict)

    @classmethod
    def json(cls, value: Any, **kw) -> Reply:
        return cls(content=json.dumps(value), **kw)

    @classmethod
    def error(cls, status: int, message: str = "", **kw) -> Reply:
        body = {"error": {"message": message or f"fake error {status}", "type": "fake", "code": str(status)}}
        headers = {"retry-after": "0"} if status == 429 else {}
        return cls(status=status, raw=json.dumps(body).encode(), headers=headers, **kw)

    @classmethod
    def slow(cls, seconds: float, value: Any = None) -> Reply:
        return cls(content=json.dumps(value) if value is not None else "", delay=seconds)


class _Handler(BaseHTTPRequestHandler):
    server_version = "FakeLLM/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length", 0))
        raw = self.rfile.read(length).decode("utf-8", "replace")
        try:
            body = json.loads(raw or "{}")
        except ValueError:
            body = {}
        fake: FakeLLM = self.server.fake  # type: ignore[attr-defined]
        # Header names are case-insensitive (HTTP/1.1) and clients differ in case: record them lower-cased.
        headers = {k.lower(): v for k, v in self.headers.items()}
        reply = fake.take({"path": self.path, "headers": headers, "body": body, "raw": raw})
        try:
            self._answer(reply, body, fake)
        finally:
            fake.done()

    def _answer(self, reply: Reply, body: dict, fake: FakeLLM) -> None:
        if reply.delay:
            time.sleep(reply.delay)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            return self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}).encode())
        if reply.raw is not None:
            return self._send(reply.status, reply.raw, reply.headers)
        completion = {
            "id": f"chatcmpl-fake-{len(fake.requests)}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "fake-model"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reply.content}}],
            "usage": reply.usage,
        }
        self._send(reply.status, json.dumps(completion).encode(), reply.headers)

    def _send(self, status: int, data: bytes, headers: dict | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
            pass


class FakeLLM:
    """The server: a queue of replies, a default one, and the requests it received."""

    def __init__(self, default: Reply | None = None):
        self.default = default or Reply("")
        self.replies: deque[Reply] = deque()
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0  # the most requests it was answering at once
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.fake = self  # type: ignore[attr-defined]
        self._httpd.handle_error = lambda request, address: None  # a client timeout is not an error here
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def api_base(self) -> str:
        return self.url + "/v1"

    def script(self, *replies: Reply) -> FakeLLM:
        with self._lock:
            self.replies.extend(replies)
        return self

    def take(self, request: dict) -> Reply:
        with self._lock:
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return self.replies.popleft() if self.replies else self.default

    def done(self) -> None:
        with self._lock:
            self.in_flight -= 1

    @property
    def extractions(self) -> list[dict]:
        """The requests that extracted a session (sync then consolidates, which asks the model too)."""
        return [r for r in self.requests
                if str(r["body"].get("messages", [{}])[0].get("content", "")).startswith("You write memory")]

    def sent_text(self) -> str:
        """Everything the server received, bodies and headers, as one string."""
        return "\n".join(r["raw"] + json.dumps(r["headers"]) for r in self.requests)

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def fake_llm(monkeypatch):
    """A running FakeLLM; OPENAI_API_KEY set to a fake key; memgit's retries made fast."""
    import memgit.llm

    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    monkeypatch.setattr(memgit.llm, "RETRY", memgit.llm.Retry(attempts=3, base_delay=0.01, max_delay=0.05))
    with FakeLLM() as srv:
        yield srv
