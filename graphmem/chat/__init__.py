"""Chat agents: conversations keyed by (agent, channel, user), live observation of rooms and their
periodic digest into facts, the memory tool set (world, self, goals) and the companion's JSON reply protocol.

See :mod:`graphmem.chat.model` for where their data lives in the graph."""

from __future__ import annotations

from .bootstrap import parse_self_file, seed_self
from .context import ChatContext, chat_context
from .conversations import (
    Conversation,
    ConversationSession,
    conversation_sessions,
    conversations,
    open_conversation,
    search_conversations,
)
from .digest import DigestConfig, Digester, DigestRun, DigestStatus, digest_status, recent_digests, run_digest
from .live import (
    LiveContext,
    LiveMessage,
    clear_live,
    embed_pending_live,
    live_context,
    live_messages,
    live_rooms,
    observe,
    render_live,
)
from .model import ChatConfig
from .reply import ChatReply, ReplyMemory, parse_reply, store_reply
from .tools import GOAL_CATEGORIES, MCP_TOOLS, SELF_CATEGORIES, TOOL_SPECS, ChatTools, ToolSpec

__all__ = [
    "GOAL_CATEGORIES",
    "MCP_TOOLS",
    "SELF_CATEGORIES",
    "TOOL_SPECS",
    "ChatConfig",
    "ChatContext",
    "ChatReply",
    "ChatTools",
    "Conversation",
    "ConversationSession",
    "DigestConfig",
    "DigestRun",
    "DigestStatus",
    "Digester",
    "LiveContext",
    "LiveMessage",
    "ReplyMemory",
    "ToolSpec",
    "chat_context",
    "clear_live",
    "conversation_sessions",
    "conversations",
    "digest_status",
    "embed_pending_live",
    "live_context",
    "live_messages",
    "live_rooms",
    "observe",
    "open_conversation",
    "parse_reply",
    "parse_self_file",
    "recent_digests",
    "render_live",
    "run_digest",
    "search_conversations",
    "seed_self",
    "store_reply",
]
