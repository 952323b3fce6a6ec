"""A tiny run of ``graphmem bench coding`` against the real server (figures and cleanup only; no
quality level or timing is asserted)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from graphmem import Database, GraphMemory
from graphmem.embedding import LocalEmbedder
from graphmem.retrieval import RetrievalConfig
from graphmem_devtools.bench.coding import coding_markdown, run_coding_bench
from graphmem_devtools.bench.coding_data import KINDS, PER_KIND, build_coding_haystacks
from graphmem_devtools.bench.common import read_part_results, write_results
from graphmem_devtools.bench.haystack_core import BASELINE_NAMES, METRICS, HaystackRun
from graphmem_devtools.bench.store import cleanup_bench_namespace

from ..support import support_db

pytestmark = pytest.mark.integration


def test_bench_coding_smoke(database: Database, tmp_path: Path) -> None:
    mem = GraphMemory(database, embedder=LocalEmbedder())
    size = {"haystacks": 2, "sessions": 1, "turns": (3, 3), "seed": 3}
    hays = build_coding_haystacks(2, seed=3, sessions=1, turns=(3, 3))
    turns = sum(len(s.turns) for h in hays for s in h.sessions)
    kept = run_coding_bench(mem, **size, keep=True, log=lambda _m: None)  # type: ignore[arg-type]
    f = kept.figures
    ns = kept.notes[-1].removeprefix("data kept under ")
    assert ns.startswith("/graphmem-bench/coding-")
    assert f["turns"] == turns  # every generated turn was imported, with its source id
    assert f["haystacks"] == {"tune": 1, "test": 1}
    assert f["questions"] == {"tune": sum(PER_KIND.values()), "test": sum(PER_KIND.values())}
    assert [r["name"] for r in f["runs"]] == ["hybrid", "text (BM25 only)", "semantic (vector only)"]
    assert list(f["baselines"]) == list(BASELINE_NAMES)
    for table in [r["table"] for r in f["runs"]] + list(f["baselines"].values()):
        assert set(table) == {"tune", "test", "all"}
        assert list(table["all"]) == ["overall", *KINDS]
        assert table["all"]["overall"]["n"] == 2 * sum(PER_KIND.values())
        assert all(0.0 <= table[h]["overall"][m] <= 1.0 for h in ("tune", "test") for m in METRICS)
    assert f["runs"][0]["search_latency_ms"]["p50"] > 0
    md = coding_markdown(kept)
    assert "Small run: 2 haystacks" in md and "## turn all@5 per question kind (test)" in md
    js, _ = write_results(kept, tmp_path)  # the results files the verb writes
    assert read_part_results(js, "coding")["figures"]["turns"] == turns

    # re-scoring the kept load gives the same baselines; a run with the previous long-turn recipe
    # rewrites the stored neighbour context for its turn, and the load is left as it was loaded
    assert f["long_turns"] == turns  # every generated turn has a long reply
    runs = [HaystackRun("hybrid", "hybrid", RetrievalConfig()),
            HaystackRun("previous", "hybrid", replace(RetrievalConfig(), long_turn_chars=0))]
    again = run_coding_bench(mem, **size, reuse=ns, runs=runs, log=lambda _m: None)  # type: ignore[arg-type]
    assert again.figures["baselines"] == f["baselines"] and again.figures["turns"] == turns
    sessions = database.read("maintenance/sessions_under_path", path=ns, prefix=ns + "/")
    assert sessions  # a reused load stays for the next --reuse
    db = support_db(database)
    assert {r["contextText"] for s in sessions for r in db.read("testing/turn_vectors", sessionId=s["id"])} == {""}
    cleanup_bench_namespace(mem, ns)
    assert database.read("maintenance/sessions_under_path", path=ns, prefix=ns + "/") == []


def test_bench_coding_with_tool_calls_summaries_and_the_graph_source(database: Database) -> None:
    mem = GraphMemory(database, embedder=LocalEmbedder())
    size = {"haystacks": 2, "sessions": 1, "turns": (3, 3), "seed": 3}
    runs = [HaystackRun("hybrid + graph", "hybrid", replace(RetrievalConfig(), graph_weight=0.2))]
    res = run_coding_bench(mem, **size, runs=runs, tool_calls=True, summarize=True,  # type: ignore[arg-type]
                           log=lambda _m: None)
    f = res.figures
    assert f["tool_calls"] is True
    assert f["summaries"]["1"] == f["turns"]  # the worker ran to idle: one level-1 summary per turn
    assert f["runs"][0]["table"]["all"]["overall"]["n"] == 2 * sum(PER_KIND.values())
    md = coding_markdown(res)
    assert "Each turn stores its edited file as an Edit tool call." in md
    assert "Summaries written by the worker run to idle" in md
    assert not any(n.startswith("data kept under") for n in res.notes)  # a fresh load is deleted


def _locomo_like(path: Path) -> Path:
    """Ten LoCoMo-shaped conversations of four short sessions, each with one answerable question."""
    import json

    samples = []
    for c in range(10):
        conv: dict[str, object] = {"speaker_a": "Ann", "speaker_b": "Bob"}
        for n in range(1, 5):
            conv[f"session_{n}"] = [{"speaker": "Ann" if i % 2 == 0 else "Bob", "dia_id": f"D{n}:{i + 1}",
                                     "text": f"conversation {c} session {n} line {i} about the garden"} for i in range(4)]
            conv[f"session_{n}_date_time"] = f"1:00 pm on {n} May, 2023"
        qa = [{"question": f"What was said in conversation {c} about the garden?", "evidence": ["D1:1"],
               "category": 4, "answer": "x"}]
        samples.append({"sample_id": f"conv-{c}", "conversation": conv, "qa": qa})
    path.write_text(json.dumps(samples))
    return path


def test_bench_mixed_smoke(database: Database, tmp_path: Path) -> None:
    from graphmem_devtools.bench.mixed import MIXED_GROUPS, mixed_markdown, run_mixed_bench

    mem = GraphMemory(database, embedder=LocalEmbedder())
    res = run_mixed_bench(mem, _locomo_like(tmp_path / "locomo.json"), chat_sessions=4, coding_sessions=2, needles=2,
                          limit=1, log=lambda _m: None)
    f = res.figures
    assert f["haystacks"] == {"tune": 1, "test": 1} and f["long_turns"] > 0
    groups = list(f["runs"][0]["table"]["all"])
    assert groups[0] == "overall" and set(groups[1:]) <= set(MIXED_GROUPS)
    assert any(g.startswith("chat: ") for g in groups) and any(g.startswith("coding: ") for g in groups)
    assert list(f["baselines"]) == list(BASELINE_NAMES)
    assert "## turn all@5 per question group (test)" in mixed_markdown(res)
    assert not any("kept" in n for n in res.notes)  # not kept: the load is gone
    assert not database.read("maintenance/sessions_under_path", path="/graphmem-bench/mixed-",
                             prefix="/graphmem-bench/mixed-")
