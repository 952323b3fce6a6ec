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
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..errors import GraphMemError
from .client import Database

__all__ = ["DeferredWrites"]

log = logging.getLogger("graphmem.db")


@dataclass
class _Group:
    """Items gathered for one grouped write (see :meth:`DeferredWrites.submit_grouped`)."""

    name: str
    list_param: str
    items: list[Any]
    done: Future[None] = field(default_factory=Future)
    timer: threading.Timer | None = None


class DeferredWrites:
    """A single background writer for ``db`` (see the module docstring)."""

    def __init__(
        self,
        db: Database,
        *,
        timer: Callable[[float, Callable[..., None], tuple[Any, ...]], threading.Timer] = threading.Timer,
    ) -> None:
        """``timer``: makes the timer that ends a group's linger (tests fire it themselves)."""
        self.db = db
        self._timer = timer
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._pending: dict[str, list[Future[None]]] = defaultdict(list)
        self._errors: dict[str, list[str]] = defaultdict(list)
        self._held: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        self._groups: dict[str, _Group] = {}
        self._closed = False

    def hold(self, key: str) -> None:
        """Keep ``key``'s writes submitted from now on until :meth:`release` (they are not queued,
        so :meth:`wait` does not wait for them meanwhile). ``build_context`` holds its session's
        injection log so that commit does not compete with the rest of the context for the CPU."""
        with self._lock:
            self._held.setdefault(key, [])

    @contextmanager
    def held(self, key: str) -> Iterator[None]:
        """:meth:`hold` ``key`` for the block, then :meth:`release` it."""
        self.hold(key)
        try:
            yield
        finally:
            self.release(key)

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
                    if key in self._groups:  # in order: the key's open group goes first
                        self._dispatch_locked(key)
                    self._queue_locked(key, name, params)
        if inline:
            self._write(key, name, params)

    def _pool_locked(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-deferred")
        return self._pool

    def _queue_locked(self, key: str, name: str, params: dict[str, Any]) -> None:
        self._pending[key].append(self._pool_locked().submit(self._write, key, name, params))

    def submit_grouped(self, key: str, name: str, list_param: str, items: list[Any], *, linger: float) -> None:
        """Add ``items`` to ``key``'s open group: one write of statement ``name`` with every item
        added meanwhile in its ``list_param``, queued ``linger`` seconds after the group's first item
        (or at once by :meth:`wait` / :meth:`wait_all` / :meth:`close`). A group commit: a vector
        index spends ~15 ms of server CPU per committing transaction, so a burst of remember() calls
        indexes its vectors a few at a time instead of one commit each."""
        with self._lock:
            inline = self._closed
            if not inline:
                group = self._groups.get(key)
                if group is not None and group.name == name and group.list_param == list_param:
                    group.items.extend(items)
                    return
                if group is not None:  # another statement under this key: the open group goes first
                    self._dispatch_locked(key)
                group = self._groups[key] = _Group(name, list_param, list(items))
                self._pending[key].append(group.done)
                group.timer = self._timer(linger, self._dispatch, (key, group))
                group.timer.daemon = True
                group.timer.start()
        if inline:
            self._write(key, name, {list_param: list(items)})

    def _dispatch(self, key: str, group: _Group) -> None:
        """The group's linger is over: queue its write (unless already queued)."""
        with self._lock:
            if self._groups.get(key) is group:
                self._dispatch_locked(key)

    def _dispatch_locked(self, key: str) -> None:
        group = self._groups.pop(key)
        if group.timer is not None:
            group.timer.cancel()

        def run() -> None:
            try:
                self._write(key, group.name, {group.list_param: group.items})
            finally:
                group.done.set_result(None)

        self._pool_locked().submit(run)

    def _dispatch_all_locked(self) -> None:
        for key in list(self._groups):
            self._dispatch_locked(key)

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
        """Wait for ``key``'s queued writes (an open group is queued now); return (and forget) the
        errors of those that failed."""
        with self._lock:
            if key in self._groups and not self._closed:
                self._dispatch_locked(key)
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
            if not self._closed:
                self._dispatch_all_locked()
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
            self._dispatch_all_locked()  # open groups are queued first
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
