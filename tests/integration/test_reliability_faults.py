"""Faults: the scripted runs of ``graphmem reliability faults`` at tiny sizes.

* Neo4j SIGKILLed twice under writer processes (the Stop-hook path, and the library's store_turn
  with writes in flight at the kills), restarted by ``graphmem db up``, on a dedicated managed
  server in a temporary home with free ports: each kill confirmed, every attempted turn accounted
  for (stored exactly once, in its session, with its text, or reported failed to its caller),
  indexes contiguous; and the check itself names a turn lost or altered on purpose.
* The OpenAI-compatible server (a real local HTTP server) failing 30 % of requests with 429, 500 or a
  stall, at a small size on the dedicated server: failed jobs visible, then everything converges,
  attempts bounded.
* Summarizer workers SIGKILLed ten times at random points (shared test server, own namespace).
* Stop hooks with a full, read-only or size-limited ``$GRAPHMEM_HOME``: one clear line, exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem import Database, GraphMemory
from graphmem_devtools.reliability._fault_writer import session_ids, turn_text
from graphmem_devtools.reliability.disk_faults import disk_fault_run
from graphmem_devtools.reliability.neo4j_kill import neo4j_kill_run, read_writer_logs, verify_writer_turns
from graphmem_devtools.reliability.openai_faults import openai_fault_run
from graphmem_devtools.reliability.worker_kill import worker_kill_run
from graphmem_devtools.servers import ServerSpec

from ..conftest import Neo4jTarget
from ..support import support_db

pytestmark = pytest.mark.integration


def test_neo4j_sigkill_cycles_lose_and_duplicate_nothing(dedicated: ServerSpec) -> None:
    r = neo4j_kill_run(dedicated, cycles=2, writers=2, direct_writers=2, sessions_per_writer=2,
                       up_seconds=(0.5, 1.5), down_seconds=(0.5, 1.0), interval=0.1, stop_server=False,
                       log=lambda _m: None)
    assert r["cycles"] == r["kills_confirmed"] == 2 and r["kills_unconfirmed"] == []
    by_mode = r["outcomes_by_mode"]
    assert by_mode["hook"].get("ack", 0) > 0 and by_mode["hook"].get("spooled", 0) > 0  # both hook paths
    assert by_mode["direct"].get("ack", 0) > 0
    assert r["kills_with_a_direct_write_in_flight"] >= 1, r["direct_writes_in_flight_at_each_kill"]
    assert r["problems"] == 0, r["problem_examples"]
    assert r["lost"] == 0 and r["duplicated"] == 0 and r["altered"] == 0, r
    assert r["replayed"] == r["spooled"]  # every spooled turn is present exactly once
    assert r["index_problems"] == [] and r["unknown_turns"] == 0
    assert r["spool_left_entries"] == 0 and r["spool_rejected"] == 0
    assert r["ok"], r


def _writer_log(path: Path, records: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_the_turn_check_names_a_lost_or_altered_turn(database: Database, namespace: str, tmp_path: Path) -> None:
    """What the kill run relies on: a stored turn deleted, altered or moved, a duplicate, an
    acknowledged turn never stored and a hook-path error each fail the check, named."""
    mem = GraphMemory(database)
    sids = session_ids("planted", 0, 2, "direct")
    for sid in sids:
        mem.create_session(namespace, session_id=sid, agent="fault-writer")
    lines: list[dict[str, object]] = []
    turns = {}
    for seq in range(8):
        src, sid = f"planted:d0:{seq}", sids[seq % 2]
        lines.append({"event": "start", "seq": seq, "sid": sid, "src": src, "mode": "direct", "t": 1.0})
        if seq == 7:  # reported failed to its caller and not stored: allowed
            lines.append({"event": "end", "src": src, "outcome": "error", "error": "DatabaseUnavailable: down",
                          "t": 2.0})
            continue
        turn = mem.store_turn(sid, *turn_text(src))
        turns[seq] = turn
        lines.append({"event": "end", "src": src, "outcome": "ack", "session": sid, "index": turn.index, "t": 2.0})
    _writer_log(tmp_path / "direct-0.jsonl", lines)
    records = read_writer_logs([tmp_path / "direct-0.jsonl"])
    clean = verify_writer_turns(database, records, sids)
    assert clean["problems"] == 0 and clean["turns_attempted"] == 8, clean["problem_examples"]
    assert clean["errors_reported_to_caller"] == 1 and clean["errors_stored_anyway"] == 0

    tamper = support_db(database)
    tamper.write("testing/tamper_delete_turn", id=turns[6].id)  # the last of its session: no index gap
    tamper.write("testing/tamper_turn", id=turns[2].id, props={"assistantMessage": "something else"})
    mem.store_turn(sids[1], *turn_text("planted:d0:3"))  # a duplicate of seq 3
    _writer_log(tmp_path / "hook-0.jsonl", [
        {"event": "start", "seq": 0, "sid": "h", "src": "planted:w0:0", "mode": "hook", "t": 1.0},
        {"event": "end", "src": "planted:w0:0", "outcome": "error", "error": "GraphMemError: spool full", "t": 2.0},
        {"event": "start", "seq": 1, "sid": "h", "src": "planted:w0:1", "mode": "hook", "t": 1.0},
    ])
    records = read_writer_logs([tmp_path / "direct-0.jsonl", tmp_path / "hook-0.jsonl"])
    bad = verify_writer_turns(database, records, sids)
    problems = "\n".join(bad["problem_examples"])
    assert bad["lost"] == 1 and "planted:d0:6 (direct, ack): lost" in problems
    assert bad["altered"] == 1 and "planted:d0:2 (direct, ack): stored with another text" in problems
    assert bad["duplicated"] == 1 and "planted:d0:3 (direct, ack): stored 2 times" in problems
    assert "planted:w0:0 (hook): error reported to the caller" in problems
    assert "planted:w0:1 (hook): unfinished" in problems
    assert bad["problems"] == 5, problems


def test_worker_sigkills_leave_no_half_or_duplicate_summary(
    database: Database, neo4j_target: Neo4jTarget, namespace: str, tmp_path: Path
) -> None:
    r = worker_kill_run(uri=neo4j_target.uri, user=neo4j_target.user, password=neo4j_target.password,
                        home=tmp_path / "home", kills=10, victims=2, sessions=2, initial_turns=8,
                        turns_per_second=3.0, check_every=5, namespace=namespace, log=lambda _m: None)
    assert r["kills"] == 10 and r["intermediate_checks_failed"] == []
    assert r["half_written"] == 0 and r["duplicate_children"] == 0 and r["duplicate_cover_keys"] == 0
    assert r["graphmem_check_exit"] == 0, r["graphmem_check_output"]
    assert r["turns_stored"] == r["turns_written"] == r["level1_summaries"]
    assert r["summaries_by_victims"] >= 0 and r["lifetime_after_ready_s"]["max"] <= 1.2
    assert r["ok"], r


def test_full_or_read_only_home_is_one_clear_line_and_exit_0() -> None:
    r = disk_fault_run(log=lambda _m: None)
    for case in r["cases"]:
        assert case["exit_code"] == 0 and not case["traceback"] and case["stderr_lines"] == 1, case
        assert case["clear_reason"] and not case["cursor_moved"], case
        assert case["after_recovery_spooled_turns"] == 3, case  # nothing lost once space is back
    assert r["ok"], r


def test_openai_faults_converge_with_bounded_attempts(dedicated: ServerSpec) -> None:
    server = dedicated.server()
    st = server.state() or server.start()
    r = openai_fault_run(uri=st.uri, user="neo4j", password=server.password(), home=dedicated.home, turns=12,
                         sessions=2, fault_rate=0.3, force_failures=1, log=lambda _m: None)
    out = r["requests_by_outcome"]
    assert any(k.endswith((":429", ":500", ":stall")) for k in out), out  # faults were injected
    phase1 = r["phases"]["llm_only"]
    assert phase1["jobs_failed"] >= 1 and phase1["failed_shown_by_worker_status"] == phase1["jobs_failed"]
    assert r["phases"]["fallback"]["retried_failed_jobs"] == phase1["jobs_failed"]
    assert r["attempts_bounded"], r["max_attempts_seen"]
    assert r["turns_stored"] == 12 and r["turns_not_embedded"] == 0 and r["failed_jobs_left"] == 0
    assert r["check_complete_ok"] and r["ok"], r
