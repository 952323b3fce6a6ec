"""Sessions: create, read, list and delete ``(:Session)`` nodes.

A session belongs to a directory (its normalised ``cwd``) and a project (by default the git root
of that directory); it holds its turns (:mod:`graphmem.turns`, which also loads a session with its turns), summaries and fact injections.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from .arguments import count, optional_text
from .db import Database
from .db.rows import native_row
from .errors import InvalidInput, SessionNotFound
from .models import Session, SessionInfo, clean_text, utcnow
from .paths import find_project_root, normalize_cwd

__all__ = [
    "MAX_ID_CHARS",
    "check_id",
    "create_session",
    "delete_session",
    "get_session",
    "session_fields",
    "session_from_row",
    "sessions_for",
    "sessions_for_project",
    "when",
]

MAX_ID_CHARS = 512


def check_id(value: str, what: str) -> str:
    """A session or turn id as given by a caller: a non-empty string of at most
    :data:`MAX_ID_CHARS` characters (:class:`InvalidInput` otherwise)."""
    if not isinstance(value, str) or not value or len(value) > MAX_ID_CHARS:
        raise InvalidInput(f"invalid {what}: must be a non-empty string of at most {MAX_ID_CHARS} characters")
    return clean_text(value)


def when(ts: datetime | None) -> datetime:
    """A caller's timestamp (now when None); a naive one is refused."""
    if ts is None:
        return utcnow()
    if not isinstance(ts, datetime):
        raise InvalidInput(f"timestamps must be timezone-aware datetimes, not {type(ts).__name__}")
    if ts.tzinfo is None:
        raise InvalidInput("timestamps must be timezone-aware")
    return ts


def session_fields(row: dict[str, Any]) -> dict[str, Any]:
    """The :class:`~graphmem.models.Session` fields of a ``s {.id, .cwd, ...}`` map."""
    s = native_row(row)
    return {
        "id": s["id"],
        "cwd": s["cwd"],
        "project_path": s["projectPath"],
        "agent": s.get("agent"),
        "title": s.get("title"),
        "started_at": s["startedAt"],
        "last_activity_at": s["lastActivityAt"],
        "turn_count": s.get("turnCount") or 0,
    }


def session_from_row(row: dict[str, Any]) -> Session:
    return Session(**session_fields(row))


def create_session(
    db: Database,
    cwd: str,
    project_path: str | None = None,
    agent: str | None = None,
    *,
    session_id: str | None = None,
    title: str | None = None,
    started_at: datetime | None = None,
    worktree_as_project: bool = True,
) -> Session:
    """Create a session for ``cwd`` (normalised); the project defaults to its git root (a git
    worktree's own root when ``worktree_as_project``). An existing ``session_id`` is returned as is."""
    norm = normalize_cwd(cwd)
    project = normalize_cwd(project_path) if project_path else find_project_root(
        norm, worktree_as_project=worktree_as_project
    )
    rows = db.write(
        "sessions/create",
        id=check_id(session_id, "session id") if session_id is not None else str(uuid.uuid4()),
        cwd=norm,
        projectPath=project,
        agent=optional_text(agent, "agent") or None,
        title=optional_text(title, "title") or None,
        startedAt=when(started_at),
    )
    return session_from_row(rows[0]["session"])


def get_session(db: Database, session_id: str) -> Session:
    rows = db.read("sessions/get", id=check_id(session_id, "session id"))
    if not rows:
        raise SessionNotFound(session_id)
    return session_from_row(rows[0]["session"])


def sessions_for(db: Database, cwd: str, *, limit: int = 50, preview_chars: int = 120) -> list[SessionInfo]:
    """Sessions of a directory, newest activity first, with turn count and last message preview."""
    rows = db.read("sessions/for_cwd", cwd=normalize_cwd(cwd), limit=count(limit, "limit"),
                   previewChars=count(preview_chars, "preview_chars", minimum=0))
    return [SessionInfo(**session_fields(r["session"]), last_message=r["lastMessage"]) for r in rows]


def sessions_for_project(
    db: Database, project_path: str, *, limit: int = 50, preview_chars: int = 120
) -> list[SessionInfo]:
    """Sessions of a project (git root), newest activity first."""
    rows = db.read(
        "sessions/for_project", projectPath=normalize_cwd(project_path), limit=count(limit, "limit"),
        previewChars=count(preview_chars, "preview_chars", minimum=0),
    )
    return [SessionInfo(**session_fields(r["session"]), last_message=r["lastMessage"]) for r in rows]


def delete_session(db: Database, session_id: str) -> int:
    """Delete a session and everything under it; returns the number of turns deleted."""
    rows = db.write("sessions/delete", id=check_id(session_id, "session id"))
    if not rows:
        raise SessionNotFound(session_id)
    return int(rows[0]["turnCount"])
