"""A tiny run of ``graphmem bench all`` (figures and files only; no timing is asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem import Database, GraphMemory
from graphmem_devtools.bench.compare import fold_tool_calls
from graphmem_devtools.bench.report import PartOptions, external_part, run_parts, write_report

pytestmark = pytest.mark.integration

LOCOMO = [{
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bob",
        "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat named Pixel."},
                      {"speaker": "Bob", "dia_id": "D1:2", "text": "Lovely! I went hiking in Peru."},
                      {"speaker": "Ann", "dia_id": "D1:3", "text": "My sister plays the cello in an orchestra."}],
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Pixel broke a vase.",
                       "blip_caption": "a cat near a broken vase"}],
        "session_2_date_time": "3:00 pm on 9 May, 2023",
    },
    "qa": [{"question": "What is the name of Ann's cat?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
           {"question": "Where did Bob go hiking?", "answer": "Peru", "evidence": ["D1:2"], "category": 1},
           {"question": "What broke the vase?", "answer": "Pixel", "evidence": ["D2:1"], "category": 2}],
}]


def _locomo_results(path: Path) -> Path:
    """A locomo.json in the shape ``graphmem bench locomo`` writes (input fixture for the report's quality part:
    measuring LoCoMo itself is smoke-tested in test_context.py, and its embedding pass is not scoped to a namespace,
    so on a shared test server it would embed every other test's pending turns)."""
    table = {"overall": {"R@5": 66.7, "R@10": 100.0, "R@25": 100.0, "n": 3},
             "4 single-hop": {"R@5": 100.0, "R@10": 100.0, "R@25": 100.0, "n": 1}}
    runs = [{"name": n, "mode": m, "config": {}, "recall": table, "context_chars": {"top5": 90.0, "top10": 120.0,
             "top25": 120.0}, "search_latency_ms": {"p50": 1.0, "p95": 2.0}}
            for n, m in (("hybrid", "hybrid"), ("text (BM25 only)", "text"), ("semantic (vector only)", "semantic"))]
    path.write_text(json.dumps({"name": "locomo", "command": "graphmem bench locomo --convs 1", "machine": {},
                                "figures": {"turns": 4, "questions": 3, "embedder": "use-multilingual-v3",
                                            "runs": runs}, "notes": []}))
    return path


def test_bench_all_quick_report(database: Database, tmp_path: Path) -> None:
    mem = GraphMemory(database)
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps(LOCOMO))
    out = tmp_path / "report"
    opts = PartOptions.for_quick(writes_rounds=12, writes_warmup=2, retrieval_sizes=(20, 60), retrieval_queries=4,
                                 retrieval_warmup=1, locomo_data=data, locomo_convs=1)
    opts.locomo_results = _locomo_results(tmp_path / "locomo-results.json")
    names = ["writes", "retrieval", "quality"]
    missing = [n for n in ("growth", "import") if external_part(n) is None]
    names += missing  # a part whose module is missing must show up as skipped, not vanish
    results, skipped, info = run_parts(mem, names, out_dir=out, options=opts)
    print("part seconds:", info["seconds"], "load:", info["load_average_start_end"])
    assert [s.name for s in skipped] == missing, skipped
    assert {r.name for r in results} == {"writes", "retrieval", "quality"}
    md, js = write_report(results, out_dir=out, command="graphmem bench all --quick", mem=mem, skipped=skipped,
                          run_info=info, quick=True)

    report = json.loads(js.read_text())
    parts = report["parts"]
    w = parts["writes"]["figures"]
    assert w["graphmem store_turn (3 tool calls)"]["n"] == 12
    assert w["langchain-neo4j add_messages (user + assistant, tools folded)"]["n"] == 12
    assert w["empty write transaction (floor)"]["n"] == 12
    assert w["langchain messages written"] == 2 * (12 + 2)
    assert w["langchain session nodes left after cleanup"] == 0
    assert "graphmem / langchain p50" in w["ratios"]

    r = parts["retrieval"]["figures"]
    assert set(r["sizes"]) == {"20", "60"}
    for v in r["sizes"].values():
        assert v["vector_only_k10"]["exact scan"]["n"] == 4
        assert v["adaptive_picked"] == "exact"  # both sizes are under the threshold
        assert v["vector_only_k10"]["exact scan"]["n"] == v["modes_k10_adaptive"]["hybrid"]["n"]
        assert v["vector_only_k10"]["adaptive strategy used"] == {"exact": 4}
        assert v["vector_searches_without_hits"] == 0 and v["index_recall_at_10_vs_exact"] is not None
        assert set(v["vector_only_k10"]["index strategy used"]) <= {"index-filtered", "index-overfetch", "exact"}

    q = parts["quality"]["figures"]
    assert q["questions"] == 3 and q["source"].startswith("read from")
    assert {run["mode"] for run in q["graphmem_runs"]} == {"hybrid", "text", "semantic"}
    assert q["bm25_rank_bm25"]["overall"]["n"] == 3  # computed here, on the tiny conversation
    assert q["bm25_rank_bm25"]["4 single-hop"]["R@5"] == 100.0
    assert q["dragon_paper_overall"]["R@10"] == 66.2

    text = md.read_text()
    assert "## Headline" in text and "langchain-neo4j" in text and "DRAGON" in text
    for part in results:
        assert part.plots, part.name
        for p in part.plots:
            assert p.exists() and p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert f"]({p.name})" in text
    for name in missing:
        assert f"**{name}**" in text and any(s["name"] == name for s in report["skipped"])


def test_external_parts_interface() -> None:
    """growth / import (built in their own modules, smoke-tested there) plug into `bench all` and the CLI."""
    import argparse

    from graphmem_devtools.cli.bench_cmd import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    for name in ("growth", "import"):
        mod = external_part(name)
        if mod is None:
            continue
        assert callable(mod.run_part) and callable(mod.register)
        args = parser.parse_args(["bench", name, "--quick"])
        assert callable(args.handler)
    args = parser.parse_args(["bench", "all", "--quick", "--parts", "writes,quality"])
    assert args.parts == "writes,quality" and args.quick


def test_fold_tool_calls_keeps_every_call() -> None:
    tools = [{"name": "Grep", "args": {"pattern": "x"}, "result": "a.py:1", "success": True},
             {"name": "Bash", "args": {"command": "pytest"}, "result": "1 failed", "success": False}]
    text = fold_tool_calls("done", tools)
    assert text.startswith("done") and "[tool Grep" in text and "-> failed]" in text and "1 failed" in text
