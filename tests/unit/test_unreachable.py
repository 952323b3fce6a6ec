"""A Neo4j that is not there: opening the memory fails at once, in one line, without retrying."""

from __future__ import annotations

import pytest

from graphmem.config import Settings
from graphmem.db import Database
from graphmem.errors import DatabaseUnavailable
from graphmem.memory import open_memory

from ..servers import free_port


def test_opening_the_memory_on_a_closed_port_is_one_line_and_no_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()  # nothing listens there
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", f"bolt://127.0.0.1:{port}")
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", "unused")
    pauses: list[float] = []
    monkeypatch.setattr(Database, "_pause", lambda self, seconds: pauses.append(seconds))
    with pytest.raises(DatabaseUnavailable) as caught:
        open_memory(settings=Settings.load())
    text = str(caught.value)
    assert text.startswith("Neo4j is unreachable: ") and f"127.0.0.1:{port}" in text and "\n" not in text
    assert pauses == []  # the retries that ride out a server lost while in use never started


def test_the_async_memory_fails_the_same_way(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from graphmem.aio import AsyncDatabase, open_async_memory

    port = free_port()  # nothing listens there
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", f"bolt://127.0.0.1:{port}")
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", "unused")
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "none")  # no recorded model to read first: the async driver pings
    pauses: list[float] = []
    monkeypatch.setattr(AsyncDatabase, "_pause", lambda self, seconds: pauses.append(seconds))
    with pytest.raises(DatabaseUnavailable) as caught:
        asyncio.run(open_async_memory())
    assert f"127.0.0.1:{port}" in str(caught.value) and "\n" not in str(caught.value)
    assert pauses == []


def test_the_async_memory_under_auto_fails_at_its_first_read(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from graphmem.aio import AsyncDatabase, open_async_memory

    port = free_port()
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", f"bolt://127.0.0.1:{port}")
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", "unused")
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "auto")  # the recorded model is read first, by a sync ping
    pauses: list[float] = []
    monkeypatch.setattr(Database, "_pause", lambda self, seconds: pauses.append(seconds))
    monkeypatch.setattr(AsyncDatabase, "_pause", lambda self, seconds: pauses.append(seconds))
    with pytest.raises(DatabaseUnavailable) as caught:
        asyncio.run(open_async_memory())
    assert f"127.0.0.1:{port}" in str(caught.value) and "\n" not in str(caught.value)
    assert pauses == []
