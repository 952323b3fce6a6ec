"""Dedicated managed Neo4j servers for the tests that kill, reindex or otherwise own a server
(never the shared suite server): free ports and a private home, the suite's version."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from graphmem.config import DEFAULT_NEO4J_VERSION
from graphmem_devtools.servers import ServerSpec

__all__ = ["dedicated_server", "free_port"]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def dedicated_server(home: Path, *, heap: str = "512m", pagecache: str = "128m") -> Iterator[ServerSpec]:
    """A managed Neo4j under ``home`` (its jars hard-linked from the local Maven repository like
    any install), stopped at the end."""
    version = os.environ.get("GRAPHMEM_TEST_NEO4J_VERSION", DEFAULT_NEO4J_VERSION)
    spec = ServerSpec(home, version, free_port(), free_port(), heap=heap, pagecache=pagecache)
    try:
        yield spec
    finally:
        spec.server().stop()
