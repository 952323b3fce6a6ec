"""What reweighing long turns' short requests costs a search: ``Searcher.search`` with the default
configuration (one more full-text statement when long turns are among the full-text candidates)
against ``long_turn_user_weight`` 1.0 (no extra statement), interleaved query by query in one
process, on a namespace of long turns kept by ``graphmem bench coding --keep`` (replies of ~2,500
characters), hybrid and text modes, turns only, directory scope, k = 10.

    python benchmarks/long_turns/request_weight_cost.py --ns /graphmem-bench/coding-<id> --queries 300 \\
        --out benchmarks/long_turns/request-weight-cost.json

Connects to the managed server of ``GRAPHMEM_HOME`` (``graphmem db up``). Prints p50/p95 of each
and the p50 ratios; writes them with the command, commit and load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from graphmem.memory import GraphMemory, open_memory
from graphmem.retrieval import RetrievalConfig, Scope, Searcher
from graphmem_devtools.bench.coding import FULL_HAYSTACKS
from graphmem_devtools.bench.coding_data import build_coding_haystacks
from text_cost import QUERIES, _git, report_latencies  # shared with the full-text statement's cost script


def time_side_by_side(mem: GraphMemory, ns: str, configs: dict[str, RetrievalConfig], queries: int,
                      count_key: str) -> tuple[dict[str, list[float]], list[int]]:
    """``Searcher.search`` latencies (ms) of each configuration, hybrid and text, interleaved query by
    query in alternating order on random directories of the coding load kept under ``ns``, after 20
    warm-up queries; and the default's ``count_key`` (a text strategy entry) per hybrid search."""
    rng = random.Random(5)
    searchers = {name: Searcher(mem.db, mem.embedder, cfg, dimensions=mem.embedding_dimensions)
                 for name, cfg in configs.items()}
    cwds = [f"{ns.rstrip('/')}/{h.name}" for h in build_coding_haystacks(FULL_HAYSTACKS, seed=11)]
    lat: dict[str, list[float]] = {f"{m} {n}": [] for m in ("hybrid", "text") for n in searchers}
    counts: list[int] = []
    warm = 20
    for i in range(queries + warm):
        scope, q = Scope.directory(rng.choice(cwds)), rng.choice(QUERIES)
        for mode in ("hybrid", "text"):
            order = list(searchers.items()) if i % 2 == 0 else list(searchers.items())[::-1]
            for name, searcher in order:
                t0 = time.perf_counter()
                res = searcher.search(q, scope=scope, levels=(0,), k=10, mode=mode)  # type: ignore[arg-type]
                if i >= warm:
                    lat[f"{mode} {name}"].append((time.perf_counter() - t0) * 1000)
                    if mode == "hybrid" and name == "default":
                        counts.append(int(res.strategy["text"].get(count_key, 0)))
    return lat, counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ns", required=True, help="a namespace kept by `graphmem bench coding --keep`")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    mem = open_memory()
    base = RetrievalConfig()
    configs = {"default": base, "request at full weight": replace(base, long_turn_user_weight=1.0)}
    lat, reweighed = time_side_by_side(mem, args.ns, configs, args.queries, "long_turns_reweighed")
    out: dict[str, object] = {
        "command": "python benchmarks/long_turns/request_weight_cost.py "
                   + " ".join(argv if argv is not None else sys.argv[1:]),
        "commit": _git("rev-parse", "HEAD").strip(), "load average before": load_before,
        "load average after": os.getloadavg(), "namespace": args.ns, "queries": args.queries,
        "default long_turn_user_weight": base.long_turn_user_weight, "short_request_chars": base.short_request_chars,
        "mean long turns reweighed per hybrid search": round(statistics.mean(reweighed), 1),
    }
    report_latencies(lat, out)
    for mode in ("hybrid", "text"):
        ratio = statistics.median(lat[f"{mode} default"]) / statistics.median(lat[f"{mode} request at full weight"])
        out[f"{mode} p50 ratio default / full weight"] = round(ratio, 3)
        print(f"{mode} p50 ratio default / full weight: {ratio:.3f}")
    if args.out:
        args.out.write_text(json.dumps(out, indent=2) + "\n")
    mem.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
