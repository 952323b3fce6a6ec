"""The warm daemon that ``graphmem db up`` and ``graphmem demo`` leave running: it keeps the driver,
the embedder and the worker loaded, so that the CLI's read commands and the hooks answer in about a
tenth of a second instead of paying the imports and the model again in every process.

``GRAPHMEM_UP_DAEMON=0`` (or ``GRAPHMEM_HOOK_DAEMON=0``, which turns the daemon off altogether)
leaves it out; ``graphmem db down`` and ``graphmem daemon stop`` stop it.
"""

from __future__ import annotations

import os

from ..config import Settings
from ..errors import GraphMemError

__all__ = ["start_warm_daemon", "warm_daemon_wanted"]

_OFF = ("0", "false", "no", "off")


def warm_daemon_wanted() -> bool:
    """Whether ``db up`` and the demo start the daemon (see the module docstring)."""
    return all(os.environ.get(name, "1").strip().lower() not in _OFF
               for name in ("GRAPHMEM_UP_DAEMON", "GRAPHMEM_HOOK_DAEMON"))


def start_warm_daemon(settings: Settings, *, wait: float = 30.0) -> str | None:
    """Start the daemon of ``settings.home`` unless it answers already; the line to print, or None
    when it is not wanted. Never raises: the memory works without it, only slower to start."""
    if not warm_daemon_wanted():
        return None
    from ..runtime.daemon_control import start_daemon

    try:
        info = start_daemon(settings.home, wait=wait)
    except (GraphMemError, OSError) as e:
        return f"the warm daemon did not start ({str(e).splitlines()[0]}): commands still work, each loading itself"
    if not info.running:
        return (f"the warm daemon did not answer within {wait:.0f} s (see {settings.home / 'daemon.log'}): "
                "commands still work, each loading itself")
    return (f"warm daemon running (pid {info.pid}): read commands and hooks answer through it in about 0.1 s "
            "(`graphmem daemon stop` stops it; GRAPHMEM_UP_DAEMON=0 leaves it out)")

