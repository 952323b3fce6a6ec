"""The companion's JSON reply protocol: the model answers with one JSON object, its message and
the memories to keep::

    {"message": "Repose-toi bien !",
     "memories": [{"content": "Mickael est malade", "subjects": ["mickael", "santé"], "ttl": "7d"}]}

:func:`parse_reply` reads it (tolerating a fenced code block or text around the object; a reply
that is not such an object is all message); :func:`store_reply` stores its memories through the
agent's ``store_memory`` tool, so a similar memory is updated rather than duplicated.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import GraphMemError
from .tools import ChatTools

__all__ = ["ChatReply", "ReplyMemory", "parse_reply", "store_reply"]

_FENCE = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.S)


@dataclass(frozen=True)
class ReplyMemory:
    content: str
    subjects: list[str] = field(default_factory=list)
    ttl: str | None = None


@dataclass
class ChatReply:
    message: str
    memories: list[ReplyMemory] = field(default_factory=list)
    structured: bool = False
    """Whether the reply was a JSON object of the protocol (else the whole text is the message)."""
    stored: list[dict[str, Any]] = field(default_factory=list)
    """What :func:`store_reply` did with each memory."""


def _object(text: str) -> dict[str, Any] | None:
    candidates = [text.strip()]
    fenced = _FENCE.search(text)
    if fenced:
        candidates.insert(0, fenced.group(1))
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start:end + 1])
    for c in candidates:
        try:
            value = json.loads(c)
        except ValueError:
            continue
        if isinstance(value, dict) and "message" in value:
            return value
    return None


def parse_reply(text: str) -> ChatReply:
    """The message and memories of a model's reply (see the module docstring)."""
    obj = _object(text)
    if obj is None:
        return ChatReply(message=text)
    memories = []
    for item in obj.get("memories") or []:
        if not isinstance(item, dict) or not isinstance(item.get("content"), str) or not item["content"].strip():
            continue
        subjects = [s for s in item.get("subjects") or [] if isinstance(s, str)]
        ttl = item.get("ttl")
        memories.append(ReplyMemory(item["content"], subjects, ttl if isinstance(ttl, str) and ttl else None))
    message = obj.get("message")
    return ChatReply(message=message if isinstance(message, str) else "", memories=memories, structured=True)


def store_reply(tools: ChatTools, text: str) -> ChatReply:
    """Parse a reply and store its memories; a memory that cannot be stored (a bad TTL, say) is
    reported in ``stored`` with its error, the others are kept."""
    reply = parse_reply(text)
    for m in reply.memories:
        try:
            reply.stored.append(tools.store_memory(m.content, m.subjects, m.ttl))
        except GraphMemError as e:
            reply.stored.append({"action": "error", "content": m.content, "error": str(e)})
    return reply
