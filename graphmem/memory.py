"""GraphMemory: the synchronous facade over the conversation store.

The write path is short: :meth:`GraphMemory.store_turn` is one write transaction (turn, tool
calls, ``HAS_TURN``, ``NEXT``, session activity) and marks the turn ``embedState: 'pending'`` and
``summaryState: 'pending'`` for the worker; nothing slow happens in it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .config import Settings
from .db import Database, apply_schema, open_database, schema_status
from .errors import InvalidInput, SessionNotFound
from .models import (
    Session,
    SessionDetail,
    SessionInfo,
    ToolCall,
    ToolCallIn,
    Turn,
    TurnIn,
    clean_text,
    utcnow,
)
from .paths import find_project_root, normalize_cwd

__all__ = ["LOCAL_EMBEDDING_DIMENSIONS", "LOCAL_EMBEDDING_MODEL", "GraphMemory", "ImportResult"]

LOCAL_EMBEDDING_MODEL = "use-multilingual-v3"
LOCAL_EMBEDDING_DIMENSIONS = 512
MAX_ID_CHARS = 512


@dataclass(frozen=True)
class ImportResult:
    """What :meth:`GraphMemory.import_turns` did."""

    created: int
    skipped: int


def _native(value: Any) -> Any:
    """neo4j.time values -> datetime; everything else unchanged."""
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def _row_to_dict(row: dict[str, Any] | None) -> dict[str, Any]:
    return {k: _native(v) for k, v in (row or {}).items()}


def _check_id(value: str, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_ID_CHARS:
        raise InvalidInput(f"invalid {what}: must be a non-empty string of at most {MAX_ID_CHARS} characters")
    return clean_text(value)


def _when(ts: datetime | None) -> datetime:
    if ts is None:
        return utcnow()
    if ts.tzinfo is None:
        raise InvalidInput("timestamps must be timezone-aware")
    return ts


def _tool_rows(calls: Sequence[ToolCallIn | dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for order, raw in enumerate(calls):
        c = raw if isinstance(raw, ToolCallIn) else ToolCallIn.model_validate(raw)
        rows.append(
            {
                "id": str(uuid.uuid4()),
                "order": order,
                "name": c.name,
                "args": c.args_json(),
                "result": c.result,
                "success": c.success,
                "durationMs": c.duration_ms,
                "timestamp": c.timestamp,
                "sourceId": c.source_id,
            }
        )
    return rows


def _turn_from_row(turn: dict[str, Any], calls: list[dict[str, Any]]) -> Turn:
    t = _row_to_dict(turn)
    return Turn(
        id=t["id"],
        session_id=t["sessionId"],
        index=t["index"],
        user_message=t["userMessage"],
        assistant_message=t["assistantMessage"],
        timestamp=t["timestamp"],
        char_count=t["charCount"],
        source_id=t.get("sourceId"),
        tool_calls=[
            ToolCall(
                id=c["id"],
                name=c["name"],
                args=c.get("args") or "",
                result=c.get("result"),
                success=c.get("success"),
                duration_ms=c.get("durationMs"),
                timestamp=_native(c.get("timestamp")),
                order=c.get("order") or 0,
            )
            for c in calls
        ],
    )


def _session_from_row(row: dict[str, Any]) -> dict[str, Any]:
    s = _row_to_dict(row)
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


class GraphMemory:
    """Long-term conversational memory on a Neo4j graph.

    Construct it with an open :class:`~graphmem.db.Database` (the caller owns configuration), or
    with :meth:`from_settings` to resolve it from the environment. Use it as a context manager or
    call :meth:`close`.
    """

    def __init__(
        self,
        db: Database,
        *,
        embedding_model: str = LOCAL_EMBEDDING_MODEL,
        embedding_dimensions: int = LOCAL_EMBEDDING_DIMENSIONS,
        worktree_as_project: bool = True,
    ) -> None:
        self.db = db
        self.embedding_model = embedding_model
        self.embedding_dimensions = embedding_dimensions
        self.worktree_as_project = worktree_as_project

    @classmethod
    def from_settings(cls, settings: Settings | None = None, *, start: bool = False) -> GraphMemory:
        """Connect as configured (explicit URI, else the managed server; ``start`` starts it)."""
        settings = settings or Settings.load()
        db = open_database(settings, start=start)
        return cls(
            db,
            embedding_model=settings.embedding_model or LOCAL_EMBEDDING_MODEL,
            embedding_dimensions=settings.embedding_dimensions or LOCAL_EMBEDDING_DIMENSIONS,
        )

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> GraphMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema ----------------------------------------------------------------------------
    def init_schema(self) -> int:
        """Apply the schema (idempotent) and return its version."""
        return apply_schema(self.db, dimensions=self.embedding_dimensions, model=self.embedding_model)

    def await_text_index(self) -> None:
        """Wait until the (eventually consistent) full-text indexes include every committed write.

        They are eventually consistent so that a commit does not pay for a Lucene refresh; the
        lag is normally milliseconds. Call this when a search must see a write just made."""
        self.db.write("meta/await_fulltext_refresh")

    def ensure_schema(self) -> None:
        """Apply the schema when the database has none (cheap check otherwise)."""
        status = schema_status(self.db)
        if status["version"] != status["expected"]:
            self.init_schema()

    # -- sessions --------------------------------------------------------------------------
    def create_session(
        self,
        cwd: str,
        project_path: str | None = None,
        agent: str | None = None,
        *,
        session_id: str | None = None,
        title: str | None = None,
        started_at: datetime | None = None,
    ) -> Session:
        """Create a session for ``cwd`` (normalised); the project defaults to its git root.

        With an existing ``session_id`` (e.g. a coding CLI's own id) that session is returned.
        """
        norm = normalize_cwd(cwd)
        project = normalize_cwd(project_path) if project_path else find_project_root(
            norm, worktree_as_project=self.worktree_as_project
        )
        rows = self.db.write(
            "sessions/create",
            id=_check_id(session_id, "session id") if session_id is not None else str(uuid.uuid4()),
            cwd=norm,
            projectPath=project,
            agent=clean_text(agent) if agent else None,
            title=clean_text(title) if title else None,
            startedAt=_when(started_at),
        )
        return Session(**_session_from_row(rows[0]["session"]))

    def get_session(self, session_id: str) -> Session:
        rows = self.db.read("sessions/get", id=_check_id(session_id, "session id"))
        if not rows:
            raise SessionNotFound(session_id)
        return Session(**_session_from_row(rows[0]["session"]))

    def sessions_for(self, cwd: str, *, limit: int = 50, preview_chars: int = 120) -> list[SessionInfo]:
        """Sessions of a directory, newest activity first, with turn count and last message preview."""
        rows = self.db.read("sessions/for_cwd", cwd=normalize_cwd(cwd), limit=limit, previewChars=preview_chars)
        return [SessionInfo(**_session_from_row(r["session"]), last_message=r["lastMessage"]) for r in rows]

    def sessions_for_project(self, project_path: str, *, limit: int = 50, preview_chars: int = 120) -> list[SessionInfo]:
        """Sessions of a project (git root), newest activity first."""
        rows = self.db.read(
            "sessions/for_project", projectPath=normalize_cwd(project_path), limit=limit, previewChars=preview_chars
        )
        return [SessionInfo(**_session_from_row(r["session"]), last_message=r["lastMessage"]) for r in rows]

    def load_session(self, session_id: str) -> SessionDetail:
        """The session with all its turns and their tool calls, in order."""
        session = self.get_session(session_id)
        rows = self.db.read("sessions/turns", id=session.id)
        turns = [_turn_from_row(r["turn"], r["toolCalls"]) for r in rows]
        return SessionDetail(**session.model_dump(), turns=turns)

    def delete_session(self, session_id: str) -> int:
        """Delete a session and everything under it; returns the number of turns deleted."""
        rows = self.db.write("sessions/delete", id=_check_id(session_id, "session id"))
        if not rows:
            raise SessionNotFound(session_id)
        return int(rows[0]["turnCount"])

    # -- turns -----------------------------------------------------------------------------
    def store_turn(
        self,
        session_id: str,
        user_message: str,
        assistant_message: str,
        tool_calls: Sequence[ToolCallIn | dict[str, Any]] = (),
        timestamp: datetime | None = None,
    ) -> Turn:
        """Append a turn in one write transaction and mark it pending for the worker."""
        turn_in = TurnIn(
            user_message=user_message,
            assistant_message=assistant_message,
            tool_calls=[c if isinstance(c, ToolCallIn) else ToolCallIn.model_validate(c) for c in tool_calls],
            timestamp=timestamp,
        )
        ts = _when(turn_in.timestamp)
        calls = _tool_rows(turn_in.tool_calls)
        turn_id = str(uuid.uuid4())
        rows = self.db.write(
            "turns/store",
            sessionId=_check_id(session_id, "session id"),
            turnId=turn_id,
            userMessage=turn_in.user_message,
            assistantMessage=turn_in.assistant_message,
            timestamp=ts,
            charCount=len(turn_in.user_message) + len(turn_in.assistant_message),
            toolCalls=calls,
        )
        if not rows:
            raise SessionNotFound(session_id)
        return Turn(
            id=turn_id,
            session_id=session_id,
            index=rows[0]["index"],
            user_message=turn_in.user_message,
            assistant_message=turn_in.assistant_message,
            timestamp=ts,
            char_count=len(turn_in.user_message) + len(turn_in.assistant_message),
            tool_calls=[
                ToolCall(
                    id=c["id"], name=c["name"], args=c["args"], result=c["result"], success=c["success"],
                    duration_ms=c["durationMs"], timestamp=c["timestamp"], order=c["order"],
                )
                for c in calls
            ],
        )

    def import_turns(
        self, session_id: str, turns: Iterable[TurnIn | dict[str, Any]], *, batch_size: int = 500
    ) -> ImportResult:
        """Append many turns in order, in UNWIND batches; turns whose ``source_id`` is already stored
        in this session are skipped, so importing the same transcript twice adds nothing."""
        sid = _check_id(session_id, "session id")
        self.get_session(sid)
        created = skipped = 0
        batch: list[dict[str, Any]] = []
        seen: set[str] = set()

        def flush() -> None:
            nonlocal created, skipped, batch
            if not batch:
                return
            rows = self.db.write("turns/import_batch", sessionId=sid, rows=batch)
            n = int(rows[0]["created"]) if rows else 0
            created += n
            skipped += len(batch) - n
            batch = []

        for raw in turns:
            t = raw if isinstance(raw, TurnIn) else TurnIn.model_validate(raw)
            key = f"{sid}\x1f{t.source_id}" if t.source_id is not None else None
            if key is not None:
                if key in seen:
                    skipped += 1
                    continue
                seen.add(key)
            batch.append(
                {
                    "id": str(uuid.uuid4()),
                    "userMessage": t.user_message,
                    "assistantMessage": t.assistant_message,
                    "timestamp": _when(t.timestamp),
                    "charCount": len(t.user_message) + len(t.assistant_message),
                    "sourceId": t.source_id,
                    "sourceKey": key,
                    "toolCalls": _tool_rows(t.tool_calls),
                }
            )
            if len(batch) >= batch_size:
                flush()
        flush()
        return ImportResult(created=created, skipped=skipped)

    def get_turn(self, turn_id: str) -> Turn:
        rows = self.db.read("turns/get", id=_check_id(turn_id, "turn id"))
        if not rows:
            raise InvalidInput(f"turn not found: {turn_id!r}")
        return _turn_from_row(rows[0]["turn"], rows[0]["toolCalls"])

    def recent_turns(self, session_id: str, max_chars: int = 5000, limit: int = 3) -> list[Turn]:
        """Seed 004 getRecentTurns: up to ``limit`` latest turns whose characters fit in
        ``max_chars``, oldest first. The newest turn is always included (callers truncate)."""
        sid = _check_id(session_id, "session id")
        rows = self.db.read("turns/recent", sessionId=sid, limit=limit)
        if not rows:
            self.get_session(sid)  # raises SessionNotFound for an unknown id
            return []
        picked: list[Turn] = []
        used = 0
        for r in rows:
            t = _turn_from_row(r["turn"], r["toolCalls"])
            if picked and used + t.char_count > max_chars:
                break
            picked.append(t)
            used += t.char_count
        return list(reversed(picked))

    def raw_history_chars(self, session_id: str) -> int:
        """Seed 004 getRawHistoryCharCount: characters of turns not yet covered by a level-1 summary."""
        sid = _check_id(session_id, "session id")
        rows = self.db.read("turns/raw_history_chars", sessionId=sid)
        if not rows:
            self.get_session(sid)
            return 0
        return int(rows[0]["chars"] or 0)
