"""The managed local Neo4j: ports, loopback only, auth, private files, down/up keeps data."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from neo4j import exceptions as nex

from graphmem import Database, GraphMemory, ServerError
from graphmem.neo4j_local import ManagedServer

from ..conftest import Neo4jTarget, _test_home

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _listening(port: int) -> list[str]:
    """Local addresses listening on ``port`` (from /proc/net/tcp and tcp6)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            local, state = parts[1], parts[3]
            addr, port_hex = local.split(":")
            if state == "0A" and int(port_hex, 16) == port:
                found.append(addr)
    return found


LOOPBACK = {"0100007F", "0000000000000000FFFF00000100007F"}


def _server(tmp_path: Path, version: str, **kw: object) -> ManagedServer:
    home = tmp_path / "gm-home"
    server = ManagedServer(home, version, heap="512m", pagecache="256m", **kw)  # type: ignore[arg-type]
    shared = _test_home() / "neo4j" / version / "lib"
    if shared.is_dir():  # reuse the jars the session server downloaded
        server.server_dir.mkdir(parents=True, exist_ok=True)
        server.lib_dir.symlink_to(shared, target_is_directory=True)
    return server


def test_lifecycle_ports_security_and_persistence(tmp_path: Path, neo4j_target: Neo4jTarget) -> None:
    server = _server(tmp_path, neo4j_target.version, start_timeout=240)
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    taken = blocker.getsockname()[1]
    server.bolt_port = taken
    try:
        st = server.start()
        assert st.bolt_port != taken  # the default was taken, a free port was picked
        assert server.state() == st
        # private files
        assert stat.S_IMODE(os.stat(server.home).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(server.password_file).st_mode) == 0o600
        # loopback only
        for port in (st.bolt_port, st.http_port):
            addrs = _listening(port)
            assert addrs and set(addrs) <= LOOPBACK, addrs
        # authentication required
        with GraphDatabase.driver(st.uri, auth=("neo4j", "wrong-password")) as d, pytest.raises(nex.AuthError):
            d.verify_connectivity()
        # `up` twice is harmless
        assert server.start().pid == st.pid
        with Database(st.uri, "neo4j", server.password()) as db:
            mem = GraphMemory(db)
            mem.init_schema()
            s = mem.create_session("/graphmem-test/persist")
            mem.store_turn(s.id, "survive a restart", "please")
        assert server.stop()
        assert server.state() is None
        assert not server.stop()
        st2 = server.start()
        assert st2.bolt_port == st.bolt_port  # ports are kept across down/up when free
        with Database(st2.uri, "neo4j", server.password()) as db:
            detail = GraphMemory(db).load_session(s.id)
            assert detail.turns[0].user_message == "survive a restart"
        status = server.status()
        assert status["running"] and status["ready"]
    finally:
        blocker.close()
        server.stop()



def test_a_password_starting_with_a_dash_is_set_and_works(tmp_path: Path, neo4j_target: Neo4jTarget) -> None:
    """neo4j-admin read such a password as an option ("Missing required parameter"): one fresh
    `db up` in 64 failed, as the generated password starts with "-" one time in 64."""
    server = _server(tmp_path, neo4j_target.version, start_timeout=240)
    server.home.mkdir(parents=True, exist_ok=True)
    fd = os.open(server.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write("-dash-first-Password_1\n")
    try:
        st = server.start()
        with Database(st.uri, "neo4j", "-dash-first-Password_1") as db:
            db.ping()
    finally:
        server.stop()

def test_start_timeout_shows_the_log_and_leaves_nothing_running(tmp_path: Path, neo4j_target: Neo4jTarget) -> None:
    server = _server(tmp_path, neo4j_target.version, start_timeout=0.5)
    with pytest.raises(ServerError, match="did not answer") as err:
        server.start()
    assert "console.log" in str(err.value)
    assert server.state() is None


def test_missing_maven_gives_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no mvn on PATH
    server = ManagedServer(tmp_path / "h", "5.26.30")
    with pytest.raises(ServerError, match="Maven"):
        server.install()
