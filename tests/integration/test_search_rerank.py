"""Time-aware search and session diversity on a real Neo4j."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from graphmem import Database, GraphMemory
from graphmem.embedding import LocalEmbedder
from graphmem.retrieval import RetrievalConfig, Scope
from graphmem.retrieval.rerank import last_turn_at

pytestmark = pytest.mark.integration

NOW = datetime(2024, 6, 12, 15, 0, tzinfo=UTC)  # a Wednesday; "last weekend" = 8-9 June


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    e = LocalEmbedder()
    e.load()
    return e


@pytest.fixture
def mem(database: Database, embedder: LocalEmbedder) -> Iterator[GraphMemory]:
    yield GraphMemory(database, embedder=embedder)


def _turn(mem: GraphMemory, cwd: str, when: datetime, user: str, assistant: str) -> str:
    s = mem.create_session(cwd, project_path=cwd, started_at=when)
    return mem.store_turn(s.id, user, assistant, timestamp=when).id


def test_a_named_time_window_lifts_the_turns_inside_it(mem: GraphMemory, namespace: str) -> None:
    cwd = namespace + "/life"
    may = _turn(mem, cwd, datetime(2024, 5, 2, 10, 0, tzinfo=UTC), "We went hiking, hiking all day on the ridge trail.",
                "Hiking the ridge trail sounds great, hiking boots help.")
    weekend = _turn(mem, cwd, datetime(2024, 6, 8, 11, 0, tzinfo=UTC), "Went hiking near the lake.",
                    "Nice, the lake is lovely.")
    mem.embed_pending()
    mem.await_text_index()
    mem.searcher(replace(RetrievalConfig(), time_boost=1.0))
    scope = Scope.directory(cwd)
    plain = mem.search("where did I go hiking", scope=scope, levels=(0,), k=2, mode="text", now=NOW)
    assert [h.id for h in plain.hits] == [may, weekend] and plain.time_window is None
    timed = mem.search("where did I go hiking last weekend", scope=scope, levels=(0,), k=2, mode="text", now=NOW)
    assert [h.id for h in timed.hits] == [weekend, may]
    assert timed.time_window == {"phrase": "last weekend", "start": "2024-06-07T18:00:00+00:00",
                                 "end": "2024-06-10T00:00:00+00:00", "anchor": "query date"}
    assert timed.strategy["rerank"]["in_window"] == 1
    # the same query a month later names another window: the weekend turn is no longer lifted
    later = mem.search("where did I go hiking last weekend", scope=scope, levels=(0,), k=2, mode="text",
                       now=NOW + timedelta(days=30))
    assert [h.id for h in later.hits] == [may, weekend] and later.time_window is not None
    mem.searcher(replace(RetrievalConfig(), time_boost=2.0))
    hybrid = mem.search("where did I go hiking last weekend", scope=scope, levels=(0,), k=2, now=NOW)
    assert hybrid.hits[0].id == weekend and hybrid.time_window is not None


def test_an_undated_query_on_an_idle_history_reads_its_window_from_the_last_turn(
    mem: GraphMemory, namespace: str,
) -> None:
    cwd = namespace + "/archive"
    may = _turn(mem, cwd, datetime(2024, 5, 2, 10, 0, tzinfo=UTC), "We went hiking, hiking all day on the ridge trail.",
                "Hiking the ridge trail sounds great, hiking boots help.")
    weekend = _turn(mem, cwd, datetime(2024, 6, 8, 11, 0, tzinfo=UTC), "Went hiking near the lake.",
                    "Nice, the lake is lovely.")
    s = mem.create_session(cwd, project_path=cwd, started_at=datetime(2024, 6, 11, 9, 0, tzinfo=UTC))
    mem.store_turn(s.id, "Remind me to buy bread.", "Noted: bread.", timestamp=datetime(2024, 6, 11, 9, 0, tzinfo=UTC))
    mem.embed_pending()
    mem.await_text_index()
    scope = Scope.directory(cwd)
    assert last_turn_at(mem.db, scope) == datetime(2024, 6, 11, 9, 0, tzinfo=UTC)
    assert last_turn_at(mem.db, Scope.session(s.id)) == datetime(2024, 6, 11, 9, 0, tzinfo=UTC)
    assert last_turn_at(mem.db, Scope.project(cwd)) == datetime(2024, 6, 11, 9, 0, tzinfo=UTC)
    assert last_turn_at(mem.db, Scope.directory(namespace + "/nothing here")) is None
    assert last_turn_at(mem.db, Scope.everything()) is not None
    # no date given: today's "last weekend" is after the history's end, so the query is read as if
    # asked the day after the last turn (Wednesday 12 June: the weekend of 8-9 June)
    mem.searcher(replace(RetrievalConfig(), time_boost=1.0))
    res = mem.search("where did I go hiking last weekend", scope=scope, levels=(0,), k=2, mode="text")
    assert [h.id for h in res.hits] == [weekend, may]
    assert res.time_window == {"phrase": "last weekend", "start": "2024-06-07T18:00:00+00:00",
                               "end": "2024-06-10T00:00:00+00:00", "anchor": "last turn"}
    # the same in a session scope (whose only turn is the last one)
    in_session = mem.search("hiking last weekend", scope=Scope.session(s.id), levels=(0,), k=2, mode="text")
    assert in_session.time_window is not None and in_session.time_window["anchor"] == "last turn"
    # a given date is taken as it is, even when nothing falls in its window
    dated = mem.search("where did I go hiking last weekend", scope=scope, levels=(0,), k=2, mode="text",
                       now=datetime(2025, 1, 15, tzinfo=UTC))
    assert [h.id for h in dated.hits] == [may, weekend]
    assert dated.time_window is not None and dated.time_window["anchor"] == "query date"
    # switched off: the window stays relative to today and lifts nothing here
    mem.searcher(replace(RetrievalConfig(), time_boost=1.0, anchor_to_last_turn=False))
    today = mem.search("where did I go hiking last weekend", scope=scope, levels=(0,), k=2, mode="text")
    assert [h.id for h in today.hits] == [may, weekend]
    assert today.time_window is not None and today.time_window["anchor"] == "now"


def test_an_undated_query_on_a_live_history_keeps_today_s_window(mem: GraphMemory, namespace: str) -> None:
    cwd = namespace + "/live"
    _turn(mem, cwd, datetime(2024, 6, 8, 11, 0, tzinfo=UTC), "Went hiking near the lake.", "Nice, the lake is lovely.")
    # the recent turn does not match the query: the scope's last turn is read to know the history is live
    _turn(mem, cwd, datetime.now(UTC), "Remind me to buy bread.", "Noted: bread.")
    mem.await_text_index()
    mem.searcher(replace(RetrievalConfig(), time_boost=1.0))
    res = mem.search("hiking last weekend", scope=Scope.directory(cwd), levels=(0,), k=2, mode="text")
    assert res.time_window is not None and res.time_window["anchor"] == "now"
    # a recent candidate shows it without that read
    _turn(mem, cwd, datetime.now(UTC), "Any plans for hiking?", "Not yet.")
    mem.await_text_index()
    res = mem.search("hiking last weekend", scope=Scope.directory(cwd), levels=(0,), k=2, mode="text")
    assert res.time_window is not None and res.time_window["anchor"] == "now"


def test_session_decay_spreads_the_top_k_over_sessions(mem: GraphMemory, namespace: str) -> None:
    cwd = namespace + "/diverse"
    base = datetime(2024, 6, 1, tzinfo=UTC)
    s1 = mem.create_session(cwd, project_path=cwd, started_at=base)
    crowd = [mem.store_turn(s1.id, f"the garden tomatoes and the garden beans, note {i}",
                            "garden tomatoes garden beans", timestamp=base + timedelta(minutes=i)).id
             for i in range(3)]
    other = _turn(mem, cwd, base + timedelta(days=3), "my garden had tomatoes and beans", "good")
    mem.embed_pending()
    mem.await_text_index()
    scope = Scope.directory(cwd)
    mem.searcher(replace(RetrievalConfig(), session_weight=0.0, time_boost=0.0))
    plain = [h.id for h in mem.search("garden tomatoes beans", scope=scope, levels=(0,), k=2, mode="text").hits]
    assert set(plain) <= set(crowd)
    # the other session's turn scores ~0.1-0.2 of the crowd's (Lucene statistics vary with what else the
    # index holds); a decay of 0.01 puts a second crowd turn far below it
    mem.searcher(replace(RetrievalConfig(), session_weight=0.0, session_decay=0.01))
    res = mem.search("garden tomatoes beans", scope=scope, levels=(0,), k=2, mode="text")
    assert res.hits[0].id in crowd and res.hits[1].id == other
    assert res.strategy["rerank"]["session_decay"] == 0.01
