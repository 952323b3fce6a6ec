"""The lift for questions that ask when, at several weights, on a kept load (analysis, not a benchmark).

For every question of the load that asks when (``graphmem.retrieval.tellswhen.asks_when``: "when
did ...", "what year ...", "how long ago ..."), runs the default hybrid search once per
``--weights`` value of ``when_boost`` (0 = off), in a rotating order, and prints per half: LoCoMo's
R@5 / R@10 (``locomo``), or turn all@5 / all@10 / all@30 (``haystack``, ``mixed``, ``coding``), the
questions each weight wins and loses against 0 at 5 and 10, and each weight's median latency ratio
to 0 over the same questions (side by side, one process: the machine is shared). Other questions
are not re-ranked by the lift, so their figures cannot move.

    GRAPHMEM_EMBEDDER=local GRAPHMEM_HOME=... GRAPHMEM_BOLT_PORT=... \\
        python benchmarks/time_windows/when_scan.py locomo /graphmem-bench/locomo-<id> \\
        --data ../shared/benchmarks/locomo/locomo10.json
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

from graphmem.memory import GraphMemory
from graphmem.retrieval import RetrievalConfig, Scope, Searcher
from graphmem.retrieval.tellswhen import asks_when
from graphmem_devtools.bench.locomo import load_locomo, recall
from graphmem_devtools.statements import dev_db


@dataclass
class Question:
    half: str
    text: str
    scope: Scope
    now: datetime | None
    score: Callable[[list[str]], dict[str, float]]


def _locomo(ns: str, data: Path) -> Iterator[Question]:
    for i, conv in enumerate(load_locomo(data)):
        now = max(t.timestamp for ts in conv.sessions.values() for t in ts) + timedelta(days=1)
        for q in conv.questions:
            yield Question("tune" if i < 5 else "test", q.question, Scope("directory", f"{ns}/{conv.sample_id}"), now,
                           lambda r, ev=q.evidence: {f"R@{k}": recall(ev, r, k) for k in (5, 10)})


def _haystacks(kind: str, ns: str, data: Path, seed: int) -> Iterator[Question]:
    from graphmem_devtools.bench.haystack_core import score_ranking

    if kind == "haystack":
        from graphmem_devtools.bench.haystack import build_haystacks
        hs = build_haystacks(data)
    elif kind == "mixed":
        from graphmem_devtools.bench.mixed import build_mixed_haystacks
        hs = build_mixed_haystacks(data)
    else:
        from graphmem_devtools.bench.coding import build_coding_haystacks
        hs = build_coding_haystacks(seed=seed)
    for h in hs:
        for q in h.questions:
            yield Question(h.half, q.question, Scope("directory", f"{ns}/{h.name}"), q.now or h.now,
                           lambda r, q=q: {m: v for m, v in score_ranking(q, r).items() if m.startswith("turn")})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("locomo", "haystack", "mixed", "coding"))
    parser.add_argument("namespace", help="a load kept by `graphmem bench <kind> --keep`")
    parser.add_argument("--data", type=Path, default=Path("../shared/benchmarks/locomo/locomo10.json"))
    parser.add_argument("--seed", type=int, default=11, help="the coding benchmark's seed")
    parser.add_argument("--weights", default="0,0.1,0.2,0.3,0.5")
    args = parser.parse_args()
    weights = [float(w) for w in args.weights.split(",")]
    if weights[0] != 0.0:
        weights.insert(0, 0.0)
    mem = GraphMemory.from_settings()
    ns = args.namespace.rstrip("/")
    id2src = {r["id"]: r["sourceId"] for r in dev_db(mem.db).read("bench/turn_sources", prefix=ns + "/")}
    searchers = {w: Searcher(mem.db, mem.embedder, replace(RetrievalConfig(), when_boost=w),
                             dimensions=mem.embedding_dimensions) for w in weights}
    questions = _locomo(ns, args.data) if args.kind == "locomo" else _haystacks(args.kind, ns, args.data, args.seed)
    k = 25 if args.kind == "locomo" else 50  # as the benchmarks ask: the fusion normalises over what each side returns
    figs: dict[tuple[str, float], list[dict[str, float]]] = defaultdict(list)
    lat: dict[float, list[float]] = defaultdict(list)
    asked = total = 0
    for n, q in enumerate(questions):
        total += 1
        if not asks_when(q.text):
            continue
        asked += 1
        order = weights[n % len(weights):] + weights[:n % len(weights)]
        for w in order:
            t0 = time.perf_counter()
            res = searchers[w].search(q.text, scope=q.scope, levels=[0], k=k, now=q.now)
            lat[w].append(time.perf_counter() - t0)
            figs[(q.half, w)].append(q.score([id2src.get(h.id, "") for h in res.hits]))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{args.kind} {ns}: {asked} of {total} questions ask when; embedder {mem.embedding_model}; "
          f"commit {commit}; load {load}")
    for half in ("tune", "test"):
        base = figs[(half, 0.0)]
        if not base:
            continue
        print(f"## {half} ({len(base)} questions that ask when)")
        for w in weights:
            rows = figs[(half, w)]
            cells = []
            for m in rows[0]:
                won = sum(r[m] > b[m] for r, b in zip(rows, base, strict=True))
                lost = sum(r[m] < b[m] for r, b in zip(rows, base, strict=True))
                cells.append(f"{m} {statistics.fmean(r[m] for r in rows):.3f} (+{won}/-{lost})")
            print(f"when_boost {w:<4} " + "  ".join(cells))
    ratios = {w: statistics.median(a / b for a, b in zip(lat[w], lat[0.0], strict=True)) for w in weights}
    print("median latency ratio to when_boost 0, same questions: "
          + ", ".join(f"{w}: {r:.2f}" for w, r in ratios.items()))


if __name__ == "__main__":
    main()
