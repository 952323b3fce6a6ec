"""The spool without a database: durable appends, order-preserving replay, exactly-once inputs."""

from __future__ import annotations

import stat
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from graphmem.config import Settings
from graphmem.errors import DatabaseUnavailable, InvalidInput
from graphmem.integrations import ReadCursor
from graphmem.memory import ImportResult
from graphmem.models import Session, TurnIn
from graphmem.runtime.client import env_key, event_kind, socket_path
from graphmem.runtime.cursors import CursorStore
from graphmem.runtime.spool import Spool, SpoolError


@dataclass
class FakeMemory:
    """create_session/import_turns with source-id dedup, failing after ``fail_after`` imports,
    each import taking ``delay`` seconds."""

    fail_after: int | None = None
    delay: float = 0.0
    stored: dict[str, list[str]] = field(default_factory=dict)
    imports: int = 0
    reject: set[str] = field(default_factory=set)

    def create_session(self, cwd: str, project_path: str | None = None, agent: str | None = None, **kw: Any) -> Session:
        sid = kw["session_id"]
        if sid in self.reject:
            raise InvalidInput("bad session")
        self.stored.setdefault(sid, [])
        now = datetime.now(UTC)
        return Session(id=sid, cwd=cwd, project_path=project_path or cwd, agent=agent, title=None, started_at=now,
                       last_activity_at=now, turn_count=0)

    def import_turns(self, sid: str, turns: list[TurnIn]) -> ImportResult:
        if self.fail_after is not None and self.imports >= self.fail_after:
            raise DatabaseUnavailable("Neo4j is unreachable")
        self.imports += 1
        if self.delay:
            time.sleep(self.delay)
        have = self.stored[sid]
        created = 0
        for t in turns:
            if t.source_id not in have:
                have.append(str(t.source_id))
                created += 1
        return ImportResult(created=created, skipped=len(turns) - created)


def entry(sid: str, *ids: str) -> dict[str, Any]:
    return Spool.make_entry(agent="claude-code", session_id=sid, cwd="/p", project_path="/p",
                            turns=[TurnIn(user_message=f"u{i}", assistant_message="a", source_id=i) for i in ids])


def test_append_is_durable_private_and_replay_is_exactly_once(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "home")
    spool.append(entry("s1", "a", "b"))
    spool.append(entry("s1", "c"))
    assert stat.S_IMODE(spool.dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(spool.path.stat().st_mode) == 0o600
    st = spool.status()
    assert (st.entries, st.turns, st.sessions) == (2, 3, ["s1"])
    backup = spool.path.read_bytes()
    mem = FakeMemory()
    r = spool.replay(mem)  # type: ignore[arg-type]
    assert (r.entries, r.turns_created, r.remaining) == (2, 3, 0)
    assert mem.stored["s1"] == ["a", "b", "c"] and not spool.pending()
    spool.path.write_bytes(backup)  # as if we crashed before removing the entries
    r = spool.replay(mem)  # type: ignore[arg-type]
    assert (r.turns_created, r.turns_skipped) == (0, 3) and mem.stored["s1"] == ["a", "b", "c"]


def test_failed_replay_puts_entries_back_before_newer_ones(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    for i in range(3):
        spool.append(entry("s", f"t{i}"))
    mem = FakeMemory(fail_after=1)
    r = spool.replay(mem)  # type: ignore[arg-type]
    assert r.entries == 1 and r.remaining == 2 and "unreachable" in (r.error or "")
    spool.append(entry("s", "t3"))  # appended while Neo4j was down
    mem.fail_after = None
    r = spool.replay(mem)  # type: ignore[arg-type]
    assert r.remaining == 0 and mem.stored["s"] == ["t0", "t1", "t2", "t3"]  # order kept


def test_replay_max_entries_leaves_the_rest_in_front_of_newer_entries(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    for i in range(5):
        spool.append(entry("s", f"t{i}"))
    mem = FakeMemory()
    r = spool.replay(mem, max_entries=2)  # type: ignore[arg-type]
    assert (r.entries, r.remaining, r.budget_exhausted, r.error) == (2, 3, True, None)
    assert r.as_dict()["budget_exhausted"] is True
    assert mem.stored["s"] == ["t0", "t1"] and spool.status().entries == 3
    spool.append(entry("s", "t5"))  # a hook spooled its turn behind the rest
    assert [e["turns"][0]["source_id"] for e in spool.entries()] == ["t2", "t3", "t4", "t5"]
    r = spool.replay(mem, max_entries=4)  # type: ignore[arg-type]
    assert (r.entries, r.remaining, r.budget_exhausted) == (4, 0, False)  # nothing left: not "exhausted"
    assert mem.stored["s"] == [f"t{i}" for i in range(6)] and not spool.pending()
    # a line set aside counts as taken: max_entries=1 still makes progress
    with open(spool.path, "ab") as f:
        f.write(b"not json\n")
    spool.append(entry("s", "t6"))
    r = spool.replay(mem, max_entries=1)  # type: ignore[arg-type]
    assert (r.entries, r.rejected, r.remaining, r.budget_exhausted) == (0, 1, 1, True)
    r = spool.replay(mem, max_entries=1)  # type: ignore[arg-type]
    assert (r.entries, r.remaining, r.budget_exhausted) == (1, 0, False) and mem.stored["s"][-1] == "t6"
    with pytest.raises(ValueError, match="max_entries"):
        spool.replay(mem, max_entries=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_seconds"):
        spool.replay(mem, max_seconds=-1)  # type: ignore[arg-type]


def test_replay_max_seconds_stops_between_entries_and_always_makes_progress(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    for i in range(40):
        spool.append(entry("s", f"t{i}"))
    mem = FakeMemory(delay=0.02)
    r = spool.replay(mem, max_seconds=0)  # type: ignore[arg-type]
    assert (r.entries, r.remaining, r.budget_exhausted) == (1, 39, True)  # the first entry is always attempted
    t0 = time.monotonic()
    r = spool.replay(mem, max_seconds=0.1)  # type: ignore[arg-type]
    elapsed = time.monotonic() - t0
    assert r.budget_exhausted and r.entries >= 1 and r.entries + r.remaining == 39
    assert elapsed < 0.1 + 0.02 + 0.5, elapsed  # the budget, one entry in flight, the write-back
    spool.append(entry("s", "t40"))
    r = spool.replay(mem)  # type: ignore[arg-type]  # no budget: everything
    assert r.remaining == 0 and not r.budget_exhausted and not spool.pending()
    assert mem.stored["s"] == [f"t{i}" for i in range(41)]  # exactly once, in order
    assert mem.imports == 41


def test_hook_replay_seconds_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings.load().hook_replay_seconds == 2.0
    monkeypatch.setenv("GRAPHMEM_HOOK_REPLAY_SECONDS", "0")
    assert Settings.load().hook_replay_seconds == 0.0  # 0 = no limit
    for bad in ("-1", "nan"):
        monkeypatch.setenv("GRAPHMEM_HOOK_REPLAY_SECONDS", bad)
        with pytest.raises(ValueError, match="GRAPHMEM_HOOK_REPLAY_SECONDS must be a number of seconds >= 0"):
            Settings.load()


def test_truncated_lines_and_bad_entries_are_set_aside(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    spool.append(entry("ok", "x"))
    with open(spool.path, "ab") as f:
        f.write(b'{"v": 1, "session_id": "cut", "tur')  # a write cut short by a crash
    spool.append(entry("bad", "y"))  # starts on a line of its own
    spool.append(entry("ok", "z"))
    mem = FakeMemory(reject={"bad"})
    r = spool.replay(mem)  # type: ignore[arg-type]
    assert r.entries == 2 and r.rejected == 2 and r.remaining == 0
    assert mem.stored["ok"] == ["x", "z"]
    assert len(spool.rejected_path.read_text().splitlines()) == 2


def test_turns_without_source_id_get_a_stable_one(tmp_path: Path) -> None:
    e = Spool.make_entry(agent=None, session_id="s", cwd="/p", project_path=None,
                         turns=[TurnIn(user_message="u", assistant_message="a")])
    assert e["turns"][0]["source_id"] == f"spool:{e['id']}:0"


def test_disk_full_and_unwritable_home_raise_clear_errors(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    spool.dir.mkdir(mode=0o700)
    spool.path.symlink_to("/dev/full")
    with pytest.raises(SpoolError, match="disk is full"):
        spool.append(entry("s", "a"))
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(SpoolError, match="not a directory"):
        Spool(blocker / "home").append(entry("s", "a"))
    with pytest.raises(SpoolError, match="not a directory"):
        CursorStore(blocker / "home").put("claude-code", "/x.jsonl", ReadCursor())


def test_cursor_store_round_trip(tmp_path: Path) -> None:
    store = CursorStore(tmp_path)
    assert store.get("claude-code", "/t.jsonl") is None
    store.put("claude-code", "/t.jsonl", ReadCursor(offset=42, last_source_id="u1"), session_id="s")
    assert store.get("claude-code", "/t.jsonl") == ReadCursor(offset=42, last_source_id="u1")
    assert store.get("codex", "/t.jsonl") is None
    with store.lock("claude-code", "/t.jsonl"):
        pass


def test_client_helpers() -> None:
    assert event_kind(b'{"session_id": "x", "hook_event_name" : "UserPromptSubmit"}') == "prompt"
    assert event_kind(b'{"hook_event_name":"AfterAgent"}') == "stop"
    assert event_kind(b'{"hook_event_name":"SessionStart"}') == "session_start"
    assert event_kind(b'{"hook_event_name":"Notification"}') == "other"
    assert event_kind(b"garbage") == "other"
    assert env_key({"GRAPHMEM_NEO4J_URI": "a"}) != env_key({"GRAPHMEM_NEO4J_URI": "b"})
    assert env_key({"GRAPHMEM_HOOK_BUDGET": "3"}) == env_key({})
    assert len(socket_path("/" + "x" * 200).encode()) < 108
    assert socket_path("/tmp/h") == "/tmp/h/daemon.sock"


def test_hook_client_and_package_import_nothing_heavy() -> None:
    import subprocess
    import sys

    root = str(Path(__file__).resolve().parents[2])
    code = (f"import sys; sys.path.insert(0, {root!r}); import graphmem, graphmem.runtime.client, graphmem.cli; "
            "print(sorted(m for m in ('json', 'socket', 'typing', 'pathlib', 'neo4j', 'pydantic', 'numpy') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    import graphmem

    assert graphmem.GraphMemory.__name__ == "GraphMemory" and "GraphMemory" in graphmem.__all__
