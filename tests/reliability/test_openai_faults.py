"""Issue #8, faults: the OpenAI-compatible server failing 30 % of requests, at a small size, on a
dedicated managed server: failed jobs visible, then everything converges, attempts bounded.

Not part of ``make test`` (CI): in the session that added it, this run did not converge within its
15-minute phase limit on Neo4j 5.26 on an otherwise idle machine, and that is not understood yet.
Run it with ``make reliability-tests``; the scripted full run is ``graphmem reliability faults
--only openai``.
"""

from __future__ import annotations

import pytest

from graphmem.reliability.faults import (
    ServerSpec,
    openai_fault_run,
)

pytestmark = pytest.mark.integration


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
