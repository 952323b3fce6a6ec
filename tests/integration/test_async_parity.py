"""AsyncGraphMemory against GraphMemory on a real Neo4j: the same scenarios through both give the
same results (ids and namespaces aside), and concurrent calls in one event loop do not block each
other."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import re
import threading
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from pydantic import BaseModel

from graphmem import AsyncGraphMemory, Database, GraphMemory, SessionNotFound
from graphmem.aio import AsyncDatabase, run_sync
from graphmem.errors import InvalidInput
from graphmem.retrieval import ContextConfig

from ..conftest import Neo4jTarget

pytestmark = pytest.mark.integration

DIMENSIONS = 512
"""The test database's vector indexes are made for the local model's 512 dimensions."""
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_UNSTABLE = {"timings_ms", "created_at", "updated_at", "last_accessed_at", "last_activity_at", "latency_ms", "at",
             "score", "relevance", "text_score", "timingsMs", "createdAt"}
"""Times, and the scores BM25 takes part in: its statistics are the whole index's, which the first
side's writes changed before the second side searched (the ranks are compared, not the scores)."""


class HashEmbedder:
    """A deterministic bag-of-hashed-words embedder: no model, no network."""

    model = "use-multilingual-v3"
    dimensions = DIMENSIONS

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            v = np.zeros(DIMENSIONS)
            for word in re.findall(r"\w+", text.lower()):
                v[int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "big") % DIMENSIONS] += 1.0
            n = np.linalg.norm(v)
            out.append((v / n if n else v).tolist())
        return out

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]


def _plain(value: Any, ns: str, side: str) -> Any:
    """``value`` as JSON-like data with ids, the side's namespace and unstable fields neutralised."""
    if isinstance(value, BaseModel):
        value = value.model_dump()
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: _plain(v, ns, side) for k, v in value.items() if k not in _UNSTABLE}
    if isinstance(value, list | tuple):
        return [_plain(v, ns, side) for v in value]
    if isinstance(value, str):
        return _UUID.sub("<id>", value.replace(f"{ns}/{side}", f"{ns}/<side>"))
    if isinstance(value, float):
        return round(value, 6)
    return value


TURNS = [
    ("How do I configure the postgres connection pool?", "Set pool_size in database.yaml to 20.",
     [{"name": "Read", "args": {"path": "config/database.yaml"}, "result": "pool_size: 5"}]),
    ("The deploy to staging fails with a timeout", "The health check waits 30s; raise it in deploy.sh.", []),
    ("Write a unit test for the invoice parser", "Added tests/test_invoice.py covering totals and VAT.",
     [{"name": "Write", "args": {"path": "tests/test_invoice.py"}, "result": "ok", "success": True}]),
    ("Why is the cache hit ratio so low?", "Keys include a timestamp; drop it from the cache key.", []),
]


class Sync:
    """The scenario's calls on GraphMemory, awaitable like AsyncGraphMemory's."""

    def __init__(self, mem: GraphMemory) -> None:
        self.mem = mem

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        method = getattr(self.mem, name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            return method(*args, **kwargs)

        return call


async def scenario(mem: Any, ns: str, side: str) -> dict[str, Any]:
    """Every async method once (most twice), on the side's own directory and project."""
    cwd = f"{ns}/{side}"
    out: dict[str, Any] = {}
    s = await mem.create_session(cwd, cwd, "claude-code", title="parity", started_at=T0)
    out["create"] = s
    out["get"] = await mem.get_session(s.id)
    for i, (user, assistant, calls) in enumerate(TURNS):
        out[f"store{i}"] = await mem.store_turn(s.id, user, assistant, calls, T0 + timedelta(minutes=i))
    out["recent"] = await mem.recent_turns(s.id, max_chars=5000, limit=3)
    out["file_history"] = await mem.file_history(cwd, "tests/test_invoice.py")
    assert [t.action for t in out["file_history"].touches] == ["write"]
    imported = [{"user_message": f"imported question {i} about kafka partitions",
                 "assistant_message": f"imported answer {i}: rebalance consumer group {i}",
                 "timestamp": T0 + timedelta(hours=1, minutes=i), "source_id": f"src-{i}"} for i in range(5)]
    other = await mem.create_session(cwd, cwd, "codex", started_at=T0 + timedelta(hours=1))
    out["import1"] = await mem.import_turns(other.id, imported, batch_size=2)
    out["import2"] = await mem.import_turns(other.id, imported, batch_size=2)
    out["load"] = await mem.load_session(other.id)
    project = f"project:{cwd}"
    out["remember1"] = await mem.remember("The staging database is postgres 16 on port 5433", ["staging"],
                                          type="fact", scope=project, importance=0.8)
    out["remember2"] = await mem.remember("The team prefers pytest over unittest", ["testing"],
                                          type="preference", scope=project)
    out["remember_same"] = await mem.remember("The team prefers pytest over unittest", ["testing"],
                                              type="preference", scope=project)
    out["list"] = await mem.list_facts(scopes=[project], order="importance")
    out["search_facts"] = await mem.search_facts("which postgres version on staging", scopes=[project])
    out["inject"] = await mem.inject_facts(s.id, "what port does the staging postgres use?")
    await mem.await_text_index()
    out["search_text"] = await mem.search("postgres pool", scope=project, mode="text")
    out["search_hybrid"] = await mem.search("cache key timestamp", scope=project, k=5)
    out["context"] = await mem.build_context(s.id, "the invoice parser test and the deploy timeout",
                                             config=ContextConfig(scope="project"))
    out["forget_dry"] = await mem.forget("pytest", scopes=[project], dry_run=True)
    out["forget"] = await mem.forget("pytest", scopes=[project], reason="parity test")
    out["list_after"] = await mem.list_facts(scopes=[project])
    out["deleted"] = await mem.delete_session(other.id)
    for name, call in (("get_missing", mem.get_session(str(other.id))),
                       ("recent_bad", mem.recent_turns(""))):
        try:
            await call
            out[name] = "no error"
        except (SessionNotFound, InvalidInput) as e:
            out[name] = type(e).__name__
    return out


def _only_ours(result: dict[str, Any]) -> dict[str, Any]:
    """The injection and the context also see global facts other tests left: keep project facts."""
    for key in ("inject",):
        result[key].items = [i for i in result[key].items if i.fact.scope == "project"]
        result[key].text = ""
        result[key].chars = 0
    result["context"].facts = [f for f in result["context"].facts if f.get("scope") == "project"]
    result["context"].text = ""
    result["context"].chars = 0
    return result


def test_the_async_facade_gives_what_the_sync_one_gives(neo4j_target: Neo4jTarget, database: Database,
                                                        namespace: str) -> None:
    embedder = HashEmbedder()
    sync = GraphMemory(database, embedder=embedder)
    try:
        expected = asyncio.run(scenario(Sync(sync), namespace, "sync"))
    finally:
        sync.deferred.close()

    async def run() -> dict[str, Any]:
        db = AsyncDatabase(neo4j_target.uri, neo4j_target.user, neo4j_target.password)
        async with AsyncGraphMemory(db, embedder=embedder) as mem:
            return await scenario(mem, namespace, "async")

    got = asyncio.run(run())
    expected, got = _only_ours(expected), _only_ours(got)
    assert got["context"].recent_turns and got["search_hybrid"].hits and got["inject"].items
    for key in expected:
        assert _plain(got[key], namespace, "async") == _plain(expected[key], namespace, "sync"), key


class GateEmbedder(HashEmbedder):
    """Each of the first ``parties`` calls waits until all of them have started: they can only all
    start if no call blocks the event loop while it waits for its embedding."""

    def __init__(self, parties: int) -> None:
        self.parties = parties
        self.entered = 0
        self.gave_up = 0
        self.cond = threading.Condition()

    def embed_one(self, text: str) -> list[float]:
        with self.cond:
            self.entered += 1
            first_round = self.entered <= self.parties
            self.cond.notify_all()
            # the timeout only ends a hang (the test then fails), it never paces a passing run
            if first_round and not self.cond.wait_for(lambda: self.entered >= self.parties, timeout=300):
                self.gave_up += 1
        return super().embed_one(text)


@pytest.mark.timeout(600)
def test_fifty_concurrent_contexts_share_one_event_loop(neo4j_target: Neo4jTarget, namespace: str) -> None:
    n = 50
    gate = GateEmbedder(n)

    async def run() -> list[Any]:
        db = AsyncDatabase(neo4j_target.uri, neo4j_target.user, neo4j_target.password)
        with ThreadPoolExecutor(max_workers=n) as pool:
            async with AsyncGraphMemory(db, embedder=gate, embed_executor=pool) as mem:
                s = await mem.create_session(namespace, namespace, started_at=T0)
                for i, (user, assistant, calls) in enumerate(TURNS):
                    await mem.store_turn(s.id, user, assistant, calls, T0 + timedelta(minutes=i))
                return await asyncio.gather(*(
                    mem.build_context(s.id, f"question {i} about the deploy timeout") for i in range(n)
                ))

    blocks = asyncio.run(run())
    assert gate.entered >= n and gate.gave_up == 0
    assert len(blocks) == n and all(b.recent_turns for b in blocks)
    assert not any("embedder unavailable" in w for b in blocks for w in b.warnings)


def test_await_only_outside_run_sync_is_refused(neo4j_target: Neo4jTarget) -> None:
    async def run() -> None:
        db = AsyncDatabase(neo4j_target.uri, neo4j_target.user, neo4j_target.password)
        try:
            with pytest.raises(RuntimeError, match="outside run_sync"):
                db.read("meta/server_components")
            assert (await run_sync(db.read, "meta/server_components"))[0]["name"]
            await db.aping()
        finally:
            await db.aclose()

    asyncio.run(run())
