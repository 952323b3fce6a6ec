"""A local OpenAI-compatible HTTP server for tests and fault runs (loopback only, stdlib only).

Used by ``graphmem reliability faults`` and by the test suite (``tests/fake_openai.py`` re-exports it).

It serves ``POST /v1/embeddings`` (deterministic vectors derived from a hash of the text,
honouring ``dimensions`` and ``encoding_format``) and ``POST /v1/chat/completions`` (a valid
``ConversationSummary`` JSON by default, or any content). Faults are injected by scripting the
next replies of a path (429 with Retry-After, 5xx, 401, stalls, invalid JSON, refusals) or by a
seeded random-failure mode. Every request is recorded (path, headers, JSON body, time, status,
whether its answer was sent), and :meth:`FakeOpenAIServer.wait_until` blocks until a condition on
them holds, woken by each request and each answer (tests wait on what a client did, not on time).

Usage::

    with FakeOpenAIServer() as server:
        server.script("embeddings", rate_limited(retry_after=1), server_error())
        emb = OpenAIEmbedder(api_key=server.api_key, base_url=server.base_url)
        ...
        assert server.count("embeddings") == 3
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import struct
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "DEFAULT_SUMMARY",
    "FakeOpenAIServer",
    "RecordedRequest",
    "Reply",
    "bad_request",
    "chat_content",
    "fake_openai_server",
    "fake_vector",
    "ok",
    "rate_limited",
    "refusal",
    "server_error",
    "stall",
    "tool_calls",
    "unauthorized",
]

EMBEDDINGS = "/v1/embeddings"
CHAT = "/v1/chat/completions"
_LOOPBACK = frozenset({"127.0.0.1", "::1"})
_KNOWN_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}

DEFAULT_SUMMARY: dict[str, Any] = {
    "summary": "The user asked to fix the flaky connection test; the assistant added a retry loop.",
    "keyFindings": ["The driver connected before Neo4j opened the Bolt port."],
    "filesMentioned": ["graphmem/db/connect.py"],
    "toolsUsed": ["Bash"],
    "topics": ["neo4j connection", "retries"],
}


@dataclass
class Reply:
    """One scripted answer. ``json_body=None`` means the normal answer for the path."""

    status: int = 200
    json_body: Any = None
    raw_body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering: more than the client's timeout makes a stall."""
    content: str | None = None
    """Chat only: the message content instead of the configured summary."""
    refusal: str | None = None
    """Chat only: a refusal (content null)."""
    finish_reason: str = "stop"
    tool_calls: list[dict[str, Any]] | None = None
    """Chat only: the tool calls of the answer (``[{"id", "type": "function", "function": {...}}]``)."""
    fault: str | None = None
    """Set on the replies of the random-failure mode (recorded on the request)."""


def ok() -> Reply:
    """The normal answer."""
    return Reply()


def _error(status: int, message: str, type_: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def rate_limited(retry_after: float | str | None = None, *, retry_after_ms: float | None = None) -> Reply:
    """HTTP 429, optionally with ``Retry-After`` (seconds or an HTTP date) and/or ``retry-after-ms``."""
    headers: dict[str, str] = {}
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    return Reply(429, _error(429, "Rate limit reached", "requests", "rate_limit_exceeded"), headers=headers)


def server_error(status: int = 500) -> Reply:
    return Reply(status, _error(status, "The server had an error while processing your request.", "server_error"))


def unauthorized() -> Reply:
    return Reply(401, _error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"))


def bad_request(message: str = "Invalid request") -> Reply:
    return Reply(400, _error(400, message, "invalid_request_error"))


def stall(seconds: float) -> Reply:
    """Answer normally, but only after ``seconds`` (use more than the client's timeout)."""
    return Reply(delay=seconds)


def chat_content(content: str, finish_reason: str = "stop") -> Reply:
    """A chat answer with this exact content (e.g. invalid JSON)."""
    return Reply(content=content, finish_reason=finish_reason)


def tool_calls(*calls: tuple[str, dict[str, Any]]) -> Reply:
    """A chat answer that calls tools: ``("store_memory", {"content": ...})`` per call."""
    return Reply(content=None, finish_reason="tool_calls", tool_calls=[
        {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        for i, (name, args) in enumerate(calls)])


def refusal(text: str = "I'm sorry, I can't help with that.") -> Reply:
    return Reply(refusal=text)


def fake_vector(text: str, dimensions: int, model: str = "") -> list[float]:
    """The server's deterministic, L2-normalised vector for ``text``."""
    out: list[float] = []
    counter = 0
    while len(out) < dimensions:
        block = hashlib.sha256(f"{model}\0{text}\0{counter}".encode("utf-8", "surrogatepass")).digest()
        out.extend((v / 2**31) - 1.0 for v in struct.unpack("<8I", block))
        counter += 1
    out = out[:dimensions]
    norm = sum(v * v for v in out) ** 0.5 or 1.0
    return [v / norm for v in out]


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    time: float
    status: int | None = None
    answered: bool = False
    """Whether the whole answer was written to the client."""
    fault: str | None = None
    """The random fault injected into this answer (``429``, ``500``, ``stall``...), else None."""


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._send(404, {"error": {"message": "not found"}}, {})

    def do_POST(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        record = RecordedRequest(
            "POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic()
        )
        fake._record(record)
        status, payload, headers, delay = fake._answer(self.path, body, {k.lower(): v for k, v in self.headers.items()},
                                                      record)
        record.status = status
        if delay > 0 and fake._stop.wait(delay):
            return
        if self._send(status, payload, headers):
            record.answered = True
            fake.notify()

    def _send(self, status: int, payload: Any, headers: dict[str, str]) -> bool:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            return False  # the client gave up (timeout): expected for stalls
        return True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeOpenAIServer


class FakeOpenAIServer:
    """An OpenAI-compatible server on 127.0.0.1 (random port), run in a background thread."""

    def __init__(
        self,
        *,
        api_key: str | None = "sk-test-key",
        summary: dict[str, Any] | None = None,
        usage: tuple[int, int] = (120, 40),
        default_dimensions: int = 64,
        json_schema_supported: bool = True,
        json_object_supported: bool = True,
        failure_rate: float = 0.0,
        seed: int = 0,
        failure_kinds: Sequence[str] = ("429", "500", "stall"),
        stall_seconds: float = 2.0,
        host: str = "127.0.0.1",
        changed: threading.Condition | None = None,
    ) -> None:
        """``api_key=None`` accepts any key; otherwise other keys get 401. ``default_dimensions``
        is used for unknown embedding models when the request has no ``dimensions``. ``changed``:
        the condition notified on each request and answer (pass one to several servers to wait on
        all of them at once).
        """
        if host not in _LOOPBACK:
            raise ValueError("the fake OpenAI server only listens on loopback addresses")
        self.api_key = api_key or "any-key"
        self._check_key = api_key is not None
        self.summary = dict(DEFAULT_SUMMARY if summary is None else summary)
        self.usage = usage
        self.default_dimensions = default_dimensions
        self.json_schema_supported = json_schema_supported
        self.json_object_supported = json_object_supported
        self.stall_seconds = stall_seconds
        self.set_random_failures(failure_rate, seed=seed, kinds=failure_kinds)
        self._host = host
        self._lock = threading.Lock()
        self._scripts: dict[str, deque[Reply]] = {}
        self._requests: list[RecordedRequest] = []
        self._stop = threading.Event()
        self._changed = changed if changed is not None else threading.Condition()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> FakeOpenAIServer:
        server = _Server((self._host, 0), _Handler)
        server.fake = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("server not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}/v1"

    # ---------------------------------------------------------------- control

    @staticmethod
    def _path(path: str) -> str:
        path = path if path.startswith("/") else f"/v1/{path}"
        return path.split("?", 1)[0]

    def script(self, path: str, *replies: Reply) -> None:
        """Queue ``replies`` for the next requests to ``path`` ("embeddings", "chat/completions" or a full path)."""
        with self._lock:
            self._scripts.setdefault(self._path(path), deque()).extend(replies)

    def set_random_failures(
        self, rate: float, *, seed: int = 0, kinds: Sequence[str] = ("429", "500", "stall")
    ) -> None:
        """Fail a ``rate`` fraction of unscripted requests with one of ``kinds`` (``429``, ``500``,
        ``502``, ``503``, ``stall``), chosen by a RNG seeded with ``seed``.
        """
        if not 0.0 <= rate <= 1.0:
            raise ValueError("rate must be within [0, 1]")
        self.failure_rate = rate
        self.failure_kinds = tuple(kinds)
        self._rng = random.Random(seed)

    def requests(self, path: str | None = None) -> list[RecordedRequest]:
        with self._lock:
            items = list(self._requests)
        return items if path is None else [r for r in items if self._path(r.path) == self._path(path)]

    def count(self, path: str | None = None) -> int:
        return len(self.requests(path))

    def answered(self, path: str | None = None) -> list[RecordedRequest]:
        """The recorded requests whose answer was sent."""
        return [r for r in self.requests(path) if r.answered]

    def notify(self) -> None:
        """Wake the callers of :meth:`wait_until` to check their condition again."""
        with self._changed:
            self._changed.notify_all()

    def notify_on_exit(self, proc: subprocess.Popen[Any]) -> None:
        """Wake the callers of :meth:`wait_until` when ``proc`` (a client of this server) exits."""

        def watch() -> None:
            proc.wait()
            self.notify()

        threading.Thread(target=watch, name=f"fake-openai-watch-{proc.pid}", daemon=True).start()

    def wait_until(self, condition: Callable[[], bool], timeout: float) -> bool:
        """Block until ``condition()`` holds, checked now and again on each request received, each
        answer sent and each :meth:`notify`; False when ``timeout`` seconds pass first (a safety
        net against a hung client, not a measure)."""
        with self._changed:
            return self._changed.wait_for(condition, timeout)

    def reset(self) -> None:
        """Forget recorded requests and pending scripts."""
        with self._lock:
            self._requests.clear()
            self._scripts.clear()

    # ---------------------------------------------------------------- internals

    def _record(self, record: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(record)
        self.notify()

    def _next_reply(self, path: str) -> Reply | None:
        with self._lock:
            queue = self._scripts.get(path)
            if queue:
                return queue.popleft()
            if self.failure_rate > 0 and self._rng.random() < self.failure_rate:
                kind = self._rng.choice(self.failure_kinds)
                reply = (stall(self.stall_seconds) if kind == "stall"
                         else rate_limited(retry_after="0") if kind == "429" else server_error(int(kind)))
                reply.fault = kind
                return reply
        return None

    def _answer(
        self, raw_path: str, body: Any, headers: dict[str, str], record: RecordedRequest | None = None
    ) -> tuple[int, Any, dict[str, str], float]:
        path = self._path(raw_path)
        if path not in (EMBEDDINGS, CHAT):
            return 404, _error(404, f"unknown path {path}", "invalid_request_error"), {}, 0.0
        if self._check_key and headers.get("authorization") != f"Bearer {self.api_key}":
            r = unauthorized()
            return r.status, r.json_body, r.headers, 0.0
        reply = self._next_reply(path) or Reply()
        if record is not None:
            record.fault = reply.fault
        if reply.status != 200 or reply.json_body is not None or reply.raw_body is not None:
            payload = reply.raw_body if reply.raw_body is not None else reply.json_body
            return reply.status, payload if payload is not None else {}, reply.headers, reply.delay
        if not isinstance(body, dict):
            return 400, _error(400, "the body must be a JSON object", "invalid_request_error"), {}, reply.delay
        if path == EMBEDDINGS:
            status, payload = self._embeddings(body)
        else:
            status, payload = self._chat(body, reply)
        return status, payload, reply.headers, reply.delay

    def _embeddings(self, body: dict[str, Any]) -> tuple[int, Any]:
        model = str(body.get("model", ""))
        texts = body.get("input")
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) and t for t in texts):
            return 400, _error(400, "'input' must be a non-empty string or array of non-empty strings", "invalid")
        dims = body.get("dimensions") or _KNOWN_DIMS.get(model, self.default_dimensions)
        data = []
        for i, text in enumerate(texts):
            vec = fake_vector(text, int(dims), model)
            emb: Any = vec
            if body.get("encoding_format") == "base64":
                emb = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode()
            data.append({"object": "embedding", "index": i, "embedding": emb})
        tokens = sum(max(1, len(t) // 4) for t in texts)
        return 200, {
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def _chat(self, body: dict[str, Any], reply: Reply) -> tuple[int, Any]:
        fmt = (body.get("response_format") or {}).get("type")
        if fmt == "json_schema" and not self.json_schema_supported:
            return 400, _error(400, "response_format type json_schema is not supported", "invalid_request_error")
        if fmt == "json_object" and not self.json_object_supported:
            return 400, _error(400, "response_format type json_object is not supported", "invalid_request_error")
        content: str | None
        if reply.refusal is not None or reply.tool_calls is not None:
            content = None
        elif reply.content is not None:
            content = reply.content
        else:
            content = json.dumps(self.summary, ensure_ascii=False)
        prompt, completion = self.usage
        return 200, {
            "id": f"chatcmpl-{self.count(CHAT)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": reply.refusal,
                                **({"tool_calls": reply.tool_calls} if reply.tool_calls is not None else {})},
                    "finish_reason": reply.finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }


def fake_openai_server(**kwargs: Any) -> Iterator[FakeOpenAIServer]:
    """Generator for a pytest fixture: ``yield from fake_openai_server(...)``."""
    with FakeOpenAIServer(**kwargs) as server:
        yield server
