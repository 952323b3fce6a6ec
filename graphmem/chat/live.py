"""Live observation: every message of an observed room as its own ``(:LiveMessage)`` node.

:func:`observe` is one ``CREATE`` (author, room, text, time) with ``embedState: 'pending'``:
nothing slow on the write path. The worker (or :func:`embed_pending_live`, or :func:`live_context`
itself before it searches) embeds the pending messages later, as ``author: text``.

Before the agent answers, :func:`live_context` picks the messages most relevant to the question
(top 10 by meaning, no time order) and renders them in their own block, separate from facts, saying
they are excerpts and not a conversation::

    [Live context - relevant excerpts from lobby, not a full conversation]
    • david (17/01 10:23) : je pars en Grèce demain
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..arguments import count, text_list
from ..db import Database
from ..db.params import vector_param
from ..db.rows import native_row
from ..embedding import Embedder, query_vector
from ..errors import InvalidInput
from ..models import clean_text
from ..redaction import redact as redact_text
from ..retrieval.reltime import absolute_time
from ..sessions import when
from .model import ChatConfig

__all__ = ["LiveContext", "LiveMessage", "clear_live", "embed_pending_live", "live_context", "live_messages",
           "live_rooms", "observe", "render_live"]

MAX_TEXT_CHARS = 20_000
LIVE_LIMIT = 10
EXACT_SCAN_MAX = 5000
"""Rooms holding at most this many live messages are searched exactly (every message scored);
larger ones through the vector index, over-fetched and filtered to the rooms. The index is updated
shortly after a commit, so a message embedded a moment ago may be missing from an index search."""
_TITLES = {
    "en": "[Live context - relevant excerpts from {rooms}, not a full conversation]",
    "fr": "[Contexte live - extraits pertinents de {rooms}, pas une conversation complète]",
}


@dataclass(frozen=True)
class LiveMessage:
    id: str
    room: str
    author: str
    text: str
    at: datetime
    score: float | None = None
    """Cosine similarity to the question, in :func:`live_context` results."""

    @classmethod
    def from_row(cls, row: dict[str, Any], score: float | None = None) -> LiveMessage:
        m = native_row(row)
        return cls(id=m["id"], room=m["room"], author=m["author"], text=m["text"], at=m["at"], score=score)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "room": self.room, "author": self.author, "text": self.text,
                "at": self.at.isoformat(), "score": self.score}


@dataclass
class LiveContext:
    """The live block for one question: the messages (most relevant first) and their rendering."""

    messages: list[LiveMessage] = field(default_factory=list)
    text: str = ""
    embedded: int = 0
    """Pending messages embedded before the search."""
    warning: str | None = None


def _name(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise InvalidInput(f"invalid {what}: must be a non-empty string of at most 200 characters")
    return clean_text(value.strip())


def observe(db: Database, channel: str, author: str, text: str, timestamp: datetime | None = None, *,
            redact: bool = True) -> str:
    """Store one message of an observed room (``channel``); returns its id. Embedded later."""
    if not isinstance(text, str):
        raise InvalidInput("text must be a string")
    body = clean_text(text)[:MAX_TEXT_CHARS]
    if redact:
        body = redact_text(body)[0]
    mid = str(uuid.uuid4())
    params = {"id": mid, "room": _name(channel, "channel"), "author": _name(author, "author"), "text": body,
              "at": when(timestamp)}
    # one auto-commit round trip; after a lost connection the message is looked up before it is written again
    db.write_autocommit("live/observe", params, recover=lambda: db.read_leader("live/observed", id=mid) or None)
    return mid


def _embedded_text(author: str, text: str) -> str:
    """What a live message's vector is computed from: ``author: text`` (who says it is part of what it
    means in a room: "où part David ?" should find David's own messages)."""
    return f"{author}: {text}"


def embed_pending_live(db: Database, embedder: Embedder, *, limit: int | None = None, batch: int = 128) -> int:
    """Embed pending live messages (oldest first), ``batch`` at a time; returns how many."""
    done = 0
    while limit is None or done < limit:
        size = batch if limit is None else min(batch, limit - done)
        rows = db.read("live/pending", limit=size)
        if not rows:
            break
        vectors = embedder.embed([_embedded_text(r["author"], r["text"]) for r in rows])
        db.write("live/set_embeddings",
                 rows=[{"id": r["id"], "embedding": vector_param(v)} for r, v in zip(rows, vectors, strict=True)])
        done += len(rows)
        if len(rows) < size:
            break
    return done


def render_live(messages: Sequence[LiveMessage], rooms: Sequence[str] | None, config: ChatConfig) -> str:
    """The live block (see the module docstring); empty without messages."""
    if not messages:
        return ""
    names = list(rooms) if rooms else sorted({m.room for m in messages})
    title = _TITLES["fr" if config.locale.lower().startswith("fr") else "en"].format(rooms=", ".join(names))
    zone = config.zone
    lines = [title]
    lines += [f"• {m.author} ({absolute_time(m.at, zone, year=False)}) : {m.text}" for m in messages]
    return "\n".join(lines)


def live_context(db: Database, embedder: Embedder | None, question: str, *, config: ChatConfig,
                 rooms: Sequence[str] | None = None, limit: int = LIVE_LIMIT,
                 vector: Sequence[float] | None = None) -> LiveContext:
    """The ``limit`` live messages of ``rooms`` (all observed rooms when None) most relevant to
    ``question``, best first, with their block. Pending messages are embedded first; see
    :data:`EXACT_SCAN_MAX` for how the rooms are searched. Without an
    embedder there is no block, and ``warning`` says why."""
    count(limit, "limit", maximum=100)
    if not isinstance(question, str):
        raise InvalidInput(f"question must be a string, not {type(question).__name__}")
    question = clean_text(question)
    names = [_name(r, "channel") for r in text_list(rooms, "rooms")] if rooms else None
    if embedder is None:
        return LiveContext(warning="no embedder configured: live messages cannot be ranked")
    if not question.strip():
        return LiveContext()
    embedded = embed_pending_live(db, embedder)
    qvec = list(vector) if vector is not None else query_vector(embedder, question)
    vparam = vector_param(qvec)
    if names is not None and int(db.read("live/count", rooms=names)[0]["count"]) <= EXACT_SCAN_MAX:
        rows = db.read("live/search_exact", vector=vparam, rooms=names, limit=limit)
    else:
        fetch = limit if names is None else min(max(limit * 20, 200), 10_000)
        rows = db.read("live/search", vector=vparam, fetch=fetch, rooms=names, limit=limit)
    messages = [LiveMessage.from_row(r["message"], round(float(r["cosine"]), 4)) for r in rows]
    return LiveContext(messages=messages, text=render_live(messages, names, config), embedded=embedded)


def live_messages(db: Database, channel: str, *, limit: int = 50) -> list[LiveMessage]:
    """The latest live messages of one room, newest first."""
    return [LiveMessage.from_row(r["message"]) for r in db.read("live/recent", room=_name(channel, "channel"),
                                                                limit=count(limit, "limit"))]


def live_rooms(db: Database, *, limit: int = 100) -> list[dict[str, Any]]:
    """Observed rooms: ``{"room", "messages", "latest"}``, latest activity first."""
    return [native_row(r) for r in db.read("live/rooms", limit=count(limit, "limit"))]


def clear_live(db: Database, channel: str, *, batch: int = 5000) -> int:
    """Delete every live message of one room; returns how many."""
    total = 0
    while True:
        n = int(db.write("live/delete_room", room=_name(channel, "channel"), batch=batch)[0]["deleted"])
        total += n
        if n < batch:
            return total
