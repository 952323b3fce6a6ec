"""Foreground activity, so background work on the same machine yields to it.

``store_turn``, ``search`` and ``build_context`` are on an agent's critical path; the summarizer
worker is not. On a small machine they compete for the same cores (the worker's Python and the
Neo4j threads running its statements), so the foreground calls mark a file's modification time
(``$GRAPHMEM_HOME/run/foreground``, at most 20 times a second) and a worker on the same machine takes
no new job while that mark is fresher than ``WorkerConfig.yield_seconds`` -- for at most
``max_yield_seconds`` in a row, so a busy foreground never starves the worker completely. Workers on
other machines do not see the mark and need not: they use other cores.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["ForegroundSignal"]

_MIN_INTERVAL = 0.05


class ForegroundSignal:
    """A same-machine "an interactive call is running" mark (a file's mtime)."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        """``clock``: the wall clock the mark is written with and its age measured by (tests)."""
        self.path = Path(path)
        self._clock = clock
        self._last = 0.0

    @classmethod
    def for_home(cls, home: Path, *, clock: Callable[[], float] = time.time) -> ForegroundSignal:
        return cls(Path(home) / "run" / "foreground", clock=clock)

    def mark(self) -> None:
        """Record foreground activity now (cheap: one ``utime`` at most every 50 ms; never raises)."""
        now = self._clock()
        if now - self._last < _MIN_INTERVAL:
            return
        self._last = now
        try:
            os.utime(self.path, (now, now))
        except FileNotFoundError:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.path.touch()
                os.utime(self.path, (now, now))
            except OSError:
                pass
        except OSError:
            pass

    def age(self) -> float:
        """Seconds since the last mark (infinite when there was none)."""
        try:
            return max(0.0, self._clock() - self.path.stat().st_mtime)
        except OSError:
            return float("inf")
