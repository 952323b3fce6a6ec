"""File history: what happened to one file of a project, read from the ``(:File)`` nodes that the
store links to the tool calls naming them (``(:ToolCall)-[:TOUCHED {action}]->(:File {project, path})``).

The write path records them (``turns/append``, through :func:`graphmem.file_paths.touched_files`);
schema step 0101 adds them to tool calls stored before. :func:`file_history` returns the latest
touches with the request of their turn, the failed calls and the summaries that mention the path;
:func:`render_file_history` turns it into the short text a ``PreToolUse`` hook injects.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from .arguments import count
from .db import Database
from .db.rows import native
from .errors import InvalidInput, quoted
from .file_paths import ACTIONS, EDIT_ACTIONS, normalize_path, project_relative
from .paths import normalize_cwd

__all__ = ["FileHistory", "FileSummary", "FileTouch", "file_history", "render_file_history", "resolve_file"]

REQUEST_CHARS = 300
SUMMARY_CHARS = 400


class FileTouch(BaseModel):
    """One tool call that named the file."""

    action: str
    tool: str
    success: bool | None = None
    at: datetime | None = None
    session_id: str
    turn_id: str
    turn_index: int
    request: str = ""
    """The start of the user's message in the turn that made the call."""
    result: str | None = None
    """The start of the call's result when it failed (the error)."""


class FileSummary(BaseModel):
    """A summary of the project whose text mentions the file."""

    id: str
    level: int | None = None
    session_id: str | None = None
    at: datetime | None = None
    text: str = ""


class FileHistory(BaseModel):
    """What happened to ``path`` (relative to ``project`` when inside it), newest first."""

    project: str
    path: str
    touches: list[FileTouch] = Field(default_factory=list)
    failures: list[FileTouch] = Field(default_factory=list)
    summaries: list[FileSummary] = Field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.touches or self.failures or self.summaries)


def resolve_file(path: str, *, cwd: str, project: str) -> str:
    """``path`` as the store keys it in ``project``: normalised, resolved against ``cwd`` when
    relative, relative to the project root when inside it. Raises :class:`InvalidInput` for a path
    that names no single file."""
    clean = normalize_path(path)
    if clean is None:
        raise InvalidInput(f"not a file path: {quoted(path)}")
    return project_relative(clean, normalize_cwd(cwd), normalize_cwd(project))


def _touch(row: dict[str, Any]) -> FileTouch:
    return FileTouch(action=row["action"], tool=row["tool"], success=row.get("success"), at=native(row.get("at")),
                     session_id=row["sessionId"], turn_id=row["turnId"], turn_index=row["turnIndex"],
                     request=row.get("request") or "", result=row.get("result"))


def file_history(
    db: Database,
    project: str,
    path: str,
    *,
    cwd: str | None = None,
    limit: int = 10,
    actions: Sequence[str] | None = None,
    failure_limit: int = 5,
    summary_limit: int = 3,
    request_chars: int = REQUEST_CHARS,
) -> FileHistory:
    """The history of ``path`` in ``project`` (a relative path is taken from ``cwd``, default the
    project root): the ``limit`` latest touches of ``actions`` (default all), the ``failure_limit`` latest failed
    calls and the ``summary_limit`` latest summaries mentioning it. Empty for a file never touched."""
    if isinstance(actions, str):
        raise InvalidInput(f"actions must be a list of strings, not a single str (write [{quoted(actions)}])")
    actions = ACTIONS if actions is None else tuple(actions)
    for name, value in (("limit", limit), ("failure_limit", failure_limit), ("summary_limit", summary_limit),
                        ("request_chars", request_chars)):
        count(value, name, minimum=0)
    unknown = sorted(set(actions) - set(ACTIONS))
    if unknown:
        raise InvalidInput(f"unknown file actions {unknown} (expected some of {', '.join(ACTIONS)})")
    root = normalize_cwd(project)
    key = resolve_file(path, cwd=cwd or root, project=root)
    rows = db.read("files/history", project=root, path=key, actions=list(actions), limit=limit,
                   failureLimit=failure_limit, summaryLimit=summary_limit, requestChars=request_chars,
                   summaryChars=SUMMARY_CHARS)
    if not rows:
        return FileHistory(project=root, path=key)
    r = rows[0]
    return FileHistory(
        project=root,
        path=key,
        touches=[_touch(t) for t in r["touches"]],
        failures=[_touch(t) for t in r["failures"]],
        summaries=[FileSummary(id=m["id"], level=m.get("level"), session_id=m.get("sessionId"),
                               at=native(m.get("at")), text=m.get("text") or "") for m in r["summaries"]],
    )


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(0, limit - 1)] + "…"


def _when(at: datetime | None, relative: Any) -> str:
    return relative(at) if at is not None and relative is not None else (at.isoformat() if at else "?")


def render_file_history(history: FileHistory, *, relative: Any = None, line_chars: int = 200) -> str:
    """A short text of the history for an agent about to use the file ('' when there is none):
    the latest edits with their requests, the failures and the summaries mentioning it.
    ``relative`` formats a datetime (e.g. '2 hours ago'); ISO text otherwise."""
    if history.empty:
        return ""
    lines = [f"graphmem file history of {history.path} (earlier sessions of this project):"]
    edits = [t for t in history.touches if t.action in EDIT_ACTIONS]
    if edits:
        lines.append("Latest edits:")
        for t in edits:
            state = " (failed)" if t.success is False else ""
            lines.append(f"- {_when(t.at, relative)}: {t.tool}{state}, asked: \"{_one_line(t.request, line_chars)}\"")
    if history.failures:
        lines.append("Failed tool calls on it:")
        for t in history.failures:
            lines.append(f"- {_when(t.at, relative)}: {t.tool} failed: {_one_line(t.result or '', line_chars)}"
                         f" (asked: \"{_one_line(t.request, line_chars // 2)}\")")
    if history.summaries:
        lines.append("Summaries mentioning it:")
        for m in history.summaries:
            lines.append(f"- {_when(m.at, relative)}: {_one_line(m.text, line_chars * 2)}")
    if len(lines) == 1:
        return ""
    return "\n".join(lines)
