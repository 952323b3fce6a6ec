"""The graph source's variants on the coding haystacks and the LoCoMo haystacks, worker summaries included.

Loads the haystacks of ``graphmem bench coding`` or ``graphmem bench haystack`` into a fresh namespace
(or re-scores one kept by an earlier run, ``--reuse``), runs the summary worker to idle over it (the
offline extractive summarizer and the local embedder, as a deployment's worker would), then scores
graphmem's hybrid search with the graph source off, at several weights, and with one edge kind at a
time, beside plain BM25 on the same turns. Writes a JSON results file with the command, the commit
and the load average.

    python benchmarks/graph_source/sweep.py coding   [--reuse NS] --out benchmarks/graph_source/coding.json
    python benchmarks/graph_source/sweep.py haystack [--reuse NS] --out benchmarks/graph_source/haystack.json
    python benchmarks/graph_source/sweep.py coding --tool-calls --out benchmarks/graph_source/coding-tool-calls.json

(against the managed server of ``$GRAPHMEM_HOME``; the namespace is kept, its name printed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from graphmem.memory import open_memory
from graphmem.retrieval import RetrievalConfig
from graphmem_devtools.bench.coding_data import KINDS, build_coding_haystacks
from graphmem_devtools.bench.haystack import GROUPS, build_haystacks
from graphmem_devtools.bench.haystack_core import BASELINE_NAMES, HaystackRun, measure_haystacks

ROOT = Path(__file__).resolve().parents[2]


def runs() -> list[HaystackRun]:
    on = RetrievalConfig()
    off = replace(on, graph_weight=0.0)
    return [
        HaystackRun("hybrid, no graph source", "hybrid", off),
        HaystackRun("hybrid, graph 0.1", "hybrid", replace(on, graph_weight=0.1)),
        HaystackRun("hybrid, graph 0.2 (default)", "hybrid", replace(on, graph_weight=0.2)),
        HaystackRun("hybrid, graph 0.4", "hybrid", replace(on, graph_weight=0.4)),
        HaystackRun("graph 0.2, no summary seeds", "hybrid", replace(on, graph_weight=0.2, graph_summary_levels=())),
        HaystackRun("graph 0.2, summary seeds of levels 2-3 only", "hybrid",
                    replace(on, graph_weight=0.2, graph_summary_levels=(2, 3))),
        HaystackRun("graph 0.2, next edges only", "hybrid",
                    replace(on, graph_weight=0.2, graph_summary_levels=(), graph_edge_weights={"next": 1.0})),
        HaystackRun("graph 0.2, covers edges only", "hybrid",
                    replace(on, graph_weight=0.2, graph_edge_weights={"covers": 1.0})),
        HaystackRun("graph 0.2, file edges only", "hybrid",
                    replace(on, graph_weight=0.2, graph_summary_levels=(), graph_edge_weights={"file": 1.0})),
        HaystackRun("graph 0.2, no file edges", "hybrid",
                    replace(on, graph_weight=0.2, graph_edge_weights={**on.graph_edge_weights, "file": 0.0})),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench", choices=["coding", "haystack"])
    ap.add_argument("--reuse", default=None, help="a namespace kept by an earlier run")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared/benchmarks/locomo/locomo10.json")
    ap.add_argument("--tool-calls", action="store_true",
                    help="coding: store each turn's edited file as an Edit tool call (the `file` edge's data)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()
    groups: list[str] = list(KINDS) if args.bench == "coding" else list(GROUPS)
    if args.bench == "coding":
        hays = build_coding_haystacks(20, seed=11, sessions=50, turns=(4, 20))
    else:
        hays = build_haystacks(args.data)
    with open_memory() as mem:
        figures, notes = measure_haystacks(mem, hays, runs=runs(), groups=groups, label=args.bench, keep=True,
                                           reuse=args.reuse, summarize=True, tool_calls=args.tool_calls,
                                           log=lambda m: print(m, file=sys.stderr, flush=True))
    out = {
        "command": "python " + " ".join(sys.argv),
        "commit": commit + ("+dirty" if dirty else ""),
        "load_average": {"before": load_before, "after": [round(x, 2) for x in os.getloadavg()]},
        "cores": os.cpu_count(),
        "notes": notes,
        **figures,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1, default=str), encoding="utf-8")
    bm25 = figures["baselines"][BASELINE_NAMES[0]]
    print(f"{'run':45s} tune all@5 / all@10   test all@5 / all@10   all session@5")
    for name, table in [(r["name"], r["table"]) for r in figures["runs"]] + [("plain BM25", bm25)]:
        t, s, a = table["tune"]["overall"], table["test"]["overall"], table["all"]["overall"]
        print(f"{name:45s} {t['turn all@5']:.3f} / {t['turn all@10']:.3f}        {s['turn all@5']:.3f} / "
              f"{s['turn all@10']:.3f}        {a['session all@5']:.3f}")
    print(f"written: {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
