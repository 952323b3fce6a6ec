"""Conversations of chat agents: one per (agent, channel, user), a new session after a silence.

A ``(:Conversation {key, agent, channel, user})`` groups its sessions (``HAS_SESSION``) as a
``(:Directory)`` does; the sessions are ordinary sessions (turns, summaries, facts, search and
``build_context`` work on them unchanged), filed under the conversation's made-up directory (see
:mod:`graphmem.chat.model`). :func:`open_conversation` returns the conversation's latest session
while it was active within :attr:`ChatConfig.session_gap` of the message, else opens a new one:
"one session per user" at a time, one per stretch of talk.

Retrieval across channels is the default: the sessions of all the agent's conversations share a
project (``<root>/<agent>``). :func:`search_conversations` narrows it to one channel, one user or
both.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..arguments import count, optional_text
from ..db import Database
from ..db.rows import native_row
from ..models import Session, clean_text
from ..retrieval import Scope, Searcher, SearchMode, SearchResult
from ..retrieval.search import MAX_K
from ..sessions import session_from_row, when
from .model import ChatConfig, agent_path, conversation_key, conversation_path, encode_name

__all__ = ["Conversation", "ConversationSession", "conversation_sessions", "conversations", "open_conversation",
           "search_conversations"]


@dataclass(frozen=True)
class ConversationSession:
    """The session a message of a conversation belongs to, and whether it was opened for it."""

    session: Session
    created: bool


@dataclass(frozen=True)
class Conversation:
    key: str
    agent: str
    channel: str
    user: str
    created_at: datetime
    last_opened_at: datetime
    sessions: int


def open_conversation(db: Database, agent: str, channel: str, user: str, *, config: ChatConfig,
                      at: datetime | None = None, title: str | None = None) -> ConversationSession:
    """The session of (``agent``, ``channel``, ``user``) for a message at ``at`` (now by default)."""
    cwd = conversation_path(config.root, agent, channel, user)  # checks the three names
    title = optional_text(title, "title")
    at = when(at)
    rows = db.write(
        "conversations/open",
        key=conversation_key(config.root, agent, channel, user),
        agent=clean_text(agent.strip()), channel=clean_text(channel.strip()), user=clean_text(user.strip()),
        at=at, cutoff=at - config.session_gap, newId=str(uuid.uuid4()), cwd=cwd,
        projectPath=agent_path(config.root, agent), title=clean_text(title) if title else None,
    )
    return ConversationSession(session_from_row(rows[0]["session"]), bool(rows[0]["created"]))


def conversation_sessions(db: Database, agent: str, channel: str, user: str, *, config: ChatConfig,
                          limit: int = 50) -> list[Session]:
    """The sessions of one conversation, newest activity first."""
    rows = db.read("conversations/sessions", key=conversation_key(config.root, agent, channel, user),
                   limit=count(limit, "limit"))
    return [session_from_row(r["session"]) for r in rows]


def conversations(db: Database, agent: str, *, channel: str | None = None, user: str | None = None,
                  limit: int = 100) -> list[Conversation]:
    """The conversations of ``agent`` (optionally of one channel and/or user), latest opened first."""
    encode_name(agent, "agent")
    channel, user = optional_text(channel, "channel"), optional_text(user, "user")
    rows = db.read("conversations/of_agent", agent=clean_text(agent.strip()),
                   channel=channel.strip() if channel else None,
                   user=user.strip() if user else None, limit=count(limit, "limit"))
    out = []
    for r in rows:
        c: dict[str, Any] = native_row(r["conversation"])
        out.append(Conversation(key=c["key"], agent=c["agent"], channel=c["channel"], user=c["user"],
                                created_at=c["createdAt"], last_opened_at=c["lastOpenedAt"],
                                sessions=int(r["sessions"])))
    return out


def search_conversations(searcher: Searcher, query: str, agent: str, *, config: ChatConfig,
                         channel: str | None = None, user: str | None = None, k: int = 10,
                         mode: SearchMode = "hybrid", min_score: float | None = None) -> SearchResult:
    """Search the turns and summaries of ``agent``'s conversations: every channel and user by
    default; one channel's, one user's (across channels) or one conversation's when given.

    One conversation is a directory scope; one channel or one user alone is the agent's project
    scope over-fetched (``k`` x 5) and filtered on the hits' directories."""
    k = count(k, "k", maximum=MAX_K)
    channel, user = optional_text(channel, "channel"), optional_text(user, "user")
    if channel and user:
        scope = Scope("directory", conversation_path(config.root, agent, channel, user))
        return searcher.search(query, scope=scope, k=k, mode=mode, min_score=min_score, locale=config.locale)
    base = agent_path(config.root, agent)
    result = searcher.search(query, scope=Scope("project", base), k=k if not (channel or user) else min(k * 5, 1000),
                             mode=mode, min_score=min_score, locale=config.locale)
    if not (channel or user):
        return result
    want_channel = encode_name(channel, "channel") if channel else None
    want_user = encode_name(user, "user") if user else None

    def keep(cwd: str) -> bool:
        parts = cwd[len(base) + 1:].split("/") if cwd.startswith(base + "/") else []
        if len(parts) != 2:
            return False
        return (want_channel is None or parts[0] == want_channel) and (want_user is None or parts[1] == want_user)

    hits = [h for h in result.hits if keep(h.cwd)][:k]
    return result.model_copy(update={"hits": hits, "scope": f"{result.scope} channel={channel} user={user}"})
