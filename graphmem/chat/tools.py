"""The memory tools of a chat agent, provider-neutral: one set, exported as OpenAI function schemas
(:meth:`ChatTools.openai`), Anthropic tool schemas (:meth:`ChatTools.anthropic`) and MCP tools
(:data:`MCP_TOOLS`, registered by ``graphmem mcp``).

Three kinds of memory, each in a fact scope of its own (see :mod:`graphmem.chat.model`), so they
never mix:

* memories about the world (the users, their people, what happens to them): the agent's project
  scope, plus global facts when searching;
* ``self``: what the agent knows about itself, by category (context, capability, limitation,
  preference, relation);
* goals: what it wants to become able to do, understand or connect (capability_request,
  understanding, connection).

Storing goes through :func:`graphmem.facts.remember`, so a similar memory is updated rather than
duplicated and a TTL (``"7d"``) makes a temporary state expire; then the correction rule of
:mod:`graphmem.facts.corrections` retires a current memory the new one contradicts ("David a
déménagé à Toulouse" retires "David habite à Ordizan", kept as history). Searching has no threshold: the top
10 by meaning, the model judges the scores.
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Protocol

from pydantic import Field

from ..db import Database, DeferredWrites
from ..embedding import Embedder
from ..errors import InvalidInput, quoted
from ..facts import Fact, FactScope, forget, list_facts, search_facts
from ..facts.corrections import remember_correcting
from ..facts.judge import FactJudge
from ..facts.store import list_text
from ..retrieval.reltime import memory_time
from .model import ChatConfig, agent_path, goals_path, self_path

__all__ = ["GOAL_CATEGORIES", "MCP_TOOLS", "SELF_CATEGORIES", "TOOL_SPECS", "ChatTools", "ToolHost", "ToolSpec"]

SELF_CATEGORIES = ("context", "capability", "limitation", "preference", "relation")
GOAL_CATEGORIES = ("capability_request", "understanding", "connection")
SEARCH_LIMIT = 10


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]
    """A JSON schema (``type: object``)."""


def _obj(props: dict[str, Any], required: Sequence[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}


_QUERY = {"type": "string", "description": "What to look for, in natural language."}
_CONTENT = {"type": "string", "description": "One self-contained statement."}

TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec("search_memories", "Search your memories about the users, their people and their lives by meaning. "
             "Returns the 10 best matches with their score (no threshold: judge relevance yourself) and when "
             "each was stored. Search several times with different words when useful.",
             _obj({"query": _QUERY}, ["query"])),
    ToolSpec("get_recent_memories", "The memories stored most recently, newest first.",
             _obj({"limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "How many (1-20)."}},
                  ["limit"])),
    ToolSpec("store_memory", "Remember an important fact about a user or their people (connections between "
             "known things, not general knowledge, not small talk). A similar memory is updated, not duplicated. "
             "ttl: null for durable facts, or a duration like \"1d\", \"7d\", \"30d\" for temporary states.",
             _obj({"content": _CONTENT,
                   "subjects": {"type": "array", "items": {"type": "string"},
                                "description": "Flat lower-case tags, e.g. [\"mickael\", \"injury\"]."},
                   "ttl": {"type": ["string", "null"], "description": "null, or a duration such as \"7d\"."}},
                  ["content", "subjects", "ttl"])),
    ToolSpec("search_memories_text", "Search your memories for an exact word or name (full text, not meaning).",
             _obj({"query": {"type": "string", "description": "A word, name or phrase."}}, ["query"])),
    ToolSpec("forget", "Forget every memory about a topic (only when a user asks you to forget something; a "
             "correction is stored with store_memory instead).",
             _obj({"topic": {"type": "string", "description": "The topic, name or memory id."}}, ["topic"])),
    ToolSpec("search_self", "Search what you know about yourself (your context, capabilities, limitations, "
             "preferences and relations).", _obj({"query": _QUERY}, ["query"])),
    ToolSpec("store_self", "Remember something about yourself.",
             _obj({"content": _CONTENT, "category": {"type": "string", "enum": list(SELF_CATEGORIES)}},
                  ["content", "category"])),
    ToolSpec("search_goals", "Search your goals (capabilities you want, things you want to understand, "
             "connections you want to make).", _obj({"query": _QUERY}, ["query"])),
    ToolSpec("store_goal", "Remember a goal of yours.",
             _obj({"content": _CONTENT, "category": {"type": "string", "enum": list(GOAL_CATEGORIES)}},
                  ["content", "category"])),
)
_BY_NAME = {t.name: t for t in TOOL_SPECS}


class ChatTools:
    """The tool set of one agent, bound to a database and an embedder; :meth:`call` runs a tool."""

    def __init__(self, db: Database, agent: str, *, config: ChatConfig, embedder: Embedder | None = None,
                 deferred: DeferredWrites | None = None, redact: bool = True, judge: FactJudge | None = None) -> None:
        self.db, self.agent, self.config = db, agent, config
        self.embedder, self.deferred, self.redact, self.judge = embedder, deferred, redact, judge
        self.world = FactScope("project", agent_path(config.root, agent))
        self.self_scope = FactScope("project", self_path(config.root, agent))
        self.goal_scope = FactScope("project", goals_path(config.root, agent))

    # -- schemas ---------------------------------------------------------------------------
    @staticmethod
    def openai() -> list[dict[str, Any]]:
        """The tools as OpenAI Chat Completions ``tools`` (function schemas)."""
        return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                  "parameters": t.parameters}} for t in TOOL_SPECS]

    @staticmethod
    def anthropic() -> list[dict[str, Any]]:
        """The tools as Anthropic Messages ``tools``."""
        return [{"name": t.name, "description": t.description, "input_schema": t.parameters} for t in TOOL_SPECS]

    # -- calls -----------------------------------------------------------------------------
    def call(self, name: str, arguments: dict[str, Any] | str | None) -> dict[str, Any]:
        """Run tool ``name`` with ``arguments`` (a dict, or the JSON text a provider returns)."""
        if name not in _BY_NAME:
            raise InvalidInput(f"unknown tool {quoted(name)}")
        if isinstance(arguments, str) and arguments.strip():
            try:
                args = json.loads(arguments)
            except ValueError as e:
                raise InvalidInput(f"the arguments of {name} are not JSON: {e}") from None
        else:
            args = arguments or {}
        if not isinstance(args, dict):
            raise InvalidInput(f"the arguments of {name} must be a JSON object, not {type(args).__name__}")
        allowed = set(_BY_NAME[name].parameters["properties"])
        unknown = set(args) - allowed
        if unknown:
            raise InvalidInput(f"unknown argument(s) for {name}: {', '.join(sorted(map(quoted, unknown)))}")
        method: Callable[..., dict[str, Any]] = getattr(self, name)
        missing = [p.name for p in inspect.signature(method).parameters.values()
                   if p.default is inspect.Parameter.empty and p.name not in args]
        if missing:
            raise InvalidInput(f"missing argument(s) for {name}: {', '.join(missing)}")
        return method(**args)

    def _item(self, f: Fact, *, category: bool = False) -> dict[str, Any]:
        ts = f.updated_at or f.created_at
        out: dict[str, Any] = {"id": f.id, "content": f.content, "subjects": f.subjects,
                               "when": memory_time(ts, None, self.config.locale, self.config.zone) if ts else None}
        if f.score is not None:
            out["score"] = round(f.score, 3)
        if f.expires_at is not None:
            out["expires_at"] = f.expires_at.isoformat()
        if category:
            out["category"] = next((s for s in f.subjects if s in SELF_CATEGORIES + GOAL_CATEGORIES), None)
        return out

    def _search(self, query: str, scopes: list[FactScope], *, category: bool = False) -> dict[str, Any]:
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query must be a non-empty string")
        found = search_facts(self.db, query, embedder=self.embedder, deferred=self.deferred, scopes=scopes,
                             limit=SEARCH_LIMIT)
        return {"memories": [self._item(f, category=category) for f in found], "count": len(found)}

    def _store(self, content: str, subjects: Sequence[str], ttl: str | None, scope: FactScope,
               type: str | None = None) -> dict[str, Any]:
        result = remember_correcting(self.db, content, subjects, judge=self.judge, embedder=self.embedder,
                                     deferred=self.deferred, redact=self.redact, ttl=ttl, scope=scope, type=type,
                                     source="chat-tool")
        return {"action": result.action, "id": result.fact.id, "content": result.fact.content,
                "previous": result.previous.content if result.previous and result.action == "updated" else None,
                "retired": [f.content for f in result.retired]}

    def search_memories(self, query: str) -> dict[str, Any]:
        return self._search(query, [FactScope.global_(), self.world])

    def get_recent_memories(self, limit: int = 10) -> dict[str, Any]:
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 20:
            raise InvalidInput("limit must be an integer between 1 and 20")
        found = list_facts(self.db, scopes=[FactScope.global_(), self.world], order="recent", limit=limit)
        return {"memories": [self._item(f) for f in found], "count": len(found)}

    def store_memory(self, content: str, subjects: Sequence[str] | None = None,
                     ttl: str | None = None) -> dict[str, Any]:
        return self._store(content, list(subjects or []), ttl, self.world)

    def search_memories_text(self, query: str) -> dict[str, Any]:
        """The whole query as a substring first; failing that, each of its words (3+ characters)."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query must be a non-empty string")
        keys = [FactScope.global_().key, self.world.key]
        found = list_text(self.db, query, keys, limit=SEARCH_LIMIT)
        if not found:
            seen: dict[str, Fact] = {}
            for word in [w for w in query.split() if len(w) >= 3][:8]:
                for f in list_text(self.db, word, keys, limit=SEARCH_LIMIT):
                    seen.setdefault(f.id, f)
            found = list(seen.values())[:SEARCH_LIMIT]
        return {"memories": [self._item(f) for f in found], "count": len(found)}

    def forget(self, topic: str) -> dict[str, Any]:
        result = forget(self.db, topic, embedder=self.embedder, deferred=self.deferred, scopes=[self.world],
                        reason="forget tool")
        return result.to_dict()

    def search_self(self, query: str) -> dict[str, Any]:
        return self._search(query, [self.self_scope], category=True)

    def store_self(self, content: str, category: str) -> dict[str, Any]:
        if category not in SELF_CATEGORIES:
            raise InvalidInput(f"category must be one of {', '.join(SELF_CATEGORIES)}")
        return self._store(content, [category], None, self.self_scope, type="identity")

    def search_goals(self, query: str) -> dict[str, Any]:
        return self._search(query, [self.goal_scope], category=True)

    def store_goal(self, content: str, category: str) -> dict[str, Any]:
        if category not in GOAL_CATEGORIES:
            raise InvalidInput(f"category must be one of {', '.join(GOAL_CATEGORIES)}")
        return self._store(content, [category], None, self.goal_scope, type="goal")


# -- MCP -----------------------------------------------------------------------------------------
class ToolHost(Protocol):
    """What the MCP functions need (a :class:`~graphmem.memory.GraphMemory`)."""

    def chat_tools(self, agent: str) -> ChatTools: ...


def _agent(agent: str | None) -> str:
    return agent or os.environ.get("GRAPHMEM_CHAT_AGENT") or "assistant"


_Query = Annotated[str, Field(min_length=1, description="What to look for, in natural language.")]
_Content = Annotated[str, Field(min_length=1, description="One self-contained statement.")]
_Agent = Annotated[str | None, Field(description="The chat agent whose memory this is; default: "
                                     "$GRAPHMEM_CHAT_AGENT, else 'assistant'.")]


def search_memories(mem: ToolHost, query: _Query, agent: _Agent = None) -> dict[str, Any]:
    """Search the chat agent's memories about the users by meaning: top 10 with scores, no threshold."""
    return mem.chat_tools(_agent(agent)).search_memories(query)


def get_recent_memories(
    mem: ToolHost,
    limit: Annotated[int, Field(ge=1, le=20, description="How many (1-20).")] = 10,
    agent: _Agent = None,
) -> dict[str, Any]:
    """The chat agent's most recently stored memories, newest first."""
    return mem.chat_tools(_agent(agent)).get_recent_memories(limit)


def store_memory(
    mem: ToolHost,
    content: _Content,
    subjects: Annotated[list[str] | None, Field(
        description="Flat lower-case tags, e.g. [\"mickael\", \"injury\"].")] = None,
    ttl: Annotated[str | None, Field(description="null for a durable memory, or a duration such as \"7d\".")] = None,
    agent: _Agent = None,
) -> dict[str, Any]:
    """Remember a fact about a user or their people; a similar memory is updated, not duplicated."""
    return mem.chat_tools(_agent(agent)).store_memory(content, subjects, ttl)


def search_memories_text(
    mem: ToolHost,
    query: Annotated[str, Field(min_length=1, description="A word, name or phrase.")],
    agent: _Agent = None,
) -> dict[str, Any]:
    """Search the chat agent's memories for an exact word or name."""
    return mem.chat_tools(_agent(agent)).search_memories_text(query)


def forget_memories(
    mem: ToolHost,
    topic: Annotated[str, Field(min_length=1, description="The topic, name or memory id.")],
    agent: _Agent = None,
) -> dict[str, Any]:
    """Forget every memory of the chat agent about a topic (or one memory by id)."""
    return mem.chat_tools(_agent(agent)).forget(topic)


def search_self(mem: ToolHost, query: _Query, agent: _Agent = None) -> dict[str, Any]:
    """Search what the chat agent knows about itself."""
    return mem.chat_tools(_agent(agent)).search_self(query)


def store_self(
    mem: ToolHost,
    content: _Content,
    category: Annotated[Literal["context", "capability", "limitation", "preference", "relation"], Field(
        description="What about itself this is.")],
    agent: _Agent = None,
) -> dict[str, Any]:
    """Remember something about the chat agent itself."""
    return mem.chat_tools(_agent(agent)).store_self(content, category)


def search_goals(mem: ToolHost, query: _Query, agent: _Agent = None) -> dict[str, Any]:
    """Search the chat agent's goals."""
    return mem.chat_tools(_agent(agent)).search_goals(query)


def store_goal(
    mem: ToolHost,
    content: _Content,
    category: Annotated[Literal["capability_request", "understanding", "connection"], Field(
        description="What kind of goal this is.")],
    agent: _Agent = None,
) -> dict[str, Any]:
    """Remember a goal of the chat agent."""
    return mem.chat_tools(_agent(agent)).store_goal(content, category)


MCP_TOOLS: dict[str, Callable[..., dict[str, Any]]] = {
    "chat_search_memories": search_memories,
    "chat_search_memories_text": search_memories_text,
    "chat_recent_memories": get_recent_memories,
    "chat_store_memory": store_memory,
    "chat_forget": forget_memories,
    "chat_search_self": search_self,
    "chat_store_self": store_self,
    "chat_search_goals": search_goals,
    "chat_store_goal": store_goal,
}
"""MCP tool name -> function ``(memory, **arguments)``, served by ``graphmem mcp`` when
``GRAPHMEM_CHAT_AGENT`` is set; ``agent`` defaults to ``$GRAPHMEM_CHAT_AGENT`` or ``assistant``.
The ``chat_`` prefix keeps them apart from the ``memory_*`` tools of the person's coding memory."""
