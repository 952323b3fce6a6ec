"""What every transcript format shares (no database code): the result of a read
(:class:`ImportedSession`, :class:`ReadCursor`), the options of a read (:class:`ReadOptions`),
the description of a format (:class:`TranscriptFormat`), diagnostics, and byte-exact line reading.

Every format turns a CLI's own transcript into :class:`ImportedSession` objects whose turns
carry a ``source_id`` taken from (or derived deterministically from) the source, so importing
the same file twice yields the same ids. Bad content never raises: it becomes a warning and the
reader goes on; only a file that cannot be read raises :class:`~graphmem.errors.InvalidInput`.
The formats themselves are registered in :mod:`graphmem.integrations.formats`.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InvalidInput, quoted
from ..models import TurnIn

__all__ = [
    "COMPACTION_MARKER",
    "CONTEXT_CLOSE",
    "CONTEXT_OPEN",
    "INTERRUPTED_NOTE",
    "Diagnostics",
    "ImportedSession",
    "RawLine",
    "ReadCursor",
    "ReadOptions",
    "Source",
    "TranscriptFormat",
    "checked_start",
    "decode",
    "file_size",
    "iter_lines",
    "load_json_line",
    "read_bytes",
    "source_path",
]

COMPACTION_MARKER = "[compaction summary]"
"""``user_message`` of the marked turn that stores a compaction summary (the summary is the
``assistant_message``). Such turns have no tool calls and their source id is the summary's."""

INTERRUPTED_NOTE = "[interrupted: the transcript holds no result for this tool call]"
"""``result`` of a tool call whose result never reached the transcript (``success`` is None)."""

CONTEXT_OPEN = "<graphmem-context>"
CONTEXT_CLOSE = "</graphmem-context>"
"""Tags around the context graphmem injects through hooks; importers strip these blocks from
user messages so injected memory is never re-imported as something the user said."""

Source = str | os.PathLike[str] | bytes | Iterable[str] | Iterable[bytes]
"""A transcript: a path (``str`` is always a path), the whole content as ``bytes``, or lines."""

_MAX_WARNINGS_PER_KIND = 5


class ReadCursor(BaseModel):
    """Where an incremental read stopped: a byte offset plus the last source id emitted.

    ``offset`` is the byte position the next read starts at (always a line start); turns at or
    before ``last_source_id`` are never emitted again, even if the file was rewritten.
    """

    model_config = ConfigDict(extra="ignore")

    offset: int = 0
    last_source_id: str | None = None


class ImportedSession(BaseModel):
    """One session read from a transcript, ready to be stored."""

    agent: str
    """``claude-code``, ``codex``, ``gemini`` or ``aider``."""
    session_id: str
    cwd: str | None = None
    started_at: datetime | None = None
    title: str | None = None
    source_path: str | None = None
    turns: list[TurnIn] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    stats: dict[str, int] = Field(default_factory=dict)
    """Counters: records read, records skipped by kind, duplicates, redactions by kind ..."""
    cursor: ReadCursor = Field(default_factory=ReadCursor)
    """Pass to :func:`~graphmem.integrations.formats.read_new` to get only what was appended after this read."""


# --------------------------------------------------------------------------------------------
# diagnostics


class Diagnostics:
    """Collects warnings (capped per kind, with a final count) and counters."""

    def __init__(self) -> None:
        self._messages: dict[str, list[str]] = {}
        self._counts: dict[str, int] = {}
        self.stats: dict[str, int] = {}

    def warn(self, kind: str, message: str) -> None:
        """Record a warning of ``kind``; past a few per kind only the count is kept."""
        self._counts[kind] = self._counts.get(kind, 0) + 1
        msgs = self._messages.setdefault(kind, [])
        if len(msgs) < _MAX_WARNINGS_PER_KIND:
            msgs.append(message)

    def count(self, key: str, n: int = 1) -> None:
        """Add ``n`` to the counter ``key``."""
        self.stats[key] = self.stats.get(key, 0) + n

    def unknown_types(self, counts: Mapping[str, int]) -> None:
        """Warn once per record type the reader does not know (with how many lines it had)."""
        for kind, n in counts.items():
            self.warn("unknown_type", f"unknown record type {kind!r} ignored ({n} line(s))")
            self.count(f"skipped:unknown:{kind}", n)

    def warnings(self) -> list[str]:
        """The warnings, in the order their kinds first appeared."""
        out: list[str] = []
        for kind, msgs in self._messages.items():
            out.extend(msgs)
            extra = self._counts[kind] - len(msgs)
            if extra > 0:
                out.append(f"... and {extra} more warning(s) of kind {kind!r}")
        return out


# --------------------------------------------------------------------------------------------
# reading lines


@dataclass(slots=True)
class RawLine:
    """One line of a JSONL/Markdown source with its byte span."""

    lineno: int
    offset: int
    end: int
    text: str
    terminated: bool


def source_path(source: Source) -> str | None:
    """The path of a path-like source, else None."""
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    return None


def _open_binary(source: str | os.PathLike[str]) -> io.BufferedReader:
    try:
        return open(source, "rb")
    except OSError as e:
        raise InvalidInput(f"cannot read transcript {quoted(os.fspath(source))}: {e}") from e


def file_size(source: Source) -> int | None:
    """Size in bytes of a path source (None for in-memory sources)."""
    path = source_path(source)
    if path is None:
        return None
    try:
        return os.stat(path).st_size
    except OSError as e:
        raise InvalidInput(f"cannot read transcript {quoted(path)}: {e}") from e


def read_bytes(source: Source) -> bytes:
    """The whole content of a source as bytes."""
    if isinstance(source, bytes):
        return source
    path = source_path(source)
    if path is not None:
        with _open_binary(path) as f:
            try:
                return f.read()
            except OSError as e:
                raise InvalidInput(f"cannot read transcript {quoted(path)}: {e}") from e
    parts: list[bytes] = []
    for item in _items(source):
        chunk = item if isinstance(item, bytes) else str(item).encode("utf-8", errors="surrogatepass")
        parts.append(chunk if chunk.endswith(b"\n") else chunk + b"\n")
    return b"".join(parts)


def _items(source: Source) -> Iterable[str | bytes]:
    """The lines of an in-memory line source."""
    if isinstance(source, str | bytes | os.PathLike):
        raise TypeError("not a line source")
    return source


def decode(raw: bytes) -> str:
    """UTF-8 with invalid bytes replaced (U+FFFD)."""
    return raw.decode("utf-8", errors="replace")


def iter_lines(source: Source, start: int = 0) -> Iterator[RawLine]:
    """The lines of a source from byte ``start`` on, split on ``\\n`` only.

    Lines keep their exact byte spans so a reader can resume at a line start. A final line
    without ``\\n`` has ``terminated=False`` (a writer may still be appending to it).
    """
    path = source_path(source)
    if path is not None:
        with _open_binary(path) as f:
            try:
                f.seek(start)
                yield from _split(f, start)
            except OSError as e:
                raise InvalidInput(f"cannot read transcript {quoted(path)}: {e}") from e
        return
    if isinstance(source, bytes):
        yield from _split(io.BytesIO(source[start:]), start)
        return
    offset = 0
    for lineno, item in enumerate(_items(source), 1):
        raw = item if isinstance(item, bytes) else str(item).encode("utf-8", errors="surrogatepass")
        if not raw.endswith(b"\n"):
            raw += b"\n"
        end = offset + len(raw)
        if offset >= start:
            text = decode(raw).rstrip("\r\n")
            yield RawLine(lineno, offset, end, text, True)
        offset = end


def _split(f: io.BufferedIOBase | io.BytesIO, start: int) -> Iterator[RawLine]:
    offset = start
    for lineno, raw in enumerate(f, 1):
        end = offset + len(raw)
        terminated = raw.endswith(b"\n")
        text = decode(raw)
        if lineno == 1 and offset == 0 and text.startswith("\ufeff"):
            text = text[1:]
        yield RawLine(lineno, offset, end, text.rstrip("\r\n"), terminated)
        offset = end


def load_json_line(line: RawLine, diag: Diagnostics, *, incremental: bool) -> dict[str, Any] | None:
    """Parse one JSONL line into an object, or record why it was skipped (never raises).

    An unterminated last line that does not parse is a truncated write: a warning in a full
    read, silently left for later in an incremental read (the caller does not consume it).
    """
    text = line.text.strip()
    if not text:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as e:
        if not line.terminated:
            if not incremental:
                diag.warn("truncated", f"line {line.lineno}: truncated last line ignored ({len(text)} chars)")
                diag.count("truncated_lines")
            return None
        diag.warn("invalid_json", f"line {line.lineno}: invalid JSON ignored ({_short_error(e)})")
        diag.count("invalid_lines")
        return None
    if not isinstance(value, dict):
        diag.warn("not_object", f"line {line.lineno}: JSON value is not an object, ignored")
        diag.count("invalid_lines")
        return None
    return value


def _short_error(e: BaseException) -> str:
    text = str(e) or type(e).__name__
    return text[:120]


def checked_start(path: str | os.PathLike[str], offset: int) -> tuple[int, str | None]:
    """``offset`` if it is still a line start of ``path``, else 0 with a warning (the file shrank
    or was rewritten: it is read again from the start)."""
    size = file_size(path) or 0
    if offset <= 0:
        return 0, None
    if offset > size:
        return 0, f"transcript is shorter than the cursor ({size} < {offset} bytes); re-read from the start"
    try:
        with open(path, "rb") as f:
            f.seek(offset - 1)
            before = f.read(1)
    except OSError as e:
        raise InvalidInput(f"cannot read transcript {quoted(os.fspath(path))}: {e}") from e
    if before != b"\n":
        return 0, "cursor does not fall on a line start (file rewritten?); re-read from the start"
    return offset, None


# --------------------------------------------------------------------------------------------
# formats


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """One set of options for a read of any format (each format uses those it needs)."""

    start: int = 0
    """Byte offset the read starts at (formats resumed at an offset; 0: the whole file)."""
    after_source_id: str | None = None
    """Turns up to this source id (the cursor's) are not returned again."""
    final: bool = True
    """Also return a last turn nothing marks as finished (a whole import, or the session's end)."""
    incremental: bool = False
    """Reading on from a cursor while the CLI may still write: an unterminated last line waits."""
    cwd: str | None = None
    """The session's directory when the transcript does not say (hook input, ``--cwd``)."""
    session_id: str | None = None
    """The session's id when the part read does not say (hook input)."""
    tail_text: str | None = None
    """A Stop hook's final assistant text: it finishes the last turn."""
    skip_nomem: bool = True
    """Drop the turns whose prompt carries ``#nomem``."""
    redact: bool = True
    """Replace secrets in every turn."""


Reader = Callable[[Source, ReadOptions], list[ImportedSession]]
RecordRule = tuple[int, Callable[[dict[str, Any]], bool]]


@dataclass(frozen=True)
class TranscriptFormat:
    """One CLI's transcript format: its names, how to read it, how to find and recognise its files."""

    name: str
    """The agent name stored on sessions (``claude-code``, ``codex``, ``gemini``, ``aider``)."""
    label: str
    """The CLI's name in messages."""
    read: Reader
    """Read a transcript with the given options: its sessions (one, except Aider files)."""
    resume: Literal["offset", "source-id"] | None
    """How an incremental read goes on from a cursor: at its byte offset (the file only grows),
    by reading the whole file again and skipping turns up to its source id (the file is
    rewritten in place), or not at all (None: the CLI has no hooks; re-import the file)."""
    aliases: tuple[str, ...] = ()
    """Other accepted spellings of :attr:`name`."""
    patterns: tuple[str, ...] = ()
    """File name patterns searched in folders."""
    claims_name: Callable[[str], bool] | None = None
    """Whether a (lower-case) file name alone says the file is of this format."""
    record_rules: tuple[RecordRule, ...] = ()
    """``(rank, predicate)`` pairs over a file's first records: the matching rule of lowest rank names
    the format."""
    name_hint: Callable[[str], bool] | None = None
    """Whether a (lower-case) file name suggests this format when no record said."""
