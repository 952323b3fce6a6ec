"""The context of a chat agent before it answers: the live block (excerpts of observed rooms most
relevant to the message) above the usual context (facts, recent turns, relevant past turns and
summaries of :func:`graphmem.retrieval.context.context_for_session`), each in its own block."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..db import Database, DeferredWrites
from ..embedding import Embedder
from ..errors import InvalidInput
from ..retrieval import ContextBlock, ContextConfig, Searcher
from ..retrieval.context import context_for_session
from .live import LiveContext, live_context
from .model import ChatConfig

__all__ = ["ChatContext", "chat_context"]


@dataclass
class ChatContext:
    live: LiveContext
    context: ContextBlock

    @property
    def text(self) -> str:
        """The live block, a blank line, then the context block (either may be empty)."""
        return "\n\n".join(t for t in (self.live.text, self.context.text) if t)


def chat_context(db: Database, searcher: Searcher, session_id: str, message: str, *, config: ChatConfig,
                 embedder: Embedder | None, deferred: DeferredWrites | None, redact: bool,
                 rooms: Sequence[str] | None = None, context: ContextConfig | None = None) -> ChatContext:
    """Both blocks for ``message`` in ``session_id``; live excerpts from ``rooms`` (all when None).
    The context's locale and time zone default to the chat configuration's."""
    if not isinstance(message, str):
        raise InvalidInput(f"message must be a string, not {type(message).__name__}")
    cfg = context or ContextConfig(locale=config.locale, timezone=config.timezone)
    live = live_context(db, embedder, message, config=config, rooms=rooms)
    block = context_for_session(db, searcher, session_id, message, cfg, embedder=embedder, deferred=deferred,
                                redact=redact)
    return ChatContext(live, block)
