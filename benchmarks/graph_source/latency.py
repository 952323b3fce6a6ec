"""What the graph source costs a search, side by side on a kept haystack load (worker summaries included).

Every question of the haystacks is searched (hybrid, directory scope, turns only, k=50, as the
benchmarks score) with the graph source off and on, the order alternating from question to question,
after one untimed pass. Prints p50/p95 of each and the median per-question ratio; writes a JSON
results file with the command, the commit and the load average. ``--off facts`` compares with the
fact edge off instead (a LoCoMo load kept by ``graphmem bench locomo --facts --keep``).

    python benchmarks/graph_source/latency.py coding --reuse /graphmem-bench/coding-<id> --out benchmarks/graph_source/latency-coding.json
    python benchmarks/graph_source/latency.py locomo --off facts --reuse /graphmem-bench/locomo-<id> --out benchmarks/graph_source/latency-locomo-facts.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from graphmem.embedding import query_vector
from graphmem.memory import open_memory
from graphmem.retrieval import RetrievalConfig, Scope, Searcher
from graphmem_devtools.bench.coding_data import build_coding_haystacks
from graphmem_devtools.bench.haystack import build_haystacks
from graphmem_devtools.bench.locomo import load_locomo

ROOT = Path(__file__).resolve().parents[2]


def _pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return round(s[min(len(s) - 1, int(p / 100 * len(s)))], 2)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench", choices=["coding", "haystack", "locomo"])
    ap.add_argument("--off", choices=["graph", "facts"], default="graph",
                    help="the recipe compared with the default: the graph source off, or only its fact edge")
    ap.add_argument("--reuse", required=True, help="a namespace kept by benchmarks/graph_source/sweep.py")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared/benchmarks/locomo/locomo10.json")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    ns = args.reuse.rstrip("/")
    if args.bench == "locomo":
        convs = load_locomo(args.data)
        work = [(Scope("directory", f"{ns}/{c.sample_id}"), q.question,
                 max(t.timestamp for ts in c.sessions.values() for t in ts) + timedelta(days=1))
                for c in convs for q in c.questions]
    else:
        hays = build_coding_haystacks(20, seed=11, sessions=50, turns=(4, 20)) if args.bench == "coding" \
            else build_haystacks(args.data)
        work = [(Scope("directory", f"{ns}/{h.name}"), q.question, q.now or h.now) for h in hays for q in h.questions]
    with open_memory() as mem:
        assert mem.embedder is not None
        on = RetrievalConfig()
        off, off_name = (replace(on, graph_weight=0.0), "graph off") if args.off == "graph" else \
            (replace(on, graph_edge_weights={**on.graph_edge_weights, "fact": 0.0}), "fact edge off")
        searchers = {off_name: Searcher(mem.db, mem.embedder, off, dimensions=mem.embedding_dimensions),
                     f"graph {on.graph_weight} (default)": Searcher(mem.db, mem.embedder, on,
                                                                     dimensions=mem.embedding_dimensions)}
        qvecs = {w[1]: query_vector(mem.embedder, w[1]) for w in work}
        names = list(searchers)
        lat: dict[str, list[float]] = {n: [] for n in names}
        graph_ms: list[float] = []
        fact_ms: list[float] = []
        for timed in (False, True):
            for i, (scope, question, now) in enumerate(work):
                for n in (names if i % 2 == 0 else names[::-1]):
                    t0 = time.perf_counter()
                    res = searchers[n].search(question, scope=scope, levels=[0], k=50, vector=qvecs[question], now=now)
                    if timed:
                        lat[n].append((time.perf_counter() - t0) * 1000)
                        if "graph" in res.timings_ms:
                            graph_ms.append(float(res.timings_ms["graph"]))
                        if "fact_seeds" in res.timings_ms:
                            fact_ms.append(float(res.timings_ms["fact_seeds"]))
    ratios = [b / a for a, b in zip(lat[names[0]], lat[names[1]], strict=True) if a > 0]
    out = {
        "command": "python " + " ".join(sys.argv), "commit": commit, "cores": os.cpu_count(),
        "load_average": {"before": load_before, "after": [round(x, 2) for x in os.getloadavg()]},
        "searches_per_recipe": len(work),
        "latency_ms": {n: {"p50": _pct(v, 50), "p95": _pct(v, 95)} for n, v in lat.items()},
        "median_ratio_on_to_off": round(statistics.median(ratios), 3),
        "graph_statement_ms": {"p50": _pct(graph_ms, 50), "p95": _pct(graph_ms, 95)},
        "fact_seeds_statement_ms": {"p50": _pct(fact_ms, 50), "p95": _pct(fact_ms, 95)} if fact_ms else None,
    }
    args.out.write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
