"""Helpers shared by the CLI groups: settings, output (tables and JSON), progress bars."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ..config import Settings
    from ..embedding import Embedder
    from ..memory import GraphMemory

__all__ = ["Progress", "absolute", "add_json_flag", "emit_json", "in_process", "open_memory", "print_table", "relative",
           "to_jsonable", "working_dir"]

T = TypeVar("T")

_HOST: ContextVar[tuple[Callable[[], GraphMemory], str] | None] = ContextVar("graphmem_cli_host", default=None)
"""Set while the daemon runs a command for a client: its warm memory and the client's directory."""

LOADING_LINE = "loading the embedding model…"


@contextlib.contextmanager
def in_process(memory: Callable[[], GraphMemory], cwd: str) -> Iterator[None]:
    """Run commands (in this thread) on ``memory()`` (a memory over the daemon's driver and warm
    embedder, whose ``close`` leaves them open) as if started in ``cwd``."""
    token = _HOST.set((memory, cwd))
    try:
        yield
    finally:
        _HOST.reset(token)


def working_dir() -> str:
    """The directory the command was started in (the client's, when the daemon runs it)."""
    host = _HOST.get()
    return host[1] if host is not None else os.getcwd()


def absolute(path: str) -> str:
    """``path`` (``~`` expanded) made absolute against :func:`working_dir`."""
    return os.path.join(working_dir(), os.path.expanduser(path))


def _embedder_announced(settings: Settings) -> Embedder | None:
    """The settings' embedder, saying on a terminal's stderr that the model loads (the only slow
    step a command can meet besides the query)."""
    from ..embedding import make_embedder

    if settings.embedder != "none" and sys.stderr.isatty():
        print(LOADING_LINE, file=sys.stderr, flush=True)
    return make_embedder(settings)


def open_memory(*, start: bool = False, ensure_schema: bool = True, settings: Settings | None = None) -> GraphMemory:
    """:func:`graphmem.memory.open_memory`, imported when a command first opens the memory (so that
    commands which never do, and ``--help``, do not pay for the driver and the store). In the
    daemon (:func:`in_process`), a memory over its warm driver and embedder."""
    host = _HOST.get()
    if host is not None and settings is None and not start:
        return host[0]()
    from ..config import Settings
    from ..memory import open_memory as _open

    settings = settings or Settings.load()
    return _open(start=start, ensure_schema=ensure_schema, settings=settings,
                 embedder_factory=_embedder_announced)


def relative(ts: datetime | None, now: datetime | None = None) -> str:
    """:func:`graphmem.retrieval.reltime.relative` ('3 minutes ago'), imported on first use."""
    from ..retrieval.reltime import relative as _relative

    return _relative(ts, now)


def add_json_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def to_jsonable(value: Any) -> Any:
    if hasattr(value, "model_dump"):  # a pydantic model (pydantic itself is not imported for this)
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return value


def emit_json(value: Any) -> None:
    json.dump(to_jsonable(value), sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def print_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, max_width: int = 60) -> None:
    cells = [[str(h) for h in headers]] + [
        [(str(c) if c is not None else "-").replace("\n", " ")[:max_width] for c in r] for r in rows
    ]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for n, r in enumerate(cells):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


class Progress:
    """A small progress bar on stderr (only drawn when stderr is a terminal, else periodic lines)."""

    def __init__(self, total: int | None, label: str, *, stream: Any = None) -> None:
        self.total = total
        self.label = label
        self.done = 0
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last = 0.0
        self._start = time.monotonic()

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self._last >= (0.1 if self.tty else 5.0) or (self.total and self.done >= self.total):
            self._last = now
            self._draw()

    def _draw(self) -> None:
        rate = self.done / max(1e-9, time.monotonic() - self._start)
        if self.total:
            frac = min(1.0, self.done / self.total)
            bar = "#" * int(frac * 30)
            text = f"{self.label} [{bar:<30}] {self.done}/{self.total} ({rate:,.0f}/s)"
        else:
            text = f"{self.label} {self.done} ({rate:,.0f}/s)"
        if self.tty:
            self.stream.write("\r" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        self._draw()
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def wrap(self, items: Iterable[T]) -> Iterator[T]:
        for item in items:
            yield item
            self.advance()
        self.close()
