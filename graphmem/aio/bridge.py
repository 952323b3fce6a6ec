"""Running graphmem's operations on an event loop, through greenlets.

The operations (:mod:`graphmem.sessions`, :mod:`graphmem.turns`, :mod:`graphmem.facts`,
:mod:`graphmem.retrieval`) are written once, as plain functions of a database. :func:`run_sync`
runs one of them in a greenlet of its own; whenever it needs the network (a statement on the async
driver) or a CPU-bound step that must leave the loop (embedding), it hands an awaitable to
:func:`await_only`, which switches back to the event loop's task until that awaitable is done. The
operation's code never blocks the loop, and many operations progress at once in one loop, each
waiting for its own statements.

:func:`await_only` may only be called inside :func:`run_sync` (else :class:`RuntimeError`).
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar, cast

from greenlet import getcurrent, greenlet  # type: ignore[import-untyped]  # no type information shipped

__all__ = ["await_only", "in_bridge", "run_sync"]

P = ParamSpec("P")
T = TypeVar("T")


class _Bridged(greenlet):  # type: ignore[misc]
    """The greenlet of one operation; its parent is the event loop task that awaits for it."""

    def __init__(self, fn: Callable[..., Any], driver: greenlet) -> None:
        super().__init__(fn, driver)
        self.driver = driver


def in_bridge() -> bool:
    """Whether the caller runs inside :func:`run_sync` (so :func:`await_only` may be used)."""
    return isinstance(getcurrent(), _Bridged)


def await_only(awaitable: Awaitable[T]) -> T:
    """The result of ``awaitable``, awaited by the event loop task running this operation."""
    current = getcurrent()
    if not isinstance(current, _Bridged):
        if hasattr(awaitable, "close"):
            awaitable.close()  # no "coroutine was never awaited" warning on top of the error
        raise RuntimeError("graphmem.aio: an async database call outside run_sync()")
    return cast(T, current.driver.switch(awaitable))


async def run_sync(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """Run ``fn(*args, **kwargs)`` in a greenlet, awaiting each awaitable it hands to
    :func:`await_only`; exceptions of those awaitables are raised inside ``fn`` where it awaited."""
    context = _Bridged(fn, getcurrent())
    result = context.switch(*args, **kwargs)
    while not context.dead:
        try:
            value = await result
        except BaseException:
            result = context.throw(*sys.exc_info())
        else:
            result = context.switch(value)
    return cast(T, result)
