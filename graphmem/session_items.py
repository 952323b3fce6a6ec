"""Session items: the exact records an agent framework keeps for a session, in order.

Some frameworks replay a session's history to the model item by item (the OpenAI Agents SDK's
input items: messages, function calls and their outputs, reasoning), so they need those records
back exactly, removable from the end, beside the turns graphmem makes of them. Each one is a
``(:Session)-[:HAS_ITEM]->(:SessionItem {sessionId, seq, item, at})`` node: ``item`` the JSON text,
``seq`` its 1-based position (never reused: a removed item leaves a gap). The session also keeps
``itemTurnSeq``, the position of the last item a turn was written from, so that each exchange
becomes one turn even when several processes append. Deleting the session deletes its items.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from .db import Database
from .errors import InvalidInput
from .models import utcnow
from .redaction import redact_value

__all__ = ["append_items", "items_after", "latest_items", "mark_turn", "pop_item", "turn_mark"]


def _decode(rows: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    return [(int(r["seq"]), json.loads(r["item"])) for r in rows]


def append_items(db: Database, session_id: str, items: Sequence[Mapping[str, Any]], *, redact_secrets: bool = True,
                 now: datetime | None = None) -> int:
    """Append ``items`` (JSON objects) to the session; returns the position of the last one (0 when
    there is none to append). The session must exist."""
    texts: list[str] = []
    for n, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise InvalidInput(f"items[{n}]: an object is required, got {type(item).__name__}")
        value, _ = redact_value(dict(item), enabled=redact_secrets)
        try:
            texts.append(json.dumps(value, ensure_ascii=False, allow_nan=False))
        except (TypeError, ValueError) as e:
            raise InvalidInput(f"items[{n}]: not JSON ({e})") from None
    if not texts:
        return 0
    rows = db.write("session_items/append", sessionId=session_id, items=texts, now=now or utcnow())
    return int(rows[0]["last"]) if rows else 0


def items_after(db: Database, session_id: str, after: int = 0) -> list[tuple[int, dict[str, Any]]]:
    """The items after position ``after``, in order, with their positions."""
    return _decode(db.read("session_items/all", sessionId=session_id, after=after))


def latest_items(db: Database, session_id: str, limit: int) -> list[tuple[int, dict[str, Any]]]:
    """The last ``limit`` items, in order."""
    if limit < 0:
        raise InvalidInput("limit: must be >= 0")
    return _decode(db.read("session_items/latest", sessionId=session_id, limit=limit))[::-1]


def pop_item(db: Database, session_id: str) -> dict[str, Any] | None:
    """Remove and return the last item (None when there is none)."""
    rows = _decode(db.write("session_items/pop", sessionId=session_id))
    return rows[0][1] if rows else None


def turn_mark(db: Database, session_id: str) -> int:
    """The position of the last item a turn was written from (0: none)."""
    rows = db.read("session_items/turn_mark", sessionId=session_id)
    return int(rows[0]["seq"]) if rows else 0


def mark_turn(db: Database, session_id: str, *, expected: int, seq: int) -> bool:
    """Move the turn mark from ``expected`` to ``seq``; False when another writer moved it first."""
    return bool(db.write("session_items/mark_turn", sessionId=session_id, expected=expected, seq=seq))
