"""What scoring long turns as one document costs a search: ``Searcher.search`` with the default
configuration (the full-text statement also asks the ``long_turn_search`` index, and one more
statement reads the long requests' own field) against ``join_long_turns`` off (long turns scored
field by field, their short requests reweighed), interleaved query by query in one process, on a
namespace of long turns kept by ``graphmem bench coding --keep`` (replies of ~2,500 characters),
hybrid and text modes, turns only, directory scope, k = 10.

    python benchmarks/long_turns/joined_cost.py --ns /graphmem-bench/coding-<id> --queries 300 \\
        --out benchmarks/long_turns/joined-cost.json

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

from request_weight_cost import time_side_by_side  # the same interleaved timing
from text_cost import _git, report_latencies

from graphmem.memory import open_memory
from graphmem.retrieval import RetrievalConfig


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ns", required=True, help="a namespace kept by `graphmem bench coding --keep`")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    mem = open_memory()
    base = RetrievalConfig()
    configs = {"default": base, "field by field": replace(base, join_long_turns=False)}
    lat, joined = time_side_by_side(mem, args.ns, configs, args.queries, "long_turns_joined")
    out: dict[str, object] = {
        "command": "python benchmarks/long_turns/joined_cost.py "
                   + " ".join(argv if argv is not None else sys.argv[1:]),
        "commit": _git("rev-parse", "HEAD").strip(), "load average before": load_before,
        "load average after": os.getloadavg(), "namespace": args.ns, "queries": args.queries,
        "default long_request_weight": base.long_request_weight, "short_request_chars": base.short_request_chars,
        "mean joined long turns per hybrid search": round(statistics.mean(joined), 1),
    }
    report_latencies(lat, out)
    for mode in ("hybrid", "text"):
        ratio = statistics.median(lat[f"{mode} default"]) / statistics.median(lat[f"{mode} field by field"])
        out[f"{mode} p50 ratio default / field by field"] = round(ratio, 3)
        print(f"{mode} p50 ratio default / field by field: {ratio:.3f}")
    if args.out:
        args.out.write_text(json.dumps(out, indent=2) + "\n")
    mem.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
