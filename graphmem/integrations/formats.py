"""The table of transcript formats, and the entry points over it: format lookup and detection,
whole-file import, incremental reading.

Every CLI's format is one :class:`~graphmem.integrations.transcript.TranscriptFormat` in
:data:`FORMATS`; callers look a format up by name (:func:`transcript_format`) or let the file
say (:func:`detect_format`). ``parse_transcript`` imports a whole file (idempotent: the same file
gives the same source ids); ``read_new`` returns only what was appended since a
:class:`ReadCursor` (for Stop hooks). A format resumed at an offset (Claude Code, Codex: JSONL
files that only grow) is read on from the cursor's byte offset; a format resumed by source id
(Gemini, whose files are rewritten in place) is read whole and filtered by the cursor's last
source id; a format without incremental reading (Aider: no hooks) is imported again whole, which
adds nothing already stored.
"""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path
from typing import Literal

from ..errors import InvalidInput, quoted
from . import aider, claude_code, codex, gemini
from .transcript import ImportedSession, ReadCursor, ReadOptions, TranscriptFormat, checked_start, iter_lines

__all__ = [
    "AUTO_PATTERNS",
    "FORMATS",
    "AgentName",
    "canonical_agent",
    "detect_agent",
    "detect_format",
    "parse_transcript",
    "read_new",
    "read_new_claude_code",
    "read_new_codex",
    "read_new_gemini",
    "transcript_format",
]

AgentName = Literal["claude-code", "codex", "gemini", "aider"]

FORMATS: tuple[TranscriptFormat, ...] = (claude_code.FORMAT, codex.FORMAT, aider.FORMAT, gemini.FORMAT)
"""Every transcript format graphmem reads, one per CLI. File names are tried in this order (an
Aider history name wins over Gemini's ``.json``); records by the rank of their rules."""

AUTO_PATTERNS = ("*.jsonl", "session-*.json", ".aider.chat.history.md")
"""File name patterns searched in folders when the format is not given."""

_BY_NAME = {n: f for f in FORMATS for n in (f.name, *f.aliases)}
_DETECT_LINES = 50


def transcript_format(name: str) -> TranscriptFormat:
    """The format of agent ``name`` (any accepted spelling, any case); ``InvalidInput`` if unknown."""
    fmt = _BY_NAME.get(name.lower())
    if fmt is None:
        known = ", ".join(f.name for f in FORMATS)
        raise InvalidInput(f"unknown agent {quoted(name)} (expected one of {known})")
    return fmt


def canonical_agent(name: str) -> str | None:
    """The agent name ``name`` spells (``claude`` -> ``claude-code``), or None if it names none."""
    fmt = _BY_NAME.get(name.lower())
    return fmt.name if fmt is not None else None


def detect_format(path: str | os.PathLike[str]) -> TranscriptFormat:
    """The format of the file at ``path``, from its name and first records. Raises ``InvalidInput``."""
    name = Path(path).name.lower()
    for fmt in FORMATS:
        if fmt.claims_name is not None and fmt.claims_name(name):
            return fmt
    for line in iter_lines(path):
        if line.lineno > _DETECT_LINES:
            break
        try:
            obj = json.loads(line.text)
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict):
            continue
        matches = [(rank, fmt) for fmt in FORMATS for rank, rule in fmt.record_rules if rule(obj)]
        if matches:
            return min(matches, key=lambda m: m[0])[1]
    for fmt in FORMATS:
        if fmt.name_hint is not None and fmt.name_hint(name):
            return fmt
    raise InvalidInput(f"cannot tell which CLI wrote {quoted(os.fspath(path))}")


def detect_agent(path: str | os.PathLike[str]) -> str:
    """The name of the CLI that wrote ``path`` (see :func:`detect_format`)."""
    return detect_format(path).name


def parse_transcript(
    path: str | os.PathLike[str],
    *,
    agent: str | None = None,
    cwd: str | None = None,
    skip_nomem: bool = True,
    redact: bool = True,
) -> list[ImportedSession]:
    """Import every session of a transcript file (one, except Aider files)."""
    fmt = transcript_format(agent) if agent else detect_format(path)
    return fmt.read(path, ReadOptions(cwd=cwd, skip_nomem=skip_nomem, redact=redact))


def read_new(
    path: str | os.PathLike[str],
    cursor: ReadCursor | None = None,
    *,
    agent: str | None = None,
    final: bool = False,
    cwd: str | None = None,
    session_id: str | None = None,
    last_assistant_message: str | None = None,
    skip_nomem: bool = True,
    redact: bool = True,
) -> ImportedSession:
    """Finished turns added to ``path`` since ``cursor``; pass the result's ``cursor`` next time.

    Only finished turns are returned: a turn is finished when a later prompt or the format's own
    end-of-turn record follows it, when ``last_assistant_message`` (the Stop hook's final text:
    Claude Code/Codex ``last_assistant_message``, Gemini ``prompt_response``) is given, which
    finishes the last turn even if the transcript was not flushed yet, or with ``final`` (session
    end). An unfinished last turn is read again next time. If the file shrank or the cursor no
    longer falls on a line start, the file is read again from the start and turns up to
    ``cursor.last_source_id`` are skipped. ``cwd``/``session_id`` (from the hook input) fill what
    the unread part may not say; ``started_at`` and ``title`` describe only the part read.
    Raises ``InvalidInput`` if the file cannot be read, or for a format without incremental reading.
    """
    fmt = transcript_format(agent) if agent else detect_format(path)
    if fmt.resume is None:
        raise InvalidInput(f"{fmt.label} has no incremental reading (no hooks); re-import the whole file")
    cursor = cursor or ReadCursor()
    start, warning = checked_start(path, cursor.offset) if fmt.resume == "offset" else (0, None)
    options = ReadOptions(
        start=start,
        after_source_id=cursor.last_source_id,
        final=final,
        incremental=True,
        cwd=cwd,
        session_id=session_id,
        tail_text=last_assistant_message,
        skip_nomem=skip_nomem,
        redact=redact,
    )
    (session,) = fmt.read(path, options)
    if warning:
        session.warnings.insert(0, warning)
    if session.cursor.last_source_id is None:
        session.cursor.last_source_id = cursor.last_source_id
    if cwd and not session.cwd:
        session.cwd = cwd
    return session


read_new_claude_code = partial(read_new, agent="claude-code")
"""``read_new`` of a Claude Code transcript."""
read_new_codex = partial(read_new, agent="codex")
"""``read_new`` of a Codex rollout."""
read_new_gemini = partial(read_new, agent="gemini")
"""``read_new`` of a Gemini CLI session file."""
