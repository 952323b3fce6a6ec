"""The probe that chose the fact edge's weight: LoCoMo with its observations as facts, re-scored with
fact edge weights 1-4, 5 and 20 fact seeds, and graph weight 0.3, in one run on a kept load.

    GRAPHMEM_EMBEDDER=local python benchmarks/graph_source/fact_weight_probe.py /graphmem-bench/locomo-<id> benchmarks/graph_source/fact-weight-probe.md

The load comes from ``graphmem bench locomo --keep``; its observations are remembered on the first
run (``--facts``). Choose on the tuning half (conversations 0-4), check on the other.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from graphmem.cli.common import open_memory
from graphmem.retrieval import RetrievalConfig
from graphmem_devtools.bench.locomo import LocomoRun, locomo_markdown, run_locomo_bench


def main() -> int:
    base = RetrievalConfig()
    edges = base.graph_edge_weights

    def fact(w: float, **kw: object) -> RetrievalConfig:
        return replace(base, graph_edge_weights={**edges, "fact": w}, **kw)  # type: ignore[arg-type]

    runs = [LocomoRun("fact 2", "hybrid", fact(2.0)), LocomoRun("fact 1", "hybrid", fact(1.0)),
            LocomoRun("fact 3", "hybrid", fact(3.0)), LocomoRun("fact 4", "hybrid", fact(4.0)),
            LocomoRun("fact 2, 20 seeds", "hybrid", fact(2.0, graph_fact_seeds=20)),
            LocomoRun("fact 2, 5 seeds", "hybrid", fact(2.0, graph_fact_seeds=5)),
            LocomoRun("fact 2, graph 0.3", "hybrid", fact(2.0, graph_weight=0.3))]
    with open_memory(start=True) as mem:
        res = run_locomo_bench(mem, Path("../shared/benchmarks/locomo/locomo10.json"), runs=runs, reuse=sys.argv[1],
                               facts=True, expansion_window=2, command="python " + " ".join(sys.argv),
                               log=lambda m: print(m, file=sys.stderr))
    Path(sys.argv[2]).write_text(locomo_markdown(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
