"""A Stop hook that meets a spool backlog replays it for a bounded time (a real Neo4j).

The hook replays for at most ``GRAPHMEM_HOOK_REPLAY_SECONDS``, spools its own turns behind what is
left (turn order kept) and returns; an unbounded replay (``graphmem spool replay``) stores the rest.
At the end every turn is in the database once, in order, with contiguous indexes.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from graphmem import GraphMemory
from graphmem.integrations import ImportedSession
from graphmem.models import TurnIn
from graphmem.runtime.cursors import CursorStore
from graphmem.runtime.service import HookService
from graphmem.runtime.spool import Spool
from tests.conftest import Neo4jTarget
from tests.integration.test_hooks import (
    claude_file,
    graphmem,
    hook_env,
    run_hook,
    source_ids,
    stop_payload,
    write_lines,
)

pytestmark = pytest.mark.integration


def spool_backlog(spool: Spool, cwd: str, sids: list[str], n: int) -> dict[str, list[str]]:
    """``n`` one-turn entries, round-robin over ``sids``; the source ids per session, in order."""
    expected: dict[str, list[str]] = {sid: [] for sid in sids}
    for i in range(n):
        sid = sids[i % len(sids)]
        src = f"backlog-{i}"
        turn = TurnIn(user_message=f"question {i}", assistant_message=f"answer {i}", source_id=src)
        spool.append(Spool.make_entry(agent="claude-code", session_id=sid, cwd=cwd, project_path=cwd, turns=[turn]))
        expected[sid].append(src)
    return expected


def hook_turns(sid: str, cwd: str, *ids: str) -> ImportedSession:
    turns = [TurnIn(user_message=f"hook question {i}", assistant_message=f"hook answer {i}", source_id=i) for i in ids]
    return ImportedSession(agent="claude-code", session_id=sid, cwd=cwd, turns=turns)


def assert_stored_once_in_order(memory: GraphMemory, sid: str, expected: list[str]) -> None:
    turns = memory.load_session(sid).turns
    assert [t.source_id for t in turns] == expected  # every turn once, in spool order
    assert [t.index for t in turns] == list(range(1, len(expected) + 1))  # contiguous indexes


class TickingClock:
    """A monotonic clock that moves 0.1 s each time it is read: a replay's time budget ends after
    the same few entries however fast or loaded the machine is."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.1
        return self.now


def test_hook_replays_for_its_budget_then_spools_behind_the_backlog(
    memory: GraphMemory, namespace: str, tmp_path: Path
) -> None:
    cwd = f"{namespace}/proj"
    sid_a, sid_b = str(uuid.uuid4()), str(uuid.uuid4())
    spool = Spool(tmp_path / "gh")
    budget = 0.3
    service = HookService(spool.home, lambda: memory, worktree_as_project=True, brief=False, replay_seconds=budget)
    service.spool = Spool(spool.home, clock=TickingClock())  # the budget runs out after a few entries
    # warm up (schema check, query plans: a cold first statement can take a second on its own)
    warm = service.ingest(hook_turns(str(uuid.uuid4()), cwd, "warm-up"), cwd=cwd, agent="claude-code")
    assert warm.created == 1
    n = 150
    expected = spool_backlog(spool, cwd, [sid_a, sid_b], n)

    res = service.ingest(hook_turns(sid_a, cwd, "hook-0", "hook-1"), cwd=cwd, agent="claude-code")
    assert res.replay is not None and res.replay.budget_exhausted and res.replay.error is None
    assert 1 <= res.replay.entries < n and res.replay.remaining == n - res.replay.entries
    assert (res.created, res.spooled) == (0, 2)
    assert res.spool_reason is not None and "GRAPHMEM_HOOK_REPLAY_SECONDS" in res.spool_reason
    assert "unreachable" not in res.spool_reason
    entries = spool.entries()
    assert len(entries) == res.replay.remaining + 1
    assert [t["source_id"] for t in entries[-1]["turns"]] == ["hook-0", "hook-1"]  # behind the backlog
    first_left = int(entries[0]["turns"][0]["source_id"].removeprefix("backlog-"))
    assert first_left == res.replay.entries  # the rest waits in front, in order

    # the next hook replays some more and queues its turn behind the first hook's
    res2 = service.ingest(hook_turns(sid_a, cwd, "hook-2"), cwd=cwd, agent="claude-code")
    assert res2.replay is not None and res2.replay.entries >= 1 and res2.spooled == 1
    assert [e["turns"][0]["source_id"] for e in spool.entries()[-2:]] == ["hook-0", "hook-2"]

    # an unbounded replay (as `graphmem spool replay` runs it) stores the rest
    r = spool.replay(memory)
    assert r.remaining == 0 and not r.budget_exhausted and r.rejected == 0 and not spool.pending()
    assert_stored_once_in_order(memory, sid_a, [*expected[sid_a], "hook-0", "hook-1", "hook-2"])
    assert_stored_once_in_order(memory, sid_b, expected[sid_b])

    # spool empty: the next hook stores directly
    res3 = service.ingest(hook_turns(sid_a, cwd, "hook-3"), cwd=cwd, agent="claude-code")
    assert (res3.created, res3.spooled, res3.replay) == (1, 0, None)
    assert source_ids(memory, sid_a)[-1] == "hook-3"


def test_replay_max_entries_stores_a_prefix_and_keeps_the_rest(
    memory: GraphMemory, namespace: str, tmp_path: Path
) -> None:
    cwd = f"{namespace}/proj"
    sid = str(uuid.uuid4())
    spool = Spool(tmp_path / "gh")
    expected = spool_backlog(spool, cwd, [sid], 5)[sid]
    r = spool.replay(memory, max_entries=2)
    assert (r.entries, r.turns_created, r.remaining, r.budget_exhausted) == (2, 2, 3, True)
    assert source_ids(memory, sid) == expected[:2]
    r = spool.replay(memory, max_entries=2)
    assert (r.entries, r.remaining, r.budget_exhausted) == (2, 1, True)
    r = spool.replay(memory, max_entries=2)
    assert (r.entries, r.remaining, r.budget_exhausted) == (1, 0, False) and not spool.pending()
    assert_stored_once_in_order(memory, sid, expected)


def test_stop_hook_command_reports_the_budget_not_an_outage(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, tmp_path: Path
) -> None:
    t, lines, sid, cwd = claude_file(tmp_path, namespace)
    path = tmp_path / f"{sid}.jsonl"
    write_lines(path, lines)
    home = tmp_path / "gh"
    spool = Spool(home)
    backlog = spool_backlog(spool, cwd, [sid], 100)[sid]
    env = hook_env(neo4j_target, home, GRAPHMEM_HOOK_REPLAY_SECONDS="0.2")

    last = t.kept_turns()[-1].texts[-1]
    r = run_hook(env, "claude-code", stop_payload(sid, path, cwd, last_assistant_message=last))
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert "older spooled entries are left after this hook's 0.2 s replay" in r.stderr, r.stderr
    assert "spooled behind the older entries" in r.stderr and "unreachable" not in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    assert CursorStore(home).get("claude-code", str(path)) is not None  # the turns are safe: the cursor moved
    transcript = [e.source_id for e in t.kept_turns()]
    assert [tt["source_id"] for tt in spool.entries()[-1]["turns"]] == transcript

    r = graphmem(hook_env(neo4j_target, home), "spool", "replay", "--json")  # unbounded
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["remaining"] == 0 and res["budget_exhausted"] is False and not spool.pending()
    assert_stored_once_in_order(memory, sid, [*backlog, *transcript])
