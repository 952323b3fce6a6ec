"""How the dense side's scores are normalised in the CombSUM fusion: min-max (graphmem's default)
against a floor on the span ("floorS": (v - lo) / max(hi - lo, S)), a max-only scaling ("max":
v / hi) and a fixed span below the best ("S": (v - (hi - S)) / S, clamped at 0).

Research script: it replaces ``graphmem.retrieval.search.combsum`` in this process only and
re-scores a load kept by an earlier ``--keep`` run of the benchmark named. It prints, per variant,
hybrid turn all@5 / all@10 per half (LoCoMo: R@5 / R@10), the multi-session kinds, and the median
spread (hi - lo) of the vector side's candidate scores.

    GRAPHMEM_EMBEDDER=local python benchmarks/long_turns/vector_span.py coding /graphmem-bench/coding-<id> \
        minmax,floor0.1,floor0.15,floor0.2
    # benchmarks: coding (kept with --summaries), requests (--evidence-in request), mixed, haystack
    # (kept with --summaries), locomo; run from the repository root (LoCoMo data in ../shared)
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import graphmem.retrieval.search as search_module
from graphmem.cli.common import open_memory
from graphmem.retrieval import RetrievalConfig
from graphmem_devtools.bench.haystack_core import HaystackRun

DATA = Path("../shared/benchmarks/locomo/locomo10.json")
MODE = {"vector": "minmax"}
SPREADS: list[float] = []


def _norm(mode: str, v: float, lo: float, hi: float) -> float:
    if mode == "minmax":
        return (v - lo) / (hi - lo) if hi > lo else 1.0
    if mode == "max":
        return v / hi if hi > 0 else 0.0
    if mode.startswith("floor"):
        return (v - lo) / max(hi - lo, float(mode[5:])) if hi > lo else 1.0
    span = float(mode)
    return max(0.0, (v - (hi - span)) / span)


def combsum(scored: Mapping[str, Sequence[tuple[Any, float]]], *, weights: Mapping[str, float] | None = None,
            min_spans: Mapping[str, float] | None = None) -> list[tuple[Any, float, dict[str, int]]]:
    """graphmem's CombSUM with the vector source's normalisation chosen by ``MODE`` (``min_spans``,
    the product's own floor, is ignored: ``floorS`` is the same rule)."""
    scores: dict[Any, float] = {}
    ranks: dict[Any, dict[str, int]] = {}
    for source, items in scored.items():
        if not items:
            continue
        w = 1.0 if weights is None else float(weights.get(source, 1.0))
        values = [v for _, v in items]
        lo, hi = min(values), max(values)
        if source == "vector":
            SPREADS.append(hi - lo)
        mode = MODE["vector"] if source == "vector" else "minmax"
        for r, (item, v) in enumerate(items, start=1):
            if item in ranks and source in ranks[item]:
                continue
            scores[item] = scores.get(item, 0.0) + w * _norm(mode, v, lo, hi)
            ranks.setdefault(item, {})[source] = r
    order = sorted(scores, key=lambda d: -scores[d])
    return [(d, scores[d], ranks[d]) for d in order]


def main() -> None:
    which, ns = sys.argv[1], sys.argv[2]
    variants = sys.argv[3].split(",") if len(sys.argv) > 3 else ["minmax", "floor0.1", "floor0.15", "floor0.2"]
    search_module.combsum = combsum  # type: ignore[assignment]
    cfg = RetrievalConfig()
    with open_memory(start=False) as mem:
        for variant in variants:
            MODE["vector"] = variant
            SPREADS.clear()
            if which == "locomo":
                from graphmem_devtools.bench.locomo import LocomoRun, run_locomo_bench
                r = run_locomo_bench(mem, DATA, runs=[LocomoRun(variant, "hybrid", cfg)], expansion_window=2,
                                     reuse=ns, keep=True, log=lambda m: None)
                rc = r.figures["runs"][0]["recall"]
                print(which, variant, {h: (rc[h]["R@5"], rc[h]["R@10"]) for h in rc if "half" in h or h == "overall"},
                      "spread p50", round(statistics.median(SPREADS), 3), flush=True)
                continue
            runs = [HaystackRun(variant, "hybrid", cfg)]
            if which in ("coding", "requests"):
                from graphmem_devtools.bench.coding import run_coding_bench
                r = run_coding_bench(mem, runs=runs, reuse=ns, keep=True, summarize=which == "coding",
                                     evidence_in="request" if which == "requests" else "reply", log=lambda m: None)
            elif which == "haystack":
                from graphmem_devtools.bench.haystack import run_haystack_bench
                r = run_haystack_bench(mem, DATA, runs=runs, reuse=ns, keep=True, summarize=True, log=lambda m: None)
            else:
                from graphmem_devtools.bench.mixed import run_mixed_bench
                r = run_mixed_bench(mem, DATA, runs=runs, reuse=ns, keep=True, log=lambda m: None)
            t = r.figures["runs"][0]["table"]
            print(which, variant,
                  {h: (round(t[h]["overall"]["turn all@5"], 3), round(t[h]["overall"]["turn all@10"], 3))
                   for h in ("tune", "test")},
                  {g: round(t["all"][g]["turn all@5"], 3) for g in t["all"] if "aggreg" in g or "multi" in g},
                  "spread p50", round(statistics.median(SPREADS), 3), flush=True)


if __name__ == "__main__":
    main()
