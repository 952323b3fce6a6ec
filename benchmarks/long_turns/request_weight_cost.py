"""What reweighing long turns' short requests costs a search, long turns scored field by field
(``join_long_turns`` off): ``Searcher.search`` with the default weight (one more full-text
statement when long turns are among the full-text candidates) against ``long_turn_user_weight``
1.0 (no extra statement), interleaved query by query in one
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
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from text_cost import QUERIES, _git, report_latencies  # shared with the full-text statement's cost script

from graphmem.memory import GraphMemory, open_memory
from graphmem.retrieval import RetrievalConfig, Scope, Searcher
from graphmem_devtools.bench.coding import FULL_HAYSTACKS
from graphmem_devtools.bench.coding_data import build_coding_haystacks


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


def compare(argv: list[str] | None, *, script: str, description: str, other: str,
            configs: Callable[[RetrievalConfig], dict[str, RetrievalConfig]], count_key: str, count_label: str,
            knobs: Callable[[RetrievalConfig], dict[str, object]]) -> int:
    """The command line of a cost script: time ``configs(base)`` (its first entry is "default") side
    by side, print p50/p95 and the p50 ratios default / ``other``, write them with the command,
    commit, load average, ``knobs(base)`` and the mean ``count_key`` per hybrid search."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--ns", required=True, help="a namespace kept by `graphmem bench coding --keep`")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    mem = open_memory()
    base = RetrievalConfig()
    lat, counts = time_side_by_side(mem, args.ns, configs(base), args.queries, count_key)
    out: dict[str, object] = {
        "command": f"python benchmarks/long_turns/{script} " + " ".join(argv if argv is not None else sys.argv[1:]),
        "commit": _git("rev-parse", "HEAD").strip(), "load average before": load_before,
        "load average after": os.getloadavg(), "namespace": args.ns, "queries": args.queries, **knobs(base),
        f"mean {count_label} per hybrid search": round(statistics.mean(counts), 1),
    }
    report_latencies(lat, out)
    for mode in ("hybrid", "text"):
        ratio = statistics.median(lat[f"{mode} default"]) / statistics.median(lat[f"{mode} {other}"])
        out[f"{mode} p50 ratio default / {other}"] = round(ratio, 3)
        print(f"{mode} p50 ratio default / {other}: {ratio:.3f}")
    if args.out:
        args.out.write_text(json.dumps(out, indent=2) + "\n")
    mem.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    return compare(
        argv, script="request_weight_cost.py", description=(__doc__ or "").split("\n\n")[0], other="full weight",
        configs=lambda b: {"default": replace(b, join_long_turns=False),
                           "full weight": replace(b, join_long_turns=False, long_turn_user_weight=1.0)},
        count_key="long_turns_reweighed", count_label="long turns reweighed",
        knobs=lambda b: {"default long_turn_user_weight": b.long_turn_user_weight,
                         "short_request_chars": b.short_request_chars},
    )


if __name__ == "__main__":
    raise SystemExit(main())
