"""build_context on a real Neo4j: sections, no repeats, near-duplicates, budget, degradation, CLI, bench smoke."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem import Database, GraphMemory
from graphmem.embedding import LocalEmbedder
from graphmem.errors import DatabaseUnavailable
from graphmem.retrieval import ContextConfig

from ..conftest import Neo4jTarget
from ..support import support_db

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    e = LocalEmbedder()
    e.load()
    return e


def add_summary(mem: GraphMemory, session_id: str, text: str, *, level: int = 1, children: Sequence[str] = (),
                ts: datetime | None = None) -> str:
    sid = str(uuid.uuid4())
    support_db(mem.db).write(
        "testing/create_summary", sessionId=session_id, id=sid, level=level, text=text, charCount=len(text),
        turnCount=max(1, len(children)), keyFindings=["finding " + text[:10]], filesMentioned=["a.py"],
        toolsUsed=["Edit"], topics=[], timestamp=ts or datetime.now(UTC), childIds=list(children),
    )
    return sid


def _build(mem: GraphMemory, namespace: str) -> tuple[str, dict[str, str]]:
    past = mem.create_session(namespace + "/app", project_path=namespace)
    now = mem.create_session(namespace + "/app", project_path=namespace)
    old = datetime.now(UTC) - timedelta(days=3)
    ids: dict[str, str] = {}
    ids["relevant"] = mem.store_turn(past.id, "The redis cache returns stale prices",
                                     "Invalidate the price key on update.", timestamp=old).id
    ids["twin"] = mem.store_turn(past.id, "The redis cache returns stale prices",
                                 "Invalidate the price key on update.", timestamp=old + timedelta(minutes=1)).id
    mem.store_turn(past.id, "Unrelated: what is a monad?", "A monoid in the category of endofunctors.", timestamp=old)
    l1 = []
    for i in range(12):
        l1.append(add_summary(mem, now.id, f"level one summary number {i} about price caching", ts=old + timedelta(hours=i)))
    ids["rolled"] = l1[0]
    add_summary(mem, now.id, "level two over the first two", level=2, children=l1[:2])
    for i in range(5):
        t = mem.store_turn(now.id, f"step {i}: the redis cache returns stale prices again", "x" * 2500)
        ids[f"recent{i}"] = t.id
    mem.embed_pending()
    mem.await_text_index()
    return now.id, ids


def test_context_sections_and_rules(database: Database, embedder: LocalEmbedder, namespace: str) -> None:
    mem = GraphMemory(database, embedder=embedder)
    sid, ids = _build(mem, namespace)
    block = mem.build_context(sid, "why does the redis cache return stale prices?")
    assert not block.warnings
    # recent raw turns: <= 3 and <= 5,000 characters (the newest always included)
    assert 1 <= len(block.recent_turns) <= 3
    assert sum(len(t.user_message) + len(t.assistant_message) for t in block.recent_turns) <= 5000 + 2600
    assert block.recent_turns[-1].id == ids["recent4"]
    recent = {t.id for t in block.recent_turns}
    # relevant turns: never a recent turn; the two identical past turns collapse into one
    rel = [h.id for h in block.relevant_turns]
    assert not recent & set(rel)
    assert len({ids["relevant"], ids["twin"]} & set(rel)) == 1
    assert block.dropped.get("near-duplicate", 0) + block.dropped.get("recent-repeat", 0) >= 1
    # level-1 summaries not rolled into level 2: <= 10, never the rolled-up ones
    l1 = [h.id for h in block.level1_summaries]
    assert 1 <= len(l1) <= 10 and ids["rolled"] not in l1
    # no item twice anywhere
    everything = [*recent, *rel, *(h.id for h in block.relevant_summaries), *l1]
    assert len(everything) == len(set(everything))
    assert block.chars == len(block.text) <= block.budget_chars
    assert "## Recent Conversation (Raw)" in block.text
    assert "## Recent Level 1 Summaries (Not Yet Summarized to Level 2)" in block.text
    data = json.loads(block.to_json())
    assert data["sessionId"] == sid and "relevantTurns" in data and "level1Summaries" in data
    small = mem.build_context(sid, "redis stale prices", config=ContextConfig(budget_chars=1500))
    assert small.chars <= 1500 and small.dropped.get("budget", 0) > 0
    fr = mem.build_context(sid, "redis stale prices", config=ContextConfig(locale="fr", scope="session"))
    assert all(h.session_id == sid for h in fr.relevant_turns + fr.relevant_summaries)


def test_context_without_embedder_warns_and_uses_text(database: Database, namespace: str) -> None:
    mem = GraphMemory(database)
    s = mem.create_session(namespace)
    mem.store_turn(s.id, "first question about tokens", "answer")
    for i in range(3):
        mem.store_turn(s.id, f"filler {i}", "more")
    mem.await_text_index()
    block = mem.build_context(s.id, "tokens")
    assert block.warnings and "text-only" in block.warnings[0]
    assert [h.user_message for h in block.relevant_turns] == ["first question about tokens"]


def test_neo4j_unavailable_raises_a_graphmem_error() -> None:
    # (retries stop after max_retry_time; a hang would end at the suite's per-test timeout)
    db = Database("bolt://127.0.0.1:9", "neo4j", "x", timeout=1.0, max_retry_time=1.0)
    mem = GraphMemory(db)
    with pytest.raises(DatabaseUnavailable):
        mem.build_context("some-session", "hello")
    with pytest.raises(DatabaseUnavailable):
        mem.search("hello", scope="everything")
    db.close()


def _cli(target: Neo4jTarget, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_"))}
    env.update(target.env())
    env["GRAPHMEM_HOME"] = env.get("HOME", "/tmp") + "/.cache/graphmem-cli-test"
    return subprocess.run([sys.executable, "-c", "from graphmem.cli import main; raise SystemExit(main())", *args],
                          capture_output=True, text=True, env=env, timeout=300)


def test_cli_search_and_context(database: Database, neo4j_target: Neo4jTarget, namespace: str) -> None:
    mem = GraphMemory(database)
    s = mem.create_session(namespace)
    mem.store_turn(s.id, "the zeppelin hangar door sticks", "oil the rails")
    mem.await_text_index()
    out = _cli(neo4j_target, "search", "zeppelin hangar", "--scope", "session", "--session", s.id, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [h["sessionId"] for h in data["hits"]] == [s.id]
    human = _cli(neo4j_target, "search", "zeppelin", "--scope", "directory", "--cwd", namespace, "--mode", "text")
    assert human.returncode == 0 and "zeppelin hangar door" in human.stdout
    ctx = _cli(neo4j_target, "context", s.id, "hangar door", "--json")
    assert ctx.returncode == 0, ctx.stderr
    assert json.loads(ctx.stdout)["recentTurns"][0]["userMessage"] == "the zeppelin hangar door sticks"
    missing = _cli(neo4j_target, "context", "no-such-session", "x")
    assert missing.returncode == 3


def test_bench_commands_smoke(database: Database, embedder: LocalEmbedder, tmp_path: Path) -> None:
    from graphmem_devtools.bench.locomo import locomo_markdown, run_locomo_bench
    from graphmem_devtools.bench.retrieval import run_retrieval_bench

    mem = GraphMemory(database, embedder=embedder)
    res = run_retrieval_bench(mem, sizes=(100,), queries=6, context_calls=2, context_warmup=2, log=lambda m: None)
    assert any("hybrid k=10" in k for k in res.figures)
    side = [k for k in res.figures if "side by side" in k]
    for recipe in ("current recipe", "previous recipe (no graph source, long_turn_chars=0, short turns field by field)",
                   "current recipe without the graph source", "current recipe without fact seeds",
                   "current recipe with short turns field by field", "current recipe without the context cap",
                   "current recipe without proximity pairs", "current recipe without the answer lift"):
        assert any(k.endswith(f"all scopes, side by side: {recipe}") for k in side), side
    assert any(k.endswith("build_context end to end, side by side: current recipe without the graph source")
               for k in side), side
    data = [{
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann", "speaker_b": "Bob",
            "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat named Pixel."},
                          {"speaker": "Bob", "dia_id": "D1:2", "text": "Lovely! I went hiking in Peru."}],
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Pixel broke a vase.",
                           "blip_caption": "a cat near a broken vase"}],
            "session_2_date_time": "3:00 pm on 9 May, 2023",
        },
        "qa": [{"question": "What is the name of Ann's cat?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
               {"question": "Where did Bob hike?", "answer": "Peru", "evidence": ["D1:2"], "category": 1},
               {"question": "Unanswerable?", "evidence": [], "category": 3}],
    }]
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(data))
    result = run_locomo_bench(mem, path, log=lambda m: None)
    runs = result.figures["runs"]
    assert {r["mode"] for r in runs} == {"hybrid", "text", "semantic"}
    hybrid = next(r for r in runs if r["mode"] == "hybrid")
    assert hybrid["recall"]["overall"]["R@5"] == 100.0
    assert "DRAGON" in locomo_markdown(result)


def test_context_stage_timings_and_unknown_session(database: Database, embedder: LocalEmbedder, namespace: str) -> None:
    from graphmem.errors import SessionNotFound

    mem = GraphMemory(database, embedder=embedder)
    s = mem.create_session(namespace + "/stages", project_path=namespace)
    mem.store_turn(s.id, "Why is the build red?", "A flaky timezone test; pinned TZ=UTC.")
    block = mem.build_context(s.id, "is the timezone test still flaky?")
    assert {"state", "embed", "search", "facts", "facts_wait", "assemble", "total"} <= set(block.timings_ms)
    assert [t.user_message for t in block.recent_turns] == ["Why is the build red?"]
    assert block.facts_log_id is not None
    plain = mem.build_context(s.id, "is the timezone test still flaky?", config=ContextConfig(facts=False))
    assert "facts" not in plain.timings_ms and plain.facts == []
    with pytest.raises(SessionNotFound):
        mem.build_context(namespace + "-missing", "anything")
