"""What a configuration change costs a search: ``Searcher.search`` with the default configuration
against the same with ``--set`` fields changed, interleaved question by question in alternating
order in one process, on the LoCoMo haystacks kept by ``graphmem bench haystack --keep`` (or, with
``--replies assistant``, by ``graphmem bench haystack --replies assistant --keep``): their
questions, each in its haystack's directory, hybrid and text modes, turns only, k = 10.

    python benchmarks/long_turns/variant_cost.py --ns /graphmem-bench/haystack-<id> \\
        --set proximity_weight=0.25 --queries 300 --out benchmarks/long_turns/proximity-cost.json

Each ``--set`` value is read as JSON (``0.25``, ``null``, ``true``). Connects to the managed server
of ``GRAPHMEM_HOME`` (``graphmem db up``). Prints p50/p95 of each and the median ratio of the
paired latencies; writes them with the command, commit and load average.
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
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from graphmem.memory import GraphMemory, open_memory
from graphmem.retrieval import RetrievalConfig, Scope, Searcher, SearchResult
from graphmem_devtools.bench.haystack import build_haystacks

ROOT = Path(__file__).resolve().parents[2]


def _changes(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not hasattr(RetrievalConfig(), key):
            raise SystemExit(f"--set {pair!r}: use FIELD=VALUE with a RetrievalConfig field")
        out[key] = json.loads(value)
    return out


def time_side_by_side(mem: GraphMemory, asked: list[tuple[str, str]], configs: dict[str, RetrievalConfig],
                      queries: int, observe: Callable[[str, str, SearchResult], None] | None = None,
                      ) -> dict[str, list[float]]:
    """``Searcher.search`` latencies (ms) per ``"<mode> <config name>"``: random ``(directory,
    question)`` pairs of ``asked``, hybrid then text, the configurations in alternating order, after
    20 untimed warm-up questions; ``observe(mode, name, result)`` sees each timed search."""
    searchers = {name: Searcher(mem.db, mem.embedder, cfg, dimensions=mem.embedding_dimensions)
                 for name, cfg in configs.items()}
    rng = random.Random(5)
    lat: dict[str, list[float]] = {f"{m} {n}": [] for m in ("hybrid", "text") for n in searchers}
    warm = 20
    for i in range(queries + warm):
        cwd, question = rng.choice(asked)
        for mode in ("hybrid", "text"):
            order = list(searchers.items()) if i % 2 == 0 else list(searchers.items())[::-1]
            for name, searcher in order:
                t0 = time.perf_counter()
                res = searcher.search(question, scope=Scope.directory(cwd), levels=(0,), k=10, mode=mode)  # type: ignore[arg-type]
                if i >= warm:
                    lat[f"{mode} {name}"].append((time.perf_counter() - t0) * 1000)
                    if observe is not None:
                        observe(mode, name, res)
    return lat


def summarise(lat: dict[str, list[float]], out: dict[str, object], variant: str, default: str) -> None:
    """Print and put into ``out`` each series' p50 / p95 and, per mode, the median of the paired
    ratios ``variant / default``."""
    for key, values in lat.items():
        out[f"{key} p50 ms"] = round(statistics.median(values), 2)
        out[f"{key} p95 ms"] = round(sorted(values)[int(0.95 * (len(values) - 1))], 2)
        print(f"{key}: p50 {out[f'{key} p50 ms']} ms, p95 {out[f'{key} p95 ms']} ms")
    for mode in ("hybrid", "text"):
        ratios = [a / b for a, b in zip(lat[f"{mode} {variant}"], lat[f"{mode} {default}"], strict=True) if b > 0]
        out[f"{mode} median ratio {variant} / {default}"] = round(statistics.median(ratios), 3)
        print(f"{mode} median ratio {variant} / {default}: {statistics.median(ratios):.3f}")


def commit() -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--ns", required=True, help="a namespace kept by `graphmem bench haystack --keep`")
    ap.add_argument("--replies", choices=("locomo", "assistant"), default="locomo")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared/benchmarks/locomo/locomo10.json")
    ap.add_argument("--set", dest="changes", action="append", required=True, metavar="FIELD=VALUE")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    changes = _changes(args.changes)
    load_before = os.getloadavg()
    mem = open_memory()
    base = RetrievalConfig()
    asked = [(f"{args.ns.rstrip('/')}/{h.name}", q.question)
             for h in build_haystacks(args.data, replies=args.replies) for q in h.questions]
    lat = time_side_by_side(mem, asked, {"default": base, "variant": replace(base, **changes)}, args.queries)
    out: dict[str, object] = {
        "command": "python benchmarks/long_turns/variant_cost.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "commit": commit(), "load average before": load_before, "load average after": os.getloadavg(),
        "namespace": args.ns, "variant": changes, "queries": args.queries,
    }
    summarise(lat, out, "variant", "default")
    if args.out:
        args.out.write_text(json.dumps(out, indent=2) + "\n")
    mem.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
