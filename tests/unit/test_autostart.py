"""The daemon's restart of the managed Neo4j: only when graphmem runs its own server, only an
installed one that is down, at most once per retry period (an injected clock), and a failed start
is one logged line, never an exception."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem.config import Settings
from graphmem.errors import ServerError
from graphmem.runtime.autostart import RETRY_SECONDS, ManagedRestarter


class Server:
    def __init__(self, *, installed: bool = True, running: bool = False, fails: bool = False) -> None:
        self._installed, self.running, self.fails, self.starts = installed, running, fails, 0

    def installed(self) -> bool:
        return self._installed

    def state(self) -> Any:
        return object() if self.running else None

    def start(self) -> Any:
        self.starts += 1
        if self.fails:
            raise ServerError("Java 17+ not found")
        self.running = True
        return object()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_stopped_managed_server_is_started_once_per_period(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHMEM_HOOK_AUTOSTART", raising=False)
    server, clock = Server(), Clock()
    r = ManagedRestarter(Settings(), server=lambda: server, clock=clock)
    assert r.maybe_start() and server.starts == 1 and r.started == 1
    server.running = False  # stopped again right away: not retried before the period ends
    assert not r.maybe_start() and server.starts == 1
    clock.now += RETRY_SECONDS
    assert r.maybe_start() and server.starts == 2


def test_nothing_is_started_when_it_should_not_be(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHMEM_HOOK_AUTOSTART", raising=False)
    for server in (Server(running=True), Server(installed=False)):
        assert not ManagedRestarter(Settings(), server=lambda s=server: s).maybe_start()
        assert server.starts == 0
    explicit = ManagedRestarter(Settings(neo4j_uri="bolt://db:7687"), server=lambda: Server())
    assert not explicit.enabled and not explicit.maybe_start()
    monkeypatch.setenv("GRAPHMEM_HOOK_AUTOSTART", "0")
    assert not ManagedRestarter(Settings(), server=lambda: Server()).enabled


def test_a_failed_start_is_remembered_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHMEM_HOOK_AUTOSTART", raising=False)
    server = Server(fails=True)
    r = ManagedRestarter(Settings(), server=lambda: server, clock=Clock())
    assert not r.maybe_start() and r.last_error == "Java 17+ not found" and server.starts == 1
