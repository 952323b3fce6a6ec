"""A writer process for the Neo4j-kill fault run (``python -m graphmem_devtools.reliability._fault_writer``).

It stores turns through the path a coding CLI's Stop hook uses (:meth:`HookService.ingest`: the
turn goes to Neo4j, or to the spool when Neo4j is unreachable) and records every outcome, one JSON
line per turn, flushed before the next turn: ``ack`` (stored, acknowledged to the caller),
``spooled`` (in the spool, to be replayed), ``error`` (neither; the caller was told it failed).
It stops when the stop file exists.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import random
import sys
import time
from pathlib import Path

from graphmem.config import Settings
from graphmem.errors import GraphMemError
from graphmem.integrations import ImportedSession
from graphmem.memory import GraphMemory
from graphmem.models import TurnIn
from graphmem.runtime.service import HookService, open_hook_database, quiet_driver_logs

__all__ = ["main", "session_ids", "turn_text"]


def session_ids(run_id: str, writer: int, sessions: int) -> list[str]:
    """The sessions one writer appends to (``<run>-w<writer>-s<k>``)."""
    return [f"{run_id}-w{writer}-s{k}" for k in range(sessions)]


def turn_text(source_id: str) -> tuple[str, str]:
    """The user and assistant messages of one turn (unique per source id, so duplicates by content show)."""
    return (f"[{source_id}] please fix the flaky export step and tell me what broke",
            f"[{source_id}] the export filtered on the wrong date column; fixed and re-ran the job.")


class _LastMessage(logging.Handler):
    """Keeps the last ``graphmem.runtime`` log line (why a turn was spooled)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.last = ""

    def emit(self, record: logging.LogRecord) -> None:
        self.last = record.getMessage()[:200]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="graphmem-fault-writer")
    p.add_argument("--run", required=True)
    p.add_argument("--writer", type=int, required=True)
    p.add_argument("--sessions", type=int, default=2)
    p.add_argument("--cwd", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--stop", required=True)
    p.add_argument("--interval", type=float, default=0.2)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    quiet_driver_logs()
    why = _LastMessage()
    runtime_log = logging.getLogger("graphmem.runtime")
    runtime_log.setLevel(logging.INFO)
    runtime_log.addHandler(why)
    runtime_log.propagate = False
    rng = random.Random(args.seed * 1000 + args.writer)
    settings = Settings.load()
    holder: list[GraphMemory] = []

    def memory() -> GraphMemory:
        if not holder:
            holder.append(GraphMemory(open_hook_database(settings), embedder=None,
                                      embedding_model=settings.embedding_model,
                                      embedding_dimensions=settings.embedding_dimensions))
        return holder[0]

    service = HookService(Path(settings.home), memory, worktree_as_project=True, brief=False,
                          replay_seconds=settings.hook_replay_seconds)
    sids = session_ids(args.run, args.writer, args.sessions)
    stop = Path(args.stop)
    seq = 0
    with open(args.log, "a", encoding="utf-8") as log:
        while not stop.exists():
            sid = sids[seq % len(sids)]
            src = f"{args.run}:w{args.writer}:{seq}"
            user, assistant = turn_text(src)
            session = ImportedSession(agent="claude-code", session_id=sid, cwd=args.cwd,
                                      turns=[TurnIn(user_message=user, assistant_message=assistant, source_id=src)])
            t0 = time.perf_counter()
            record: dict[str, object] = {"seq": seq, "sid": sid, "src": src}
            why.last = ""
            try:
                res = service.ingest(session, cwd=args.cwd, agent="claude-code")
                if res.spooled:
                    record["outcome"] = "spooled"
                    record["why"] = why.last
                elif res.created:
                    record["outcome"] = "ack"
                else:
                    record["outcome"] = "skipped"  # never expected: each source id is new
                if res.replay is not None and (res.replay.turns_created or res.replay.turns_skipped):
                    record["replayed"] = res.replay.turns_created
                    record["replay_skipped"] = res.replay.turns_skipped
            except GraphMemError as e:  # the spool failed too: the caller is told, nothing was acknowledged
                record["outcome"] = "error"
                record["error"] = f"{type(e).__name__}: {str(e)[:200]}"
            except Exception as e:  # unexpected: recorded, and the run reports it
                record["outcome"] = "error"
                record["error"] = f"unexpected {type(e).__name__}: {str(e)[:200]}"
            record["ms"] = round((time.perf_counter() - t0) * 1000, 2)
            log.write(json.dumps(record) + "\n")
            log.flush()
            seq += 1
            time.sleep(args.interval * rng.uniform(0.5, 1.5))
    for m in holder:
        with contextlib.suppress(Exception):  # the driver may be mid-reconnect
            m.close()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
