"""Issue #8, faults: the scripted runs of ``graphmem reliability faults`` at tiny sizes.

* Neo4j SIGKILLed twice under writer processes (the Stop-hook path), restarted by ``graphmem db
  up``, on a dedicated managed server in a temporary home with free ports: nothing acknowledged or
  spooled is lost, nothing is duplicated, indexes stay contiguous.
* The OpenAI-compatible server (a real local HTTP server) failing 30 % of requests with 429, 500 or a
  stall, at a small size on the dedicated server: failed jobs visible, then everything converges,
  attempts bounded.
* Summarizer workers SIGKILLed ten times at random points (shared test server, own namespace).
* Stop hooks with a full, read-only or size-limited ``$GRAPHMEM_HOME``: one clear line, exit 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import Database
from graphmem_devtools.reliability.faults import disk_fault_run, neo4j_kill_run, openai_fault_run, worker_kill_run
from graphmem_devtools.servers import ServerSpec

from ..conftest import Neo4jTarget

pytestmark = pytest.mark.integration


def test_neo4j_sigkill_cycles_lose_and_duplicate_nothing(dedicated: ServerSpec) -> None:
    r = neo4j_kill_run(dedicated, cycles=2, writers=2, sessions_per_writer=2, up_seconds=(0.5, 1.5),
                       down_seconds=(0.5, 1.0), interval=0.1, stop_server=False, log=lambda _m: None)
    assert r["cycles"] == 2
    assert r["acknowledged"] > 0 and r["spooled"] > 0  # both paths were taken
    assert r["lost"] == 0 and r["duplicated"] == 0 and r["duplicated_by_content"] == 0, r
    assert r["replayed"] == r["spooled"]  # every spooled turn is present exactly once
    assert r["index_problems"] == [] and r["unknown_turns"] == 0
    assert r["spool_left_entries"] == 0 and r["spool_rejected"] == 0
    assert r["ok"], r


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
