"""What the long-turn rule cost the full-text statement: ``search/text_cwd`` as the rule added it
(each turn hit also returns its length, user message + assistant reply, so long turns can skip the
session prior) against the statement before the rule, both read with ``git show
<commit>:cypher/search/text_cwd.cypher`` (``--after`` / ``--before``; the statement has since taken
other parameters, so the one at HEAD is not what this compares), interleaved query by query in one
process, on a namespace of long turns loaded by this commit's
``graphmem bench coding --keep`` (replies of ~2,500 characters; the embedding pass stores each turn's
length, which the statement reads instead of the texts).

    python benchmarks/long_turns/text_cost.py --ns /graphmem-bench/coding-<id> --queries 400 \\
        --out benchmarks/long_turns/text-cost.json

Connects to the managed server of ``GRAPHMEM_HOME`` (``graphmem db up``). Prints p50/p95 of each
and the p50 ratio; writes them with the command, commit and load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from graphmem.memory import open_memory
from graphmem.retrieval import RetrievalConfig
from graphmem.retrieval.lucene import build_query
from graphmem_devtools.bench.coding import FULL_HAYSTACKS
from graphmem_devtools.bench.coding_data import build_coding_haystacks

QUERIES = ["retry policy", "why did the migration test fail", "why did the build break", "cache invalidation",
           "what did we decide about logging", "flaky integration test", "database index", "rate limit",
           "docker compose file", "deploy script", "which timeout did we choose", "the parser bug"]


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def report_latencies(lat: dict[str, list[float]], out: dict[str, object]) -> None:
    """Print each series' p50 / p95 and put them into ``out`` (the series are sorted in place)."""
    for name, v in lat.items():
        v.sort()
        out[name] = {"p50 ms": round(statistics.median(v), 2), "p95 ms": round(v[int(len(v) * 0.95)], 2)}
        print(f"{name}: p50 {statistics.median(v):.2f} ms, p95 {v[int(len(v) * 0.95)]:.2f} ms")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ns", required=True, help="a namespace kept by `graphmem bench coding --keep`")
    ap.add_argument("--queries", type=int, default=400)
    ap.add_argument("--before", default="6fe2635", help="the commit whose text_cwd statement is the baseline")
    ap.add_argument("--after", default="24a79bd", help="the commit whose text_cwd statement has the rule")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    statements = {"current": _git("show", f"{args.after}:cypher/search/text_cwd.cypher"),
                  "before the rule": _git("show", f"{args.before}:cypher/search/text_cwd.cypher")}
    cfg, rng = RetrievalConfig(), random.Random(5)
    mem = open_memory()
    driver = mem.db._driver  # both statement texts run as read from git
    # the haystack directories of the default `bench coding` load (20 haystacks, seed 11)
    cwds = [f"{args.ns.rstrip('/')}/{h.name}" for h in build_coding_haystacks(FULL_HAYSTACKS, seed=11)]
    lat: dict[str, list[float]] = {k: [] for k in statements}
    warm = 20
    for i in range(args.queries + warm):
        cwd, q = rng.choice(cwds), rng.choice(QUERIES)
        params = {"query": build_query(q, fields=cfg.field_weights, scope_field="cwd", scope_value=cwd,
                                       drop_stopwords=True),
                  "sessionQuery": build_query(q, fields={"sessionText": 1.0}, scope_field="cwd", scope_value=cwd,
                                              drop_stopwords=True),
                  "limit": 50, "includeTurns": True, "levels": [], "sessionFetch": cfg.session_depth,
                  "value": cwd, "fetch": 100}
        order = list(statements.items()) if i % 2 == 0 else list(statements.items())[::-1]
        for name, text in order:
            t0 = time.perf_counter()
            driver.execute_query(text, params)
            if i >= warm:
                lat[name].append((time.perf_counter() - t0) * 1000)
    out: dict[str, object] = {
        "command": "python benchmarks/long_turns/text_cost.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "commit": _git("rev-parse", "HEAD").strip(), "baseline commit": args.before, "rule commit": args.after,
        "load average before": load_before, "load average after": os.getloadavg(),
        "namespace": args.ns, "queries": args.queries,
    }
    report_latencies(lat, out)
    ratio = statistics.median(lat["current"]) / statistics.median(lat["before the rule"])
    out["p50 ratio current / before"] = round(ratio, 3)
    print(f"p50 ratio current / before the rule: {ratio:.3f}")
    if args.out:
        args.out.write_text(json.dumps(out, indent=2) + "\n")
    mem.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
