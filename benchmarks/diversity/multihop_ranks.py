"""Where the gold turns of LoCoMo's multi-hop questions rank in a kept haystack load (hybrid, k=50).

Usage (the namespace a ``graphmem bench haystack --keep`` run printed, and its ``--replies``)::

    python benchmarks/diversity/multihop_ranks.py /graphmem-bench/haystack-assistant-<hash> assistant

Writes ``multihop-ranks-<replies>.json`` beside this file (per question: the gold turns' ranks, 99 =
not in the top 50) and prints how many questions have how many gold turns in the top 5, 10 and 50.
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


def main(ns: str, replies: str) -> None:
    haystacks = build_haystacks(DATA, sessions=50, needles=10, per_conv=2, seed=7, replies=replies)
    mem = open_memory(start=True)
    id2src = _id_map(mem, ns)
    searcher = Searcher(mem.db, mem.embedder, RetrievalConfig(), dimensions=mem.embedding_dimensions)
    out: list[dict[str, object]] = []
    for h in haystacks:
        for q in h.questions:
            if q.category != 1:
                continue
            res = searcher.search(q.question, scope=Scope("directory", f"{ns}/{h.name}"), levels=[0], k=50,
                                  now=q.now or h.now)
            ranked = [id2src.get(x.id, "") for x in res.hits]
            ranks = sorted(ranked.index(g) + 1 if g in ranked else 99 for g in q.gold_turns)
            out.append({"q": q.question, "half": h.half, "ranks": ranks})
    Path(__file__).with_name(f"multihop-ranks-{replies}.json").write_text(json.dumps(out, indent=1) + "\n")
    counts: collections.Counter[tuple[int, int, int, int]] = collections.Counter()
    for o in out:
        r = list(o["ranks"])  # type: ignore[call-overload]
        counts[(len(r), sum(x <= 5 for x in r), sum(x <= 10 for x in r), sum(x <= 50 for x in r))] += 1
    print("gold turns | in top 5 | in top 10 | in top 50 | questions")
    for key in sorted(counts):
        print(" | ".join(str(x) for x in key), "|", counts[key])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
