"""Plain functions for the MCP layer: ``memory_store_fact``, ``memory_search_facts``,
``memory_forget``. Each takes the memory (anything with :class:`FactMemory`'s methods: a
:class:`~graphmem.memory.GraphMemory`) and JSON-able arguments and returns a JSON-able dict; the
docstrings are the tool descriptions.

Scope arguments: ``scope`` is ``"global"`` (about the person), ``"project"`` (about the project at
``project_path``) or ``"session"`` (only this ``session_id``); searches see global + the given
project + the given session.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any, Protocol

from ..errors import InvalidInput
from .model import Fact, FactScope, FactScopeLike, ForgetResult, RememberResult

__all__ = ["TOOLS", "FactMemory", "memory_forget", "memory_search_facts", "memory_store_fact"]


class FactMemory(Protocol):
    """The fact operations the tools use (those of :class:`~graphmem.memory.GraphMemory`)."""

    def remember(self, content: str, subjects: Sequence[str] = (), *, type: str | None = None,
                 ttl: str | timedelta | None = None, scope: FactScopeLike = "global", importance: float | None = None,
                 source: str | None = "explicit", turn_id: str | None = None) -> RememberResult: ...

    def search_facts(self, query: str, *, scopes: Sequence[FactScopeLike] | None = None, limit: int | None = None,
                     types: Sequence[str] | None = None) -> list[Fact]: ...

    def forget(self, topic_or_id: str, *, scopes: Sequence[FactScopeLike] | None = None, reason: str | None = None,
               dry_run: bool = False) -> ForgetResult: ...


def _scope(scope: str, project_path: str | None, session_id: str | None) -> FactScope:
    if scope == "global":
        return FactScope.global_()
    if scope == "project":
        if not project_path:
            raise InvalidInput("scope 'project' needs project_path")
        return FactScope.project(project_path)
    if scope == "session":
        if not session_id:
            raise InvalidInput("scope 'session' needs session_id")
        return FactScope.session(session_id)
    return FactScope.parse(scope)


def _visible(project_path: str | None, session_id: str | None) -> list[FactScope]:
    out = [FactScope.global_()]
    if project_path:
        out.append(FactScope.project(project_path))
    if session_id:
        out.append(FactScope.session(session_id))
    return out


def memory_store_fact(
    mem: FactMemory,
    content: str,
    subjects: list[str] | None = None,
    type: str = "fact",
    ttl: str | None = None,
    scope: str = "global",
    project_path: str | None = None,
    session_id: str | None = None,
) -> dict[str, Any]:
    """Remember a fact about the user, their people or their project (connections, not general
    knowledge). If a similar fact exists in the same scope it is updated (the old text is kept as
    history). type: identity, goal, decision, todo, preference, fact, event, observation.
    ttl: null for durable facts, or a duration like "1d", "7d", "30d" for temporary states.
    Returns {"action": "inserted"|"updated"|"unchanged", "fact": {...}, "previous": {...}|null}."""
    result = mem.remember(content, subjects or [], type=type, ttl=ttl,
                          scope=_scope(scope, project_path, session_id), source="mcp")
    return result.to_dict()


def memory_search_facts(
    mem: FactMemory,
    query: str,
    limit: int = 10,
    project_path: str | None = None,
    session_id: str | None = None,
    type: str | None = None,
) -> dict[str, Any]:
    """Search remembered facts by meaning: the top `limit` (default 10, no threshold: judge the
    scores yourself) among global facts, the project's and the session's. Optional type filter."""
    facts = mem.search_facts(query, scopes=_visible(project_path, session_id), limit=limit,
                             types=[type] if type else None)
    return {"facts": [f.to_dict() for f in facts], "count": len(facts)}


def memory_forget(
    mem: FactMemory,
    topic_or_id: str,
    reason: str | None = None,
    project_path: str | None = None,
    session_id: str | None = None,
) -> dict[str, Any]:
    """Forget a fact by its id, or every fact about a topic (by meaning, subject tag or text) among
    global facts, the project's and the session's. An audit record keeps when and why, never the
    text. Returns what was removed."""
    result = mem.forget(topic_or_id, scopes=_visible(project_path, session_id), reason=reason)
    return result.to_dict()


TOOLS = {
    "memory_store_fact": memory_store_fact,
    "memory_search_facts": memory_search_facts,
    "memory_forget": memory_forget,
}
"""Tool name -> function, for the MCP server."""
