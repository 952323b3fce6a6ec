"""The search warm-up on a real Neo4j: the first prompts' searches and contexts run, nothing written."""

from __future__ import annotations

import asyncio

import pytest

from graphmem import AsyncGraphMemory, Database, GraphMemory
from graphmem.aio import AsyncDatabase
from graphmem.embedding import LocalEmbedder
from graphmem.errors import SessionNotFound
from graphmem.facts import FactScope, list_retrievals
from graphmem.retrieval.warmup import WARM_QUESTIONS, WarmUp

from ..conftest import Neo4jTarget

pytestmark = pytest.mark.integration


def _session(mem: GraphMemory, namespace: str) -> str:
    s = mem.create_session(namespace + "/app", project_path=namespace)
    mem.store_turn(s.id, "Why does the billing deploy fail on Fridays?", "The release freeze blocks `make deploy`.")
    mem.store_turn(s.id, "Can we move the billing deploy to Thursday?", "Yes: the freeze starts Friday at noon.")
    mem.remember("The billing service is deployed with make deploy on Thursdays", scope=FactScope.project(namespace),
                 type="decision")
    if mem.embedder is not None:
        mem.embed_pending()
    mem.await_text_index()
    return s.id


def test_warm_up_runs_every_question_in_the_directory_and_project_and_writes_nothing(
        database: Database, local_embedder: LocalEmbedder, namespace: str) -> None:
    mem = GraphMemory(database, embedder=local_embedder)
    sid = _session(mem, namespace)
    before = mem.load_session(sid)
    report = mem.warm_up(sid, rounds=2, warm_ms=None)
    mem.deferred.wait(sid)  # a log queued by the warm-up would be written by now
    assert report.session_id == sid and not report.already_warm and report.errors == []
    # per round and question: hybrid (turns and summaries, turns alone) and text, in both scopes, and one context
    assert report.searches == 2 * len(WARM_QUESTIONS) * 2 * 3
    assert report.contexts == 2 * len(WARM_QUESTIONS)
    assert len(report.round_ms) == 2
    # the injection log (with facts and without), the hydration (3 shapes), the graph (16 shapes per scope)
    assert report.shapes == 2 + 3 + 2 * 16
    # reads only: the facts each context chose are not logged, the session is as it was
    assert list_retrievals(mem.db, session_id=sid) == []
    after = mem.load_session(sid)
    assert after.turn_count == before.turn_count
    assert after.last_activity_at == before.last_activity_at
    # the same context built for real logs its facts: the check above would have seen a write
    block = mem.build_context(sid, "when do we deploy billing?")
    assert block.facts and block.facts_log_id is not None
    mem.deferred.wait(sid)
    assert len(list_retrievals(mem.db, session_id=sid)) == 1


def test_warm_up_stops_at_its_lookup_on_a_warmed_server_and_names_an_unknown_session(
        database: Database, namespace: str) -> None:
    mem = GraphMemory(database)  # text-only: the warm-up searches as the memory does
    sid = _session(mem, namespace)
    warm = mem.warm_up(sid, warm_ms=float("inf"))
    assert warm.already_warm and warm.searches == 0 and warm.contexts == 0 and warm.errors == []
    with pytest.raises(SessionNotFound):
        mem.warm_up("00000000-0000-4000-8000-000000000000")


def test_the_async_memory_warms_up_the_same_statements(neo4j_target: Neo4jTarget, database: Database,
                                                       local_embedder: LocalEmbedder, namespace: str) -> None:
    sid = _session(GraphMemory(database, embedder=local_embedder), namespace)

    async def run() -> WarmUp:
        db = AsyncDatabase(neo4j_target.uri, neo4j_target.user, neo4j_target.password)
        async with AsyncGraphMemory(db, embedder=local_embedder) as mem:
            return await mem.warm_up(sid, rounds=1, warm_ms=None)

    report = asyncio.run(run())
    assert report.session_id == sid and report.errors == []
    assert report.searches == len(WARM_QUESTIONS) * 2 * 3 and report.contexts == len(WARM_QUESTIONS)
    assert report.shapes == 2 + 3 + 2 * 16  # the injection log planned in a rolled-back transaction too
    assert list_retrievals(database, session_id=sid) == []
