"""Writes that may finish after the call that asked for them.

``build_context`` logs each fact injection as a ``(:Retrieval)`` node. That write is a commit of its
own (about 10 ms on the benchmark machine) that the caller does not need to wait for: the context
is ready once the facts are chosen. :class:`DeferredWrites` runs such writes, in order, on one
background thread.

Each write has a key (the session id). :meth:`DeferredWrites.wait` returns once that key's writes
are done, and reports the ones that failed. The next injection of the same session waits this way
before it reads, so its dedup window always sees the previous log. A write that fails (after the
retries of :meth:`Database.write`) is logged on ``graphmem.db`` and reported by that ``wait``; it is
not retried again. :meth:`DeferredWrites.close` (called by :meth:`GraphMemory.close`) waits for
everything queued.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from typing import Any

from ..errors import GraphMemError
from .client import Database

__all__ = ["DeferredWrites"]

log = logging.getLogger("graphmem.db")


class DeferredWrites:
    """A single background writer for ``db`` (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._pending: dict[str, list[Future[None]]] = defaultdict(list)
        self._errors: dict[str, list[str]] = defaultdict(list)
        self._held: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        self._closed = False

    def hold(self, key: str) -> None:
        """Keep ``key``'s writes submitted from now on until :meth:`release` (they are not queued,
        so :meth:`wait` does not wait for them meanwhile). ``build_context`` holds its session's
        injection log so that commit does not compete with the rest of the context for the CPU."""
        with self._lock:
            self._held.setdefault(key, [])

    def release(self, key: str) -> None:
        """Queue ``key``'s held writes, in order, and stop holding."""
        with self._lock:
            held = self._held.pop(key, [])
            inline = self._closed
            if not inline:
                for name, params in held:
                    self._queue_locked(key, name, params)
        if inline:
            for name, params in held:
                self._write(key, name, params)

    def submit(self, key: str, name: str, **params: Any) -> None:
        """Queue the write of statement ``name`` (kept back while ``key`` is held: see :meth:`hold`);
        runs inline once the writer is closed."""
        with self._lock:
            inline = self._closed
            if not inline:
                held = self._held.get(key)
                if held is not None:
                    held.append((name, params))
                else:
                    self._queue_locked(key, name, params)
        if inline:
            self._write(key, name, params)

    def _queue_locked(self, key: str, name: str, params: dict[str, Any]) -> None:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-deferred")
        self._pending[key].append(self._pool.submit(self._write, key, name, params))

    def _write(self, key: str, name: str, params: dict[str, Any]) -> None:
        try:
            self.db.write(name, **params)
        except GraphMemError as e:
            log.warning("deferred write %s for %s failed: %s", name, key, e)
            with self._lock:
                self._errors[key].append(f"{name}: {e}")
        except Exception as e:  # a bug, not the database: still reported, with its traceback in the log
            log.exception("deferred write %s for %s failed", name, key)
            with self._lock:
                self._errors[key].append(f"{name}: {type(e).__name__}: {e}")

    def wait(self, key: str, timeout: float | None = 30.0) -> list[str]:
        """Wait for ``key``'s queued writes; return (and forget) the errors of those that failed."""
        with self._lock:
            futures = self._pending.pop(key, [])
        if futures:
            _, not_done = wait_futures(futures, timeout=timeout)
            if not_done:
                with self._lock:  # still running: keep them for the next wait
                    self._pending[key].extend(not_done)
        with self._lock:
            return self._errors.pop(key, [])

    def wait_all(self, timeout: float | None = 30.0) -> None:
        """Wait for every queued write (errors stay for their key's :meth:`wait`)."""
        with self._lock:
            futures = [f for fs in self._pending.values() for f in fs]
        if futures:
            wait_futures(futures, timeout=timeout)

    def pending(self) -> int:
        """How many queued writes have not finished."""
        with self._lock:
            return sum(1 for fs in self._pending.values() for f in fs if not f.done())

    def close(self, timeout: float | None = 30.0) -> None:
        """Wait for every queued write (up to ``timeout`` seconds), then stop the thread; later
        submits run inline."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
            futures = [f for fs in self._pending.values() for f in fs]
            self._pending.clear()
            held = [(key, name, params) for key, items in self._held.items() for name, params in items]
            self._held.clear()
        if futures:
            wait_futures(futures, timeout=timeout)
        for key, name, params in held:  # never lost: written inline now
            self._write(key, name, params)
        if pool is not None:
            pool.shutdown(wait=False)
