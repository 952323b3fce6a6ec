"""Fault run 2: summarizer worker processes SIGKILLed at random points while turns keep arriving."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import threading
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..servers import explicit_env
from ._fault_common import Log, load_avg, log_stderr, run_cli

__all__ = ["turn_batch", "worker_kill_run"]


# ---------------------------------------------------------------------------------------------
# 2. worker SIGKILL


def _victim_main(uri: str, user: str, password: str, scope: str, owner: str, lease: float, ready: Any = None,
                 ready_at: Any = None) -> None:
    """A summarizer worker (extractive, no embedder) in a forkserver child; it runs until killed.
    ``ready`` (an Event) is set once connected, just before the worker's first plan and claim, with
    ``ready_at`` (a shared double) holding that ``time.monotonic()`` (system-wide on Linux), so the
    parent can time the kill from there rather than from the process start."""
    from graphmem.db import Database
    from graphmem.providers import ExtractiveSummarizer
    from graphmem.worker import SummaryWorker, WorkerConfig

    db = Database(uri, user, password)
    db.ping()
    if ready_at is not None:
        ready_at.value = time.monotonic()
    if ready is not None:
        ready.set()
    cfg = WorkerConfig(scope=scope, lease_seconds=lease, claim_batch=2, poll_seconds=0.1, retry_base_seconds=0.5)
    SummaryWorker(db, ExtractiveSummarizer(), None, cfg, owner=owner).run()


def turn_batch(rng: random.Random, n: int, start: int) -> list[Any]:
    from graphmem.models import ToolCallIn, TurnIn

    out = []
    for i in range(start, start + n):
        words = " ".join(rng.choice(("export", "cursor", "index", "timezone", "retry", "lease", "schema",
                                      "vector", "spool", "hook")) for _ in range(40))
        out.append(TurnIn(
            user_message=f"Step {i}: why does the nightly job {i} fail? {words[:120]}",
            assistant_message=f"Job {i}: {words} The fix is in src/jobs/job_{i % 7}.py; tests pass now. " * 2,
            tool_calls=[ToolCallIn(name="Bash", args={"command": f"pytest tests/test_job_{i % 7}.py"},
                                   result="1 passed", success=True)],
            source_id=f"wk:{i}",
        ))
    return out


def _summary_shape(db: Any, session_ids: Sequence[str]) -> dict[str, Any]:
    """Half-written or duplicate summaries, from the exported forests."""
    half = 0
    dup_children = 0
    dup_cover = 0
    by_level: Counter[int] = Counter()
    for sid in session_ids:
        rows = db.read("check/forest", sessionId=sid)
        if not rows:
            continue
        forest = rows[0]
        kids: dict[str, set[str]] = {}
        for e in forest["outgoing"]:
            kids.setdefault(e["parent"], set()).add(e["child"])
        seen: set[frozenset[str]] = set()
        covers: Counter[str] = Counter()
        for m in forest["summaries"]:
            by_level[int(m["level"])] += 1
            children = kids.get(m["id"], set())
            if not children or m.get("charCount") is None or m.get("turnCount") is None or not m.get("hasSummary"):
                half += 1
            key = frozenset(children)
            if children and key in seen:
                dup_children += 1
            seen.add(key)
            covers[str(m.get("coverKey"))] += 1
        dup_cover += sum(c - 1 for c in covers.values() if c > 1)
    return {"half_written": half, "duplicate_children": dup_children, "duplicate_cover_keys": dup_cover,
            "summaries_by_level": {str(k): v for k, v in sorted(by_level.items())}}


def worker_kill_run(
    *,
    uri: str,
    user: str,
    password: str,
    home: Path,
    kills: int = 1000,
    victims: int = 2,
    sessions: int = 4,
    initial_turns: int = 40,
    turns_per_second: float = 4.0,
    alive_seconds: tuple[float, float] = (0.05, 1.2),
    lease_seconds: float = 1.0,
    check_every: int = 100,
    seed: int = 8,
    namespace: str | None = None,
    max_seconds: float | None = None,
    log: Log = log_stderr,
) -> dict[str, Any]:
    """SIGKILL summarizer workers ``kills`` times at random points while turns keep arriving
    (``max_seconds`` stops killing early; the figures say how many kills ran). Each victim's random
    lifetime (``alive_seconds``) starts when it is connected and about to claim work, not at its
    process start, so the kills land in planning, claiming, summarising and writing rather than in
    the interpreter's start-up."""
    from graphmem.check import check_hierarchy
    from graphmem.db import Database
    from graphmem.memory import GraphMemory
    from graphmem.providers import ExtractiveSummarizer
    from graphmem.worker import SummaryWorker, WorkerConfig

    rng = random.Random(seed)
    ns = namespace or f"/graphmem-faults/wk{uuid.uuid4().hex[:8]}"
    db = Database(uri, user, password)
    mem = GraphMemory(db)
    mem.ensure_schema()
    sids = [mem.create_session(f"{ns}/repo{k}").id for k in range(sessions)]
    counter = [0]
    for k, sid in enumerate(sids):
        mem.import_turns(sid, turn_batch(rng, initial_turns, counter[0] + k * 10_000_000))
    counter[0] += initial_turns
    stop = threading.Event()
    written = [initial_turns * sessions]
    writer_errors: list[str] = []

    def writer() -> None:
        wrng = random.Random(seed + 1)
        i = 0
        while not stop.wait(1.0 / max(0.1, turns_per_second)):
            k = i % sessions
            try:
                mem.import_turns(sids[k], turn_batch(wrng, 1, initial_turns + i + k * 10_000_000))
                written[0] += 1
            except Exception as e:  # recorded; the run fails on any
                writer_errors.append(f"{type(e).__name__}: {e}")
            i += 1

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["graphmem_devtools.reliability.worker_kill", "graphmem.worker", "graphmem.db",
                                "graphmem.providers"])
    t_start = time.monotonic()
    wt = threading.Thread(target=writer, name="fault-writer", daemon=True)
    wt.start()
    alive: list[tuple[Any, Any, Any]] = []  # (process, its ready Event, its ready time), oldest first
    done_kills = 0
    spawned = 0
    exited_early = 0
    not_ready = 0
    lifetimes: list[float] = []
    checks_failed: list[str] = []
    checks = 0
    loads: list[list[float]] = []
    try:
        while done_kills < kills:
            if max_seconds is not None and time.monotonic() - t_start > max_seconds:
                log(f"worker kills: time budget reached after {done_kills} kills")
                break
            while len(alive) < victims:
                ready, ready_at = ctx.Event(), ctx.Value("d", 0.0)
                p = ctx.Process(target=_victim_main, args=(uri, user, password, ns, f"victim{spawned}", lease_seconds,
                                                           ready, ready_at), daemon=True)
                p.start()
                spawned += 1
                alive.append((p, ready, ready_at))
            p, ready, ready_at = alive.pop(0)
            life = rng.uniform(*alive_seconds)
            if ready.wait(timeout=30):
                start = float(ready_at.value)
            else:  # not connected within 30 s: kill it wherever it is
                not_ready += 1
                start = time.monotonic()
            time.sleep(max(0.0, start + life - time.monotonic()))
            if p.is_alive() and p.pid is not None:
                os.kill(p.pid, signal.SIGKILL)
            else:
                exited_early += 1
            p.join(timeout=30)
            lifetimes.append(life)
            done_kills += 1
            if done_kills % check_every == 0 or done_kills == kills or (
                    max_seconds is not None and time.monotonic() - t_start > max_seconds):
                report = check_hierarchy(db, sids)
                checks += 1
                if not report.ok:
                    checks_failed.append(f"after {done_kills} kills: {report.text()[:500]}")
                loads.append(load_avg())
                log(f"worker kills: {done_kills}/{kills}, {written[0]} turns written, check "
                    f"{'ok' if report.ok else 'FAILED'}, load {loads[-1]}")
    finally:
        stop.set()
        wt.join(timeout=30)
        for p, _, _ in alive:
            if p.is_alive() and p.pid is not None:
                os.kill(p.pid, signal.SIGKILL)
            p.join(timeout=30)
    kill_phase = time.monotonic() - t_start
    pending_before = sum(mem.raw_history_chars(s) > 0 for s in sids)
    time.sleep(lease_seconds + 0.5)  # the killed workers' leases expire
    from graphmem.worker import retry_failed_jobs, worker_status

    # A job whose workers keep dying is failed for good after `max_lost_leases` (25) expired leases:
    # the crash-loop guard, visible in `graphmem worker status`. In a kill storm that is the designed
    # outcome; the operator's answer is `graphmem worker retry-failed`, which is what happens here.
    def failed_now() -> list[dict[str, Any]]:
        return [f for f in worker_status(db, failed_limit=1000).failed if f.get("sessionId") in sids]

    failed_in_storm = failed_now()
    t_catch = time.monotonic()
    catcher = SummaryWorker(db, ExtractiveSummarizer(), None,
                            WorkerConfig(scope=ns, lease_seconds=30, retry_base_seconds=0.5))
    # A job one expiry short of the guard when the storm ends reaches it when the catch-up worker
    # takes it over, and is failed then: retry-failed and catch up again (at most 3 rounds).
    retried = summaries_written = dropped_or_lost = rounds = 0
    failed_in_catch_up: list[dict[str, Any]] = []
    while rounds < 3:
        rounds += 1
        retried += sum(retry_failed_jobs(db, sid) for sid in sids)
        stats = catcher.run_until_idle()
        summaries_written += stats.summaries_written
        dropped_or_lost += stats.jobs_dropped + stats.jobs_lost
        failed_jobs = failed_now()
        if not failed_jobs:
            break
        failed_in_catch_up += failed_jobs
    catch_up = time.monotonic() - t_catch
    final = check_hierarchy(db, sids, complete=True)
    cli = run_cli(["check", "--cwd", ns, "--complete"], explicit_env(uri, user, password, home))
    shape = _summary_shape(db, sids)
    turns = sum(len(mem.load_session(s).turns) for s in sids)
    leftover_raw = sum(mem.raw_history_chars(s) for s in sids)
    server_version = db.server_info().version
    db.close()
    ok = (final.ok and cli.returncode == 0 and not checks_failed and shape["half_written"] == 0
          and shape["duplicate_children"] == 0 and shape["duplicate_cover_keys"] == 0 and not writer_errors
          and turns == written[0] and final.summaries[1] == turns and not failed_jobs)
    return {
        "ok": ok,
        "neo4j": server_version,
        "namespace": ns,
        "kills": done_kills,
        "kills_asked": kills,
        "victims_at_once": victims,
        "workers_spawned": spawned,
        "exited_before_kill": exited_early,
        "not_ready_within_30s": not_ready,
        "lifetime_after_ready_s": {"min": round(min(lifetimes), 3) if lifetimes else None,
                                   "max": round(max(lifetimes), 3) if lifetimes else None},
        "sessions": sessions,
        "turns_written": written[0],
        "turns_stored": turns,
        "writer_errors": writer_errors[:5],
        "intermediate_checks": checks,
        "intermediate_checks_failed": checks_failed[:3],
        "sessions_pending_after_kills": pending_before,
        "jobs_failed_during_kills": len(failed_in_storm),
        "why_failed_during_kills": sorted({str(f.get("lastError"))[:160] for f in failed_in_storm})[:3],
        "failed_jobs_retried": retried,
        "catch_up_rounds": rounds,
        "jobs_failed_in_catch_up": len(failed_in_catch_up),
        "why_failed_in_catch_up": sorted({str(f.get("lastError"))[:160] for f in failed_in_catch_up})[:3],
        "catch_up_summaries": summaries_written,
        "summaries_by_victims": sum(int(v) for v in shape["summaries_by_level"].values()) - summaries_written,
        "catch_up_s": round(catch_up, 1),
        "catch_up_jobs_dropped_or_lost": dropped_or_lost,
        "check_complete_ok": final.ok,
        "graphmem_check_exit": cli.returncode,
        "graphmem_check_output": cli.stdout.strip().splitlines()[:3],
        "level1_summaries": final.summaries[1],
        "raw_chars_not_summarized": leftover_raw,
        "failed_jobs": len(failed_jobs),
        **shape,
        "kill_phase_s": round(kill_phase, 1),
        "kills_per_minute": round(done_kills / max(kill_phase, 1e-9) * 60, 1),
        "load_avg_min_max_1m": [min((x[0] for x in loads), default=0.0), max((x[0] for x in loads), default=0.0)],
    }
