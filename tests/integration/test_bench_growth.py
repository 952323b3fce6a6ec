"""Tiny runs of ``graphmem bench growth`` and ``graphmem bench import`` (files and sane figures only;
no timing is asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem import Database, GraphMemory
from graphmem.embedding import LocalEmbedder
from graphmem.integrations import parse_transcript
from graphmem_devtools.bench.growth import NODES_PER_SESSION, GrowthConfig, write_growth
from graphmem_devtools.bench.growth import run_part as growth_part
from graphmem_devtools.bench.importing import generate_corpus, write_import
from graphmem_devtools.bench.importing import run_part as import_part

from ..conftest import Neo4jTarget

pytestmark = pytest.mark.integration

PNG = b"\x89PNG\r\n\x1a\n"


def _data_dir(target: Neo4jTarget) -> Path | None:
    if target.kind == "managed" and target.home is not None:
        return target.home / "neo4j" / target.version / "data"
    return None


def test_growth_smoke(memory: GraphMemory, neo4j_target: Neo4jTarget, tmp_path: Path) -> None:
    cfg = GrowthConfig(sizes=(200, 500), store_samples=4, search_samples=4, context_samples=3, warmup=1,
                       worker_at=200, worker_turns=8, summarizer_turns=8)
    data_dir = _data_dir(neo4j_target)
    part = growth_part(out_dir=tmp_path, quick=True, memory=memory, data_dir=data_dir, config=cfg,
                       log=lambda _m: None)
    f = part.figures
    steps = f["steps"]
    assert [s["target"] for s in steps] == [200, 500]
    sessions = [-(-200 // NODES_PER_SESSION), -(-500 // NODES_PER_SESSION)]
    assert [s["sessions"] for s in steps] == sessions
    assert [s["nodes"] for s in steps] == [n * NODES_PER_SESSION for n in sessions]
    for s in steps:
        assert s["store_turn"]["n"] == 4 and s["build_context"]["n"] == 3
        for scope in ("session", "project", "everything"):
            assert s[f"search {scope}"]["n"] == 4 and s[f"search {scope}"]["p50"] > 0
        assert s["load_seconds"] >= 0 and s["peak_rss_mb"] > 0
        assert ("disk_bytes" in s) == (data_dir is not None)
        if data_dir is not None:
            assert s["disk_bytes"]["store"] > 0 and s["disk_bytes"]["total"] >= s["disk_bytes"]["store"]
    assert "exact" in steps[0]["search session"]["vector strategy"]  # 100 nodes: the exact scan
    assert f["summarizer"]["turns_per_s"] > 0
    w = f["worker"]
    assert w["turns_summarized"] == 8 and w["embedder"] is None and w["summaries"] >= 8
    # the dataset was deleted afterwards (it lives under its own namespace)
    assert memory.db.read("maintenance/sessions_under_path", path=f["namespace"], prefix=f["namespace"] + "/") == []
    assert [p.name for p in part.plots] == (["growth_latency.png", "growth_store.png"] if data_dir
                                            else ["growth_latency.png"])
    assert all(p.read_bytes()[:8] == PNG for p in part.plots)
    js, md = write_growth(part, tmp_path, "graphmem bench growth --quick")
    assert json.loads(js.read_text())["figures"]["steps"][1]["nodes"] == steps[1]["nodes"]
    text = md.read_text()
    assert "# Benchmark: growth" in text and "![growth_latency](growth_latency.png)" in text
    assert "Synthetic data" in text and part.headline


def test_import_smoke(database: Database, tmp_path: Path) -> None:
    corpus = generate_corpus(tmp_path / "corpus", 60, namespace="/graphmem-test/never-imported")
    assert corpus.turns == 60 and corpus.bytes > 0 and len(corpus.files) == corpus.sessions
    parsed = [s for f in corpus.files for s in parse_transcript(f)]
    assert sum(len(s.turns) for s in parsed) == 60  # the real importers read every generated turn
    assert sum(len(t.tool_calls) for s in parsed for t in s.turns) == corpus.tool_calls

    mem = GraphMemory(database, embedder=LocalEmbedder())
    part = import_part(out_dir=tmp_path, quick=True, memory=mem, turns=120, log=lambda _m: None)
    f = part.figures
    assert f["corpus"]["turns"] == 120
    plain, embedded = f["without_embeddings"], f["with_embeddings"]
    assert plain["turns"] == embedded["turns"] == 120
    assert plain["tool_calls"] == embedded["tool_calls"] == f["corpus"]["tool_calls"]
    assert plain["turns_embedded"] == 0 and embedded["turns_embedded"] == 120
    assert plain["turns_per_s"] > 0 and embedded["mb_per_s"] > 0 and f["peak_rss_mb"] > 0
    assert plain["embed_seconds"] == 0 and embedded["embed_seconds"] > 0
    assert [p.name for p in part.plots] == ["import_throughput.png"] and part.plots[0].read_bytes()[:8] == PNG
    js, md = write_import(part, tmp_path, "graphmem bench import --quick")
    assert json.loads(js.read_text())["figures"]["corpus"]["turns"] == 120
    assert "with embeddings" in md.read_text()
