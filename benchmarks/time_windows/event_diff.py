"""Question-by-question effect of the event windows on a kept LoCoMo load (analysis, not a benchmark).

For every LoCoMo question that names an event ("after the accident", "before meeting Maria"), runs
the default hybrid search and the same with ``event_boost=0``, and prints R@5 / R@10 of both, the
event clause and the turn found for it. Lines start with ``+`` (the window helped), ``-`` (it hurt)
or blanks.

    GRAPHMEM_EMBEDDER=local GRAPHMEM_HOME=... GRAPHMEM_BOLT_PORT=... \\
        python benchmarks/time_windows/event_diff.py /graphmem-bench/locomo-<id> \\
        --data ../shared/benchmarks/locomo/locomo10.json
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from graphmem.memory import GraphMemory
from graphmem.retrieval import RetrievalConfig, Scope, Searcher
from graphmem.retrieval.eventwindow import parse_event_reference
from graphmem_devtools.bench.locomo import load_locomo, recall
from graphmem_devtools.statements import dev_db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("namespace", help="a load kept by `graphmem bench locomo --keep`")
    parser.add_argument("--data", type=Path, default=Path("../shared/benchmarks/locomo/locomo10.json"))
    args = parser.parse_args()
    mem = GraphMemory.from_settings()
    ns = args.namespace
    id2dia = {r["id"]: r["sourceId"] for r in dev_db(mem.db).read("bench/turn_sources", prefix=ns + "/")}
    on = Searcher(mem.db, mem.embedder, RetrievalConfig(), dimensions=mem.embedding_dimensions)
    off = Searcher(mem.db, mem.embedder, replace(RetrievalConfig(), event_boost=0.0),
                   dimensions=mem.embedding_dimensions)
    tally = {"+": 0, "-": 0, " ": 0}
    for conv in load_locomo(args.data):
        scope = Scope("directory", f"{ns}/{conv.sample_id}")
        now = max(t.timestamp for ts in conv.sessions.values() for t in ts) + timedelta(days=1)
        for q in conv.questions:
            if parse_event_reference(q.question) is None:
                continue
            a = on.search(q.question, scope=scope, levels=[0], k=10, now=now)
            b = off.search(q.question, scope=scope, levels=[0], k=10, now=now)
            ra = [recall(q.evidence, [id2dia.get(h.id, "") for h in a.hits], k) for k in (5, 10)]
            rb = [recall(q.evidence, [id2dia.get(h.id, "") for h in b.hits], k) for k in (5, 10)]
            mark = " " if ra == rb else ("+" if sum(ra) > sum(rb) else "-")
            tally[mark] += 1
            event = (a.strategy.get("rerank") or {}).get("event")
            print(f"{mark} on {ra} off {rb} cat {q.category} {q.question} | {event}")
    print(f"helped {tally['+']}, hurt {tally['-']}, unchanged {tally[' ']}")


if __name__ == "__main__":
    main()
