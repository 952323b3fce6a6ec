"""The local OpenAI-compatible test server; it lives in :mod:`graphmem_devtools.fake_openai`
(so that ``graphmem reliability faults`` can use it outside the test suite) and is re-exported here."""

from __future__ import annotations

from graphmem_devtools.fake_openai import (
    DEFAULT_SUMMARY,
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    bad_request,
    chat_content,
    fake_openai_server,
    fake_vector,
    ok,
    rate_limited,
    refusal,
    server_error,
    stall,
    tool_calls,
    unauthorized,
)

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
