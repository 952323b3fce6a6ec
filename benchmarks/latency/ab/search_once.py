"""One timed pass of hybrid searches over a load kept by ``load.py``, with the graphmem on
``PYTHONPATH`` (``ab.sh`` runs it for two checkouts in turn). Prints p50 / p95 of 150 searches after
30 untimed ones, with the load average.

    python benchmarks/latency/ab/search_once.py /tmp/ns.json
"""

from __future__ import annotations

import json
import os
import sys

from graphmem.memory import GraphMemory
from graphmem.retrieval import Searcher
from graphmem_devtools.bench.retrieval import DIM, _queries, _Synth, _time_side_by_side


def main() -> int:
    with open(sys.argv[1]) as f:
        d = json.load(f)
    mem = GraphMemory.from_settings(start=False)
    qs = _queries(mem, _Synth(11), d["ns"], d["sessions"], 150)
    s = Searcher(mem.db, None, mem.searcher().config, dimensions=DIM)
    for q in qs[:30]:
        s.search(q["text"], scope=q["scope"], k=10, mode="hybrid", vector=q["vector"])
    p = _time_side_by_side({"search": s}, qs)["search"]
    print(f"p50 {p['p50']:.1f} ms, p95 {p['p95']:.1f} ms, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    mem.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
