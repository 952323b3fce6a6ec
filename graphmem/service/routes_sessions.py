"""``/api/sessions``: the latest sessions, one session's turns and its summary tree."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from ..paths import normalize_cwd
from ..sessions import session_from_row
from .common import field_errors, state_of

__all__ = ["router"]

router = APIRouter(prefix="/api/sessions", tags=["sessions"])


@router.get("", summary="The most recently active sessions (of everything, or under a path)")
def list_sessions(
    request: Request,
    path: Annotated[str | None, Query(max_length=4096, description="a directory: its sessions and those below")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> dict[str, Any]:
    db = state_of(request).memory.db
    base = None
    if path:
        with field_errors("path"):
            base = normalize_cwd(path)
    rows = db.read("service/recent_sessions", path=base, prefix=None if base is None else base.rstrip("/") + "/",
                   limit=limit, previewChars=160)
    out = []
    for row in rows:
        s = session_from_row(row["session"]).model_dump(mode="json")
        s["last_message"] = row["lastMessage"]
        out.append(s)
    return {"sessions": out}


@router.get("/{session_id}", summary="A session with its turns (and tool calls) and its summary tree")
def read_session(
    request: Request,
    session_id: str,
    turns: Annotated[int, Query(ge=0, le=5000, description="at most this many turns (the latest)")] = 200,
) -> dict[str, Any]:
    """The summary tree: every summary by level (highest first), each with the turn indexes or
    the child summaries it covers, so a timeline can draw the levels above the turns."""
    mem = state_of(request).memory
    with field_errors("session_id"):
        detail = mem.load_session(session_id)
        summaries = mem.summaries(session_id)
    by_id = {s.id: s for s in summaries}
    turn_ids = {t.id: t.index for t in detail.turns}

    def covered(summary_id: str, seen: set[str]) -> list[int]:
        s = by_id.get(summary_id)
        if s is None or summary_id in seen:
            return []
        seen.add(summary_id)
        out: list[int] = []
        for child in s.child_ids:
            if child in turn_ids:
                out.append(turn_ids[child])
            else:
                out.extend(covered(child, seen))
        return out

    tree = []
    for s in sorted(summaries, key=lambda x: (-x.level, x.timestamp)):
        indexes = sorted(covered(s.id, set()))
        tree.append({"id": s.id, "level": s.level, "text": s.summary, "turn_count": s.turn_count,
                     "timestamp": s.timestamp.isoformat(), "method": s.method,
                     "children": [c for c in s.child_ids if c in by_id],
                     "first_turn": indexes[0] if indexes else None, "last_turn": indexes[-1] if indexes else None})
    data = detail.model_dump(mode="json")
    data["turns"] = data["turns"][-turns:] if turns else []
    data["summaries"] = tree
    return data
