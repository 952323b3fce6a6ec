"""Several processes appending to one session: indexes stay unique and contiguous."""

from __future__ import annotations

import multiprocessing as mp

import pytest

from graphmem import Database, GraphMemory

from ..conftest import Neo4jTarget

pytestmark = pytest.mark.integration

WRITERS = 8
TURNS_EACH = 25


def _writer(target: tuple[str, str, str], session_id: str, worker: int, out: mp.Queue) -> None:  # type: ignore[type-arg]
    uri, user, password = target
    with Database(uri, user, password) as db:
        mem = GraphMemory(db)
        got = []
        for i in range(TURNS_EACH):
            t = mem.store_turn(session_id, f"w{worker} q{i}", f"w{worker} a{i}", [{"name": "Bash", "args": {"i": i}}])
            got.append(t.index)
    out.put(got)


def test_eight_processes_append_to_one_session(
    memory: GraphMemory, namespace: str, neo4j_target: Neo4jTarget
) -> None:
    s = memory.create_session(namespace)
    ctx = mp.get_context("spawn")
    out: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
    target = (neo4j_target.uri, neo4j_target.user, neo4j_target.password)
    procs = [ctx.Process(target=_writer, args=(target, s.id, w, out)) for w in range(WRITERS)]
    for p in procs:
        p.start()
    results = [out.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    indexes = sorted(i for r in results for i in r)
    total = WRITERS * TURNS_EACH
    assert indexes == list(range(1, total + 1))
    for r in results:  # each writer saw its own turns in increasing order
        assert r == sorted(r)
    detail = memory.load_session(s.id)
    assert detail.turn_count == total
    assert [t.index for t in detail.turns] == list(range(1, total + 1))
    chain = memory.db.read("maintenance/next_chain_check", sessionId=s.id)[0]
    assert chain == {"turns": total, "nexts": total - 1, "heads": 1, "branching": 0}
