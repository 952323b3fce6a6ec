"""A writer process for the Neo4j-kill fault run (``python -m graphmem_devtools.reliability._fault_writer``).

Two modes:

* ``hook``: turns go through the path a coding CLI's Stop hook uses (:meth:`HookService.ingest`:
  stored in Neo4j, or spooled when Neo4j is unreachable);
* ``direct``: turns go through the library's :meth:`GraphMemory.store_turn`, no spool: a write in
  flight when Neo4j is killed must complete or fail to its caller, never half-store.

Every turn is logged as two JSON lines, each flushed before the next step: a ``start`` line before
the call (so an attempt is counted even if the writer dies inside it) and an ``end`` line with the
outcome: ``ack`` (stored and acknowledged; in direct mode with the session and index the library
returned), ``spooled`` (in the spool, to be replayed), ``error`` (the caller was told it failed),
``skipped`` (never expected: each turn is new). Times are wall-clock (``time.time()``), so the run
can tell which writes were in flight at a kill. The writer stops when the stop file exists.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from graphmem.config import Settings
from graphmem.errors import GraphMemError
from graphmem.integrations import ImportedSession
from graphmem.memory import GraphMemory
from graphmem.models import TurnIn
from graphmem.runtime.service import HookService, open_hook_database, quiet_driver_logs

__all__ = ["main", "session_ids", "source_of", "turn_text"]

_SOURCE = re.compile(r"^\[([^\]]+)\] ")


def session_ids(run_id: str, writer: int, sessions: int, mode: str = "hook") -> list[str]:
    """The sessions one writer appends to (``<run>-w<writer>-s<k>``; ``-d<writer>-`` in direct mode)."""
    tag = "w" if mode == "hook" else "d"
    return [f"{run_id}-{tag}{writer}-s{k}" for k in range(sessions)]


def turn_text(source_id: str) -> tuple[str, str]:
    """The user and assistant messages of one turn (unique per source id, so duplicates by content show)."""
    return (f"[{source_id}] please fix the flaky export step and tell me what broke",
            f"[{source_id}] the export filtered on the wrong date column; fixed and re-ran the job.")


def source_of(source_id: str | None, user_message: str) -> str | None:
    """The writer's id of a stored turn: its source id (hook mode), else the ``[id]`` its user
    message starts with (direct mode stores no source id)."""
    if source_id:
        return source_id
    m = _SOURCE.match(user_message)
    return m.group(1) if m else None


class _LastMessage(logging.Handler):
    """Keeps the last ``graphmem.runtime`` log line (why a turn was spooled)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.last = ""

    def emit(self, record: logging.LogRecord) -> None:
        self.last = record.getMessage()[:200]


def _write(log: IO[str], record: dict[str, Any]) -> None:
    log.write(json.dumps(record) + "\n")
    log.flush()


def _hook_store(settings: Settings, args: argparse.Namespace, holder: list[GraphMemory]
                ) -> Callable[[str, str], dict[str, Any]]:
    quiet_driver_logs()
    why = _LastMessage()
    runtime_log = logging.getLogger("graphmem.runtime")
    runtime_log.setLevel(logging.INFO)
    runtime_log.addHandler(why)
    runtime_log.propagate = False

    def memory() -> GraphMemory:
        if not holder:
            holder.append(GraphMemory(open_hook_database(settings), embedder=None,
                                      embedding_model=settings.embedding_model,
                                      embedding_dimensions=settings.embedding_dimensions))
        return holder[0]

    service = HookService(Path(settings.home), memory, worktree_as_project=True, brief=False,
                          replay_seconds=settings.hook_replay_seconds)

    def store(sid: str, src: str) -> dict[str, Any]:
        user, assistant = turn_text(src)
        session = ImportedSession(agent="claude-code", session_id=sid, cwd=args.cwd,
                                  turns=[TurnIn(user_message=user, assistant_message=assistant, source_id=src)])
        why.last = ""
        res = service.ingest(session, cwd=args.cwd, agent="claude-code")
        out: dict[str, Any] = {}
        if res.spooled:
            out.update(outcome="spooled", why=why.last)
        else:
            out["outcome"] = "ack" if res.created else "skipped"
        if res.replay is not None and (res.replay.turns_created or res.replay.turns_skipped):
            out.update(replayed=res.replay.turns_created, replay_skipped=res.replay.turns_skipped)
        return out

    return store


def _direct_store(settings: Settings, args: argparse.Namespace, holder: list[GraphMemory], sids: list[str],
                  stop: Path) -> Callable[[str, str], dict[str, Any]]:
    quiet_driver_logs()
    mem = GraphMemory.from_settings(settings)
    holder.append(mem)
    for sid in sids:  # created while Neo4j is up (the run starts writers after `db up`)
        while not stop.exists():
            try:
                mem.create_session(args.cwd, session_id=sid, agent="fault-writer")
                break
            except GraphMemError:
                time.sleep(0.5)

    def store(sid: str, src: str) -> dict[str, Any]:
        user, assistant = turn_text(src)
        turn = mem.store_turn(sid, user, assistant)
        return {"outcome": "ack", "session": turn.session_id, "index": turn.index}

    return store


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="graphmem-fault-writer")
    p.add_argument("--run", required=True)
    p.add_argument("--writer", type=int, required=True)
    p.add_argument("--mode", choices=["hook", "direct"], default="hook")
    p.add_argument("--sessions", type=int, default=2)
    p.add_argument("--cwd", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--stop", required=True)
    p.add_argument("--interval", type=float, default=0.2)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    rng = random.Random(args.seed * 1000 + args.writer + (500 if args.mode == "direct" else 0))
    settings = Settings.load()
    holder: list[GraphMemory] = []
    sids = session_ids(args.run, args.writer, args.sessions, args.mode)
    stop = Path(args.stop)
    store = (_hook_store(settings, args, holder) if args.mode == "hook"
             else _direct_store(settings, args, holder, sids, stop))
    tag = "w" if args.mode == "hook" else "d"
    seq = 0
    with open(args.log, "a", encoding="utf-8") as log:
        while not stop.exists():
            sid = sids[seq % len(sids)]
            src = f"{args.run}:{tag}{args.writer}:{seq}"
            _write(log, {"event": "start", "seq": seq, "sid": sid, "src": src, "mode": args.mode, "t": time.time()})
            t0 = time.perf_counter()
            record: dict[str, Any] = {"event": "end", "src": src}
            try:
                record.update(store(sid, src))
            except GraphMemError as e:  # the caller is told; nothing was acknowledged
                record.update(outcome="error", error=f"{type(e).__name__}: {str(e)[:200]}")
            except Exception as e:  # unexpected: recorded, and the run reports it
                record.update(outcome="error", error=f"unexpected {type(e).__name__}: {str(e)[:200]}")
            record["ms"] = round((time.perf_counter() - t0) * 1000, 2)
            record["t"] = time.time()
            _write(log, record)
            seq += 1
            pause = args.interval * rng.uniform(0.5, 1.5)
            if record["outcome"] == "error":
                pause = max(pause, 0.05)  # Neo4j down: do not spin
            time.sleep(pause)
    for m in holder:
        with contextlib.suppress(Exception):  # the driver may be mid-reconnect
            m.close()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
