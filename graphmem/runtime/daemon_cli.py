"""The daemon's ``cli`` op: read commands of the ``graphmem`` CLI run on the daemon's warm driver
and embedder (the client side is :mod:`graphmem.cli.daemon_route`).

The daemon runs the command's own function (given to it as ``runner``: the runtime never imports
the CLI) in the thread that serves the request. What the command prints goes to ``sys.stdout`` /
``sys.stderr``; in the daemon both are :class:`ThreadCapture` streams, which keep the text written
by a thread that is capturing, in order and tagged 1 (stdout) or 2 (stderr), and pass every other
thread's text through to the real stream: hooks served at the same time print nothing into a
command's output, nor a command into theirs.

The daemon answers ``{"ok": false, "fallback": why}`` (the client then runs the command itself)
when the client's settings or ``CLI_ENV`` variables differ from its own, while its embedder is
still loading or failed to load, and when the command exits through argparse or raises an
unexpected error. A database that does not answer is the command's own error line, as without
the daemon.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TextIO

from .client import CLI_ENV, env_key

if TYPE_CHECKING:
    from ..config import Settings
    from ..embedding import Embedder
    from ..memory import GraphMemory

__all__ = ["CliHost", "CliRunner", "ThreadCapture", "capture_output"]

log = logging.getLogger("graphmem.daemon")

CliRunner = Callable[..., "int | None"]
"""``runner(argv, memory=..., cwd=...)``: the command's exit code, or None (let the client run it)."""

_local = threading.local()
_install_lock = threading.Lock()


class ThreadCapture:
    """A text stream standing for ``sys.stdout`` (``fd`` 1) or ``sys.stderr`` (2): a thread inside
    :func:`capture_output` writes into its own list; any other thread writes to ``original``."""

    def __init__(self, original: TextIO, fd: int) -> None:
        self.original = original
        self.fd = fd

    def _chunks(self) -> list[tuple[int, str]] | None:
        chunks: list[tuple[int, str]] | None = getattr(_local, "chunks", None)
        return chunks

    def write(self, text: str) -> int:
        chunks = self._chunks()
        if chunks is None:
            return self.original.write(text)
        chunks.append((self.fd, text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._chunks() is None:
            self.original.flush()

    def isatty(self) -> bool:
        return False if self._chunks() is not None else self.original.isatty()

    def __getattr__(self, name: str) -> Any:
        if name in ("buffer", "fileno") and self._chunks() is not None:
            # bytes would bypass the capture: the command fails here and the client runs it itself
            raise AttributeError(f"sys.stdout.{name} is not available to a command the daemon runs")
        return getattr(self.original, name)


def _install() -> None:
    with _install_lock:
        if not isinstance(sys.stdout, ThreadCapture):
            sys.stdout = ThreadCapture(sys.stdout, 1)
        if not isinstance(sys.stderr, ThreadCapture):
            sys.stderr = ThreadCapture(sys.stderr, 2)


@contextlib.contextmanager
def capture_output() -> Iterator[list[tuple[int, str]]]:
    """What this thread prints on stdout and stderr meanwhile, as ``(1|2, text)`` in order."""
    _install()
    chunks: list[tuple[int, str]] = []
    _local.chunks = chunks
    try:
        yield chunks
    finally:
        _local.chunks = None


def _merged(chunks: list[tuple[int, str]]) -> list[list[Any]]:
    out: list[list[Any]] = []
    for fd, text in chunks:
        if out and out[-1][0] == fd:
            out[-1][1] += text
        elif text:
            out.append([fd, text])
    return out


class CliHost:
    """Runs the client's commands for a daemon: its settings, its (warm) embedder, one driver."""

    def __init__(self, settings: Settings, runner: CliRunner, env: str, *,
                 embedder: Callable[[], tuple[bool, Embedder | None]]) -> None:
        self.settings = settings
        self.runner = runner
        self.env = env
        self.cli_env = env_key(names=CLI_ENV)
        self._embedder = embedder
        """(ready, embedder): ready once the warm-up made it (or found that none is configured)."""
        self._lock = threading.Lock()
        self._db: Any = None
        self.served = 0
        self.fallbacks = 0

    def counts(self) -> dict[str, int]:
        """Commands answered here, and requests sent back to the client to run."""
        return {"served": self.served, "fallbacks": self.fallbacks}

    def _database(self, embedder: Embedder | None) -> Any:
        """The daemon's driver for the CLI (opened, and the schema checked, by the first command
        that asks for the memory; a command that fails before, as on bad input, never opens it)."""
        with self._lock:
            if self._db is None:
                from ..db import open_database

                db = open_database(self.settings, check=True)  # the CLI's own timeouts and retries, not the hooks'
                try:
                    self._borrowed(db, embedder).ensure_schema()
                except BaseException:
                    db.close()
                    raise
                self._db = db
            return self._db

    def _borrowed(self, db: Any, embedder: Embedder | None) -> GraphMemory:
        from ..facts.tuning import drop_cached_tuning
        from ..memory import GraphMemory

        class Borrowed(GraphMemory):
            def close(self) -> None:  # the driver is the daemon's: only wait for the deferred writes
                self.deferred.close()

        drop_cached_tuning(db)  # `graphmem settings set` in another process shows at once, as without the daemon
        return Borrowed.from_settings(self.settings, db=db, embedder_factory=lambda: embedder)

    def _memory(self, embedder: Embedder | None) -> Callable[[], GraphMemory]:
        return lambda: self._borrowed(self._database(embedder), embedder)

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """The reply to one ``cli`` request (see the module docstring)."""
        reply = self._handle(request)
        with self._lock:
            if reply.get("ok"):
                self.served += 1
            else:
                self.fallbacks += 1
        return reply

    def _handle(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("env") != self.env or request.get("cli_env") != self.cli_env:
            return {"ok": False, "fallback": "other settings"}
        argv, cwd = request.get("argv"), request.get("cwd")
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv) or not isinstance(cwd, str):
            return {"ok": False, "fallback": "bad request"}
        ready, embedder = self._embedder()
        if not ready:
            return {"ok": False, "fallback": "the embedder is not ready"}
        try:
            with capture_output() as chunks:
                code = self.runner(argv, memory=self._memory(embedder), cwd=cwd)
        except Exception as e:  # a bug: the client runs the command itself and shows it
            log.warning("cli %s failed in the daemon: %s: %s", argv[:2], type(e).__name__, e)
            return {"ok": False, "fallback": f"{type(e).__name__}: {e}"}
        if code is None:
            return {"ok": False, "fallback": "argparse exit"}
        return {"ok": True, "code": code, "output": _merged(chunks)}

    def close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(Exception):
                self._db.close()
