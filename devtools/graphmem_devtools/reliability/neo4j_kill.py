"""Fault run 1: the Neo4j JVM SIGKILLed under writer processes, restarted by ``graphmem db up``."""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..servers import ServerSpec, managed_env
from ._fault_common import Log, db_up, load_avg, log_stderr, open_db, pcts, run_cli

__all__ = ["neo4j_kill_run", "verify_writer_turns"]


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
    log: Log = log_stderr,
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
    took, proc = db_up(spec)
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
            took, proc = db_up(spec)
            if proc.returncode != 0:
                up_failures.append(f"cycle {c}: exit {proc.returncode}: {(proc.stderr or proc.stdout)[-500:]}")
                took2, proc = db_up(spec)
                took += took2
                if proc.returncode != 0:
                    raise RuntimeError(f"graphmem db up failed twice:\n{proc.stdout}\n{proc.stderr}")
            restarts.append(took)
            kill_to_ready.append(time.perf_counter() - t_kill)
            loads.append(load_avg())
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
    replay = run_cli(["spool", "replay"], env)
    spool_status = Spool(spec.home).status()
    records: list[dict[str, Any]] = []
    for f in logs:
        if f.exists():
            records += [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
    sids = [s for w in range(writers) for s in session_ids(run_id, w, sessions_per_writer)]
    db = open_db(spec)
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
        "db_up_restart_s": pcts(restarts),
        "kill_to_ready_s": pcts(kill_to_ready),
        "wait_for_an_ack_before_kill_s": pcts(ack_waits),
        "db_up_failures": up_failures,
        "store_ms_by_outcome": {k: pcts(v) for k, v in sorted(outcome_ms.items())},
        "caller_errors": dict(errors.most_common(5)),
        "why_spooled": dict(why_spooled.most_common(6)),
        "load_avg_min_max_1m": [min((x[0] for x in loads), default=0.0), max((x[0] for x in loads), default=0.0)],
        "elapsed_s": round(time.monotonic() - t_start, 1),
    }
