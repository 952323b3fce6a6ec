"""The daemon brings the managed Neo4j back: after a reboot the server is down, every Stop is
spooled and prompts get nothing until someone runs ``graphmem db up``. When graphmem runs its own
server (no ``GRAPHMEM_NEO4J_URI``) and that server is installed but not running, the daemon starts
it, at most once every :data:`RETRY_SECONDS`; the spool keeps the turns meanwhile and is replayed
once the server answers. ``GRAPHMEM_HOOK_AUTOSTART=0`` turns this off. A server never installed is
left alone (installing downloads it: that is ``graphmem db up``'s job)."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import Any

from ..config import Settings
from ..errors import GraphMemError

__all__ = ["RETRY_SECONDS", "ManagedRestarter"]

log = logging.getLogger("graphmem.daemon")

RETRY_SECONDS = 300.0


class ManagedRestarter:
    """Starts the managed server when it is installed and down (see the module docstring)."""

    def __init__(self, settings: Settings, *, server: Callable[[], Any] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        from ..db import managed_server

        self.enabled = not settings.neo4j_uri and os.environ.get("GRAPHMEM_HOOK_AUTOSTART", "1") != "0"
        self._server = server or (lambda: managed_server(settings))
        self._clock = clock
        self._next = 0.0
        self.started = 0
        self.last_error: str | None = None

    def maybe_start(self) -> bool:
        """Start the server if it is due and down; True when this call started it."""
        if not self.enabled or self._clock() < self._next:
            return False
        self._next = self._clock() + RETRY_SECONDS
        try:
            server = self._server()
            if not server.installed() or server.state() is not None:
                return False
            log.info("the managed Neo4j is not running: starting it (the spool keeps the turns meanwhile)")
            server.start()
        except (GraphMemError, OSError) as e:
            self.last_error = str(e).splitlines()[0] if str(e) else type(e).__name__
            log.warning("could not start the managed Neo4j: %s", self.last_error)
            return False
        self.started += 1
        self.last_error = None
        return True
