"""Live updates for the dashboard: a change feed streamed as server-sent events.

Two sources: this process's own writes (the API's fact and settings routes publish at once) and,
while somebody listens, a cheap marker read from the database every few seconds
(``service/changes``: fact versions, forget audits, latest injection, latest session activity),
so the injections and turns written by agents in other processes show up too.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

__all__ = ["ChangeFeed"]

TICK_SECONDS = 0.5
POLL_SECONDS = 2.0
KEEPALIVE_SECONDS = 15.0


class ChangeFeed:
    """A change counter that routes bump and a stream that reports each change."""

    def __init__(self, marker: Callable[[], Any] | None = None) -> None:
        """``marker`` reads the database's change marker (None: local changes only)."""
        self._marker = marker
        self._lock = threading.Lock()
        self._version = 0
        self._last_what = ""
        self._closed = False

    @property
    def version(self) -> int:
        return self._version

    def publish(self, what: str) -> None:
        """Record a change made by this process (``what``: facts, settings, sessions...)."""
        with self._lock:
            self._version += 1
            self._last_what = what

    def close(self) -> None:
        """End the open streams (within a tick), so a server can stop without waiting for them."""
        self._closed = True

    async def _read_marker(self) -> Any:
        if self._marker is None:
            return None
        try:
            return await asyncio.to_thread(self._marker)
        except Exception:  # an outage: no marker until it is back (the API routes answer 503)
            return None

    async def stream(self, *, is_disconnected: Callable[[], Any]) -> AsyncIterator[str]:
        """Server-sent events: ``hello`` at once, then ``change`` (``{"what", "version"}``) on each
        change, and a comment line now and then to keep proxies from closing the stream."""
        seen = self._version
        marker = await self._read_marker()
        yield f"event: hello\ndata: {json.dumps({'version': seen})}\n\n"
        loop = asyncio.get_running_loop()
        next_poll = loop.time() + POLL_SECONDS
        next_keepalive = loop.time() + KEEPALIVE_SECONDS
        while not self._closed and not await is_disconnected():
            await asyncio.sleep(TICK_SECONDS)
            what = None
            if self._version != seen:
                seen, what = self._version, self._last_what
            now = loop.time()
            if now >= next_poll:
                next_poll = now + POLL_SECONDS
                current = await self._read_marker()
                if current is not None and current != marker:
                    if marker is not None and what is None:
                        what = "memory"
                    marker = current
            if what is not None:
                yield f"event: change\ndata: {json.dumps({'what': what, 'version': seen})}\n\n"
                next_keepalive = now + KEEPALIVE_SECONDS
            elif now >= next_keepalive:
                next_keepalive = now + KEEPALIVE_SECONDS
                yield ": keep-alive\n\n"
