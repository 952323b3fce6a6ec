"""``graphmem check``: each invariant broken on purpose is reported (and a sound forest passes)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from graphmem import Database, GraphMemory
from graphmem.check import check_hierarchy
from graphmem.cli.main import main
from graphmem.models import Summary, TurnIn
from graphmem.worker import SummaryWorker, WorkerConfig

from ..conftest import Neo4jTarget
from ..support import support_db

pytestmark = pytest.mark.integration

N_TURNS = 6  # ~800 chars each; threshold 1,400 -> level 2 every 2 turns (3 of them), level 3 over 2


def _build(memory: GraphMemory, database: Database, namespace: str, names: list[str]) -> dict[str, str]:
    base = datetime(2025, 5, 1, 8, 0, tzinfo=UTC)
    ids = {}
    for name in names:
        s = memory.create_session(f"{namespace}/{name}")
        memory.import_turns(s.id, [
            TurnIn(user_message=f"{name} {i}: the cache keeps stale prices, why?",
                   assistant_message=("The cache key ignored the currency, so prices leaked between shops; "
                                      "I added the currency to the key and a test. ") * 6,
                   timestamp=base + timedelta(minutes=i))
            for i in range(N_TURNS)
        ])
        ids[name] = s.id
    cfg = WorkerConfig(scope=namespace, rollup_threshold_chars=1400, rollup_growth=1.0, rollup_min_children=2)
    SummaryWorker(database, config=cfg).run_until_idle()
    return ids


def _levels(memory: GraphMemory, sid: str) -> dict[int, list[Summary]]:
    out: dict[int, list[Summary]] = {}
    for m in memory.summaries(sid):
        out.setdefault(m.level, []).append(m)
    return out


def test_each_broken_invariant_is_reported(memory: GraphMemory, database: Database, namespace: str) -> None:
    breaks: dict[str, tuple[set[str], Callable[[str, dict[int, list[Summary]]], None]]] = {
        # a turn covered by two level-1 summaries
        "two_l1": ({"multiple-parents"}, lambda sid, lv: support_db(database).write(
            "testing/tamper_link", parentId=lv[1][1].id, childId=lv[1][0].child_ids[0], key=None)),
        # a level-1 summary covered by two level-2 summaries (and the sums no longer match)
        "two_l2": ({"multiple-parents", "char-count", "turn-count"}, lambda sid, lv: support_db(database).write(
            "testing/tamper_link", parentId=lv[2][1].id, childId=lv[2][0].child_ids[0], key=None)),
        # a level-2 summary summarizing a turn directly
        "skip_level": ({"parent-level", "multiple-parents"}, lambda sid, lv: support_db(database).write(
            "testing/tamper_link", parentId=lv[2][0].id, childId=lv[1][5].child_ids[0], key=None)),
        # a cycle: a level-1 summary summarizing the level-2 summary above it
        "cycle": ({"cycle"}, lambda sid, lv: support_db(database).write(
            "testing/tamper_link", parentId=lv[2][0].child_ids[0], childId=lv[2][0].id, key=None)),
        "char_count": ({"char-count"}, lambda sid, lv: support_db(database).write(
            "testing/tamper_set", id=lv[2][0].id, props={"charCount": lv[2][0].char_count + 1})),
        "turn_count": ({"turn-count"}, lambda sid, lv: support_db(database).write(
            "testing/tamper_set", id=lv[3][0].id, props={"turnCount": 99})),
        "timestamp": ({"timestamp"}, lambda sid, lv: support_db(database).write(
            "testing/tamper_set", id=lv[1][2].id, props={"timestamp": datetime(2030, 1, 1, tzinfo=UTC)})),
        # a turn marked summarized whose summary edge disappeared
        "uncovered": ({"turn-uncovered", "no-children"}, lambda sid, lv: support_db(database).write(
            "testing/tamper_unlink", childId=lv[1][4].child_ids[0])),
    }
    ids = _build(memory, database, namespace, ["sound", *breaks])
    sound = _levels(memory, ids["sound"])
    assert [len(sound[k]) for k in (1, 2, 3)] == [6, 3, 1]
    for name, (_, tamper) in breaks.items():
        tamper(ids[name], _levels(memory, ids[name]))
    whole = check_hierarchy(database, path=namespace, complete=True)
    assert whole.sessions == len(breaks) + 1 and not whole.ok
    # a broken session is read again twice (a read racing a worker's commit is not an error); the
    # errors persist, and the sound session is read once
    assert whole.rereads == 2 * len(breaks)
    assert not {p.session_id for p in whole.errors} & {ids["sound"]}
    for name, (expected, _) in breaks.items():
        got = {p.code for p in whole.errors if p.session_id == ids[name]}
        assert expected <= got, (name, got)
        assert got, name
    text = whole.text()
    assert "FAILED" in text and "cycle" in text and "multiple-parents" in text


def test_awaiting_turns_are_errors_only_when_caught_up(memory: GraphMemory, database: Database, namespace: str) -> None:
    ids = _build(memory, database, namespace, ["s"])
    memory.store_turn(ids["s"], "one more", "question")
    relaxed = check_hierarchy(database, [ids["s"]])
    assert relaxed.ok and relaxed.awaiting == 1
    strict = check_hierarchy(database, [ids["s"]], complete=True)
    assert strict.codes() == {"turn-uncovered"}


def test_cli_check_exit_codes(
    memory: GraphMemory, database: Database, namespace: str, neo4j_target: Neo4jTarget,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    for k, v in neo4j_target.env().items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "none")
    ids = _build(memory, database, namespace, ["s"])
    assert main(["check", "--cwd", namespace, "--complete"]) == 0
    assert "OK: every invariant holds" in capsys.readouterr().out
    lv = _levels(memory, ids["s"])
    support_db(database).write("testing/tamper_set", id=lv[1][0].id, props={"charCount": 1})
    assert main(["check", "--cwd", namespace]) == 1
    out = capsys.readouterr().out
    assert "FAILED: 1 error(s): char-count x1" in out and lv[1][0].id in out
    assert main(["worker", "status", "--json"]) == 0
    assert '"pending_turns"' in capsys.readouterr().out
