"""Turns and summaries waiting for their embedding, embedded when the server comes up
(``graphmem db up``) and after the demo, so that semantic search sees them without a worker."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from ..memory import GraphMemory

__all__ = ["FOREGROUND_LIMIT", "embed_waiting"]

FOREGROUND_LIMIT = 2_000
"""Up to this many waiting items are embedded in the foreground; above it a background worker does it."""


def _spawn_worker(home: Path) -> tuple[int, Path]:
    """A detached ``graphmem worker run --once`` (it stops once nothing is left), logging to the home."""
    home.mkdir(parents=True, exist_ok=True)
    log = home / "worker-embed.log"
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from graphmem.cli import main; sys.exit(main())",
             "worker", "run", "--once", "--quiet"],
            stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True, env=dict(os.environ))
    return proc.pid, log


def embed_waiting(mem: GraphMemory, home: Path, *, limit: int = FOREGROUND_LIMIT) -> str | None:
    """Embed what waits (or start a worker for a large backlog); one line saying what was done, or
    None when nothing waits."""
    from ..embedding import pending_counts

    counts = pending_counts(mem.db)
    turns, summaries = counts.get("pendingTurns", 0), counts.get("pendingSummaries", 0)
    waiting = turns + summaries
    if waiting == 0:
        return None
    what = f"{turns} turn{'s' * (turns != 1)} and {summaries} summar{'ies' if summaries != 1 else 'y'}"
    if mem.embedder is None:
        return f"{what} wait for their embedding; no embedder is configured (GRAPHMEM_EMBEDDER=none)"
    if waiting > limit:
        pid, log = _spawn_worker(home)
        return (f"{what} wait for their embedding: a worker embeds them in the background "
                f"(pid {pid}, log {log}; `graphmem worker status`)")
    t0 = time.monotonic()
    stats = mem.embed_pending()
    return (f"embedded {stats.turns} turn{'s' * (stats.turns != 1)} and {stats.summaries} "
            f"summar{'ies' if stats.summaries != 1 else 'y'} that were waiting ({time.monotonic() - t0:.1f} s)")
