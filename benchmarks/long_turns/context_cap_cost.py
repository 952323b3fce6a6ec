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
import random
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from graphmem.memory import open_memory
from graphmem.retrieval import RetrievalConfig, Scope, Searcher
from graphmem_devtools.bench.haystack import build_haystacks

ROOT = Path(__file__).resolve().parents[2]


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
    configs = {"default": base, "not capped": replace(base, context_cap=None)}
    searchers = {name: Searcher(mem.db, mem.embedder, cfg, dimensions=mem.embedding_dimensions)
                 for name, cfg in configs.items()}
    asked = [(f"{args.ns.rstrip('/')}/{h.name}", q.question) for h in build_haystacks(args.data) for q in h.questions]
    rng = random.Random(5)
    lat: dict[str, list[float]] = {f"{m} {n}": [] for m in ("hybrid", "text") for n in searchers}
    capped: list[int] = []
    warm = 20
    for i in range(args.queries + warm):
        cwd, question = rng.choice(asked)
        for mode in ("hybrid", "text"):
            order = list(searchers.items()) if i % 2 == 0 else list(searchers.items())[::-1]
            for name, searcher in order:
                t0 = time.perf_counter()
                res = searcher.search(question, scope=Scope.directory(cwd), levels=(0,), k=10, mode=mode)  # type: ignore[arg-type]
                if i >= warm:
                    lat[f"{mode} {name}"].append((time.perf_counter() - t0) * 1000)
                    if mode == "hybrid" and name == "default":
                        capped.append(int(res.strategy["text"].get("contexts_capped", 0)))
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    out: dict[str, object] = {
        "command": "python benchmarks/long_turns/context_cap_cost.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "commit": commit, "load average before": load_before, "load average after": os.getloadavg(),
        "namespace": args.ns, "queries": args.queries, "mean contexts capped per hybrid search": round(statistics.mean(capped), 1),
    }
    for key, values in lat.items():
        out[f"{key} p50 ms"] = round(statistics.median(values), 2)
        out[f"{key} p95 ms"] = round(sorted(values)[int(0.95 * (len(values) - 1))], 2)
        print(f"{key}: p50 {out[f'{key} p50 ms']} ms, p95 {out[f'{key} p95 ms']} ms")
    for mode in ("hybrid", "text"):
        pairs = [a / b for a, b in zip(lat[f"{mode} default"], lat[f"{mode} not capped"], strict=True) if b > 0]
        out[f"{mode} median ratio default / not capped"] = round(statistics.median(pairs), 3)
        print(f"{mode} median ratio default / not capped: {statistics.median(pairs):.3f}")
    if args.out:
        args.out.write_text(json.dumps(out, indent=2) + "\n")
    mem.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
