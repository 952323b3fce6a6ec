"""One entry point over the four importers: format detection, full import, incremental read.

``parse_transcript`` imports a whole file (idempotent: the same file gives the same source ids);
``read_new`` returns only what was appended since a :class:`ReadCursor` (for Stop hooks).
Incremental reads use byte offsets for the JSONL formats (Claude Code, Codex) and a full re-read
filtered by the last source id for Gemini (whose files are rewritten in place). Aider has no
hooks, so it has no incremental read: re-import the file, which adds nothing already stored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from ..errors import InvalidInput
from ._common import ImportedSession, ReadCursor, iter_lines
from .aider import parse_aider
from .claude_code import parse_claude_code, read_new_claude_code
from .codex import parse_codex, read_new_codex
from .gemini import parse_gemini, read_new_gemini

__all__ = ["AgentName", "detect_agent", "parse_transcript", "read_new"]

AgentName = Literal["claude-code", "codex", "gemini", "aider"]

_CLAUDE_TYPES = frozenset(
    {"user", "assistant", "summary", "system", "progress", "file-history-snapshot", "queue-operation", "attachment"}
)
_CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_ALIASES = {"claude": "claude-code", "claude_code": "claude-code", "gemini-cli": "gemini", "codex-cli": "codex"}


def _agent(name: str) -> str:
    n = _ALIASES.get(name.lower(), name.lower())
    if n not in ("claude-code", "codex", "gemini", "aider"):
        raise InvalidInput(f"unknown agent {name!r} (expected claude-code, codex, gemini or aider)")
    return n


def detect_agent(path: str | os.PathLike[str]) -> str:
    """Which CLI wrote ``path``, from its name and first records. Raises ``InvalidInput``."""
    p = Path(path)
    name = p.name.lower()
    if name.endswith(".md") or "aider.chat.history" in name:
        return "aider"
    if name.endswith(".json"):
        return "gemini"
    for line in iter_lines(path):
        if line.lineno > 50:
            break
        try:
            obj = json.loads(line.text)
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict):
            continue
        rtype = obj.get("type")
        if rtype in _CODEX_TYPES and "payload" in obj:
            return "codex"
        if "sessionId" in obj and "projectHash" in obj:
            return "gemini"
        if rtype in _CLAUDE_TYPES or "parentUuid" in obj:
            return "claude-code"
        if "record_type" in obj or (rtype is None and "instructions" in obj):
            return "codex"
    if name.startswith("rollout-"):
        return "codex"
    if name.startswith("session-"):
        return "gemini"
    raise InvalidInput(f"cannot tell which CLI wrote {os.fspath(path)!r}")


def parse_transcript(
    path: str | os.PathLike[str],
    *,
    agent: str | None = None,
    cwd: str | None = None,
    skip_nomem: bool = True,
    redact: bool = True,
) -> list[ImportedSession]:
    """Import every session of a transcript file (one, except Aider files)."""
    name = _agent(agent) if agent else detect_agent(path)
    if name == "claude-code":
        return [parse_claude_code(path, skip_nomem=skip_nomem, redact=redact)]
    if name == "codex":
        return [parse_codex(path, skip_nomem=skip_nomem, redact=redact)]
    if name == "gemini":
        return [parse_gemini(path, cwd=cwd, skip_nomem=skip_nomem, redact=redact)]
    return parse_aider(path, cwd=cwd, skip_nomem=skip_nomem, redact=redact)


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

    ``final`` also returns a last turn nothing marks as finished (use at session end).
    ``last_assistant_message`` is the Stop hook's final text (Claude Code/Codex
    ``last_assistant_message``, Gemini ``prompt_response``): it finishes the last turn even if
    the transcript was not flushed yet. ``cwd``/``session_id`` (from the hook input) fill what
    the unread part may not say.
    """
    name = _agent(agent) if agent else detect_agent(path)
    tail = last_assistant_message
    if name == "claude-code":
        s = read_new_claude_code(
            path,
            cursor,
            final=final,
            skip_nomem=skip_nomem,
            redact=redact,
            last_assistant_message=tail,
            session_id=session_id,
        )
    elif name == "codex":
        s = read_new_codex(
            path,
            cursor,
            final=final,
            skip_nomem=skip_nomem,
            redact=redact,
            session_id=session_id,
            last_assistant_message=tail,
        )
    elif name == "gemini":
        s = read_new_gemini(
            path, cursor, cwd=cwd, final=final, skip_nomem=skip_nomem, redact=redact, last_assistant_message=tail
        )
    else:
        raise InvalidInput("Aider has no incremental reading (no hooks); re-import the file with parse_aider")
    if cwd and not s.cwd:
        s.cwd = cwd
    return s
