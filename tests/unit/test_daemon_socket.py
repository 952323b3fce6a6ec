"""Only this user talks to this user's daemon: a private socket folder, and the peer's uid
checked on both ends of every connection (no Neo4j needed: ping answers without it)."""

from __future__ import annotations

import os
import socket
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.errors import ConfigError
from graphmem.runtime.client import ForeignPeer, NoDaemon, check_peer, daemon_request, peer_uid, socket_path
from graphmem.runtime.daemon import Daemon, _Handler, _Server, ensure_private_dir

pytestmark = pytest.mark.skipif(not hasattr(socket, "SO_PEERCRED"), reason="SO_PEERCRED is Linux's")


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_missing_socket_folder_is_created_private(tmp_path: Path) -> None:
    folder = tmp_path / "graphmem-sockets"
    ensure_private_dir(str(folder))
    assert folder.is_dir() and _mode(folder) == 0o700
    ensure_private_dir(str(folder))  # an existing private folder is fine


def test_a_folder_of_this_user_that_others_cannot_write_is_accepted(tmp_path: Path) -> None:
    folder = tmp_path / "home"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    ensure_private_dir(str(folder))


@pytest.mark.parametrize("mode", [0o770, 0o777, 0o1777, 0o702])
def test_a_folder_others_may_write_to_is_refused(tmp_path: Path, mode: int) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chmod(folder, mode)
    with pytest.raises(PermissionError, match="writable by other users"):
        ensure_private_dir(str(folder))


def test_a_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o700)
    with pytest.raises(PermissionError, match="belongs to uid"):
        ensure_private_dir(str(folder), uid=os.getuid() + 1)


def test_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(target)
    with pytest.raises(PermissionError, match="not a directory"):
        ensure_private_dir(str(link))


def test_the_daemon_refuses_to_serve_from_an_unsafe_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "h"
    home.mkdir()
    os.chmod(home, 0o777)
    monkeypatch.setenv("GRAPHMEM_HOME", str(home))
    daemon = Daemon(home, Settings(home=home, embedder="none"), worker=False, idle_timeout=0)
    with pytest.raises(ConfigError, match="writable by other users"):
        daemon.run(lock_wait=0)
    assert not (home / "daemon.sock").exists()


def test_a_long_home_puts_the_socket_in_a_folder_of_this_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    path = socket_path("/" + "x" * 120)
    assert Path(path).parent == tmp_path / f"graphmem-{os.getuid()}"


def test_peer_uid_of_a_socket_pair_is_this_user() -> None:
    a, b = socket.socketpair(socket.AF_UNIX)
    with a, b:
        assert peer_uid(a) == os.getuid()
        check_peer(a)
        with pytest.raises(ForeignPeer):
            check_peer(a, uid=os.getuid() + 1)


@pytest.fixture
def serving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Daemon, Path]]:
    """A daemon's socket server answering on ``<home>/daemon.sock`` (no Neo4j behind it)."""
    home = tmp_path / "h"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("GRAPHMEM_HOME", str(home))
    daemon = Daemon(home, Settings(home=home, embedder="none"), worker=False, idle_timeout=0)
    with served(daemon):
        yield daemon, home


@contextmanager
def served(daemon: Daemon) -> Iterator[None]:
    """``daemon``'s socket server answering in a thread until the block ends."""
    server = _Server(str(daemon.socket), _Handler)  # listening once constructed
    server.owner = daemon
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_the_daemon_answers_its_own_user(serving: tuple[Daemon, Path]) -> None:
    daemon, home = serving
    reply = daemon_request({"v": 1, "op": "ping"}, home=str(home), timeout=10)
    assert reply["ok"] and reply["pid"] == os.getpid()
    assert daemon.requests == 1


def test_the_daemon_refuses_a_process_of_another_user(serving: tuple[Daemon, Path]) -> None:
    daemon, home = serving
    daemon.uid = os.getuid() + 1  # every connection now comes from "another user"
    with pytest.raises((NoDaemon, ConnectionError)):  # closed before or after the request was sent
        daemon_request({"v": 1, "op": "ping"}, home=str(home), timeout=10)
    assert daemon.requests == 0


def test_a_client_sends_nothing_to_a_daemon_of_another_user(
    serving: tuple[Daemon, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    daemon, home = serving
    real = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: real + 1)  # the listening process is now "another user"
    with pytest.raises(ForeignPeer):
        daemon_request({"v": 1, "op": "ping"}, home=str(home), timeout=10)
    assert daemon.requests == 0
