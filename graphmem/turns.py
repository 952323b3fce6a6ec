"""Turns: append, read and measure a session's ``(:Turn)`` nodes and their ``(:ToolCall)``.

One statement writes turns (``turns/append``): :func:`store_turn` sends a list of one turn in one
auto-commit round trip and marks it ``embedState: 'pending'`` / ``summaryState: 'pending'`` for
the worker; :func:`import_turns` sends batches of many. Every stored text is redacted once, here,
when ``redact`` is on (see :mod:`graphmem.redaction`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from .arguments import count
from .db import Database
from .db.concurrency import pool_for
from .db.rows import native, native_row
from .errors import NotFound, SessionNotFound
from .file_paths import touched_files
from .models import SessionDetail, ToolCall, ToolCallIn, Turn, TurnIn, input_error
from .redaction import redact_turn_with_kinds
from .sessions import check_id, get_session, when

__all__ = [
    "ImportResult",
    "get_turn",
    "import_turns",
    "load_session",
    "raw_history_chars",
    "recent_turns",
    "session_turns",
    "store_turn",
    "tool_rows",
    "turn_from_row",
    "turn_input",
]


@dataclass(frozen=True)
class ImportResult:
    """What :func:`import_turns` did."""

    created: int
    skipped: int
    redactions: int = 0
    """Secrets replaced in the turns read (counted before the duplicate check)."""


def turn_input(
    user_message: str,
    assistant_message: str,
    tool_calls: Sequence[ToolCallIn | dict[str, Any]] = (),
    timestamp: datetime | None = None,
) -> TurnIn:
    """The :class:`~graphmem.models.TurnIn` of a facade's ``store_turn`` arguments (validated:
    :class:`InvalidInput` naming the bad field, e.g. ``tool_calls[0].name: Field required``)."""
    calls: list[ToolCallIn] = []
    for n, c in enumerate(tool_calls):
        try:
            calls.append(c if isinstance(c, ToolCallIn) else ToolCallIn.model_validate(c))
        except ValidationError as e:
            raise input_error(e, f"tool_calls[{n}]") from None
    try:
        return TurnIn(user_message=user_message, assistant_message=assistant_message, tool_calls=calls,
                      timestamp=timestamp)
    except ValidationError as e:
        raise input_error(e, "turn") from None


def _turn_in(raw: TurnIn | dict[str, Any], n: int) -> TurnIn:
    try:
        return raw if isinstance(raw, TurnIn) else TurnIn.model_validate(raw)
    except ValidationError as e:
        raise input_error(e, f"turns[{n}]") from None


def tool_rows(calls: Sequence[ToolCallIn | dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``toolCalls`` parameter rows of a turn (ids made here, in call order), each with the
    files it names (``files``: path and action, see :mod:`graphmem.file_paths`)."""
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
                "files": [{"path": p, "action": a} for p, a in touched_files(c.name, c.args)],
            }
        )
    return rows


def _tool_call(c: dict[str, Any]) -> ToolCall:
    return ToolCall(
        id=c["id"],
        name=c["name"],
        args=c.get("args") or "",
        result=c.get("result"),
        success=c.get("success"),
        duration_ms=c.get("durationMs"),
        timestamp=native(c.get("timestamp")),
        order=c.get("order") or 0,
        source_id=c.get("sourceId"),
    )


def turn_from_row(turn: dict[str, Any], calls: list[dict[str, Any]]) -> Turn:
    """A :class:`~graphmem.models.Turn` from a ``t {.id, ...}`` map and its tool-call maps."""
    t = native_row(turn)
    return Turn(
        id=t["id"],
        session_id=t["sessionId"],
        index=t["index"],
        user_message=t["userMessage"],
        assistant_message=t["assistantMessage"],
        timestamp=t["timestamp"],
        char_count=t["charCount"],
        source_id=t.get("sourceId"),
        tool_calls=[_tool_call(c) for c in calls],
    )


def _turn_row(session_id: str, turn: TurnIn, *, redact: bool) -> tuple[dict[str, Any], TurnIn, int]:
    """The ``rows`` entry of ``turns/append`` for one turn (redacted when asked), the turn stored and
    how many secrets were replaced."""
    turn, kinds = redact_turn_with_kinds(turn, enabled=redact)
    key = f"{session_id}\x1f{turn.source_id}" if turn.source_id is not None else None
    row = {
        "id": str(uuid.uuid4()),
        "userMessage": turn.user_message,
        "assistantMessage": turn.assistant_message,
        "timestamp": when(turn.timestamp),
        "charCount": len(turn.user_message) + len(turn.assistant_message),
        "sourceId": turn.source_id,
        "sourceKey": key,
        "toolCalls": tool_rows(turn.tool_calls),
    }
    return row, turn, len(kinds)


def store_turn(
    db: Database,
    session_id: str,
    turn: TurnIn,
    *,
    redact: bool = True,
    after: Callable[[], object] | None = None,
) -> Turn:
    """Append one turn in one write transaction and mark it pending for the worker; ``after`` runs
    once it is stored (the facade's inline embedding)."""
    sid = check_id(session_id, "session id")
    row, stored, _ = _turn_row(sid, turn, redact=redact)
    # One round trip (auto-commit); after a lost connection the turn id tells whether it landed.
    rows = db.write_autocommit(
        "turns/append",
        {"sessionId": sid, "rows": [row]},
        recover=lambda: db.read_leader("turns/stored_index", turnId=row["id"]) or None,
    )
    if not rows:
        raise SessionNotFound(session_id)
    if after is not None:
        after()
    return Turn(
        id=row["id"],
        session_id=session_id,
        index=rows[0]["lastIndex"],
        user_message=stored.user_message,
        assistant_message=stored.assistant_message,
        timestamp=row["timestamp"],
        char_count=row["charCount"],
        source_id=stored.source_id,
        tool_calls=[_tool_call(c) for c in row["toolCalls"]],
    )


def import_turns(
    db: Database,
    session_id: str,
    turns: Iterable[TurnIn | dict[str, Any]],
    *,
    redact: bool = True,
    batch_size: int = 500,
) -> ImportResult:
    """Append many turns in order, in batches; turns whose ``source_id`` is already stored in this
    session are skipped, so importing the same transcript twice adds nothing. Every turn is checked
    before the first write: a bad one is an :class:`InvalidInput` naming it (``turns[3].timestamp``)
    and nothing is stored."""
    sid = check_id(session_id, "session id")
    get_session(db, sid)
    created = skipped = redactions = 0
    batch: list[dict[str, Any]] = []
    seen: set[str] = set()
    # One batch is written while the next one is built: the sender thread waits on the socket
    # (GIL released) while this thread validates and packs rows. Batches stay in order: at most
    # one is in flight, and each waits for the one before it.
    sender = pool_for(db, lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-import"))
    in_flight: Future[tuple[int, int]] | None = None

    def send(rows: list[dict[str, Any]]) -> tuple[int, int]:
        # the batch's turn ids tell whether a batch whose commit reply was lost landed
        ids = [r["id"] for r in rows]
        out = db.write_checked("turns/append", {"sessionId": sid, "rows": rows},
                               landed=lambda: db.read_leader("turns/landed", ids=ids) or None)
        n = int(out[0]["created"]) if out else 0
        return n, len(rows) - n

    def collect() -> None:
        nonlocal created, skipped, in_flight
        if in_flight is not None:
            n, dup = in_flight.result()
            created += n
            skipped += dup
            in_flight = None

    def flush() -> None:
        nonlocal batch, in_flight
        if not batch:
            return
        collect()
        in_flight = sender.submit(send, batch)
        batch = []

    checked = [_turn_in(raw, n) for n, raw in enumerate(turns)]  # a bad turn refuses the whole import
    try:
        for turn in checked:
            row, _, found = _turn_row(sid, turn, redact=redact)
            redactions += found
            key = row["sourceKey"]
            if key is not None:
                if key in seen:
                    skipped += 1
                    continue
                seen.add(key)
            batch.append(row)
            if len(batch) >= batch_size:
                flush()
        flush()
        collect()
    finally:
        if sender is not getattr(db, "concurrency", None):
            sender.shutdown(wait=True)
    return ImportResult(created=created, skipped=skipped, redactions=redactions)


def get_turn(db: Database, turn_id: str) -> Turn:
    rows = db.read("turns/get", id=check_id(turn_id, "turn id"))
    if not rows:
        raise NotFound(f"turn not found: {turn_id!r}")
    return turn_from_row(rows[0]["turn"], rows[0]["toolCalls"])


def session_turns(db: Database, session_id: str) -> list[Turn]:
    """All turns of a session with their tool calls, in order (none for an unknown session)."""
    rows = db.read("turns/of_session", id=check_id(session_id, "session id"))
    return [turn_from_row(r["turn"], r["toolCalls"]) for r in rows]


def load_session(db: Database, session_id: str) -> SessionDetail:
    """The session with all its turns and their tool calls, in order."""
    session = get_session(db, session_id)
    return SessionDetail(**session.model_dump(), turns=session_turns(db, session.id))


def recent_turns(db: Database, session_id: str, max_chars: int = 5000, limit: int = 3) -> list[Turn]:
    """Up to ``limit`` latest turns whose characters fit in ``max_chars``, oldest first. The newest
    turn is always included (callers truncate)."""
    sid = check_id(session_id, "session id")
    count(max_chars, "max_chars", minimum=0)
    rows = db.read("turns/recent", sessionId=sid, limit=count(limit, "limit", minimum=0))
    if not rows:
        get_session(db, sid)  # raises SessionNotFound for an unknown id
        return []
    picked: list[Turn] = []
    used = 0
    for r in rows:
        t = turn_from_row(r["turn"], r["toolCalls"])
        if picked and used + t.char_count > max_chars:
            break
        picked.append(t)
        used += t.char_count
    return list(reversed(picked))


def raw_history_chars(db: Database, session_id: str) -> int:
    """Characters of the session's turns not yet covered by a level-1 summary."""
    sid = check_id(session_id, "session id")
    rows = db.read("turns/raw_history_chars", sessionId=sid)
    if not rows:
        get_session(db, sid)
        return 0
    return int(rows[0]["chars"] or 0)

