"""The chat-agent methods of :class:`~graphmem.memory.GraphMemory`: conversations keyed by agent,
channel and user, live observation of rooms, the digest and the memory tools (:mod:`graphmem.chat`).
Each method is one call, with what the facade holds."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from . import chat
from .chat import (
    ChatConfig,
    ChatContext,
    ChatTools,
    Conversation,
    ConversationSession,
    DigestConfig,
    Digester,
    LiveContext,
    LiveMessage,
)
from .db import Database, DeferredWrites
from .facts import FactExtractor
from .models import Session
from .retrieval import ContextConfig, SearchMode, SearchResult

if TYPE_CHECKING:
    from .embedding import Embedder
    from .facts import FactJudge
    from .retrieval import RetrievalConfig, Searcher

__all__ = ["ChatMethods"]


class ChatMethods:
    """Mixed into :class:`~graphmem.memory.GraphMemory`, which provides the attributes below."""

    db: Database
    chat: ChatConfig
    deferred: DeferredWrites
    redact: bool

    if TYPE_CHECKING:
        @property
        def embedder(self) -> Embedder | None: ...

        @property
        def judge(self) -> FactJudge | None: ...

        def searcher(self, config: RetrievalConfig | None = None) -> Searcher: ...

        def _foreground(self) -> None: ...

    def open_conversation(self, agent: str, channel: str, user: str, *, at: datetime | None = None,
                          title: str | None = None) -> ConversationSession:
        """The session of a message of ``user`` to ``agent`` on ``channel`` at ``at`` (now): the
        conversation's latest session, or a new one after ``chat.session_gap`` of silence."""
        return chat.open_conversation(self.db, agent, channel, user, config=self.chat, at=at, title=title)

    def conversation_sessions(self, agent: str, channel: str, user: str, *, limit: int = 50) -> list[Session]:
        """The sessions of one conversation, newest activity first."""
        return chat.conversation_sessions(self.db, agent, channel, user, config=self.chat, limit=limit)

    def conversations(self, agent: str, *, channel: str | None = None, user: str | None = None,
                      limit: int = 100) -> list[Conversation]:
        """The conversations of ``agent`` (of one channel and/or user when given), latest first."""
        return chat.conversations(self.db, agent, channel=channel, user=user, limit=limit)

    def search_conversations(self, query: str, agent: str, *, channel: str | None = None, user: str | None = None,
                             k: int = 10, mode: SearchMode = "hybrid") -> SearchResult:
        """Search ``agent``'s conversations: every channel and user, or one channel / user / both."""
        self._foreground()
        return chat.search_conversations(self.searcher(), query, agent, config=self.chat, channel=channel,
                                         user=user, k=k, mode=mode)

    def observe(self, channel: str, author: str, text: str, timestamp: datetime | None = None) -> str:
        """Store one message of an observed room as a live message (embedded later); its id."""
        return chat.observe(self.db, channel, author, text, timestamp, redact=self.redact)

    def live_context(self, question: str, *, rooms: Sequence[str] | None = None, limit: int = 10) -> LiveContext:
        """The live messages most relevant to ``question`` (top ``limit``, not in time order) and their block."""
        return chat.live_context(self.db, self.embedder, question, config=self.chat, rooms=rooms, limit=limit)

    def live_messages(self, channel: str, *, limit: int = 50) -> list[LiveMessage]:
        """The latest live messages of one room, newest first."""
        return chat.live_messages(self.db, channel, limit=limit)

    def chat_context(self, session_id: str, message: str, *, rooms: Sequence[str] | None = None,
                     config: ContextConfig | None = None) -> ChatContext:
        """The live block (excerpts of ``rooms``) and :meth:`build_context`'s block, for a chat agent."""
        self._foreground()
        return chat.chat_context(self.db, self.searcher(), session_id, message, config=self.chat,
                                 embedder=self.embedder, deferred=self.deferred, redact=self.redact, rooms=rooms,
                                 context=config)

    def digester(self, extractor: FactExtractor | None, config: DigestConfig | None = None) -> Digester:
        """The digest of the observed rooms' live messages, with ``extractor`` as its LLM (None: no
        digest runs and ``.status()`` says why); ``.run()`` digests now (graphmem.chat.digest)."""
        return Digester(self.db, extractor, config=config, embedder=self.embedder, deferred=self.deferred,
                        redact=self.redact, judge=self.judge)

    def chat_tools(self, agent: str) -> ChatTools:
        """The memory tools of ``agent`` (OpenAI / Anthropic schemas, ``.call(name, arguments)``)."""
        return ChatTools(self.db, agent, config=self.chat, embedder=self.embedder, deferred=self.deferred,
                         redact=self.redact, judge=self.judge)
