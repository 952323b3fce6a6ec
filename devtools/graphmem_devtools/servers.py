"""Managed Neo4j servers of a run (their own home and ports) and the clean environments of the
graphmem CLI processes that use them: shared by the reliability runs and the test suite."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ServerSpec", "clean_env", "explicit_env", "managed_env"]

_ENV_PREFIXES = ("GRAPHMEM_", "NEO4J_", "OPENAI_")


@dataclass(frozen=True)
class ServerSpec:
    """A managed Neo4j of this run (its own home and ports)."""

    home: Path
    version: str
    bolt_port: int
    http_port: int
    heap: str = "512m"
    pagecache: str = "256m"

    def server(self) -> Any:
        from graphmem.neo4j_local import ManagedServer

        return ManagedServer(self.home, self.version, heap=self.heap, pagecache=self.pagecache,
                             bolt_port=self.bolt_port, http_port=self.http_port, start_timeout=900.0)


def clean_env() -> dict[str, str]:
    """This process's environment without any graphmem, Neo4j or OpenAI setting."""
    return {k: v for k, v in os.environ.items() if not k.startswith(_ENV_PREFIXES)}


def managed_env(spec: ServerSpec, **extra: str) -> dict[str, str]:
    """The environment of a graphmem CLI process using ``spec``'s managed server (no other
    graphmem/Neo4j/OpenAI setting leaks in)."""
    env = clean_env()
    env.update({
        "GRAPHMEM_HOME": str(spec.home), "GRAPHMEM_NEO4J_VERSION": spec.version,
        "GRAPHMEM_BOLT_PORT": str(spec.bolt_port), "GRAPHMEM_HTTP_PORT": str(spec.http_port),
        "GRAPHMEM_HEAP": spec.heap, "GRAPHMEM_PAGECACHE": spec.pagecache, "GRAPHMEM_EMBEDDER": "none",
        "GRAPHMEM_START_TIMEOUT": "900",
        "GRAPHMEM_HOOK_DAEMON": "0", "GRAPHMEM_DAEMON_WORKER": "0",
    })
    env.update(extra)
    return env


def explicit_env(uri: str, user: str, password: str, home: Path, **extra: str) -> dict[str, str]:
    """The environment of a graphmem CLI process using an explicit server."""
    env = clean_env()
    env.update({"GRAPHMEM_HOME": str(home), "GRAPHMEM_NEO4J_URI": uri, "GRAPHMEM_NEO4J_USER": user,
                "GRAPHMEM_NEO4J_PASSWORD": password, "GRAPHMEM_EMBEDDER": "none", "GRAPHMEM_HOOK_DAEMON": "0"})
    env.update(extra)
    return env
