"""Question-by-question effect of one kind of time window on a kept LoCoMo load (analysis, not a benchmark).

``--off event``: for every LoCoMo question that names an event ("after the accident", "before
meeting Maria"), runs the default hybrid search and the same with ``event_boost=0``. ``--off
periods``: for every question whose window changes without seasons and parts of months ("last
summer", "the beginning of November 2022"), the default and ``calendar_periods=False``. ``--off
parts``: for every question compared two events ("which came first, A or B"), the default and
``query_parts=False``. Prints
R@5 / R@10 of both and what the default read (the event clause and its turn, the window, or the
events). Lines
start with ``+`` (the window helped), ``-`` (it hurt) or blanks.

    GRAPHMEM_EMBEDDER=local GRAPHMEM_HOME=... GRAPHMEM_BOLT_PORT=... \\
        python benchmarks/time_windows/window_diff.py /graphmem-bench/locomo-<id> --off periods \\
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
from graphmem.retrieval.queryparts import parse_query_parts
from graphmem.retrieval.timewindow import parse_time_window
from graphmem_devtools.bench.locomo import load_locomo, recall
from graphmem_devtools.statements import dev_db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("namespace", help="a load kept by `graphmem bench locomo --keep`")
    parser.add_argument("--data", type=Path, default=Path("../shared/benchmarks/locomo/locomo10.json"))
    parser.add_argument("--off", choices=("event", "periods", "parts"), default="event")
    args = parser.parse_args()
    mem = GraphMemory.from_settings()
    ns = args.namespace
    id2dia = {r["id"]: r["sourceId"] for r in dev_db(mem.db).read("bench/turn_sources", prefix=ns + "/")}
    on = Searcher(mem.db, mem.embedder, RetrievalConfig(), dimensions=mem.embedding_dimensions)
    knob = {"event": {"event_boost": 0.0}, "periods": {"calendar_periods": False}, "parts": {"query_parts": False}}[args.off]
    off = Searcher(mem.db, mem.embedder, replace(RetrievalConfig(), **knob), dimensions=mem.embedding_dimensions)
    tally = {"+": 0, "-": 0, " ": 0}
    for conv in load_locomo(args.data):
        scope = Scope("directory", f"{ns}/{conv.sample_id}")
        now = max(t.timestamp for ts in conv.sessions.values() for t in ts) + timedelta(days=1)
        for q in conv.questions:
            if args.off == "event" and parse_event_reference(q.question) is None:
                continue
            if args.off == "parts" and parse_query_parts(q.question) is None:
                continue
            if args.off == "periods" and parse_time_window(q.question, now) == parse_time_window(
                    q.question, now, periods=False):
                continue
            a = on.search(q.question, scope=scope, levels=[0], k=10, now=now)
            b = off.search(q.question, scope=scope, levels=[0], k=10, now=now)
            ra = [recall(q.evidence, [id2dia.get(h.id, "") for h in a.hits], k) for k in (5, 10)]
            rb = [recall(q.evidence, [id2dia.get(h.id, "") for h in b.hits], k) for k in (5, 10)]
            mark = " " if ra == rb else ("+" if sum(ra) > sum(rb) else "-")
            tally[mark] += 1
            read = ((a.strategy.get("rerank") or {}).get("event") if args.off == "event"
                    else a.parts if args.off == "parts" else a.time_window)
            print(f"{mark} on {ra} off {rb} cat {q.category} {q.question} | {read}")
    print(f"helped {tally['+']}, hurt {tally['-']}, unchanged {tally[' ']}")


if __name__ == "__main__":
    main()
