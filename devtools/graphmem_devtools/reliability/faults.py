"""``graphmem reliability faults``: fault-injection runs with figures.

Four parts, each a function returning its figures (the test suite runs them at tiny sizes):

1. :func:`neo4j_kill_run`: a dedicated managed Neo4j is SIGKILLed at random moments while writer
   processes store turns through the coding-CLI Stop-hook path (:meth:`HookService.ingest`); they
   keep writing while it is down (those turns go to the spool); ``graphmem db up`` restarts it
   (and replays the spool). At the end every acknowledged turn must be present, every spooled turn
   present exactly once, turn indexes contiguous per session, no duplicate by source id or content.
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
import contextlib
import fcntl
import json
import multiprocessing
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..servers import ServerSpec, clean_env, explicit_env, managed_env
from ..statements import dev_db

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

RESULTS_NAME = "reliability-faults"
CLI = "import sys; from graphmem.cli import main; sys.exit(main(sys.argv[1:]))"

Log = Callable[[str], None]


def _print(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _pcts(values: Sequence[float]) -> dict[str, float]:
    from ..bench.common import percentiles

    return percentiles([float(v) for v in values])


def _cli(args: Sequence[str], env: dict[str, str], timeout: float = 600.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CLI, *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def _db_up(spec: ServerSpec) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    proc = _cli(["db", "up"], managed_env(spec))
    return time.perf_counter() - t0, proc


def _open_db(spec: ServerSpec) -> Any:
    from graphmem.db import Database

    server = spec.server()
    st = server.state()
    if st is None:
        raise RuntimeError(f"the managed server under {spec.home} is not running")
    return Database(st.uri, "neo4j", server.password(), "neo4j")


# ---------------------------------------------------------------------------------------------
# 1. Neo4j SIGKILL cycles


def verify_writer_turns(db: Any, records: Sequence[dict[str, Any]], session_ids: Sequence[str]) -> dict[str, Any]:
    """Compare what writers were told (``records``) with what the sessions hold."""
    from graphmem.errors import SessionNotFound
    from graphmem.memory import GraphMemory

    mem = GraphMemory(db)
    stored_src: Counter[str] = Counter()
    stored_content: Counter[str] = Counter()
    index_problems: list[str] = []
    order_inversions = 0
    per_session: dict[str, int] = {}
    for sid in session_ids:
        try:
            turns = mem.load_session(sid).turns
        except SessionNotFound:
            per_session[sid] = 0
            continue
        per_session[sid] = len(turns)
        idx = sorted(t.index for t in turns)
        if idx != list(range(1, len(turns) + 1)):
            index_problems.append(f"{sid}: indexes not 1..{len(turns)} (first gaps/dups: {idx[:5]}...)")
        last_seq = -1
        for t in sorted(turns, key=lambda t: t.index):
            stored_src[t.source_id or ""] += 1
            stored_content[t.user_message + "\x00" + t.assistant_message] += 1
            try:
                seq = int((t.source_id or "").rsplit(":", 1)[1])
            except (IndexError, ValueError):
                continue
            if seq < last_seq:
                order_inversions += 1
            last_seq = max(last_seq, seq)
    by_outcome: dict[str, list[str]] = {}
    for r in records:
        by_outcome.setdefault(str(r["outcome"]), []).append(str(r["src"]))
    acked = by_outcome.get("ack", [])
    spooled = by_outcome.get("spooled", [])
    errored = by_outcome.get("error", [])
    lost_acked = [s for s in acked if stored_src[s] == 0]
    lost_spooled = [s for s in spooled if stored_src[s] == 0]
    duplicated_src = sum(c - 1 for c in stored_src.values() if c > 1)
    duplicated_content = sum(c - 1 for c in stored_content.values() if c > 1)
    known = {str(r["src"]) for r in records}
    unknown = [s for s in stored_src if s not in known]
    return {
        "turns_written": len(records),
        "acknowledged": len(acked),
        "spooled": len(spooled),
        "errors_reported_to_caller": len(errored),
        "errors_present_anyway": sum(1 for s in errored if stored_src[s] > 0),
        "skipped": len(by_outcome.get("skipped", [])),
        "stored": sum(stored_src.values()),
        "replayed": sum(1 for s in spooled if stored_src[s] == 1),
        "lost": len(lost_acked) + len(lost_spooled),
        "lost_acknowledged": len(lost_acked),
        "lost_spooled": len(lost_spooled),
        "lost_examples": (lost_acked + lost_spooled)[:5],
        "duplicated": duplicated_src,
        "duplicated_by_content": duplicated_content,
        "unknown_turns": len(unknown),
        "index_problems": index_problems[:10],
        "sessions": len(session_ids),
        "turns_per_session": per_session,
        "order_inversions": order_inversions,
    }


def _count_acks(logs: Sequence[Path]) -> int:
    n = 0
    for f in logs:
        with contextlib.suppress(OSError):
            n += f.read_text().count('"outcome": "ack"')
    return n


def neo4j_kill_run(
    spec: ServerSpec,
    *,
    cycles: int = 100,
    writers: int = 4,
    sessions_per_writer: int = 2,
    up_seconds: tuple[float, float] = (1.0, 5.0),
    down_seconds: tuple[float, float] = (0.5, 3.0),
    interval: float = 0.2,
    seed: int = 8,
    stop_server: bool = True,
    max_seconds: float | None = None,
    ack_before_kill: bool = True,
    ack_timeout: float = 600.0,
    log: Log = _print,
) -> dict[str, Any]:
    """SIGKILL the Neo4j JVM ``cycles`` times under writers; restart with ``graphmem db up``.
    ``max_seconds`` stops cycling early (the figures say how many cycles ran). With
    ``ack_before_kill`` each kill waits (up to ``ack_timeout``) until a writer had a turn
    acknowledged since the last restart, so both paths (stored directly, spooled) are exercised
    even on a slow machine where the spool replay outlasts the random up time."""
    from graphmem.runtime.spool import Spool

    from ._fault_writer import session_ids

    rng = random.Random(seed)
    run_id = f"nk{uuid.uuid4().hex[:8]}"
    cwd = f"/graphmem-faults/{run_id}"
    server = spec.server()
    t_start = time.monotonic()
    took, proc = _db_up(spec)
    if proc.returncode != 0:
        raise RuntimeError(f"graphmem db up failed:\n{proc.stdout}\n{proc.stderr}")
    log(f"neo4j kills: server up in {took:.1f} s ({proc.stdout.strip().splitlines()[0]})")
    work = Path(tempfile.mkdtemp(prefix="graphmem-neo4j-kill-"))
    stop_file = work / "stop"
    env = managed_env(spec)
    procs: list[subprocess.Popen[bytes]] = []
    logs = [work / f"writer-{w}.jsonl" for w in range(writers)]
    for w in range(writers):
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "graphmem_devtools.reliability._fault_writer", "--run", run_id, "--writer", str(w),
             "--sessions", str(sessions_per_writer), "--cwd", cwd, "--log", str(logs[w]), "--stop", str(stop_file),
             "--interval", str(interval), "--seed", str(seed)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        ))
    restarts: list[float] = []
    ack_waits: list[float] = []
    kill_to_ready: list[float] = []
    up_failures: list[str] = []
    loads: list[list[float]] = []
    try:
        for c in range(cycles):
            if max_seconds is not None and time.monotonic() - t_start > max_seconds:
                log(f"neo4j kills: time budget reached after {c} cycles")
                break
            time.sleep(rng.uniform(*up_seconds))
            if ack_before_kill:
                waited = time.monotonic()
                target = _count_acks(logs) + 1
                while _count_acks(logs) < target and time.monotonic() - waited < ack_timeout:
                    time.sleep(0.2)
                ack_waits.append(time.monotonic() - waited)
            for p in procs:
                if p.poll() is not None:
                    err = p.stderr.read().decode(errors="replace")[-2000:] if p.stderr else ""
                    raise RuntimeError(f"a writer exited ({p.returncode}): {err}")
            st = server.state()
            t_kill = time.perf_counter()
            server.kill()  # SIGKILL to the JVM's process group
            time.sleep(rng.uniform(*down_seconds))  # writers keep going: their turns go to the spool
            took, proc = _db_up(spec)
            if proc.returncode != 0:
                up_failures.append(f"cycle {c}: exit {proc.returncode}: {(proc.stderr or proc.stdout)[-500:]}")
                took2, proc = _db_up(spec)
                took += took2
                if proc.returncode != 0:
                    raise RuntimeError(f"graphmem db up failed twice:\n{proc.stdout}\n{proc.stderr}")
            restarts.append(took)
            kill_to_ready.append(time.perf_counter() - t_kill)
            loads.append(_load())
            log(f"neo4j kills: cycle {c + 1}/{cycles}: killed pid {st.pid if st else '?'}, "
                f"db up {took:.1f} s, load {loads[-1]}")
    finally:
        stop_file.write_text("stop")
        for p in procs:
            try:
                p.wait(timeout=120)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    replay = _cli(["spool", "replay"], env)
    spool_status = Spool(spec.home).status()
    records: list[dict[str, Any]] = []
    for f in logs:
        if f.exists():
            records += [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
    sids = [s for w in range(writers) for s in session_ids(run_id, w, sessions_per_writer)]
    db = _open_db(spec)
    try:
        verdict = verify_writer_turns(db, records, sids)
        server_version = db.server_info().version
    finally:
        db.close()
    outcome_ms: dict[str, list[float]] = {}
    for r in records:
        outcome_ms.setdefault(str(r["outcome"]), []).append(float(r["ms"]))
    replayed_by_hooks = sum(int(r.get("replayed", 0)) for r in records)
    errors = Counter(str(r.get("error", ""))[:80] for r in records if r["outcome"] == "error")
    why_spooled = Counter(str(r.get("why", "")).split(": ", 1)[-1][:90] for r in records if r["outcome"] == "spooled")
    if stop_server:
        server.stop()
    shutil.rmtree(work, ignore_errors=True)
    ok = (verdict["lost"] == 0 and verdict["duplicated"] == 0 and verdict["duplicated_by_content"] == 0
          and not verdict["index_problems"] and verdict["unknown_turns"] == 0 and spool_status.entries == 0
          and spool_status.rejected == 0 and len(restarts) > 0)
    return {
        "ok": ok,
        "neo4j": server_version,
        "cycles": len(restarts),
        "cycles_asked": cycles,
        "writers": writers,
        "sessions": len(sids),
        **{k: v for k, v in verdict.items() if k != "turns_per_session"},
        "turns_per_session": sorted(verdict["turns_per_session"].values()),
        "replayed_by_next_hook": replayed_by_hooks,
        "spool_left_entries": spool_status.entries,
        "spool_rejected": spool_status.rejected,
        "final_spool_replay": (replay.stdout or replay.stderr).strip()[-300:],
        "db_up_restart_s": _pcts(restarts),
        "kill_to_ready_s": _pcts(kill_to_ready),
        "wait_for_an_ack_before_kill_s": _pcts(ack_waits),
        "db_up_failures": up_failures,
        "store_ms_by_outcome": {k: _pcts(v) for k, v in sorted(outcome_ms.items())},
        "caller_errors": dict(errors.most_common(5)),
        "why_spooled": dict(why_spooled.most_common(6)),
        "load_avg_min_max_1m": [min((x[0] for x in loads), default=0.0), max((x[0] for x in loads), default=0.0)],
        "elapsed_s": round(time.monotonic() - t_start, 1),
    }


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


def _turn_batch(rng: random.Random, n: int, start: int) -> list[Any]:
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
    log: Log = _print,
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
        mem.import_turns(sid, _turn_batch(rng, initial_turns, counter[0] + k * 10_000_000))
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
                mem.import_turns(sids[k], _turn_batch(wrng, 1, initial_turns + i + k * 10_000_000))
                written[0] += 1
            except Exception as e:  # recorded; the run fails on any
                writer_errors.append(f"{type(e).__name__}: {e}")
            i += 1

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["graphmem_devtools.reliability.faults", "graphmem.worker", "graphmem.db",
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
                loads.append(_load())
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
    failed_in_storm = [f for f in worker_status(db, failed_limit=1000).failed if f.get("sessionId") in sids]
    retried = sum(retry_failed_jobs(db, sid) for sid in sids)
    t_catch = time.monotonic()
    catcher = SummaryWorker(db, ExtractiveSummarizer(), None,
                            WorkerConfig(scope=ns, lease_seconds=30, retry_base_seconds=0.5))
    stats = catcher.run_until_idle()
    failed_jobs = [f for f in worker_status(db, failed_limit=1000).failed if f.get("sessionId") in sids]
    catch_up = time.monotonic() - t_catch
    final = check_hierarchy(db, sids, complete=True)
    cli = _cli(["check", "--cwd", ns, "--complete"], explicit_env(uri, user, password, home))
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
        "catch_up_summaries": stats.summaries_written,
        "summaries_by_victims": sum(int(v) for v in shape["summaries_by_level"].values()) - stats.summaries_written,
        "catch_up_s": round(catch_up, 1),
        "catch_up_jobs_dropped_or_lost": stats.jobs_dropped + stats.jobs_lost,
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


# ---------------------------------------------------------------------------------------------
# 3. the OpenAI-compatible server failing a fraction of requests


class _CountingEmbedder:
    """Counts logical embed calls and the HTTP attempts each took (requests seen by the fake server)."""

    def __init__(self, inner: Any, fake: Any, path: str) -> None:
        self.inner = inner
        self.fake = fake
        self.path = path
        self.attempts: list[int] = []
        self.failures = 0

    @property
    def model(self) -> str:
        return str(self.inner.model)

    @property
    def dimensions(self) -> int:
        return int(self.inner.dimensions)

    def _counted(self, fn: Callable[[], Any]) -> Any:
        before = self.fake.count(self.path)
        try:
            return fn()
        except Exception:
            self.failures += 1
            raise
        finally:
            self.attempts.append(self.fake.count(self.path) - before)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = self._counted(lambda: self.inner.embed(texts))
        return out

    def embed_one(self, text: str) -> list[float]:
        out: list[float] = self._counted(lambda: self.inner.embed_one(text))
        return out


class _CountingSummarizer(_CountingEmbedder):
    def summarize(self, turns: Sequence[Any]) -> Any:
        return self._counted(lambda: self.inner.summarize(turns))

    def summarize_summaries(self, summaries: Sequence[Any]) -> Any:
        return self._counted(lambda: self.inner.summarize_summaries(summaries))


def openai_fault_run(
    *,
    uri: str,
    user: str,
    password: str,
    home: Path,
    turns: int = 200,
    sessions: int = 4,
    fault_rate: float = 0.3,
    max_attempts: int = 3,
    phase1_attempts: int = 2,
    job_max_attempts: int = 1,
    force_failures: int = 0,
    client_timeout: float = 1.0,
    seed: int = 8,
    namespace: str | None = None,
    log: Log = _print,
) -> dict[str, Any]:
    """Run the worker with the OpenAI embedder and LLM summarizer against a server failing
    ``fault_rate`` of the requests; returns request counts by outcome, attempts per call, the
    failed jobs seen, and whether everything converged.

    Phase 1: the LLM summarizer alone (``phase1_attempts`` per call, ``job_max_attempts`` per job)
    so jobs whose calls exhaust their attempts end ``failed`` (``force_failures`` makes the first
    jobs fail for sure with scripted 500s). Phase 2: ``retry-failed``, then the shipped
    configuration (LLM with extractive fallback, ``max_attempts`` per call, 5 per job)."""
    from graphmem.check import check_hierarchy
    from graphmem.db import Database, schema_status
    from graphmem.embedding import OpenAIEmbedder
    from graphmem.memory import GraphMemory
    from graphmem.providers import ExtractiveSummarizer
    from graphmem.providers.openai_summarizer import OpenAISummarizer
    from graphmem.providers.retry import RetryPolicy
    from graphmem.providers.summarizers import FallbackSummarizer
    from graphmem.worker import SummaryWorker, WorkerConfig, retry_failed_jobs, worker_status

    from ..fake_openai import CHAT, EMBEDDINGS, FakeOpenAIServer

    rng = random.Random(seed)
    ns = namespace or f"/graphmem-faults/oa{uuid.uuid4().hex[:8]}"
    db = Database(uri, user, password)
    base = GraphMemory(db)
    base.ensure_schema()
    st = schema_status(db)
    model = str(st.get("embedding_model") or base.embedding_model)
    dims = int(st.get("embedding_dimensions") or base.embedding_dimensions)
    sids = [base.create_session(f"{ns}/repo{k}").id for k in range(sessions)]
    for k, sid in enumerate(sids):
        n = turns // sessions + (1 if k < turns % sessions else 0)
        base.import_turns(sid, _turn_batch(rng, n, k * 10_000_000))
    policy = RetryPolicy(max_attempts=max_attempts, initial_backoff=0.05, max_backoff=0.5)
    policy1 = RetryPolicy(max_attempts=phase1_attempts, initial_backoff=0.05, max_backoff=0.5)
    t0 = time.monotonic()
    fake = FakeOpenAIServer(default_dimensions=dims, failure_rate=fault_rate, seed=seed,
                            failure_kinds=("429", "500", "stall"), stall_seconds=client_timeout * 3)
    phases: dict[str, Any] = {}
    with fake:
        embedder = _CountingEmbedder(
            OpenAIEmbedder(model, api_key=fake.api_key, base_url=fake.base_url, dimensions=dims,
                           timeout=client_timeout, retry=policy), fake, EMBEDDINGS)
        llm = _CountingSummarizer(
            OpenAISummarizer("gpt-4o-mini", api_key=fake.api_key, base_url=fake.base_url, timeout=client_timeout,
                             retry=policy1), fake, CHAT)
        llm2 = _CountingSummarizer(
            OpenAISummarizer("gpt-4o-mini", api_key=fake.api_key, base_url=fake.base_url, timeout=client_timeout,
                             retry=policy), fake, CHAT)
        cfg = WorkerConfig(scope=ns, lease_seconds=30, max_attempts=job_max_attempts, retry_base_seconds=0.2,
                           retry_max_seconds=1.0, poll_seconds=0.1, embed_batch=16)
        if force_failures:
            from ..fake_openai import server_error

            fake.script("chat/completions", *[server_error() for _ in range(force_failures * phase1_attempts)])
        # phase 1: the LLM alone (no fallback): jobs whose calls exhaust their attempts end up failed
        w1 = SummaryWorker(db, llm, embedder, cfg, owner="faults-llm-only")
        s1 = _until_quiet(w1, db, sids, include_failed=True)
        status = worker_status(db, failed_limit=1000)
        failed = [f for f in status.failed if f.get("sessionId") in sids]
        cli_env = explicit_env(uri, user, password, home)
        cli_status = _cli(["worker", "status", "--json", "--failed", "1000"], cli_env)
        shown = 0
        with contextlib.suppress(ValueError):
            shown = sum(1 for f in json.loads(cli_status.stdout).get("failed", []) if f.get("sessionId") in sids)
        phases["llm_only"] = {"summaries": s1.summaries_written, "job_errors": s1.errors,
                              "jobs_failed": len(failed), "failed_shown_by_worker_status": shown,
                              "failed_errors": sorted({str(f.get("lastError"))[:120] for f in failed})[:3]}
        log(f"openai faults: phase 1 (LLM only): {s1.summaries_written} summaries, {len(failed)} failed jobs "
            f"({shown} shown by `graphmem worker status`)")
        # phase 2: retry-failed, then the design's configuration (LLM with extractive fallback)
        retried = 0
        for sid in sids:
            retried += retry_failed_jobs(db, sid)
        fallback = FallbackSummarizer(llm2, ExtractiveSummarizer(), cooldown=0.0)
        cfg2 = WorkerConfig(scope=ns, lease_seconds=30, max_attempts=5, retry_base_seconds=0.2,
                            retry_max_seconds=1.0, poll_seconds=0.1, embed_batch=16)
        w2 = SummaryWorker(db, fallback, embedder, cfg2, owner="faults-fallback")
        s2 = _until_quiet(w2, db, sids, include_failed=False)
        phases["fallback"] = {"retried_failed_jobs": retried, "summaries": s2.summaries_written,
                              "job_errors": s2.errors, "jobs_failed": s2.jobs_failed}
        converge = time.monotonic() - t0
        requests = fake.requests()
    report = check_hierarchy(db, sids, complete=True)
    status = worker_status(db, failed_limit=1000)
    still_failed = [f for f in status.failed if f.get("sessionId") in sids]
    methods: Counter[str] = Counter()
    pending_embed = 0
    stored = 0
    for sid in sids:
        for m in base.summaries(sid):
            methods[m.method or "?"] += 1
        stored += len(base.load_session(sid).turns)
    pending_embed = _unembedded(db, sids)
    server_version = db.server_info().version
    db.close()
    outcome: Counter[str] = Counter()
    for r in requests:
        kind = "embeddings" if r.path.endswith("embeddings") else "chat"
        outcome[f"{kind}:{r.fault or r.status}"] += 1
    calls = {"embed": embedder, "llm_phase1": llm, "llm_phase2": llm2}
    bounds = {"embed": max_attempts, "llm_phase1": phase1_attempts, "llm_phase2": max_attempts}
    max_seen = {k: max(c.attempts, default=0) for k, c in calls.items()}
    bounded = all(max_seen[k] <= bounds[k] for k in calls)
    ok = (report.ok and not still_failed and pending_embed == 0 and stored == turns and bounded
          and report.summaries[1] > 0)
    return {
        "ok": ok,
        "neo4j": server_version,
        "fault_rate": fault_rate,
        "turns": turns,
        "turns_stored": stored,
        "requests": len(requests),
        "requests_by_outcome": dict(sorted(outcome.items())),
        "observed_fault_rate": round(sum(1 for r in requests if r.fault) / max(1, len(requests)), 3),
        "calls": {k: len(c.attempts) for k, c in calls.items()},
        "calls_exhausted": {k: c.failures for k, c in calls.items()},
        "attempts_per_call": {k: {str(a): n for a, n in sorted(Counter(c.attempts).items())} for k, c in calls.items()},
        "retries": {k: sum(a - 1 for a in c.attempts if a > 1) for k, c in calls.items()},
        "max_attempts_policy": bounds,
        "max_attempts_seen": max_seen,
        "attempts_bounded": bounded,
        "phases": phases,
        "summaries_by_method": dict(methods),
        "summaries_by_level": {str(k): v for k, v in sorted(report.summaries.items())},
        "check_complete_ok": report.ok,
        "failed_jobs_left": len(still_failed),
        "turns_not_embedded": pending_embed,
        "time_to_converge_s": round(converge, 1),
        "load_avg_1m": _load()[0],
    }


def _unembedded(db: Any, sids: Sequence[str]) -> int:
    """Turns and summaries of these sessions still waiting for an embedding."""
    n = 0
    for sid in sids:
        for row in dev_db(db).read("reliability/faults_unembedded", sessionId=sid):
            n += int(row["turns"]) + int(row["summaries"])
    return n


def _until_quiet(worker: Any, db: Any, sids: Sequence[str], *, include_failed: bool,
                 max_seconds: float = 900.0) -> Any:
    """Run ``worker`` until its sessions have no pending turn, unembedded turn or queued job
    (failed jobs count as settled in phase 1)."""
    deadline = time.monotonic() + max_seconds
    while time.monotonic() < deadline:
        worker.run(until_idle=True, max_seconds=60)
        busy = _unembedded(db, sids)
        for sid in sids:
            rows = db.read("check/forest", sessionId=sid)
            jobs = rows[0]["jobs"] if rows else []
            failed = [j for j in jobs if include_failed and j["state"] == "failed"]
            busy += len(jobs) - len(failed)
            # a turn whose level-1 job failed for good stays unsummarised until `retry-failed`: settled here
            settled = {c for j in failed for c in (j.get("childIds") or [])}
            busy += sum(1 for t in (rows[0]["turns"] if rows else [])
                        if t["summaryState"] != "done" and t["id"] not in settled)
        if busy == 0:
            break
        time.sleep(0.3)  # backoffs (jobs' retry time, the embedder's failed batch) pass
    return worker.stats


# ---------------------------------------------------------------------------------------------
# 4. disk full / read-only home for the spool


def _mount(*args: str) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def _transcript(path: Path, session_id: str, n: int, start: int = 0) -> None:
    lines = []
    for i in range(start, start + n):
        ts = f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}.000Z"
        lines.append({"type": "user", "uuid": f"u{i}", "sessionId": session_id, "cwd": str(path.parent),
                      "timestamp": ts, "message": {"role": "user", "content": f"question {i}: why is disk full?"}})
        lines.append({"type": "assistant", "uuid": f"a{i}", "parentUuid": f"u{i}", "sessionId": session_id,
                      "cwd": str(path.parent), "timestamp": ts,
                      "message": {"role": "assistant", "content": [{"type": "text", "text": f"answer {i}: it is."}]}})
    with open(path, "a", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")


def _hook(home: Path, transcript: Path, session_id: str, *, fsize: int | None = None,
          user: str | None = None, last_answer: str = "answer 2: it is.") -> subprocess.CompletedProcess[str]:
    """The installed Stop hook command (``python -S runtime/client.py claude-code``), no daemon,
    Neo4j unreachable (a closed loopback port)."""
    from graphmem.runtime import client

    env = clean_env()
    env.update({"GRAPHMEM_HOME": str(home), "GRAPHMEM_HOOK_DAEMON": "0",
                "GRAPHMEM_NEO4J_URI": "bolt://127.0.0.1:9", "GRAPHMEM_NEO4J_PASSWORD": "x",
                "GRAPHMEM_CONNECT_TIMEOUT": "1"})
    payload = json.dumps({"session_id": session_id, "transcript_path": str(transcript), "cwd": str(transcript.parent),
                          "hook_event_name": "Stop", "stop_hook_active": False,
                          "last_assistant_message": last_answer})
    cmd = [sys.executable, "-S", str(Path(client.__file__)), "claude-code"]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", "--regid=nogroup", "--clear-groups", *cmd]

    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run(cmd, input=payload, capture_output=True, text=True, env=env, timeout=120,
                          preexec_fn=limit if fsize is not None else None)


def disk_fault_run(*, work: Path | None = None, log: Log = _print) -> dict[str, Any]:
    """Stop hooks with Neo4j unreachable and a full or read-only ``$GRAPHMEM_HOME``."""
    from graphmem.runtime.cursors import CursorStore
    from graphmem.runtime.spool import Spool

    base = Path(tempfile.mkdtemp(prefix="graphmem-disk-", dir=work))
    os.chmod(base, 0o755)
    cases: list[dict[str, Any]] = []
    try:
        for kind in ("disk-full", "read-only", "file-size-limit"):
            case_dir = base / kind
            case_dir.mkdir()
            os.chmod(case_dir, 0o755)
            home = case_dir / "home"
            home.mkdir(mode=0o700)
            project = case_dir / "project"
            project.mkdir()
            transcript = project / "t.jsonl"
            sid = f"{kind}-{uuid.uuid4().hex[:6]}"
            _transcript(transcript, sid, 3)
            method = ""
            mounted = False
            fsize: int | None = None
            user: str | None = None
            if kind == "file-size-limit":
                fsize, method = 0, "RLIMIT_FSIZE=0 in the hook process (writes fail with EFBIG)"
            elif kind == "disk-full":
                if _mount("-t", "tmpfs", "-o", "size=16k,mode=0700", "tmpfs", str(home)):
                    mounted, method = True, "tmpfs of 16 KiB filled up"
                    with contextlib.suppress(OSError), open(home / "filler", "wb") as f:
                        while True:
                            f.write(b"x" * 1024)
                            f.flush()
                else:
                    fsize, method = 0, "RLIMIT_FSIZE=0 (no tmpfs mount available)"
            else:
                if _mount("-t", "tmpfs", "-o", "size=64k,mode=0700,ro", "tmpfs", str(home)):
                    mounted, method = True, "read-only tmpfs mount"
                elif os.geteuid() != 0:
                    os.chmod(home, 0o500)
                    method = "chmod 0500 (not root)"
                else:
                    os.chmod(home, 0o500)
                    for d in (case_dir, project):
                        os.chmod(d, 0o777)
                    os.chmod(transcript, 0o666)
                    shutil.chown(home, "nobody")
                    user, method = "nobody", "chmod 0500, hook run as nobody via setpriv"
            try:
                proc = _hook(home, transcript, sid, fsize=fsize, user=user)
                cursor = CursorStore(home).get("claude-code", str(transcript))
                spool_files = [p for p in (home / "spool").glob("*.jsonl")] if (home / "spool").is_dir() else []
                spool_bytes = sum(p.stat().st_size for p in spool_files)
            finally:
                if mounted:
                    _umount(home)
                else:
                    os.chmod(home, 0o700)
                    with contextlib.suppress(LookupError, OSError):
                        shutil.chown(home, "root")
            # space back / writable again: the same Stop now spools all three turns
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir(mode=0o700)
            again = _hook(home, transcript, sid)
            spooled = Spool(home).status()
            err = proc.stderr.strip()
            case = {
                "case": kind,
                "method": method,
                "exit_code": proc.returncode,
                "stdout": proc.stdout.strip()[:200],
                "stderr": err[:400],
                "stderr_lines": len(err.splitlines()),
                "clear_reason": any(w in err for w in ("disk is full", "read-only", "permission denied",
                                                       "File too large", "not permitted", "quota")),
                "traceback": "Traceback" in proc.stderr,
                "cursor_moved": cursor is not None,
                "spool_bytes_left": spool_bytes,
                "after_recovery_exit": again.returncode,
                "after_recovery_spooled_turns": spooled.turns,
                "after_recovery_stderr": again.stderr.strip()[:200],
            }
            case["ok"] = (case["exit_code"] == 0 and case["clear_reason"] and not case["traceback"]
                          and case["stderr_lines"] == 1 and not case["cursor_moved"] and spool_bytes == 0
                          and again.returncode == 0 and spooled.turns == 3 and not proc.stdout.strip())
            log(f"disk faults: {kind} ({method}): exit {proc.returncode}, stderr {err[:160]!r}, ok={case['ok']}")
            cases.append(case)
    finally:
        for kind in ("disk-full", "read-only"):
            if (base / kind / "home").is_mount():
                _umount(base / kind / "home")
        shutil.rmtree(base, ignore_errors=True)
    return {"ok": all(c["ok"] for c in cases), "cases": cases}


# ---------------------------------------------------------------------------------------------
# results


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def write_fault_results(out_dir: Path, parts: dict[str, Any], *, command: str, notes: Sequence[str] = ()) -> Path:
    """Merge ``parts`` into ``reliability-faults.json`` (other parts' sections are kept) and
    rewrite the markdown from the merged figures."""
    from ..bench.common import machine_info

    js = out_dir / f"{RESULTS_NAME}.json"
    with _locked(js):
        data: dict[str, Any] = {}
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(js.read_text())
        data.setdefault("parts", {})
        for name, figures in parts.items():
            data["parts"][name] = {"command": command, "machine": machine_info(figures.get("neo4j")),
                                   "load_avg": _load(), "figures": figures, "notes": list(notes)}
        data["name"] = RESULTS_NAME
        data["updated"] = datetime.now(UTC).isoformat(timespec="seconds")
        js.write_text(json.dumps(data, indent=2, default=str) + "\n")
        (out_dir / f"{RESULTS_NAME}.md").write_text(_markdown(data))
    with contextlib.suppress(OSError):
        js.with_suffix(".lock").unlink()
    return js


_TITLES = {
    "neo4j_kill": "1. Neo4j SIGKILLed under writers, restarted by `graphmem db up`",
    "worker_kill": "2. Summarizer workers SIGKILLed at random points",
    "openai_faults": "3. OpenAI-compatible server failing requests (429 / 500 / stall)",
    "disk": "4. Disk full / read-only `$GRAPHMEM_HOME` for the spool (Stop hook, Neo4j down)",
}


def _markdown(data: dict[str, Any]) -> str:
    lines = ["# Reliability: faults", "",
             "Produced by `graphmem reliability faults` (`devtools/graphmem_devtools/reliability/faults.py`); each part "
             "records its own command, machine and load average. Figures, not assertions: the test suite "
             "(`tests/integration/test_reliability_faults.py`) runs the same code at tiny sizes.", ""]
    for name in ("neo4j_kill", "worker_kill", "openai_faults", "disk"):
        part = data.get("parts", {}).get(name)
        if part is None:
            continue
        m = part["machine"]
        fig = part["figures"]
        lines += [f"## {_TITLES[name]}", "",
                  f"Result: **{'PASS' if fig.get('ok') else 'FAIL'}**", "",
                  f"Command: `{part['command']}`", "",
                  f"Machine: {m.get('cpu')} ({m.get('cores')} cores, {m.get('memory_gb')} GB), Python "
                  f"{m.get('python')}, Neo4j {m.get('neo4j')}, {m.get('date')}; load average at the end "
                  f"{part['load_avg']} (shared machine: timings are noisy)", "",
                  "| figure | value |", "|---|---|"]
        for k, v in fig.items():
            if k == "ok":
                continue
            if isinstance(v, dict) and "p50" in v:
                v = f"p50 {v['p50']}, p95 {v['p95']}, p99 {v['p99']}, max {v['max']} (n {v['n']})"
            text = json.dumps(v, default=str) if not isinstance(v, str) else v
            lines.append(f"| {k} | {text.replace('|', '/')} |")
        for n in part.get("notes", []):
            lines.append(f"\n- {n}")
        lines.append("")
    return "\n".join(lines) + "\n"


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
    p.add_argument("--writers", type=int, default=4, help="writer processes in the Neo4j kill part (default 4)")
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
    p.add_argument("--keep-server", action="store_true", help="leave the dedicated servers running")
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from graphmem.config import DEFAULT_NEO4J_VERSION

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
            r = neo4j_kill_run(spec, cycles=cycles, writers=args.writers, seed=args.seed, stop_server=False,
                               max_seconds=budget, interval=args.writer_interval)
            write_fault_results(out, {"neo4j_kill": r}, command=command, notes=[
                "Writers are separate processes storing one turn per call through HookService.ingest (the "
                "Stop-hook path: Neo4j, else the spool); `acknowledged` = stored and returned to the caller, "
                "`spooled` = written to the spool while Neo4j was down. `db up` restart time includes JVM start, "
                "schema check and the spool replay. Heap 512 MB, page cache 256 MB.",
            ])
            ok &= bool(r["ok"])
        uri = pw = ""
        if "neo4j" in parts or "openai" in parts or ("worker" in parts and not args.worker_uri):
            used_dedicated = True
            if server.state() is None:
                _took, proc = _db_up(spec)
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
            write_fault_results(out, {"worker_kill": r}, command=command, notes=[
                "Victims are library workers (extractive summarizer, no embedder) forked from a forkserver "
                "with graphmem preloaded, two at a time, each SIGKILLed at a uniform random 0.05-1.2 s after it is "
                "connected and about to plan/claim (its start-up is not counted), lease 1 s; a job whose lease "
                "expired 25 times is failed by the crash-loop guard (visible in `graphmem worker status`) and "
                "retried with `retry-failed` before the catch-up; a writer adds turns throughout; `graphmem check` runs every 100 kills and "
                "`graphmem check --complete` (CLI) after a final catch-up worker.",
            ])
            ok &= bool(r["ok"])
        if "openai" in parts:
            r = openai_fault_run(uri=uri, user="neo4j", password=pw, home=spec.home, turns=oturns,
                                 fault_rate=args.fault_rate, seed=args.seed)
            write_fault_results(out, {"openai_faults": r}, command=command, notes=[
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
        write_fault_results(out, {"disk": r}, command=command)
        ok &= bool(r["ok"])
    print(f"results: {out / (RESULTS_NAME + '.md')}; {'all parts passed' if ok else 'SOME PART FAILED'}")
    return 0 if ok else 1
