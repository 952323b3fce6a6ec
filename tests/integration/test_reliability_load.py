"""Smoke run of ``graphmem reliability load``: 2 writer + 2 reader processes for ~15 s.

The full run (8 + 8 processes, 10 minutes, figures in ``benchmarks/results/reliability-load.*``) is a
scripted command, not a test; this one asserts what must hold at any size: no error, every
acknowledged turn stored with its tool calls, turn indexes contiguous, memory figures present.
"""

from __future__ import annotations

import pytest

from graphmem.neo4j_local import ManagedServer
from graphmem_devtools.reliability.load import LoadConfig, proc_memory_mb, run_load

from ..conftest import Neo4jTarget

pytestmark = pytest.mark.integration


def test_load_smoke(neo4j_target: Neo4jTarget) -> None:
    pid = None
    if neo4j_target.home is not None:  # the managed test server: its JVM's memory is read from /proc
        st = ManagedServer(neo4j_target.home, neo4j_target.version).state()
        pid = st.pid if st else None
    cfg = LoadConfig(writers=2, readers=2, seconds=15, shared_sessions=1, projects=2, seed_turns=5,
                     facts_per_project=1)
    out = run_load((neo4j_target.uri, neo4j_target.user, neo4j_target.password), cfg, neo4j_pid=pid,
                   command="test_load_smoke")
    f = out.result.figures
    assert out.errors == 0, f["errors_by_class"]
    assert out.problems == []
    assert out.contiguity_ok
    assert f["store_turn"]["n"] > 0 and f["build_context"]["n"] > 0 and f["search (hybrid, project scope)"]["n"] > 0
    # every acknowledged turn (the warm-up ones included) was found again, in 1..n order
    assert f["turns_checked"] == f["turns_acknowledged"] >= f["store_turn"]["n"]
    assert set(f["process_memory_mb"]) == {"writer-0", "writer-1", "reader-0", "reader-1"}
    assert all(m.get("VmHWM", 0) > 0 for m in f["process_memory_mb"].values())
    if pid is not None:
        assert f["neo4j_jvm_memory_mb"]["rss_max_sampled"] > 0


def test_proc_memory_reads_this_process() -> None:
    mem = proc_memory_mb()
    assert mem["VmHWM"] >= mem["VmRSS"] > 0
    assert proc_memory_mb(2**22 + 12345) == {}  # no such process
