"""``graphmem reliability faults``: fault-injection runs with figures.

Four parts, each a function returning its figures (the test suite runs them at tiny sizes):

1. :func:`neo4j_kill_run`: a dedicated managed Neo4j is SIGKILLed at random moments (each kill
   confirmed: the pid is gone) while hook writer processes store turns through the coding-CLI
   Stop-hook path (:meth:`HookService.ingest`: Neo4j, else the spool) and direct writer processes
   call the library's ``store_turn`` back to back (no spool: writes in flight at the kill);
   ``graphmem db up`` restarts it (and replays the spool). At the end every attempted turn is
   accounted for: acknowledged and spooled turns stored exactly once in the session they were sent
   to with the text they were sent with, a direct write that got an error stored at most once and
   exactly, no error on the hook path, turn indexes contiguous per session.
2. :func:`worker_kill_run`: summarizer worker processes SIGKILLed at random points, many times,
   while turns keep arriving; then a worker catches up and ``graphmem check --complete`` must pass,
   with no half-written and no duplicate summary.
3. :func:`openai_fault_run`: the local OpenAI-compatible server (:mod:`.fake_openai`) fails a
   fraction of requests (429, 500, stalls); the worker uses the OpenAI embedder and the LLM
   summarizer through it. First without the extractive fallback (failed jobs must show in
   ``graphmem worker status``), then ``graphmem worker retry-failed`` and the configuration the
   design ships (LLM with extractive fallback): everything must converge, attempts stay bounded.
4. :func:`disk_fault_run`: the real hook process (``python -S runtime/client.py``) with Neo4j
   unreachable and ``$GRAPHMEM_HOME`` on a full or read-only file system: one clear line on
   stderr, exit code 0, the transcript cursor not moved; once space is back the turns are spooled.

Results: ``benchmarks/results/reliability-faults.{md,json}`` (each part updates its own section,
so parts can run as separate processes).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..servers import ServerSpec
from ._fault_common import db_up
from .disk_faults import disk_fault_run
from .fault_results import RESULTS_NAME, write_fault_results
from .neo4j_kill import neo4j_kill_run, verify_writer_turns
from .openai_faults import openai_fault_run
from .worker_kill import worker_kill_run

__all__ = [
    "RESULTS_NAME",
    "disk_fault_run",
    "neo4j_kill_run",
    "openai_fault_run",
    "register",
    "verify_writer_turns",
    "worker_kill_run",
    "write_fault_results",
]


# ---------------------------------------------------------------------------------------------
# CLI


def register(verbs: Any) -> None:
    p = verbs.add_parser(
        "faults",
        help="fault injection: Neo4j and worker SIGKILLs, a failing OpenAI server, a full/read-only home",
        description="Scripted fault runs. Writes benchmarks/results/reliability-faults.{md,json}; "
        "by default all four parts run one after the other.",
    )
    p.add_argument("--neo4j-cycles", type=int, default=100, help="Neo4j SIGKILL/restart cycles (default 100)")
    p.add_argument("--worker-kills", type=int, default=1000, help="worker SIGKILLs (default 1000)")
    p.add_argument("--fault-rate", type=float, default=0.3, help="fraction of OpenAI requests failed (default 0.3)")
    p.add_argument("--openai-turns", type=int, default=200, help="backlog for the OpenAI fault part (default 200)")
    p.add_argument("--writers", type=int, default=4, help="hook writer processes in the Neo4j kill part (default 4)")
    p.add_argument("--direct-writers", type=int, default=2,
                   help="direct (library store_turn, no spool) writer processes in the Neo4j kill part (default 2)")
    p.add_argument("--writer-interval", type=float, default=0.5,
                   help="mean seconds between two turns of one writer (default 0.5)")
    p.add_argument("--quick", action="store_true", help="tiny sizes (3 cycles, 20 kills, 20 turns)")
    p.add_argument("--only", action="append", choices=["neo4j", "worker", "openai", "disk"],
                   help="run only this part (repeatable)")
    p.add_argument("--home", default="/tmp/h3-home", help="GRAPHMEM_HOME of the dedicated Neo4j for the kill cycles")
    p.add_argument("--bolt-port", type=int, default=27003)
    p.add_argument("--http-port", type=int, default=27403)
    p.add_argument("--worker-uri", default=None,
                   help="run the worker-kill part on this server (own namespace) instead of the dedicated one")
    p.add_argument("--worker-password-file", default=None, help="password file for --worker-uri")
    p.add_argument("--neo4j-version", default=None, help="server version (default graphmem's)")
    p.add_argument("--seed", type=int, default=8)
    p.add_argument("--max-minutes", type=float, default=None,
                   help="time budget of the Neo4j and worker kill parts each (they stop early and say so)")
    p.add_argument("--out", default="benchmarks/results", help="results folder")
    p.add_argument("--name", default=RESULTS_NAME, help=f"results file name (default {RESULTS_NAME})")
    p.add_argument("--keep-server", action="store_true", help="leave the dedicated servers running")
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from graphmem.config import DEFAULT_NEO4J_VERSION

    from ..bench.common import source_commit

    commit = source_commit()  # the code this run measures (the checkout may change while it runs)
    parts = args.only or ["neo4j", "worker", "openai", "disk"]
    version = args.neo4j_version or os.environ.get("GRAPHMEM_NEO4J_VERSION") or DEFAULT_NEO4J_VERSION
    cycles, kills, oturns = args.neo4j_cycles, args.worker_kills, args.openai_turns
    if args.quick:
        cycles, kills, oturns = min(cycles, 3), min(kills, 20), min(oturns, 20)
    command = "graphmem reliability faults " + " ".join(sys.argv[sys.argv.index("faults") + 1:] if "faults" in sys.argv
                                                         else [])
    out = Path(args.out)
    ok = True
    spec = ServerSpec(Path(args.home), version, args.bolt_port, args.http_port)
    budget = args.max_minutes * 60 if args.max_minutes else None
    server = spec.server()
    used_dedicated = False
    try:
        if "neo4j" in parts:
            used_dedicated = True
            r = neo4j_kill_run(spec, cycles=cycles, writers=args.writers, direct_writers=args.direct_writers,
                               seed=args.seed, stop_server=False,
                               max_seconds=budget, interval=args.writer_interval)
            write_fault_results(out, {"neo4j_kill": r}, name=args.name, commit=commit, command=command, notes=[
                "Writers are separate processes storing one turn per call: hook writers through "
                "HookService.ingest (the Stop-hook path: Neo4j, else the spool), direct writers through the "
                "library's store_turn back to back (no spool), so writes are in flight at the kills "
                "(`direct_writes_in_flight_at_each_kill`). `acknowledged` = stored and returned to the caller, "
                "`spooled` = written to the spool while Neo4j was down, `errors_reported_to_caller` = the call "
                "raised. A kill counts once its pid is confirmed gone. `db up` restart time includes JVM start, "
                "schema check and the spool replay. Heap 512 MB, page cache 256 MB.",
                "Pass condition: every kill confirmed; every attempted turn accounted for: acknowledged and "
                "spooled turns stored exactly once, in the session they were sent to, with the text sent (and "
                "the index the library returned, for direct writes); a direct write that got an error stored at "
                "most once and exactly as sent (or not at all: its caller was told); no error and no unfinished "
                "call on the hook path; no unknown turn; indexes 1..n per session; spool empty; at least one "
                "kill with a direct write in flight. `problem_examples` names the turns that break it.",
            ])
            ok &= bool(r["ok"])
        uri = pw = ""
        if "neo4j" in parts or "openai" in parts or ("worker" in parts and not args.worker_uri):
            used_dedicated = True
            if server.state() is None:
                _took, proc = db_up(spec)
                if proc.returncode != 0:
                    raise RuntimeError(f"graphmem db up failed:\n{proc.stdout}\n{proc.stderr}")
            st = server.state()
            uri, pw = st.uri, server.password()
        if "worker" in parts:
            wuri, wpw = uri, pw
            if args.worker_uri:
                wuri = args.worker_uri
                wpw = Path(args.worker_password_file).read_text().strip() if args.worker_password_file else ""
            r = worker_kill_run(uri=wuri, user="neo4j", password=wpw, home=spec.home, kills=kills, seed=args.seed,
                                max_seconds=budget)
            write_fault_results(out, {"worker_kill": r}, name=args.name, commit=commit, command=command, notes=[
                "Victims are library workers (extractive summarizer, no embedder) forked from a forkserver "
                "with graphmem preloaded, two at a time, each SIGKILLed at a uniform random 0.05-1.2 s after it is "
                "connected and about to plan/claim (its start-up is not counted), lease 1 s; a job whose lease "
                "expired 25 times is failed by the crash-loop guard (visible in `graphmem worker status`) and "
                "retried with `retry-failed` before the catch-up (and again, at most 3 rounds, for a job the guard fails "
                "when the catch-up worker takes it over); a writer adds turns throughout; `graphmem check` runs every 100 kills and "
                "`graphmem check --complete` (CLI) after a final catch-up worker.",
            ])
            ok &= bool(r["ok"])
        if "openai" in parts:
            r = openai_fault_run(uri=uri, user="neo4j", password=pw, home=spec.home, turns=oturns,
                                 fault_rate=args.fault_rate, seed=args.seed)
            write_fault_results(out, {"openai_faults": r}, name=args.name, commit=commit, command=command, notes=[
                "Faults: 1/3 each of HTTP 429 (Retry-After 0), HTTP 500 and a stall of 3x the client timeout "
                "(1 s). Phase 1 runs the LLM summarizer without fallback (2 attempts per call, 1 per job) so "
                "jobs whose call exhausts its attempts end `failed` and show in `graphmem worker status`; "
                "phase 2 runs `retry-failed` and the shipped configuration (LLM with extractive fallback, "
                "3 attempts per call, 5 per job). The embedder has 3 attempts per call throughout; a failed "
                "embedding batch stays pending and is retried by the next round. Runs on the dedicated server.",
            ])
            ok &= bool(r["ok"])
    finally:
        if used_dedicated and not args.keep_server:
            server.stop()
    if "disk" in parts:
        r = disk_fault_run()
        write_fault_results(out, {"disk": r}, name=args.name, commit=commit, command=command)
        ok &= bool(r["ok"])
    print(f"results: {out / (args.name + '.md')}; {'all parts passed' if ok else 'SOME PART FAILED'}")
    return 0 if ok else 1
