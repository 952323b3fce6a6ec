"""Fault run 1: the Neo4j JVM SIGKILLed under writer processes, restarted by ``graphmem db up``.

Two kinds of writer processes (:mod:`._fault_writer`) run through every kill: hook writers store
turns the way a coding CLI's Stop hook does (Neo4j, else the spool, replayed later), direct writers
call the library's ``store_turn`` back to back (no spool), so writes are in flight when the JVM
dies. Each kill is confirmed (the server's pid is gone) before the restart. At the end every turn a
writer attempted is accounted for: an acknowledged or spooled turn must be stored exactly once, in
the session it was sent to, with the text it was sent with (and the index the library returned,
for direct writes); a direct write that got an error may be stored at most once, exactly as sent;
a hook write never ends in an error (the spool takes it); turn indexes stay 1..n per session.
"""

from __future__ import annotations

import contextlib
import json
import os
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

__all__ = ["neo4j_kill_run", "read_writer_logs", "verify_writer_turns"]


def read_writer_logs(logs: Sequence[Path]) -> list[dict[str, Any]]:
    """One record per turn a writer attempted: its ``start`` line merged with its ``end`` line
    (``outcome`` ``unfinished`` when the writer never wrote one)."""
    records: dict[str, dict[str, Any]] = {}
    for f in logs:
        if not f.exists():
            continue
        for line in f.read_text().splitlines():
            if not line.strip():
                continue
            with contextlib.suppress(ValueError):  # a line cut short by a killed writer
                r = json.loads(line)
                if r.get("event") == "start":
                    records[r["src"]] = {**r, "t0": r["t"], "t1": None, "outcome": "unfinished"}
                elif r["src"] in records:
                    rec = records[r["src"]]
                    rec.update({k: v for k, v in r.items() if k not in ("event", "t")})
                    rec["t1"] = r["t"]
    return list(records.values())


def verify_writer_turns(db: Any, records: Sequence[dict[str, Any]], session_ids: Sequence[str]) -> dict[str, Any]:
    """Compare every turn the writers attempted (``records``, from :func:`read_writer_logs`) with
    what the sessions hold; ``problems`` names each turn that breaks the rules (empty: pass)."""
    from graphmem.errors import SessionNotFound
    from graphmem.memory import GraphMemory

    from ._fault_writer import source_of, turn_text

    mem = GraphMemory(db)
    stored: dict[str, list[tuple[str, int, str, str]]] = {}
    index_problems: list[str] = []
    order_inversions = 0
    per_session: dict[str, int] = {}
    unknown: list[str] = []
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
            src = source_of(t.source_id, t.user_message)
            if src is None:
                unknown.append(f"{sid}#{t.index}")
                continue
            stored.setdefault(src, []).append((sid, t.index, t.user_message, t.assistant_message))
            with contextlib.suppress(IndexError, ValueError):
                seq = int(src.rsplit(":", 1)[1])
                if seq < last_seq:
                    order_inversions += 1
                last_seq = max(last_seq, seq)
    by_src = {str(r["src"]): r for r in records}
    unknown += [src for src in stored if src not in by_src]
    problems: list[str] = [f"unknown stored turn {u}" for u in unknown] + [f"index problem {p}" for p in index_problems]
    lost: list[str] = []
    duplicated: list[str] = []
    altered: list[str] = []
    errors_stored = 0
    outcomes: dict[str, Counter[str]] = {}
    for src, r in by_src.items():
        outcome, mode = str(r["outcome"]), str(r.get("mode", "hook"))
        outcomes.setdefault(mode, Counter())[outcome] += 1
        copies = stored.get(src, [])
        if len(copies) > 1:
            duplicated.append(src)
            problems.append(f"{src} ({mode}, {outcome}): stored {len(copies)} times")
        elif copies:
            sid, index, user, assistant = copies[0]
            want_user, want_assistant = turn_text(src)
            diffs = [what for what, bad in (
                ("session", sid != r["sid"]),
                ("index", r.get("index") is not None and index != r["index"]),
                ("text", (user, assistant) != (want_user, want_assistant)),
            ) if bad]
            if diffs:
                altered.append(src)
                problems.append(f"{src} ({mode}, {outcome}): stored with another {'/'.join(diffs)} "
                                f"({sid}#{index}, sent to {r['sid']}{'#' + str(r['index']) if 'index' in r else ''})")
            if outcome == "error":
                errors_stored += 1
        elif outcome in ("ack", "spooled"):
            lost.append(src)
            problems.append(f"{src} ({mode}, {outcome}): lost (not stored)")
        if mode == "hook" and outcome == "error":
            problems.append(f"{src} (hook): error reported to the caller, the spool did not take it: {r.get('error')}")
        if outcome in ("unfinished", "skipped"):
            problems.append(f"{src} ({mode}): {outcome} (the writer never got an answer or stored nothing new)")
    errors = sum(c["error"] for c in outcomes.values())
    return {
        "turns_attempted": len(by_src),
        "outcomes_by_mode": {m: dict(sorted(c.items())) for m, c in sorted(outcomes.items())},
        "acknowledged": sum(c["ack"] for c in outcomes.values()),
        "spooled": sum(c["spooled"] for c in outcomes.values()),
        "errors_reported_to_caller": errors,
        "errors_stored_anyway": errors_stored,
        "stored": sum(len(v) for v in stored.values()),
        "replayed": sum(1 for s, r in by_src.items() if r["outcome"] == "spooled" and len(stored.get(s, [])) == 1),
        "lost": len(lost),
        "lost_examples": lost[:5],
        "duplicated": len(duplicated),
        "altered": len(altered),
        "unknown_turns": len(unknown),
        "index_problems": index_problems[:10],
        "problems": len(problems),
        "problem_examples": problems[:20],
        "sessions": len(session_ids),
        "turns_per_session": per_session,
        "order_inversions": order_inversions,
    }


def _pid_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (a zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    with contextlib.suppress(OSError):
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] == "Z":
            return True
    return False


def _confirm_gone(pid: int, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while not _pid_gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _last_event(path: Path) -> str | None:
    """The ``event`` of a writer log's last complete line."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 4096))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        with contextlib.suppress(ValueError):
            return str(json.loads(line).get("event"))
    return None


def _count_acks(logs: Sequence[Path]) -> int:
    n = 0
    for f in logs:
        with contextlib.suppress(OSError):
            n += f.read_text().count('"outcome": "ack"')
    return n


def _writer(run_id: str, w: int, mode: str, sessions: int, cwd: str, log: Path, stop: Path, interval: float,
            seed: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "graphmem_devtools.reliability._fault_writer", "--run", run_id, "--writer", str(w),
         "--mode", mode, "--sessions", str(sessions), "--cwd", cwd, "--log", str(log), "--stop", str(stop),
         "--interval", str(interval), "--seed", str(seed)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )


def neo4j_kill_run(
    spec: ServerSpec,
    *,
    cycles: int = 100,
    writers: int = 4,
    direct_writers: int = 2,
    sessions_per_writer: int = 2,
    up_seconds: tuple[float, float] = (1.0, 5.0),
    down_seconds: tuple[float, float] = (0.5, 3.0),
    interval: float = 0.2,
    direct_interval: float = 0.0,
    seed: int = 8,
    stop_server: bool = True,
    max_seconds: float | None = None,
    ack_before_kill: bool = True,
    ack_timeout: float = 600.0,
    log: Log = log_stderr,
) -> dict[str, Any]:
    """SIGKILL the Neo4j JVM ``cycles`` times under ``writers`` hook writers and ``direct_writers``
    direct writers; restart with ``graphmem db up``. ``max_seconds`` stops cycling early (the
    figures say how many kills ran). With ``ack_before_kill`` each kill waits (up to
    ``ack_timeout``) until a hook writer had a turn acknowledged since the last restart, so both
    hook paths (stored directly, spooled) are exercised even when the spool replay outlasts the
    random up time; then (up to 10 s) until a direct write is in flight."""
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
    hook_logs = [work / f"writer-{w}.jsonl" for w in range(writers)]
    direct_logs = [work / f"direct-{w}.jsonl" for w in range(direct_writers)]
    procs = [_writer(run_id, w, "hook", sessions_per_writer, cwd, hook_logs[w], stop_file, interval, seed, env)
             for w in range(writers)]
    procs += [_writer(run_id, w, "direct", sessions_per_writer, cwd, direct_logs[w], stop_file, direct_interval,
                      seed, env) for w in range(direct_writers)]
    restarts: list[float] = []
    ack_waits: list[float] = []
    kill_to_ready: list[float] = []
    kill_times: list[float] = []
    unconfirmed: list[str] = []
    up_failures: list[str] = []
    loads: list[list[float]] = []
    try:
        for c in range(cycles):
            if max_seconds is not None and time.monotonic() - t_start > max_seconds:
                log(f"neo4j kills: time budget reached after {c} cycles")
                break
            time.sleep(rng.uniform(*up_seconds))
            if ack_before_kill and writers:
                waited = time.monotonic()
                target = _count_acks(hook_logs) + 1
                while _count_acks(hook_logs) < target and time.monotonic() - waited < ack_timeout:
                    time.sleep(0.2)
                ack_waits.append(time.monotonic() - waited)
            for p in procs:
                if p.poll() is not None:
                    err = p.stderr.read().decode(errors="replace")[-2000:] if p.stderr else ""
                    raise RuntimeError(f"a writer exited ({p.returncode}): {err}")
            deadline = time.monotonic() + 10
            while direct_logs and time.monotonic() < deadline and not any(
                    _last_event(f) == "start" for f in direct_logs):
                time.sleep(0.002)
            st = server.state()
            if st is None:
                unconfirmed.append(f"cycle {c}: no running server to kill")
                raise RuntimeError(f"cycle {c}: the server is not running before the kill")
            t_kill = time.perf_counter()
            kill_times.append(time.time())
            killed = server.kill()  # SIGKILL to the JVM's process group
            confirmed = killed and _confirm_gone(st.pid)
            if not confirmed:
                unconfirmed.append(f"cycle {c}: pid {st.pid} still running after SIGKILL (kill returned {killed})")
            time.sleep(rng.uniform(*down_seconds))  # writers keep going: hook turns go to the spool
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
            log(f"neo4j kills: cycle {c + 1}/{cycles}: killed pid {st.pid} "
                f"({'gone' if confirmed else 'NOT confirmed gone'}), db up {took:.1f} s, load {loads[-1]}")
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
    records = read_writer_logs(hook_logs + direct_logs)
    sids = [s for w in range(writers) for s in session_ids(run_id, w, sessions_per_writer, "hook")]
    sids += [s for w in range(direct_writers) for s in session_ids(run_id, w, sessions_per_writer, "direct")]
    db = open_db(spec)
    try:
        verdict = verify_writer_turns(db, records, sids)
        server_version = db.server_info().version
    finally:
        db.close()
    direct = [r for r in records if r.get("mode") == "direct"]
    in_flight = [sum(1 for r in direct if r["t0"] <= tk and (r["t1"] is None or r["t1"] >= tk)) for tk in kill_times]
    outcome_ms: dict[str, list[float]] = {}
    for r in records:
        if "ms" in r:
            outcome_ms.setdefault(f"{r.get('mode', 'hook')}:{r['outcome']}", []).append(float(r["ms"]))
    replayed_by_hooks = sum(int(r.get("replayed", 0)) for r in records)
    errors = Counter(f"{r.get('mode')}: {str(r.get('error', ''))[:80]}" for r in records if r["outcome"] == "error")
    why_spooled = Counter(str(r.get("why", "")).split(": ", 1)[-1][:90] for r in records if r["outcome"] == "spooled")
    if stop_server:
        server.stop()
    shutil.rmtree(work, ignore_errors=True)
    kills_confirmed = len(kill_times) - len(unconfirmed)
    ok = (verdict["problems"] == 0 and not unconfirmed and kills_confirmed > 0 and spool_status.entries == 0
          and spool_status.rejected == 0 and (direct_writers == 0 or any(in_flight)))
    return {
        "ok": ok,
        "neo4j": server_version,
        "cycles": kills_confirmed,
        "kills_confirmed": kills_confirmed,
        "kills_unconfirmed": unconfirmed,
        "cycles_asked": cycles,
        "writers": writers,
        "direct_writers": direct_writers,
        **{k: v for k, v in verdict.items() if k != "turns_per_session"},
        "turns_per_session": sorted(verdict["turns_per_session"].values()),
        "direct_writes_in_flight_at_each_kill": in_flight,
        "kills_with_a_direct_write_in_flight": sum(1 for n in in_flight if n),
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
