"""The spool without a database: durable appends, order-preserving replay, exactly-once inputs."""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from graphmem.config import Settings
from graphmem.errors import DatabaseUnavailable, InvalidInput
from graphmem.integrations import ReadCursor
from graphmem.models import Session, TurnIn
from graphmem.runtime.client import env_key, event_kind, socket_path
from graphmem.runtime.cursors import CursorStore
from graphmem.runtime.spool import Spool, SpoolError
from graphmem.turns import ImportResult


class Clock:
    """A monotonic clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class FakeMemory:
    """create_session/import_turns with source-id dedup, failing after ``fail_after`` imports,
    each import moving ``clock`` on by ``delay`` seconds."""

    fail_after: int | None = None
    delay: float = 0.0
    clock: Clock | None = None
    stored: dict[str, list[str]] = field(default_factory=dict)
    imports: int = 0
    reject: set[str] = field(default_factory=set)
    crash_after: int | None = None
    """Raise a non-database error (a crash of the replaying process) after this many imports."""

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
        if self.crash_after is not None and self.imports >= self.crash_after:
            raise KeyboardInterrupt("killed")
        self.imports += 1
        if self.clock is not None:
            self.clock.now += self.delay
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
    clock = Clock()
    spool = Spool(tmp_path, clock=clock)
    for i in range(40):
        spool.append(entry("s", f"t{i}"))
    mem = FakeMemory(delay=0.25, clock=clock)  # each import takes 0.25 s of the clock
    r = spool.replay(mem, max_seconds=0)  # type: ignore[arg-type]
    assert (r.entries, r.remaining, r.budget_exhausted) == (1, 39, True)  # the first entry is always attempted
    r = spool.replay(mem, max_seconds=1.0)  # type: ignore[arg-type]
    assert (r.entries, r.remaining, r.budget_exhausted) == (4, 35, True)  # stopped when 1 s was spent
    spool.append(entry("s", "t40"))
    r = spool.replay(mem)  # type: ignore[arg-type]  # no budget: everything
    assert r.remaining == 0 and not r.budget_exhausted and not spool.pending()
    assert mem.stored["s"] == [f"t{i}" for i in range(41)]  # exactly once, in order
    assert mem.imports == 41


def _ids(spool: Spool) -> list[str]:
    return [t["source_id"] for e in spool.entries() for t in e["turns"]]


def _snapshot(spool: Spool) -> Path:
    snaps = sorted(spool.dir.glob("replaying-*.jsonl"))
    assert len(snaps) == 1, snaps
    return snaps[0]


def _sidecar(snap: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(snap.with_name(snap.name + ".done").read_text())
    return value


def test_budget_stop_keeps_the_snapshot_and_records_the_offset(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    for i in range(6):
        spool.append(entry("s", f"t{i}"))
    lines = spool.path.read_bytes().splitlines(keepends=True)
    mem = FakeMemory()
    r = spool.replay(mem, max_entries=2)  # type: ignore[arg-type]
    assert (r.entries, r.remaining, r.budget_exhausted) == (2, 4, True)
    assert not spool.path.exists()  # nothing written back: the snapshot stays as it was
    snap = _snapshot(spool)
    assert snap.read_bytes() == b"".join(lines)
    inode = snap.stat().st_ino
    assert _sidecar(snap) == {"offset": len(lines[0]) + len(lines[1]), "lines": 2, "total": 6,
                              "size": snap.stat().st_size}
    spool.append(entry("s", "t6"))  # a hook spooled behind the backlog: a fresh spool file
    assert spool.path.read_bytes().count(b"\n") == 1
    st = spool.status()
    assert (st.entries, st.turns) == (5, 5) and _ids(spool) == ["t2", "t3", "t4", "t5", "t6"]
    assert st.bytes == sum(map(len, lines[2:])) + spool.path.stat().st_size
    r = spool.replay(mem, max_entries=3)  # type: ignore[arg-type]  # resumes after the committed prefix
    assert (r.entries, r.turns_skipped, r.remaining, r.budget_exhausted) == (3, 0, 2, True)
    assert mem.imports == 5 and mem.stored["s"] == ["t0", "t1", "t2", "t3", "t4"]
    assert _snapshot(spool) == snap and snap.stat().st_ino == inode  # the same file, untouched
    assert _sidecar(snap)["offset"] == sum(map(len, lines[:5])) and spool.path.exists()
    r = spool.replay(mem)  # type: ignore[arg-type]
    assert (r.entries, r.remaining, r.budget_exhausted) == (2, 0, False) and mem.imports == 7
    assert mem.stored["s"] == [f"t{i}" for i in range(7)] and not spool.pending()
    assert sorted(p.name for p in spool.dir.iterdir()) == [".lock", ".replay.lock"]  # no snapshot, no sidecar


def test_database_error_keeps_the_snapshot_and_counts_newer_entries(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    for i in range(4):
        spool.append(entry("s", f"t{i}"))
    mem = FakeMemory(fail_after=1)
    r = spool.replay(mem)  # type: ignore[arg-type]
    assert (r.entries, r.remaining, r.budget_exhausted) == (1, 3, False) and r.error
    snap = _snapshot(spool)
    assert (_sidecar(snap)["lines"], _sidecar(snap)["total"]) == (1, 4)
    spool.append(entry("s", "t4"))
    r = spool.replay(mem)  # type: ignore[arg-type]  # still down: nothing new, remaining counts the spool file too
    assert (r.entries, r.remaining) == (0, 4) and _snapshot(spool) == snap and _sidecar(snap)["lines"] == 1
    mem.fail_after = None
    r = spool.replay(mem, max_entries=3)  # type: ignore[arg-type]
    assert (r.entries, r.remaining, r.budget_exhausted) == (3, 1, True)
    assert not list(spool.dir.glob("replaying-*"))  # the snapshot is done and gone; the spool file waits
    r = spool.replay(mem)  # type: ignore[arg-type]
    assert (r.entries, r.remaining) == (1, 0) and mem.stored["s"] == [f"t{i}" for i in range(5)]


def test_order_across_leftover_snapshots_and_new_appends(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    spool.dir.mkdir(mode=0o700)

    def lines(*ids: str) -> bytes:
        return b"".join(json.dumps(entry("s", i)).encode() + b"\n" for i in ids)

    # two leftover snapshots (an older version, or crashes), the older one partly imported
    old = spool.dir / f"replaying-{1:020d}-1.jsonl"
    old.write_bytes(lines("a0", "a1", "a2"))
    first = len(lines("a0"))
    old.with_name(old.name + ".done").write_text(json.dumps(
        {"offset": first, "lines": 1, "total": 3, "size": old.stat().st_size}))
    (spool.dir / f"replaying-{2:020d}-1.jsonl").write_bytes(lines("b0", "b1"))
    spool.append(entry("s", "c0"))
    assert _ids(spool) == ["a1", "a2", "b0", "b1", "c0"] and spool.status().entries == 5
    mem = FakeMemory(stored={"s": ["a0"]})
    seen: list[int] = []
    while spool.pending():
        r = spool.replay(mem, max_entries=2)  # type: ignore[arg-type]
        seen.append(r.remaining)
        if len(seen) < 3:
            spool.append(entry("s", f"d{len(seen)}"))  # appended between two budgeted replays
    assert mem.stored["s"] == ["a0", "a1", "a2", "b0", "b1", "c0", "d1", "d2"]
    assert mem.imports == 7  # a0 was skipped by the sidecar, nothing imported twice
    assert seen == [3, 2, 1, 0]  # 5 - 2, then + d1 - 2, + d2 - 2, - 1


def test_a_stale_or_bad_sidecar_only_reimports(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    for i in range(6):
        spool.append(entry("s", f"t{i}", f"t{i}b"))
    mem = FakeMemory()
    spool.replay(mem, max_entries=4)  # type: ignore[arg-type]
    snap = _snapshot(spool)
    side = snap.with_name(snap.name + ".done")
    good = side.read_text()
    lines = snap.read_bytes().splitlines(keepends=True)
    # as if the process died after committing t2, t3 but before recording them
    side.write_text(json.dumps({"offset": sum(map(len, lines[:2])), "lines": 2, "total": 6,
                                "size": snap.stat().st_size}))
    assert spool.status().entries == 4
    r = spool.replay(mem, max_entries=3)  # type: ignore[arg-type]
    assert (r.entries, r.turns_created, r.turns_skipped, r.remaining) == (3, 2, 4, 1)
    assert mem.stored["s"] == [f"t{i}{x}" for i in range(5) for x in ("", "b")]
    for bad in ("garbage", good.replace('"size": ', '"size": 1'), good.replace('"offset": ', '"offset": 1'),
                json.dumps({"offset": -1, "lines": 0, "total": 6, "size": snap.stat().st_size})):
        side.write_text(bad)  # not this snapshot's, or not at a line end: the whole snapshot again
        assert spool.status().entries == 6
    r = spool.replay(mem)  # type: ignore[arg-type]
    assert (r.entries, r.turns_created, r.turns_skipped, r.remaining) == (6, 2, 10, 0)
    assert mem.stored["s"] == [f"t{i}{x}" for i in range(6) for x in ("", "b")] and not spool.pending()


def test_crash_during_a_replay_loses_and_duplicates_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("graphmem.runtime.spool_replay.CHECKPOINT_ENTRIES", 3)
    spool = Spool(tmp_path)
    for i in range(10):
        spool.append(entry("s", f"t{i}"))
    mem = FakeMemory(crash_after=7)
    with pytest.raises(KeyboardInterrupt):
        spool.replay(mem)  # type: ignore[arg-type]
    snap = _snapshot(spool)
    assert _sidecar(snap)["lines"] == 6  # the last checkpoint: t6 is committed but not recorded
    (spool.dir / ".progress-1-x.tmp").write_text('{"offset": ')  # a sidecar write cut short
    spool.append(entry("s", "t10"))
    assert spool.status().entries == 5
    mem.crash_after = None
    r = spool.replay(mem)  # type: ignore[arg-type]
    assert (r.entries, r.turns_created, r.turns_skipped, r.remaining) == (5, 4, 1, 0)
    assert mem.stored["s"] == [f"t{i}" for i in range(11)]
    # a crash between removing a finished snapshot and its sidecar: the orphan is dropped
    spool.append(entry("s", "t11"))
    orphan = spool.dir / f"replaying-{5:020d}-1.jsonl.done"
    orphan.write_text('{"offset": 0}')
    r = spool.replay(mem)  # type: ignore[arg-type]
    assert r.entries == 1 and not spool.pending()
    assert sorted(p.name for p in spool.dir.iterdir()) == [".lock", ".replay.lock"]


def test_rejected_lines_in_a_snapshot_are_set_aside_once(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    spool.append(entry("s", "t0"))
    with open(spool.path, "ab") as f:
        f.write(b"not json\n\n")
    spool.append(entry("bad", "x"))
    spool.append(entry("s", "t1"))
    mem = FakeMemory(reject={"bad"})
    r = spool.replay(mem, max_entries=3)  # type: ignore[arg-type]
    assert (r.entries, r.rejected, r.remaining, r.budget_exhausted) == (1, 2, 1, True)
    assert spool.status().entries == 1
    r = spool.replay(mem)  # type: ignore[arg-type]
    assert (r.entries, r.rejected, r.remaining) == (1, 0, 0) and mem.stored["s"] == ["t0", "t1"]
    assert len(spool.rejected_path.read_text().splitlines()) == 2

def test_hook_replay_seconds_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings.load().hook_replay_seconds == 2.0
    monkeypatch.setenv("GRAPHMEM_HOOK_REPLAY_SECONDS", "0")
    assert Settings.load().hook_replay_seconds == 0.0  # 0 = no limit
    for bad in ("-1", "nan"):
        monkeypatch.setenv("GRAPHMEM_HOOK_REPLAY_SECONDS", bad)
        with pytest.raises(ValueError, match="must be a number of seconds >= 0"):
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
