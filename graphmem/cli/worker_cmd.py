"""``graphmem worker`` (run, status, retry-failed) and ``graphmem check``."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from typing import Any

from ..config import Settings
from ..providers import make_summarizer
from .common import Progress, add_json_flag, emit_json, open_memory, print_table, relative

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser("worker", help="the summarizer worker: embeddings, level-1 summaries, roll-ups")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")

    run = verbs.add_parser(
        "run",
        help="run a worker in the foreground (any number may run at once, on several machines)",
        description="Embed pending turns, write level-1 summaries and roll them up until stopped "
        "(Ctrl-C / SIGTERM finish the job in hand, then exit).",
    )
    run.add_argument("--once", action="store_true", help="stop when there is nothing left to do now")
    run.add_argument("--max-seconds", type=float, default=None, help="stop after this long")
    run.add_argument("--cwd", default=None,
                     help="summarize only sessions of this directory and below (default: all; embedding is not scoped)")
    run.add_argument("--id", default=None, help="worker id shown in `worker status` (default host:pid:random)")
    run.add_argument("--no-embed", action="store_true", help="do not embed (summaries only)")
    run.add_argument("--nice", type=int, default=None, help="lower the CPU priority by this much (default 10)")
    run.add_argument("--quiet", action="store_true", help="no progress lines")
    run.add_argument("--paused", action="store_true",
                     help="start paused (SIGUSR2 resumes, SIGUSR1 pauses after the job in hand)")
    add_json_flag(run)
    run.set_defaults(handler=_run)

    st = verbs.add_parser("status", help="the job queue: counts, active workers, failed jobs and their errors")
    st.add_argument("--failed", type=int, default=20, help="failed jobs to list (default 20)")
    add_json_flag(st)
    st.set_defaults(handler=_status)

    rf = verbs.add_parser("retry-failed", help="give failed jobs a fresh set of attempts")
    rf.add_argument("--session", default=None, help="only this session's jobs")
    rf.set_defaults(handler=_retry_failed)

    ck = sub.add_parser(
        "check",
        help="verify the summary hierarchy's invariants (exit 1 with a report when one is broken)",
        description="Export the summary forest and check with networkx: each turn covered by exactly one "
        "level-1 summary (once the worker caught up), each summary by at most one summary of the next "
        "level, no cycles, charCount/turnCount/timestamp equal to their subtree's.",
    )
    ck.add_argument("--session", action="append", default=None, help="check this session (repeatable)")
    ck.add_argument("--cwd", default=None, help="check the sessions of this directory and below")
    ck.add_argument(
        "--complete", action="store_true",
        help="the worker has caught up: a turn without a level-1 summary or a failed job is an error",
    )
    add_json_flag(ck)
    ck.set_defaults(handler=_check)


def _run(args: argparse.Namespace) -> int:
    from ..chat import DigestConfig
    from ..facts import make_fact_extractor
    from ..paths import normalize_cwd
    from ..worker import SummaryWorker, WorkerConfig, WorkerStats

    settings = Settings.load()
    level = logging.WARNING if args.quiet else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    nice = settings.worker_nice if args.nice is None else args.nice
    if nice > 0 and hasattr(os, "nice"):
        os.nice(nice)
    summarizer = make_summarizer(settings)
    config = WorkerConfig.from_settings(settings, scope=normalize_cwd(args.cwd) if args.cwd else None)
    with open_memory() as mem:
        # with an LLM configured: facts from each summarized turn, and (unscoped workers) the chat
        # rooms' digest when it is due
        extractor = make_fact_extractor(settings)
        digester = (mem.digester(extractor, DigestConfig.from_settings(settings))
                    if extractor is not None and config.scope is None else None)
        worker = SummaryWorker(
            mem.db, summarizer, None if args.no_embed else mem.embedder, config, owner=args.id,
            foreground=mem.foreground, digester=digester, extractor=extractor,
        )

        def stop(signum: int, frame: object) -> None:
            worker.stop()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGUSR1, lambda signum, frame: worker.pause())
        signal.signal(signal.SIGUSR2, lambda signum, frame: worker.resume())
        if args.paused:
            worker.pause()
        progress = None if args.quiet else Progress(None, f"worker {worker.owner}: turns summarized")
        last = [0]

        def on_progress(stats: WorkerStats) -> None:
            if progress is not None and stats.turns_summarized > last[0]:
                progress.advance(stats.turns_summarized - last[0])
                last[0] = stats.turns_summarized

        worker.on_progress = on_progress
        print(f"worker {worker.owner} started (summarizer {summarizer!r}, level-1 batch chars "
              f"{config.batch_chars}, lease {config.lease_seconds:g} s)", file=sys.stderr, flush=True)
        stats = worker.run(until_idle=args.once, max_seconds=args.max_seconds)
        if progress is not None:
            progress.close()
    if args.json:
        emit_json(stats.as_dict())
    else:
        d = stats.as_dict()
        print(
            f"worker {worker.owner} stopped: {d['summaries']} summaries {d['summaries_by_level']}, "
            f"{d['turns_summarized']} turns ({d['turns_per_second']}/s), {d['turns_embedded']} turns and "
            f"{d['summaries_embedded']} summaries embedded, {d['errors']} errors, {d['jobs_failed']} failed"
        )
    return 0


def _status(args: argparse.Namespace) -> int:
    from ..worker import worker_status

    with open_memory() as mem:
        st = worker_status(mem.db, failed_limit=args.failed)
    if args.json:
        emit_json(st.__dict__)
        return 0
    print(f"turns awaiting a summary: {st.pending_turns}; summaries: {st.summaries}; "
          f"not embedded: {st.unembedded_turns} turns, {st.unembedded_summaries} summaries")
    if st.jobs:
        print_table(["state", "level", "jobs", "lease expired"],
                    [(j["state"], j["level"], j["count"], j["expired"] or "") for j in st.jobs])
    else:
        print("no summary jobs queued")
    if st.workers:
        print()
        print_table(["worker", "jobs leased", "last claim"],
                    [(w["owner"], w["jobs"], relative(w["lastClaim"])) for w in st.workers])
    if st.failed:
        print()
        print(f"{st.count('failed')} failed job(s) (retry with `graphmem worker retry-failed`):")
        print_table(
            ["job", "session", "level", "turns", "errors", "failed", "last error"],
            [(f["id"], f["sessionId"], f["level"], f"{f['fromIndex']}..{f['toIndex']}", f["errors"],
              relative(f["failedAt"]), f["lastError"]) for f in st.failed],
            max_width=80,
        )
    return 0


def _retry_failed(args: argparse.Namespace) -> int:
    from ..worker import retry_failed_jobs

    with open_memory() as mem:
        n = retry_failed_jobs(mem.db, args.session)
    print(f"{n} failed job(s) queued again")
    return 0


def _check(args: argparse.Namespace) -> int:
    from ..check import check_hierarchy
    from ..paths import normalize_cwd

    with open_memory() as mem:
        for session_id in args.session or ():
            mem.get_session(session_id)  # an unknown session is not found (exit 3), not an empty check
        report = check_hierarchy(
            mem.db, args.session, path=normalize_cwd(args.cwd) if args.cwd else None, complete=args.complete
        )
    if args.json:
        emit_json(report.as_dict())
    else:
        print(report.text())
    return 0 if report.ok else 1
