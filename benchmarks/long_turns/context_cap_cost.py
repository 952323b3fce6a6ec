"""What the cap on short turns' neighbours' context costs a search: ``Searcher.search`` with the
default configuration (one more statement reads the turns' own-text scores when short turns were
scored with their context) against ``context_cap=None``, interleaved question by question in
alternating order in one process, on the LoCoMo haystacks kept by ``graphmem bench haystack --keep``
(their questions, each in its haystack's directory), hybrid and text modes, turns only, k = 10.

    python benchmarks/long_turns/context_cap_cost.py --ns /graphmem-bench/haystack-<id> --queries 300 \\
        --out benchmarks/long_turns/context-cap-cost.json

Connects to the managed server of ``GRAPHMEM_HOME`` (``graphmem db up``). Prints p50/p95 of each
and the p50 ratios; writes them with the command, commit and load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from dataclasses import replace
from pathlib import Path

from variant_cost import ROOT, commit, summarise, time_side_by_side  # the generic side-by-side timing

from graphmem.memory import open_memory
from graphmem.retrieval import RetrievalConfig, SearchResult
from graphmem_devtools.bench.haystack import build_haystacks


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--ns", required=True, help="a namespace kept by `graphmem bench haystack --keep`")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared/benchmarks/locomo/locomo10.json")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    mem = open_memory()
    base = RetrievalConfig()
    asked = [(f"{args.ns.rstrip('/')}/{h.name}", q.question) for h in build_haystacks(args.data) for q in h.questions]
    capped: list[int] = []

    def count_capped(mode: str, name: str, res: SearchResult) -> None:
        if mode == "hybrid" and name == "default":
            capped.append(int(res.strategy["text"].get("contexts_capped", 0)))

    lat = time_side_by_side(mem, asked, {"default": base, "not capped": replace(base, context_cap=None)},
                            args.queries, count_capped)
    out: dict[str, object] = {
        "command": "python benchmarks/long_turns/context_cap_cost.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "commit": commit(), "load average before": load_before, "load average after": os.getloadavg(),
        "namespace": args.ns, "queries": args.queries, "mean contexts capped per hybrid search": round(statistics.mean(capped), 1),
    }
    summarise(lat, out, "default", "not capped")
    if args.out:
        args.out.write_text(json.dumps(out, indent=2) + "\n")
    mem.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
