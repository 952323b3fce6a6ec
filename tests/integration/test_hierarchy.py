"""The summary hierarchy: grouping rules (pure) and what the worker writes (real Neo4j)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graphmem import Database, GraphMemory
from graphmem.check import check_hierarchy
from graphmem.hierarchy import PlanChild, cover_key, plan_level1, plan_rollup, rollup_threshold
from graphmem.models import TurnIn
from graphmem.worker import SummaryWorker, WorkerConfig

pytestmark = pytest.mark.integration


def _kids(sizes: list[int], *, start: int = 1, settled: bool = True) -> list[PlanChild]:
    return [PlanChild(f"t{start + i}", start + i, start + i, n, settled) for i, n in enumerate(sizes)]


# -- grouping rules (no database) ------------------------------------------------------------------


def test_level1_one_summary_per_turn_by_default() -> None:
    jobs, through = plan_level1(_kids([10, 5000, 20]), batch_chars=0, max_turns=8)
    assert [j.child_ids for j in jobs] == [["t1"], ["t2"], ["t3"]]
    assert through == 3


def test_level1_batches_small_consecutive_turns() -> None:
    kids = _kids([400, 500, 300, 2000, 100, 100])
    jobs, through = plan_level1(kids, batch_chars=1500, max_turns=8)
    # 400+500+300 = 1200 fits; +2000 would not; 2000 alone passes the cap; the tail is settled
    assert [j.child_ids for j in jobs] == [["t1", "t2", "t3"], ["t4"], ["t5", "t6"]]
    assert through == 6
    assert jobs[0].char_count == 1200 and (jobs[0].from_index, jobs[0].to_index) == (1, 3)


def test_level1_open_batch_waits_until_settled() -> None:
    kids = _kids([400, 500]) + _kids([100], start=3, settled=False)
    jobs, through = plan_level1(kids, batch_chars=1500, max_turns=8)
    assert jobs == [] and through is None  # 1000 chars, newest turn too recent: wait for more
    jobs, through = plan_level1(_kids([400, 500, 100, 100], settled=False), batch_chars=1500, max_turns=3)
    assert [j.child_ids for j in jobs] == [["t1", "t2", "t3"]] and through == 3  # max_turns closes it


def test_level1_batches_never_span_a_gap() -> None:
    kids = [PlanChild("a", 1, 1, 10), PlanChild("b", 2, 2, 10), PlanChild("d", 4, 4, 10)]
    jobs, _ = plan_level1(kids, batch_chars=1500, max_turns=8)
    assert [j.child_ids for j in jobs] == [["a", "b"], ["d"]]


def test_rollup_thresholds_grow_by_the_factor() -> None:
    assert [rollup_threshold(n, 5000, 4.0) for n in (1, 2, 3)] == [5000.0, 20000.0, 80000.0]
    with pytest.raises(ValueError):
        rollup_threshold(0, 5000, 4.0)


def test_rollup_closes_when_the_threshold_is_passed() -> None:
    kids = [PlanChild(f"s{i}", 2 * i + 1, 2 * i + 2, 1500) for i in range(9)]
    jobs, through = plan_rollup(kids, 0, child_level=1, threshold=5000, min_children=2, max_children=64)
    # 4 x 1500 = 6000 > 5000 closes a job; 8 children -> 2 jobs, the 9th waits
    assert [len(j.children) for j in jobs] == [4, 4]
    assert all(j.level == 2 for j in jobs)
    assert through == 16
    exact = [PlanChild(f"s{i}", i + 1, i + 1, 2500) for i in range(2)]
    assert plan_rollup(exact, 0, child_level=1, threshold=5000)[0] == []  # must *pass* 5,000


def test_rollup_needs_min_children_and_caps_children() -> None:
    big = [PlanChild("s1", 1, 1, 9000), PlanChild("s2", 2, 2, 10)]
    jobs, _ = plan_rollup(big, 0, child_level=1, threshold=5000, min_children=2)
    assert [j.child_ids for j in jobs] == [["s1", "s2"]]
    tiny = [PlanChild(f"s{i}", i + 1, i + 1, 1) for i in range(10)]
    jobs, through = plan_rollup(tiny, 0, child_level=2, threshold=5000, max_children=4)
    assert [len(j.children) for j in jobs] == [4, 4] and through == 8 and jobs[0].level == 3


def test_rollup_stops_at_a_gap_or_a_wrong_start() -> None:
    kids = [PlanChild("a", 1, 3, 3000), PlanChild("c", 7, 9, 3000), PlanChild("d", 10, 12, 3000)]
    assert plan_rollup(kids, 0, child_level=1, threshold=5000) == ([], None)  # 4..6 not written yet
    jobs, through = plan_rollup(kids[1:], 6, child_level=1, threshold=5000)
    assert [j.child_ids for j in jobs] == [["c", "d"]] and through == 12


def test_cover_key_is_the_exact_children() -> None:
    k = cover_key("s", 1, ["a", "b"])
    assert k == cover_key("s", 1, ["a", "b"]) and k.startswith("L1:")
    assert len({k, cover_key("s", 1, ["a"]), cover_key("s", 2, ["a", "b"]), cover_key("t", 1, ["a", "b"])}) == 4


# -- what the worker writes (real Neo4j) -----------------------------------------------------------

TEXT = (
    "The handler for {i} crashed because the payload had no user key. I changed it to return a 400 "
    "response and added a regression test in tests/test_h{i}.py, then ran pytest which passed. "
)


def _fill(memory: GraphMemory, session_id: str, n: int, *, chars: int = 900, start: datetime | None = None) -> None:
    base = start or datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
    rows = []
    for i in range(n):
        body = (TEXT.format(i=i) * 10)[: chars - 60]
        rows.append(TurnIn(user_message=f"Turn {i}: why does handler {i} fail with a 500?", assistant_message=body,
                           tool_calls=[{"name": "Bash", "args": {"command": f"pytest tests/test_h{i}.py"},
                                        "result": "1 passed", "success": True}],
                           timestamp=base + timedelta(minutes=i)))
    memory.import_turns(session_id, rows)


def _worker(database: Database, namespace: str, **kw: object) -> SummaryWorker:
    cfg = WorkerConfig(scope=namespace, poll_seconds=0.05, **kw)  # type: ignore[arg-type]
    return SummaryWorker(database, config=cfg)


def test_worker_builds_the_hierarchy(memory: GraphMemory, database: Database, namespace: str) -> None:
    s = memory.create_session(namespace + "/a")
    _fill(memory, s.id, 30)
    turns = memory.load_session(s.id).turns
    assert memory.raw_history_chars(s.id) == sum(t.char_count for t in turns)
    stats = _worker(database, namespace).run_until_idle()
    assert stats.summaries[1] == 30 and stats.turns_summarized == 30
    assert memory.raw_history_chars(s.id) == 0

    l1 = memory.summaries(s.id, 1)
    assert len(l1) == 30
    by_turn = {t.id: t for t in turns}
    for m in l1:
        assert len(m.child_ids) == 1
        t = by_turn[m.child_ids[0]]
        assert (m.char_count, m.turn_count, m.timestamp) == (t.char_count, 1, t.timestamp)
        assert m.summary and m.method == "extractive" and "Bash" in m.tools_used
    # ~900 chars per turn: 6 turns pass 5,000 -> level 2; 4 level-2 summaries pass 20,000 -> level 3
    l2 = memory.summaries(s.id, 2)
    assert [len(m.child_ids) for m in l2] == [6, 6, 6, 6, 6]
    assert all(m.char_count > 5000 for m in l2)
    l3 = memory.summaries(s.id, 3)
    assert len(l3) == 1 and l3[0].child_ids == [m.id for m in l2[:4]]
    assert l3[0].turn_count == 24 and l3[0].timestamp == turns[23].timestamp
    assert l3[0].char_count == sum(t.char_count for t in turns[:24])

    assert [m.id for m in memory.level1_summaries_not_summarized(s.id, limit=10)] == []
    assert [m.id for m in memory.summaries_not_rolled_up(s.id, 2, limit=10)] == [l2[4].id]
    report = check_hierarchy(database, [s.id], complete=True)
    assert report.ok, report.text()

    # node properties other engineers rely on
    rows = database.read("check/forest", sessionId=s.id)[0]
    assert {t["summaryState"] for t in rows["turns"]} == {"done"}
    for m in rows["summaries"]:
        assert m["coverKey"].startswith(f"L{m['level']}:")
        assert m["hasSummary"] == [{"session": s.id, "level": m["level"]}]
    top = database.read("summaries/not_rolled_up", sessionId=s.id, level=3, limit=1)[0]["summary"]
    assert top["model"] == "textrank-v1" and top["fromIndex"] == 1 and top["toIndex"] == 24


def test_new_turns_extend_the_hierarchy(memory: GraphMemory, database: Database, namespace: str) -> None:
    s = memory.create_session(namespace + "/b")
    _fill(memory, s.id, 4)
    w = _worker(database, namespace)
    w.run_until_idle()
    assert len(memory.level1_summaries_not_summarized(s.id)) == 4  # 3,600 chars: below 5,000
    assert memory.summaries(s.id, 2) == []
    memory.store_turn(s.id, "And the other handler?", "Same fix there. " * 100)
    w.run_until_idle()
    assert len(memory.summaries(s.id, 2)) == 1 and memory.level1_summaries_not_summarized(s.id) == []
    memory.store_turn(s.id, "thanks", "you are welcome")
    w.run_until_idle()
    left = memory.level1_summaries_not_summarized(s.id, limit=10)
    assert len(left) == 1 and left[0].turn_count == 1
    assert check_hierarchy(database, [s.id], complete=True).ok


def test_level1_batching_of_small_turns(memory: GraphMemory, database: Database, namespace: str) -> None:
    s = memory.create_session(namespace + "/c")
    _fill(memory, s.id, 10, chars=400)
    stats = _worker(database, namespace, batch_chars=1500, batch_wait_seconds=0.0).run_until_idle()
    l1 = memory.summaries(s.id, 1)
    assert [m.turn_count for m in l1] == [3, 3, 3, 1]  # 3 x ~400 fit in 1,500; the settled tail alone
    assert stats.turns_summarized == 10 and sum(m.char_count for m in l1) == sum(
        t.char_count for t in memory.load_session(s.id).turns
    )
    assert check_hierarchy(database, [s.id], complete=True).ok


def test_open_batch_waits_for_a_pause(memory: GraphMemory, database: Database, namespace: str) -> None:
    s = memory.create_session(namespace + "/d")
    memory.store_turn(s.id, "hi", "hello")  # timestamp now: not settled for an hour
    w = _worker(database, namespace, batch_chars=1500, batch_wait_seconds=3600.0)
    w.run_until_idle()
    assert memory.summaries(s.id) == [] and memory.raw_history_chars(s.id) > 0
    report = check_hierarchy(database, [s.id])
    assert report.ok and report.awaiting == 1
    assert not check_hierarchy(database, [s.id], complete=True).ok
