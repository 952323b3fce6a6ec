"""A tiny run of ``graphmem bench worker`` (figures only; no timing is asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import GraphMemory
from graphmem_devtools.bench import write_results
from graphmem_devtools.bench.worker import run_worker_bench

from ..conftest import Neo4jTarget

pytestmark = pytest.mark.integration


def test_worker_bench_smoke(memory: GraphMemory, neo4j_target: Neo4jTarget, tmp_path: Path) -> None:
    env = {**neo4j_target.env(), "GRAPHMEM_HOME": str(tmp_path / "home"), "GRAPHMEM_EMBEDDER": "none"}
    result = run_worker_bench(memory, summarizer_turns=12, worker_turns=8, ops_per_block=4, blocks=4, backlog=40,
                              measured_turns=3, warmup=2, worker_env=env)
    figs = result.figures
    assert figs["worker throughput turns/s"] > 0
    assert figs["store_turn, without worker"]["n"] == 8
    assert figs["store_turn, with a busy worker (also this session)"]["n"] == 4
    assert "store_turn p99 busy+session / off" in figs
    js, md = write_results(result, tmp_path)
    assert js.exists() and "# Benchmark: worker" in md.read_text()
