"""``graphmem bench warm-up``: the first searches and context blocks after the managed Neo4j starts,
with and without :meth:`GraphMemory.warm_up` run first.

Two LoCoMo conversations are loaded as two directories of sessions (user + assistant turns, USE
vectors), in a namespace of their own deleted at the end. Then, ``--pairs`` times, in alternating
order: the server is restarted and the first ``--calls`` calls (a search of the first directory,
then a context block in its last session, for each of LoCoMo's first questions) are timed as they
come ("cold"); the server is restarted, the warm-up runs in the *other* directory's last session,
and the same calls are timed ("warmed"). Finally the same calls once more on the warm server
("steady"). The bench process paid its own first-call costs in an untimed pass before the first
restart, so the difference is the server's. It needs the managed server (no GRAPHMEM_NEO4J_URI)
and stops this home's warm daemon first (the daemon would warm the server itself).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from graphmem.config import Settings
from graphmem.db import managed_server
from graphmem.memory import GraphMemory, open_memory
from graphmem.runtime.daemon_control import stop_daemon

from .common import BenchResult, machine_info, percentiles, write_results

__all__ = ["register", "run_warm_up_bench"]


def _load(mem: GraphMemory, data: Path, root: str) -> tuple[list[str], list[str], list[str]]:
    """Conversations 0 and 1 as ``root/conv0`` and ``root/conv1``; (their directories, their last
    sessions, conversation 0's first questions)."""
    samples = json.loads(data.read_text())
    dirs, last = [], []
    for ci in (0, 1):
        c = samples[ci]["conversation"]
        cwd = f"{root}/conv{ci}"
        sid = ""
        n = 1
        while f"session_{n}" in c:
            day = datetime(2023, 1, 1, tzinfo=UTC) + timedelta(days=n)
            s = mem.create_session(cwd, project_path=cwd, started_at=day)
            u = c[f"session_{n}"]
            mem.import_turns(s.id, [{"user_message": u[i]["text"],
                                     "assistant_message": u[i + 1]["text"] if i + 1 < len(u) else "",
                                     "timestamp": day + timedelta(minutes=i)} for i in range(0, len(u), 2)])
            sid = s.id
            n += 1
        dirs.append(cwd)
        last.append(sid)
    mem.embed_pending()
    mem.await_text_index()
    questions = [str(q["question"]) for q in samples[0]["qa"]]
    return dirs, last, questions


def _calls(mem: GraphMemory, cwd: str, session_id: str, questions: list[str]) -> list[Callable[[], object]]:
    out: list[Callable[[], object]] = []
    for q in questions:
        out.append(partial(mem.search, q, scope=f"directory:{cwd}", levels=(0,), k=10))
        out.append(partial(mem.build_context, session_id, q))
    return out


def _timed(calls: list[Callable[[], object]]) -> list[float]:
    out = []
    for fn in calls:
        t = time.perf_counter()
        fn()
        out.append(round((time.perf_counter() - t) * 1000, 1))
    return out


def run_warm_up_bench(data: Path, *, pairs: int = 2, questions: int = 7, command: str,
                      log: Callable[[str], None] = lambda m: None) -> BenchResult:
    settings = Settings.load()
    if not settings.managed:
        raise SystemExit("graphmem: error: bench warm-up restarts the managed Neo4j: unset GRAPHMEM_NEO4J_URI")
    if stop_daemon(settings.home):
        log("stopped this home's warm daemon (it would warm the server itself)")
    server = managed_server(settings)
    load_before = os.getloadavg()
    root = f"/graphmem-bench/warm-up-{uuid.uuid4().hex[:12]}"
    mem = open_memory(start=True, settings=settings)
    embedder = mem.embedder
    figures: dict[str, Any] = {}
    version: str | None = None
    try:
        dirs, last, qs = _load(mem, data, root)
        qs = qs[:questions]
        _timed(_calls(mem, dirs[0], last[0], qs))  # this process's own first-call costs, untimed
        runs: dict[str, list[list[float]]] = {"cold": [], "warmed": []}
        warm_reports: list[dict[str, object]] = []
        for p in range(pairs):
            for kind in (("cold", "warmed") if p % 2 == 0 else ("warmed", "cold")):
                mem.close()
                server.stop()
                server.start()
                mem = GraphMemory.from_settings(settings, embedder_factory=lambda: embedder)
                if kind == "warmed":
                    report = mem.warm_up(last[1], warm_ms=None)
                    warm_reports.append(report.to_dict())
                    log(f"warm-up: {report.searches} searches, {report.contexts} contexts in {report.seconds:.1f} s")
                runs[kind].append(_timed(_calls(mem, dirs[0], last[0], qs)))
                log(f"pair {p + 1} {kind}: first {runs[kind][-1][0]} ms, all {sum(runs[kind][-1]):.0f} ms")
        version = mem.db.server_info().version
        steady = _timed(_calls(mem, dirs[0], last[0], qs))
        for kind, rows in runs.items():
            flat = [x for r in rows for x in r]
            figures[f"{kind}: first call"] = percentiles([r[0] for r in rows])
            figures[f"{kind}: first {len(rows[0])} calls"] = {
                **percentiles(flat), "total_ms (mean per pass)": round(sum(flat) / len(rows), 1)}
        figures["steady (warm server, same calls)"] = {**percentiles(steady), "total_ms": round(sum(steady), 1)}
        figures["warm-up (searches, contexts, seconds)"] = {
            "runs": len(warm_reports), "seconds": [r["seconds"] for r in warm_reports],
            "searches": warm_reports[0]["searches"] if warm_reports else 0,
            "contexts": warm_reports[0]["contexts"] if warm_reports else 0}
        figures["passes"] = dict(runs)
    finally:
        for row in mem.db.read("maintenance/sessions_under_path", path=root, prefix=root + "/"):
            mem.delete_session(row["id"])
        mem.close()
    load_after = os.getloadavg()
    machine = machine_info(version)
    return BenchResult(
        name="warm-up", command=command, machine=machine, figures=figures,
        notes=[
            f"load average (1, 5, 15 min) before {' '.join(f'{x:.2f}' for x in load_before)}, "
            f"after {' '.join(f'{x:.2f}' for x in load_after)}",
            f"memory: LoCoMo conversations 0 and 1 ({data.name}) as two directories, user + assistant turns, "
            f"embedder {embedder.model if embedder is not None else 'none'}",
            f"calls per pass: for each of conversation 0's first {len(qs)} questions a search of its directory "
            "(turns, k 10) then a context block in its last session; each pass right after a server restart",
            "cold: nothing ran on the restarted server before the calls; warmed: GraphMemory.warm_up(rounds 3) "
            "ran first, in the other conversation's last session; pairs alternate which comes first",
        ],
    )


def register(verbs: Any) -> None:
    p = verbs.add_parser("warm-up", help="first searches after the managed Neo4j starts, with and without the warm-up")
    p.add_argument("--data", type=Path, default=Path("../shared/benchmarks/locomo/locomo10.json"))
    p.add_argument("--pairs", type=int, default=2, help="cold/warmed restart pairs (default 2)")
    p.add_argument("--questions", type=int, default=7, help="questions per pass (default 7: 14 calls)")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    p.set_defaults(handler=_warm_up)


def _warm_up(args: argparse.Namespace) -> int:
    if args.pairs < 1 or args.questions < 1:
        print("graphmem: error: --pairs and --questions must be at least 1", file=sys.stderr)
        return 2
    if not args.data.is_file():
        print(f"graphmem: error: --data: {args.data} is not a file", file=sys.stderr)
        return 2
    command = f"graphmem bench warm-up --data {args.data} --pairs {args.pairs} --questions {args.questions}"
    result = run_warm_up_bench(args.data, pairs=args.pairs, questions=args.questions, command=command,
                               log=lambda m: print(m, file=sys.stderr))
    _, md = write_results(result, args.out)
    print(result.markdown())
    print(f"wrote {md}", file=sys.stderr)
    return 0
