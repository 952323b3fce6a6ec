"""After a reboot the managed Neo4j is down: the daemon's restarter starts it again (installed,
not running, graphmem's own server), and the database answers afterwards. On a dedicated server."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.db import open_database
from graphmem.runtime.autostart import ManagedRestarter
from graphmem_devtools.servers import managed_env

from ..servers import dedicated_server

pytestmark = pytest.mark.integration


def test_a_stopped_managed_server_is_started_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with dedicated_server(tmp_path / "home") as spec:
        server = spec.server()
        server.start()
        assert server.stop()  # installed, then down: as after a reboot
        assert server.installed() and server.state() is None
        for key, value in managed_env(spec).items():
            if key.startswith("GRAPHMEM_"):
                monkeypatch.setenv(key, value)
        settings = Settings.load()
        restarter = ManagedRestarter(settings)
        assert restarter.enabled and restarter.maybe_start(), restarter.last_error
        assert server.state() is not None
        db = open_database(settings)
        try:
            db.ping()
        finally:
            db.close()
        assert not restarter.maybe_start()  # running now (and not retried within the period anyway)
