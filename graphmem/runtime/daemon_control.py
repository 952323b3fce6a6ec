"""Control of the daemon from the CLI: ``graphmem daemon status|start|stop`` (asked over its
socket; the pid it recorded in ``$GRAPHMEM_HOME/daemon.pid`` when it does not answer)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import Settings
from ..errors import DatabaseUnavailable
from .client import PROTOCOL, NoDaemon, daemon_request, env_key, home_dir, socket_path, spawn_daemon

__all__ = ["DaemonInfo", "daemon_status", "start_daemon", "stop_daemon"]


@dataclass
class DaemonInfo:
    """``graphmem daemon status``."""

    running: bool
    home: str
    socket: str
    pid: int | None = None
    details: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"running": self.running, "home": self.home, "socket": self.socket, "pid": self.pid,
                **(self.details or {})}


def _pid_from_file(home: Path) -> int | None:
    try:
        pid = int(json.loads((home / "daemon.pid").read_text()).get("pid"))
    except (OSError, ValueError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid
    return pid


def daemon_status(home: Path | None = None, *, timeout: float = 2.0) -> DaemonInfo:
    home = home or Path(home_dir())
    sock = socket_path(str(home))
    try:
        reply = daemon_request({"v": PROTOCOL, "op": "ping"}, home=str(home), timeout=timeout)
    except (NoDaemon, OSError, ValueError):
        return DaemonInfo(running=False, home=str(home), socket=str(sock), pid=_pid_from_file(home))
    return DaemonInfo(running=True, home=str(home), socket=str(sock), pid=reply.get("pid"), details=reply)


def start_daemon(home: Path | None = None, *, wait: float = 60.0) -> DaemonInfo:
    """Start a detached daemon unless one answers; wait until it answers.

    Raises :class:`InvalidSettings` at once on a bad ``GRAPHMEM_*`` setting (the daemon it would
    spawn inherits this environment and would exit on it, leaving only a line in daemon.log)."""
    Settings.load()
    home = home or Path(home_dir())
    st = daemon_status(home)
    if st.running:
        if st.details and st.details.get("env") not in (None, env_key()):
            stop_daemon(home)
        else:
            return st
    spawn_daemon(str(home), force=True)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        time.sleep(0.1)
        st = daemon_status(home, timeout=1.0)
        if st.running:
            return st
    raise DatabaseUnavailable(f"the daemon did not start within {wait:.0f} s (see {home / 'daemon.log'})")


def stop_daemon(home: Path | None = None, *, wait: float = 15.0) -> bool:
    """Stop the daemon of ``home`` (asked over the socket, else SIGTERM to the pid it recorded).
    Returns whether one was running."""
    home = home or Path(home_dir())
    pid: int | None = None
    try:
        reply = daemon_request({"v": PROTOCOL, "op": "stop"}, home=str(home), timeout=5.0)
        pid = reply.get("pid")
    except (NoDaemon, OSError, ValueError):
        pid = _pid_from_file(home)
        if pid is None:
            return False
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait
    while pid is not None and time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)
    return True
