"""The conversation store against a real Neo4j: sessions, turns, tool calls, bad input."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from graphmem import GraphMemory, InvalidInput, SessionNotFound, ToolCallIn, TurnIn
from graphmem.demo_data import DEMO_TURNS

from ..support import TESTING, support_db

pytestmark = pytest.mark.integration

HOSTILE = [
    "'; MATCH (n) DETACH DELETE n; //",
    '"}) DETACH DELETE n //',
    "`}) DETACH DELETE n //",
    "$param {x: 1} \\u0000 \\' \\\"",
    'title:(foo OR bar) AND "quoted phrase"~2 +must -not *wild? [a TO z] {!} ^3 /regex/ && || \\',
    "<script>alert(1)</script> ${jndi:ldap://x}",
]


def test_create_session_normalises_cwd_and_finds_git_root(memory: GraphMemory, namespace: str, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    sub = repo / "pkg" / "mod"
    sub.mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(sub)
    s = memory.create_session(str(link) + "/", agent="claude-code")
    try:
        assert s.cwd == str(sub.resolve())
        assert s.project_path == str(repo.resolve())
        assert s.agent == "claude-code"
        assert s.turn_count == 0
        again = memory.create_session(str(sub), session_id=s.id)
        assert again.id == s.id and again.started_at == s.started_at
    finally:
        memory.delete_session(s.id)


def test_relative_and_home_paths_are_absolute(memory: GraphMemory, namespace: str) -> None:
    s = memory.create_session("~/" + namespace.strip("/"))
    try:
        assert s.cwd == os.path.expanduser("~/" + namespace.strip("/"))
        assert not s.cwd.endswith("/")
    finally:
        memory.delete_session(s.id)


def test_store_and_load_round_trip(memory: GraphMemory, namespace: str) -> None:
    base = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    s = memory.create_session(namespace, agent="demo", started_at=base)
    for i, t in enumerate(DEMO_TURNS):
        stored = memory.store_turn(s.id, t["user"], t["assistant"], t["tools"], timestamp=base + timedelta(minutes=i))
        assert stored.index == i + 1
        assert [c.order for c in stored.tool_calls] == list(range(len(t["tools"])))
    detail = memory.load_session(s.id)
    assert detail.turn_count == len(DEMO_TURNS)
    assert [t.index for t in detail.turns] == list(range(1, len(DEMO_TURNS) + 1))
    for got, want in zip(detail.turns, DEMO_TURNS, strict=True):
        assert got.user_message == want["user"]
        assert got.assistant_message == want["assistant"]
        assert [c.name for c in got.tool_calls] == [c["name"] for c in want["tools"]]
        assert [c.success for c in got.tool_calls] == [c["success"] for c in want["tools"]]
        assert [c.duration_ms for c in got.tool_calls] == [c["duration_ms"] for c in want["tools"]]
        assert got.char_count == len(want["user"]) + len(want["assistant"])
    assert detail.turns[0].timestamp == base
    assert detail.last_activity_at == base + timedelta(minutes=len(DEMO_TURNS) - 1)
    # NEXT chain is linear and complete
    rows = memory.db.read("turns/of_session", id=s.id)
    assert len(rows) == len(DEMO_TURNS)


def test_times_in_named_zones_are_stored_as_given(memory: GraphMemory, namespace: str) -> None:
    """A time in a ``zoneinfo`` zone keeps its instant, offset and zone name (the driver alone
    would store it an hour off in summer, or crash the process)."""
    paris, new_york = ZoneInfo("Europe/Paris"), ZoneInfo("America/New_York")
    started = datetime(2026, 7, 14, 9, 0, tzinfo=paris)
    s = memory.create_session(namespace, started_at=started)
    times = [datetime(2026, 7, 14, 22, 0, 1, 5, tzinfo=paris), datetime(2026, 1, 14, 22, 0, tzinfo=new_york)]
    for ts in times:
        memory.store_turn(s.id, "stored", "one by one", timestamp=ts)
    memory.import_turns(s.id, [TurnIn(user_message="imported", assistant_message="in a batch", source_id=f"z{i}",
                                      timestamp=ts) for i, ts in enumerate(times)])
    detail = memory.load_session(s.id)
    assert detail.started_at == started and detail.started_at.utcoffset() == timedelta(hours=2)
    for got, want in zip(detail.turns, times + times, strict=True):
        assert got.timestamp == want and got.timestamp.utcoffset() == want.utcoffset()
    zones = support_db(memory.db).read("testing/turn_zones", sessionId=s.id)
    assert [r["zone"] for r in zones] == ["Europe/Paris", "America/New_York"] * 2


def test_an_offset_neo4j_cannot_hold_keeps_its_instant(memory: GraphMemory, namespace: str) -> None:
    """Offsets with seconds (a local mean time of an old date, written as a fixed offset) or beyond
    +-18:00 are stored as the same instant in UTC, not refused by the driver or the server; an old
    date in a named zone keeps its zone."""
    s = memory.create_session(namespace)
    times = [datetime(2026, 5, 1, 12, 0, tzinfo=timezone(timedelta(hours=5, minutes=30, seconds=15))),
             datetime(2026, 5, 1, 12, 0, tzinfo=timezone(timedelta(hours=20))),
             datetime(1900, 5, 1, 12, 0, tzinfo=ZoneInfo("Europe/Paris"))]
    for ts in times:
        memory.store_turn(s.id, "stored", "one by one", timestamp=ts)
    got = [t.timestamp for t in memory.load_session(s.id).turns]
    assert got == times and [t.utcoffset() for t in got[:2]] == [timedelta(0)] * 2


def test_sessions_for_lists_newest_first_with_preview(memory: GraphMemory, namespace: str) -> None:
    old = memory.create_session(namespace, started_at=datetime(2025, 1, 1, tzinfo=UTC))
    new = memory.create_session(namespace, started_at=datetime(2025, 6, 1, tzinfo=UTC))
    memory.store_turn(old.id, "first question", "answer", timestamp=datetime(2025, 1, 1, 1, tzinfo=UTC))
    memory.store_turn(new.id, "x" * 500, "answer", timestamp=datetime(2025, 6, 1, 1, tzinfo=UTC))
    other = memory.create_session(namespace + "/elsewhere")
    listed = memory.sessions_for(namespace + "/")
    assert [s.id for s in listed] == [new.id, old.id]
    assert listed[0].last_message == "x" * 120
    assert listed[1].last_message == "first question"
    assert listed[1].turn_count == 1
    assert other.id not in {s.id for s in listed}


def test_recent_turns_respects_limit_and_chars(memory: GraphMemory, namespace: str) -> None:
    s = memory.create_session(namespace)
    for i in range(6):
        memory.store_turn(s.id, f"q{i}", "a" * 1000)
    recent = memory.recent_turns(s.id, max_chars=5000, limit=3)
    assert [t.index for t in recent] == [4, 5, 6]
    assert [t.index for t in memory.recent_turns(s.id, max_chars=2100, limit=3)] == [5, 6]
    # the newest turn is always returned, even when larger than the budget
    assert [t.index for t in memory.recent_turns(s.id, max_chars=10, limit=3)] == [6]
    assert memory.raw_history_chars(s.id) == 6 * 1002
    empty = memory.create_session(namespace)
    assert memory.recent_turns(empty.id) == []
    assert memory.raw_history_chars(empty.id) == 0


def test_unknown_session_raises(memory: GraphMemory) -> None:
    for call in (
        lambda: memory.store_turn("no-such-session", "u", "a"),
        lambda: memory.load_session("no-such-session"),
        lambda: memory.delete_session("no-such-session"),
        lambda: memory.recent_turns("no-such-session"),
        lambda: memory.raw_history_chars("no-such-session"),
        lambda: memory.import_turns("no-such-session", []),
    ):
        with pytest.raises(SessionNotFound):
            call()


def test_ten_megabyte_messages_round_trip(memory: GraphMemory, namespace: str) -> None:
    s = memory.create_session(namespace)
    big = ("ligne é 😀 \t" * 1_000_000)[: 10 * 1024 * 1024]
    result = "r" * (2 * 1024 * 1024)
    memory.store_turn(s.id, big, big[::-1], [ToolCallIn(name="Read", args={"p": "x"}, result=result)])
    t = memory.load_session(s.id).turns[0]
    assert t.user_message.encode() == big.encode()
    assert t.assistant_message == big[::-1]
    assert t.tool_calls[0].result == result


def test_nul_bytes_kept_and_lone_surrogates_replaced(memory: GraphMemory, namespace: str) -> None:
    s = memory.create_session(namespace)
    memory.store_turn(s.id, "a\x00b\x01c", "x\ud800y\udfffz", [{"name": "t\ud83d", "args": "q\x00"}])
    t = memory.load_session(s.id).turns[0]
    assert t.user_message == "a\x00b\x01c"
    assert t.assistant_message == "x\ufffdy\ufffdz"
    assert t.tool_calls[0].name == "t\ufffd"
    assert t.tool_calls[0].args == "q\x00"


def test_hostile_strings_stored_verbatim_and_change_nothing_else(memory: GraphMemory, namespace: str) -> None:
    bystander = memory.create_session(namespace + "/bystander")
    memory.store_turn(bystander.id, "keep me", "intact")
    s = memory.create_session(namespace + "/" + HOSTILE[2].replace("/", "_"), agent=HOSTILE[0], title=HOSTILE[1])
    for h in HOSTILE:
        memory.store_turn(s.id, h, h, [{"name": h, "args": {h: h}, "result": h}])
    detail = memory.load_session(s.id)
    assert [t.user_message for t in detail.turns] == HOSTILE
    assert [t.tool_calls[0].name for t in detail.turns] == HOSTILE
    assert detail.agent == HOSTILE[0] and detail.title == HOSTILE[1]
    kept = memory.load_session(bystander.id)
    assert kept.turns[0].user_message == "keep me"
    # a hostile session id is just an id
    weird = memory.create_session(namespace, session_id=HOSTILE[1])
    memory.store_turn(weird.id, "u", "a")
    assert memory.load_session(HOSTILE[1]).turn_count == 1
    memory.delete_session(HOSTILE[1])
    assert memory.load_session(bystander.id).turn_count == 1


def test_invalid_input_is_rejected_cleanly(memory: GraphMemory, namespace: str) -> None:
    s = memory.create_session(namespace)
    with pytest.raises(InvalidInput):
        memory.store_turn(s.id, "u", "a", timestamp=datetime(2025, 1, 1))  # naive timestamp
    with pytest.raises(InvalidInput):
        memory.create_session("bad\x00path")
    with pytest.raises(InvalidInput):
        memory.store_turn("", "u", "a")
    with pytest.raises(ValueError):
        memory.store_turn(s.id, "u", "a", [{"args": "no name"}])
    assert memory.load_session(s.id).turn_count == 0


def test_import_is_idempotent_and_contiguous(memory: GraphMemory, namespace: str) -> None:
    s = memory.create_session(namespace)
    memory.store_turn(s.id, "live turn", "before import")
    turns = [
        TurnIn(
            user_message=f"u{i}",
            assistant_message=f"a{i}",
            source_id=f"rec-{i}",
            tool_calls=[ToolCallIn(name="Bash", args={"i": i}, success=i % 2 == 0)],
            timestamp=datetime(2025, 1, 1, tzinfo=UTC) + timedelta(seconds=i),
        )
        for i in range(1200)
    ]
    first = memory.import_turns(s.id, turns, batch_size=500)
    assert (first.created, first.skipped) == (1200, 0)
    again = memory.import_turns(s.id, turns[:700] + turns[:10])
    assert (again.created, again.skipped) == (0, 710)
    more = memory.import_turns(s.id, [*turns[1190:], TurnIn(user_message="new", assistant_message="x", source_id="rec-new")])
    assert (more.created, more.skipped) == (1, 10)
    detail = memory.load_session(s.id)
    assert [t.index for t in detail.turns] == list(range(1, 1203))
    assert detail.turns[1].source_id == "rec-0" and detail.turns[-1].user_message == "new"
    assert detail.turns[5].tool_calls[0].args == '{"i": 4}'
    chain = memory.db.read("maintenance/next_chain_check", sessionId=s.id)[0]
    assert chain == {"turns": 1202, "nexts": 1201, "heads": 1, "branching": 0}


def test_delete_session_removes_everything(memory: GraphMemory, namespace: str) -> None:
    s = memory.create_session(namespace)
    for t in DEMO_TURNS:
        memory.store_turn(s.id, t["user"], t["assistant"], t["tools"])
    assert memory.delete_session(s.id) == len(DEMO_TURNS)
    left = memory.db.read("maintenance/session_leftovers", sessionId=s.id)[0]
    assert left == {"turns": 0, "toolCalls": 0, "summaries": 0, "sessions": 0}


def test_rows_are_converted_exactly_as_record_data(memory: GraphMemory, namespace: str) -> None:
    """graphmem turns records into dicts with its own (faster) converter: same result as the driver's
    Record.data() for nodes, relationships, paths, nested lists and maps, vectors and temporals."""
    from graphmem.db.client import _rows

    s = memory.create_session(namespace + "/rows")
    memory.store_turn(s.id, "question", "answer", [ToolCallIn(name="Read", args={"path": "a.py"})])
    with memory.db.driver.session(database=memory.db.database) as session:
        records = list(session.run(TESTING.query("testing/graph_values"), {"sessionId": s.id}))
    assert records
    assert _rows(records) == [r.data() for r in records]
    assert support_db(memory.db).read("testing/graph_values", sessionId=s.id) == [r.data() for r in records]
