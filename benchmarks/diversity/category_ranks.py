"""Where every question's gold turns rank in a kept haystack load (hybrid, k=50), by LoCoMo category.

Usage (the namespace a ``graphmem bench haystack --keep`` run printed, and its ``--replies``)::

    python benchmarks/diversity/category_ranks.py /graphmem-bench/haystack-assistant-<hash> assistant

Prints, per category, how many questions have their worst-ranked gold turn in the top 5, at 6-10,
11-30, 31-50 or beyond the top 50, and writes ``category-ranks-<replies>.json`` beside this file (per
question: category, half, the gold turns' ranks, 99 = not in the top 50).
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

from graphmem.memory import open_memory
from graphmem.retrieval.models import RetrievalConfig
from graphmem.retrieval.scopes import Scope
from graphmem.retrieval.search import Searcher
from graphmem_devtools.bench.haystack import build_haystacks
from graphmem_devtools.bench.haystack_core import _id_map

DATA = Path(__file__).resolve().parents[3] / "shared/benchmarks/locomo/locomo10.json"
BUCKETS = ((5, "top 5"), (10, "6-10"), (30, "11-30"), (50, "31-50"), (99, "beyond 50"))


def _bucket(rank: int) -> str:
    return next(name for top, name in BUCKETS if rank <= top)


def gold_ranks(ns: str, replies: str, categories: frozenset[int] | None = None) -> list[dict[str, object]]:
    """Per question of the kept load ``ns`` (only ``categories`` when given): the question, its
    category, half and its gold turns' ranks in the default hybrid search's top 50 (99 = not there)."""
    haystacks = build_haystacks(DATA, sessions=50, needles=10, per_conv=2, seed=7, replies=replies)
    mem = open_memory(start=True)
    id2src = _id_map(mem, ns)
    searcher = Searcher(mem.db, mem.embedder, RetrievalConfig(), dimensions=mem.embedding_dimensions)
    out: list[dict[str, object]] = []
    for h in haystacks:
        for q in h.questions:
            if categories is not None and q.category not in categories:
                continue
            res = searcher.search(q.question, scope=Scope("directory", f"{ns}/{h.name}"), levels=[0], k=50,
                                  now=q.now or h.now)
            ranked = [id2src.get(x.id, "") for x in res.hits]
            ranks = sorted(ranked.index(g) + 1 if g in ranked else 99 for g in q.gold_turns)
            out.append({"q": q.question, "category": q.category, "half": h.half, "ranks": ranks})
    return out


def main(ns: str, replies: str) -> None:
    out = gold_ranks(ns, replies)
    Path(__file__).with_name(f"category-ranks-{replies}.json").write_text(json.dumps(out, indent=1) + "\n")
    print("category | questions | " + " | ".join(name for _, name in BUCKETS))
    for cat in sorted({int(str(o["category"])) for o in out}):
        worst = [max(o["ranks"]) for o in out if o["category"] == cat]  # type: ignore[call-overload]
        counts = collections.Counter(_bucket(w) for w in worst)
        print(f"{cat} | {len(worst)} | " + " | ".join(str(counts[name]) for _, name in BUCKETS))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
