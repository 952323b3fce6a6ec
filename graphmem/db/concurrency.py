"""Where operations run their concurrent parts.

Some operations overlap independent statements (``build_context`` reads the session state while it
embeds the message; a hybrid search runs its text half beside its vector half; ``import_turns``
sends one batch while it packs the next). On a :class:`~graphmem.db.Database` they use thread
pools. A database whose ``concurrency`` is set (the asynchronous one, :mod:`graphmem.aio`) runs them
on that executor instead: :class:`OnDemand` runs each piece in the caller when its result is first
asked for, so one operation stays in one thread (its statements in turn) while other operations
run beside it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from .client import Database

__all__ = ["LazyPool", "OnDemand", "pool_for"]

P = ParamSpec("P")
T = TypeVar("T")


class _OnDemandFuture(Future[T]):
    """A future whose work runs in the thread that first asks for its result (or its exception)."""

    def __init__(self, work: Callable[[], T]) -> None:
        super().__init__()
        self._work: Callable[[], T] | None = work

    def _run(self) -> None:
        work, self._work = self._work, None
        if work is None or not self.set_running_or_notify_cancel():
            return
        try:
            self.set_result(work())
        except BaseException as e:  # handed to whoever asks, like a pool's future
            self.set_exception(e)

    def result(self, timeout: float | None = None) -> T:
        self._run()
        return super().result(timeout)

    def exception(self, timeout: float | None = None) -> BaseException | None:
        self._run()
        return super().exception(timeout)


class OnDemand(Executor):
    """An executor that runs nothing by itself: each submitted call runs when its result is asked
    for, in the asking thread. A piece whose result is never asked for never runs."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        return _OnDemandFuture(lambda: fn(*args, **kwargs))


def pool_for(db: Database, default: Callable[[], Executor]) -> Executor:
    """``db.concurrency`` when it has one, else the operation's own pool (``default()``); a stand-in
    database without the attribute (a test double) gets the pool."""
    mine: Executor | None = getattr(db, "concurrency", None)
    return mine if mine is not None else default()


class LazyPool:
    """A process-wide thread pool made on first use: calling it returns the pool (so it is the
    ``default`` :func:`pool_for` takes). An operation's pool costs nothing until it runs."""

    def __init__(self, workers: int, name: str) -> None:
        self._workers, self._name = workers, name
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def __call__(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix=self._name)
            return self._pool
