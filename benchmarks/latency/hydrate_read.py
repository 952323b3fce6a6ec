"""What reading a search's hits costs: one row with times as numbers against one record per hit.

The final step of every search reads its hits' details (``search/hydrate``). It now returns one row
(a list of maps) with each time as epoch second, nanosecond and zone, rebuilt in Python in the
stored zone. The previous statement returned one record per hit with the driver's zoned DateTime;
it is kept as ``bench/hydrate_per_record`` to be timed beside it. Both sides read the same ids,
through the same ``Database.read``, and turn the times into ``datetime``s; the order of the two
alternates from round to round, after untimed warm-up rounds.

A load of its own is written under a fresh namespace and deleted afterwards: short chat turns and
coding turns with replies of a few thousand characters, in several zones. Prints p50/p95 per side
and the median per-round ratio, and writes a JSON results file with the command, commit and load.

    python benchmarks/latency/hydrate_read.py --out benchmarks/latency/hydrate-read.json
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from graphmem.db.rows import native, zoned_time
from graphmem.memory import open_memory
from graphmem_devtools.bench.common import write_script_results
from graphmem_devtools.statements import STATEMENTS

WORDS = ["retry", "policy", "migration", "flaky", "test", "timeout", "deploy", "config", "cache", "index", "query",
         "latency", "budget", "review", "commit", "branch", "rollback", "schema", "parser", "logger", "metrics",
         "worker", "queue", "lease", "token"]


def _text(rnd: random.Random, chars: int) -> str:
    out: list[str] = []
    n = 0
    while n < chars:
        w = rnd.choice(WORDS)
        out.append(w)
        n += len(w) + 1
    return " ".join(out)


def _pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return round(s[min(len(s) - 1, int(p / 100 * len(s)))], 3)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--turns", type=int, default=50, help="turns per session")
    ap.add_argument("--rounds", type=int, default=300, help="timed rounds per k")
    ap.add_argument("--k", default="10,50", help="hits per read, comma-separated")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    load_before = os.getloadavg()
    mem = open_memory(start=True)
    db = mem.db.with_statements(STATEMENTS)
    neo4j_version = mem.db.server_info().version
    ns = f"/graphmem-bench/hydrate-{uuid.uuid4().hex[:12]}"
    zones = [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-5)), ZoneInfo("Europe/Paris")]
    sessions = []
    try:
        for s in range(args.sessions):
            sess = mem.create_session(f"{ns}/project{s % 4}", project_path=f"{ns}/project{s % 4}", agent="bench")
            sessions.append(sess.id)
            start = datetime(2026, 1, 1, tzinfo=zones[s % len(zones)]) + timedelta(days=s)
            turns = [{"user_message": _text(rnd, rnd.choice((80, 200, 600))),
                      "assistant_message": _text(rnd, rnd.choice((150, 400, 2500, 4000))),
                      "tool_calls": [{"name": rnd.choice(("Bash", "Edit", "Read"))} for _ in range(rnd.randrange(3))],
                      "timestamp": start + timedelta(minutes=3 * i, microseconds=rnd.randrange(10**6))}
                     for i in range(args.turns)]
            mem.import_turns(sess.id, turns)
        ids = [r["id"] for sid in sessions for r in db.read("bench/turn_ids_after", sessionId=sid, after=0)]
        print(f"{len(ids)} turns under {ns}", file=sys.stderr)

        def one_row(chosen: list[str]) -> int:
            (row,) = db.read("search/hydrate", turnIds=chosen, summaryIds=[], maxChars=2000, withEmbedding=False)
            return len([zoned_time(it["at"], it["nanos"], it["zone"]) for it in row["items"]])

        def per_record(chosen: list[str]) -> int:
            rows = db.read("bench/hydrate_per_record", turnIds=chosen, summaryIds=[], maxChars=2000, withEmbedding=False)
            return len([native(r["item"]["timestamp"]) for r in rows])

        sides: dict[str, Callable[[list[str]], int]] = {"one row, times as numbers (current)": one_row,
                                                         "one record per hit, zoned DateTime (previous)": per_record}
        results: dict[str, Any] = {}
        for k in [int(x) for x in args.k.split(",")]:
            times: dict[str, list[float]] = {name: [] for name in sides}
            ratios: list[float] = []
            for rnd_i in range(args.rounds + 20):
                chosen = rnd.sample(ids, k)
                order = list(sides) if rnd_i % 2 == 0 else list(reversed(sides))
                got: dict[str, float] = {}
                for name in order:
                    t0 = time.perf_counter()
                    n = sides[name](chosen)
                    got[name] = (time.perf_counter() - t0) * 1000
                    assert n == k, (name, n, k)
                if rnd_i < 20:
                    continue  # warm-up: plans, connections
                for name, ms in got.items():
                    times[name].append(ms)
                first, second = list(sides)
                ratios.append(got[first] / got[second])
            results[str(k)] = {name: {"p50_ms": _pct(ts, 50), "p95_ms": _pct(ts, 95), "mean_ms": round(statistics.fmean(ts), 3)}
                               for name, ts in times.items()}
            results[str(k)]["median_ratio_current_to_previous"] = round(statistics.median(ratios), 3)
            for name, fig in results[str(k)].items():
                print(f"k={k:>3}  {name:<48} {fig}")
    finally:
        for sid in sessions:
            mem.delete_session(sid)
        mem.close()
    write_script_results(args.out, "benchmarks/latency/hydrate_read.py", load_before, neo4j=neo4j_version,
                         turns=len(ids), rounds=args.rounds, results=results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
