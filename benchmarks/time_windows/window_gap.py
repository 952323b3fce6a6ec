"""Where the gold turn of each question that names a time sits, hybrid against text-only, on a kept
coding load (analysis, not a benchmark).

For every temporal question of ``graphmem bench coding`` (seed 11, the bench's sizes), runs the
default search in hybrid and in text-only mode with the question's date, and prints the questions
whose all@5 differs: the window read, each gold turn's rank, date and per-source ranks, and the
first six hits (date, vector / full-text / graph rank, final score). It showed that text-only's raw
BM25 scores are close together, so the window's lift (a share of the best score) moves an in-window
turn far further than in hybrid, whose min-max fused scores spread from 0 to the best.

    GRAPHMEM_EMBEDDER=local GRAPHMEM_HOME=... GRAPHMEM_BOLT_PORT=... \\
        python benchmarks/time_windows/window_gap.py /graphmem-bench/coding-<id> [--time-boost 0.6]
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from graphmem.cli.common import open_memory
from graphmem.embedding.base import query_vector
from graphmem.retrieval import RetrievalConfig, Scope, Searcher
from graphmem_devtools.bench.coding_data import build_coding_haystacks
from graphmem_devtools.bench.haystack_core import _id_map


def _ranked(searcher: Searcher, question: str, scope: Scope, mode: str, vector: list[float] | None,
            now: Any, id2src: dict[str, str], gold: set[str]) -> dict[str, Any]:
    res = searcher.search(question, scope=scope, levels=[0], k=50, mode=mode,  # type: ignore[arg-type]
                          vector=vector if mode != "text" else None, now=now)
    src = [id2src.get(h.id, "") for h in res.hits]
    return {
        "worst": max((src.index(g) + 1 if g in src else 99) for g in gold),
        "window": res.time_window,
        "gold": [(i + 1, str(h.timestamp)[:10], h.vector_rank, h.text_rank, h.graph_rank, round(h.score, 3))
                 for i, h in enumerate(res.hits) if src[i] in gold],
        "top": [(str(h.timestamp)[:10], h.vector_rank, h.text_rank, h.graph_rank, round(h.score, 3))
                for h in res.hits[:6]],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("namespace", help="a namespace kept by `graphmem bench coding --keep`")
    ap.add_argument("--haystacks", type=int, default=20)
    ap.add_argument("--time-boost", type=float, default=RetrievalConfig().time_boost)
    args = ap.parse_args()
    with open_memory(start=False) as mem:
        if mem.embedder is None:
            raise SystemExit("window_gap: the memory has no embedder (set GRAPHMEM_EMBEDDER)")
        embedder = mem.embedder
        id2src = _id_map(mem, args.namespace)
        searcher = Searcher(mem.db, mem.embedder, replace(RetrievalConfig(), time_boost=args.time_boost),
                            dimensions=mem.embedding_dimensions)
        differ = total = 0
        for h in build_coding_haystacks(args.haystacks, seed=11):
            scope = Scope("directory", f"{args.namespace}/{h.name}")
            for n, q in enumerate(h.questions):
                if q.group != "temporal":
                    continue
                total += 1
                vec = query_vector(embedder, q.question)
                hy, tx = (_ranked(searcher, q.question, scope, m, vec, q.now or h.now, id2src, q.gold_turns)
                          for m in ("hybrid", "text"))
                if (hy["worst"] <= 5) == (tx["worst"] <= 5):
                    continue
                differ += 1
                w = hy["window"] or {}
                print(f"{h.name}#{n} {q.question!r} hybrid {hy['worst']} text {tx['worst']} "
                      f"window {str(w.get('start', ''))[:10]}..{str(w.get('end', ''))[:10]}")
                for name, r in (("hybrid", hy), ("text", tx)):
                    print(f"  {name} gold (rank, date, vector, text, graph, score): {r['gold']}")
                    print(f"  {name} top: {r['top']}")
        print(f"{differ} of {total} temporal questions differ at 5")


if __name__ == "__main__":
    main()
