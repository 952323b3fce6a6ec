"""Read commands answered by the warm daemon (``graphmem daemon``) instead of this process.

A command such as ``graphmem stats`` or ``graphmem search`` spends most of its time importing the
driver, pydantic and the store, and (search, context) loading the embedding model. When a daemon
runs for this ``$GRAPHMEM_HOME`` with the same settings, the command is sent to it (the ``cli`` op:
the arguments, the directory and a digest of the settings) and the daemon runs the very same
command function on its warm driver and embedder, capturing what it prints; this process prints
that, in the same order, and exits with the same code. Nothing heavy is imported on that path.

The command runs here instead (:func:`through_daemon` returns None) when: the command is not a read
listed in :data:`ROUTED`; ``GRAPHMEM_CLI_DAEMON=0``; no daemon answers; the daemon's settings or
``CLI_ENV`` variables (locale, time zone, home, OpenAI key) differ from this process's; the
daemon is still loading its embedder or failed to; it errs or does not answer within
``GRAPHMEM_CLI_DAEMON_TIMEOUT`` seconds (default 60); or argparse would exit (a usage error, ``--help``).
The CLI never starts a daemon: the hooks do (``graphmem daemon start`` starts one by hand).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ..runtime.client import CLI_ENV, PROTOCOL, NoDaemon, daemon_request, env_key, home_dir, socket_path

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["ROUTED", "routed", "through_daemon", "wants_daemon"]

ROUTED: dict[str, tuple[str, ...] | None] = {
    "stats": None,
    "search": None,
    "context": None,
    "sessions": ("list", "show"),
    "turns": ("list",),
    "facts": ("list", "search", "audits"),
    "settings": ("get",),
    "retrievals": ("list", "show"),
}
"""The read commands the daemon may answer: group -> its verbs (None: a command without verbs)."""

_OFF = ("0", "false", "no", "off")
DEFAULT_TIMEOUT = 60.0


def routed(argv: list[str]) -> bool:
    """Whether ``argv`` names a read command of :data:`ROUTED` (and no help is asked for)."""
    if not argv or argv[0] not in ROUTED or "-h" in argv or "--help" in argv:
        return False
    verbs = ROUTED[argv[0]]
    return verbs is None or (len(argv) > 1 and argv[1] in verbs)


def wants_daemon(environ: Mapping[str, str] | None = None) -> bool:
    """False when ``GRAPHMEM_CLI_DAEMON`` turns the routing off."""
    env = os.environ if environ is None else environ
    return env.get("GRAPHMEM_CLI_DAEMON", "1").strip().lower() not in _OFF


def _timeout() -> float:
    try:
        value = float(os.environ.get("GRAPHMEM_CLI_DAEMON_TIMEOUT", ""))
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


def through_daemon(argv: list[str]) -> int | None:
    """Run ``argv`` in the daemon and print its output: the exit code, or None when this process
    must run the command itself (see the module docstring)."""
    if not routed(argv) or not wants_daemon():
        return None
    home = home_dir()
    if not os.path.exists(socket_path(home)):
        return None
    try:
        request = {"v": PROTOCOL, "op": "cli", "env": env_key(), "cli_env": env_key(names=CLI_ENV),
                   "argv": argv, "cwd": os.getcwd()}
        reply = daemon_request(request, home=home, timeout=_timeout())
    except (NoDaemon, OSError, ValueError):  # TimeoutError is an OSError
        return None
    code, chunks = reply.get("code"), reply.get("output")
    if not reply.get("ok") or not isinstance(code, int) or not isinstance(chunks, list):
        return None
    try:
        for stream, text in chunks:
            out = sys.stderr if stream == 2 else sys.stdout
            out.write(text)
            out.flush()
    except BrokenPipeError:
        return 0  # as the command itself does when its reader goes away
    return code
