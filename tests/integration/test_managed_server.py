"""The managed local Neo4j: ports, loopback only, auth, private files, down/up keeps data."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
from pathlib import Path
from typing import Any, ClassVar

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


class _RecordingPopen(subprocess.Popen):  # type: ignore[type-arg]
    """Popen that records every command line (``subprocess.run`` goes through it too)."""

    seen: ClassVar[list[list[str]]] = []

    def __init__(self, args: Any, *rest: Any, **kw: Any) -> None:
        self.seen.append([str(a) for a in (args if isinstance(args, (list, tuple)) else [args])])
        super().__init__(args, *rest, **kw)


def _tree_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def test_lifecycle_ports_security_and_persistence(
    tmp_path: Path, neo4j_target: Neo4jTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = _server(tmp_path, neo4j_target.version, start_timeout=240)
    server.heap = server.pagecache = "auto"
    _RecordingPopen.seen = []
    monkeypatch.setattr(subprocess, "Popen", _RecordingPopen)
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
        # the password is on no command line (nor in the server's environment)
        password = server.password()
        assert _RecordingPopen.seen and all(password not in " ".join(cmd) for cmd in _RecordingPopen.seen)
        assert password.encode() not in Path(f"/proc/{st.pid}/cmdline").read_bytes()
        assert password.encode() not in Path(f"/proc/{st.pid}/environ").read_bytes()
        auth_ini = server.server_dir / "data" / "dbms" / "auth.ini"
        if auth_ini.exists():  # holds a salted hash, readable by this user only
            assert password not in auth_ini.read_text()
            assert stat.S_IMODE(os.stat(auth_ini).st_mode) == 0o600
        # a small start: the heap starts at 128 MiB, nothing is pre-touched, logs are not preallocated
        cmdline = Path(f"/proc/{st.pid}/cmdline").read_bytes().split(b"\0")
        assert b"-Xms128m" in cmdline and b"-XX:+AlwaysPreTouch" not in cmdline
        assert _tree_bytes(server.server_dir / "data" / "transactions") < 64 * 1024 * 1024
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
    """A password a command-line tool would read as an option is set like any other."""
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


def test_install_links_the_jars_of_the_maven_repository(tmp_path: Path, neo4j_target: Neo4jTarget) -> None:
    """One copy of the jars on disk: lib/ holds hard links to Maven's local repository (on the
    same file system, as here), not copies and not symbolic links."""
    version = neo4j_target.version
    repo_jar = Path("~/.m2/repository/org/neo4j/neo4j").expanduser() / version / f"neo4j-{version}.jar"
    server = ManagedServer(tmp_path / "gm-home", version)
    server.install()
    assert server.installed()
    jar = server.lib_dir / f"neo4j-{version}.jar"
    assert not server.lib_dir.is_symlink() and not jar.is_symlink()
    if repo_jar.exists() and os.stat(repo_jar).st_dev == os.stat(tmp_path).st_dev:
        assert os.path.samefile(jar, repo_jar)
        assert all(os.stat(f).st_nlink >= 2 for f in server.lib_dir.iterdir())
    else:  # another file system: copies
        assert jar.is_file()


def test_missing_maven_gives_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no mvn on PATH
    server = ManagedServer(tmp_path / "h", "5.26.30")
    with pytest.raises(ServerError, match="Maven"):
        server.install()
