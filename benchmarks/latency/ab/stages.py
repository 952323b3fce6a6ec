"""Where a hybrid search's time goes on a load kept by ``load.py``: its stages and statements as
the search runs them (concurrently, on the machine's cores), then the full-text statement alone,
replayed with each of its index queries switched off in turn.

The full-text statement (``search/text_*``) runs up to four full-text index queries one after the
other: the whole-session documents (``session_search``, the session prior), the joined turns and
their own scores (``turn_search``, twice) and ``memory_search``. Each search's statement parameters
are captured as the search runs; then each captured statement is read again, alone, as shipped and
with ``sessionFetch`` 0 (no session query), ``capContext`` false (no own-score query),
``joinedFetch`` 0 (neither ``turn_search`` query) and both of the last two off, in rotating order,
query by query; ``median ratio`` is the median over statements of each variant's time divided by
the shipped one's. Writes a JSON results file with the command, commit and load.

    GRAPHMEM_HOME=/tmp/lathome GRAPHMEM_EMBEDDER=local python benchmarks/latency/ab/stages.py /tmp/ns.json \\
        --out benchmarks/latency/ab/stages.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from graphmem.memory import GraphMemory
from graphmem.retrieval import Searcher
from graphmem_devtools.bench.common import write_script_results
from graphmem_devtools.bench.retrieval import DIM, _queries, _Synth

VARIANTS: dict[str, dict[str, Any]] = {
    "as shipped": {},
    "no session query": {"sessionFetch": 0},
    "no own-score query": {"capContext": False},
    "no turn_search queries": {"joinedFetch": 0},
    "memory_search alone": {"joinedFetch": 0, "sessionFetch": 0},
}


def _pcts(xs: list[float]) -> dict[str, float]:
    s = sorted(xs)
    return {"n": len(s), "p50_ms": round(statistics.median(s), 3), "p95_ms": round(s[min(len(s) - 1, int(0.95 * len(s)))], 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ns", type=Path, help="the JSON file load.py wrote")
    ap.add_argument("--queries", type=int, default=150)
    ap.add_argument("--rounds", type=int, default=2, help="timed passes over the queries")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    load_before = os.getloadavg()
    kept = json.loads(args.ns.read_text())
    mem = GraphMemory.from_settings(start=False)
    qs = _queries(mem, _Synth(11), kept["ns"], kept["sessions"], args.queries)
    searcher = Searcher(mem.db, None, mem.searcher().config, dimensions=DIM)
    for q in qs[:30]:
        searcher.search(q["text"], scope=q["scope"], k=10, mode="hybrid", vector=q["vector"])

    read = mem.db.read
    statements: dict[str, list[float]] = defaultdict(list)
    captured: list[tuple[str, dict[str, Any]]] = []

    def timed_read(name: str, **params: Any) -> Any:
        t0 = time.perf_counter()
        rows = read(name, **params)
        statements[name].append((time.perf_counter() - t0) * 1000)
        if name.startswith("search/text_") and params.get("sessionFetch", 0) > 0 and len(captured) < len(qs):
            captured.append((name, dict(params)))
        return rows

    stages: dict[str, list[float]] = defaultdict(list)
    mem.db.read = timed_read  # type: ignore[method-assign]
    try:
        for _ in range(args.rounds):
            for q in qs:
                t0 = time.perf_counter()
                result = searcher.search(q["text"], scope=q["scope"], k=10, mode="hybrid", vector=q["vector"])
                stages["wall"].append((time.perf_counter() - t0) * 1000)
                for stage, ms in result.timings_ms.items():
                    stages[stage].append(ms)
    finally:
        mem.db.read = read  # type: ignore[method-assign]

    alone: dict[str, list[float]] = {v: [] for v in VARIANTS}
    ratios: dict[str, list[float]] = {v: [] for v in VARIANTS}
    names = list(VARIANTS)
    for rnd in range(-1, args.rounds):
        for i, (name, params) in enumerate(captured):
            got: dict[str, float] = {}
            shift = i % len(names)
            for variant in names[shift:] + names[:shift]:
                t0 = time.perf_counter()
                read(name, **{**params, **VARIANTS[variant]})
                got[variant] = (time.perf_counter() - t0) * 1000
            if rnd < 0:
                continue  # warm-up: each variant's plan
            for variant, ms in got.items():
                alone[variant].append(ms)
                ratios[variant].append(ms / got["as shipped"])
    mem.close()

    out = {
        "dimensions": DIM, "namespace": kept["ns"],
        "searches": {stage: _pcts(xs) for stage, xs in stages.items()},
        "statements_in_searches": {name: _pcts(xs) for name, xs in sorted(statements.items())},
        "text_statement_alone": {v: {**_pcts(alone[v]), "median_ratio": round(statistics.median(ratios[v]), 3)}
                                 for v in names},
    }
    for section in ("searches", "statements_in_searches", "text_statement_alone"):
        print(section)
        for label, fig in out[section].items():
            print(f"  {label:<34} {fig}")
    write_script_results(args.out, "benchmarks/latency/ab/stages.py", load_before, **out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
