"""What reading a search's candidates costs: one row per statement against one record per candidate.

The vector side's statements (``search/vector_*``, ``search/exact_*``) and the graph source's
(``search/graph_*``) return their candidates in one row, a list of maps; the graph statement also
reads the turns that ask a question (the answer lift), which a hybrid search used to read in a
statement of its own (``search/answer_turns``) beside it. This times, interleaved query by query in
one process, each statement as it is at HEAD against the same statement read with ``git show
<--before>:cypher/search/<name>.cypher`` (one record per candidate), the graph one with
``search/answer_turns`` run beside it in a second thread as the search ran them.

A load of its own is written under a fresh namespace with the retrieval benchmark's synthetic data
(pseudo-word texts, synthetic 512-d vectors, 10 sessions per project) and deleted afterwards. The
database must be indexed for 512-d vectors (``GRAPHMEM_EMBEDDER=local`` on a fresh home). Prints
p50 / p95 per side, the median per-query ratio and the client process's CPU per statement, and writes
a JSON results file with the command, commit and load.

    GRAPHMEM_EMBEDDER=local python benchmarks/latency/candidate_read.py --size 20000 \\
        --out benchmarks/latency/candidate-read.json
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from graphmem.cypher import Statements
from graphmem.memory import open_memory
from graphmem_devtools.bench.common import write_script_results
from graphmem_devtools.bench.retrieval import DIM, _load, _queries, _Synth
from graphmem_devtools.bench.store import cleanup_bench_namespace

ROOT = Path(__file__).resolve().parents[2]


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def _pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return round(s[min(len(s) - 1, int(p / 100 * len(s)))], 3)


def _old_statements(before: str, names: list[str]) -> Statements:
    """The statements ``names`` as they were at commit ``before``, as ``old/<name>``."""
    root = Path(tempfile.mkdtemp(prefix="candidate-read-"))
    for name in names:
        path = root / "old" / f"{name.split('/', 1)[1]}.cypher"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_git("show", f"{before}:cypher/{name}.cypher"))
    return Statements(root)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=20_000, help="turns + summaries loaded")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--before", default="488b9e2", help="the commit whose statements read one record per candidate")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    load_before = os.getloadavg()
    mem = open_memory(start=True)
    mem.init_schema()
    neo4j_version = mem.db.server_info().version
    ns = f"/graphmem-bench/candidate-read-{uuid.uuid4().hex[:12]}"
    synth = _Synth()
    sessions: list[dict[str, Any]] = []
    kinds = {"session": "session", "project": "project", "everything": "all"}
    names = [f"search/{src}_{k}" for src in ("exact", "vector", "graph") for k in kinds.values()]
    names += [f"search/vector_{k}@search" for k in kinds.values()] + ["search/answer_turns"]
    old = mem.db.with_statements(_old_statements(args.before, names))
    new = mem.db
    pool = ThreadPoolExecutor(2)
    results: dict[str, Any] = {}
    try:
        _load(mem, synth, ns, sessions, args.size, {"n": 0}, lambda m: print(m, file=sys.stderr))
        mem.await_text_index()
        qs = _queries(mem, synth, ns, sessions, args.queries)
        filtered = mem.db.server_info().vector_search_clause

        def vector_params(q: dict[str, Any]) -> tuple[str, dict[str, Any]]:
            kind = kinds[q["kind"]]
            # what the adaptive search runs: an exact scan of a session, the index for wider scopes
            name = f"search/exact_{kind}" if kind == "session" else (
                f"search/vector_{kind}@search" if filtered else f"search/vector_{kind}")
            p: dict[str, Any] = {"vector": q["vector"], "turnK": 50, "summaryK": 0, "levels": [0]}
            if q["scope"].value is not None:
                p["value"] = q["scope"].value
            if name.endswith("@search"):
                p.update(minLevel=1, maxLevel=1)
            elif name.startswith("search/vector_"):
                p.update(turnFetch=2000 if kind != "all" else 50, summaryFetch=1)
            return name, p

        def vec_new(q: dict[str, Any]) -> Any:
            name, p = vector_params(q)
            (row,) = new.read(name, **p)
            return [r["id"] for r in row["rows"]]

        def vec_old(q: dict[str, Any]) -> Any:
            name, p = vector_params(q)
            return [r["id"] for r in old.read("old/" + name.split("/", 1)[1], **p)]

        def graph_params(q: dict[str, Any], seeds: list[str]) -> tuple[str, dict[str, Any]]:
            p: dict[str, Any] = {
                "turnSeeds": [{"id": d, "score": 1.0 - i / 20} for i, d in enumerate(seeds[:10])], "summarySeeds": [],
                "factSeeds": [], "longTurnChars": 1200, "perSeed": 20, "includeTurns": True, "levels": [],
                "limit": 50, "weights": {"next": 1.0, "covers": 0.5, "file": 0.3, "subject": 0.3, "fact": 1.0}}
            if q["scope"].value is not None:
                p["value"] = q["scope"].value
            return f"search/graph_{kinds[q['kind']]}", p

        def graph_new(q: dict[str, Any], seeds: list[str]) -> Any:
            name, p = graph_params(q, seeds)
            (row,) = new.read(name, **p, askerIds=seeds[:20], textChars=2000)
            return [r["id"] for r in row["rows"]], row["askers"]

        def graph_old(q: dict[str, Any], seeds: list[str]) -> Any:
            name, p = graph_params(q, seeds)
            askers = pool.submit(old.read, "old/answer_turns", ids=seeds[:20], textChars=2000)
            return [r["id"] for r in old.read("old/" + name.split("/", 1)[1], **p)], askers.result()

        seeds = {i: vec_new(q) for i, q in enumerate(qs)}
        pairs: dict[str, tuple[Callable[[int], Any], Callable[[int], Any]]] = {
            "vector candidates (50)": (lambda i: vec_new(qs[i]), lambda i: vec_old(qs[i])),
            "graph candidates + asking turns": (lambda i: graph_new(qs[i], seeds[i]), lambda i: graph_old(qs[i], seeds[i])),
        }
        for label, (cur, prev) in pairs.items():
            times: dict[str, list[float]] = {"one row (current)": [], "one record per candidate (previous)": []}
            cpu: dict[str, list[float]] = {k: [] for k in times}
            ratios: list[float] = []
            for rnd_i in range(-20, len(qs)):
                i = rnd_i % len(qs)
                got: dict[str, float] = {}
                order = [("one row (current)", cur), ("one record per candidate (previous)", prev)]
                for side, fn in (order if rnd_i % 2 == 0 else order[::-1]):
                    c0, t0 = time.process_time(), time.perf_counter()
                    fn(i)
                    got[side] = (time.perf_counter() - t0) * 1000
                    if rnd_i >= 0:
                        cpu[side].append((time.process_time() - c0) * 1000)
                if rnd_i < 0:
                    continue  # warm-up: plans, connections
                for side, ms in got.items():
                    times[side].append(ms)
                ratios.append(got["one row (current)"] / got["one record per candidate (previous)"])
            res: dict[str, Any] = {side: {"p50_ms": _pct(ts, 50), "p95_ms": _pct(ts, 95),
                                          "client_cpu_mean_ms": round(statistics.fmean(cpu[side]), 3)}
                                   for side, ts in times.items()}
            res["median_ratio_current_to_previous"] = round(statistics.median(ratios), 3)
            results[label] = res
            for side, fig in res.items():
                print(f"{label:<34} {side:<38} {fig}")
    finally:
        pool.shutdown()
        cleanup_bench_namespace(mem, ns)
        mem.close()
    write_script_results(args.out, "benchmarks/latency/candidate_read.py", load_before, before=args.before,
                         neo4j=neo4j_version, dimensions=DIM, size=args.size, queries=len(qs), results=results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
