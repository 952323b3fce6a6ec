"""The tools of ``graphmem mcp``: one :class:`ToolDef` per tool, and the scope words they share.

Each tool is a plain function ``fn(memory, **arguments)`` whose parameters carry their JSON-schema
description, enum and bounds (``Annotated[..., Field(...)]``); :mod:`graphmem.mcp_server` binds the
memory and registers them. To add a tool, write the function and append a :class:`ToolDef` to
:data:`TOOLS` (or return it from :func:`chat_tool_defs` for a chat agent's tools).

Scopes mean the same thing in every tool (:data:`SCOPE_HELP`):

* ``project`` (default): the server's current project, i.e. the git root of ``cwd`` (``cwd``
  defaults to the directory the MCP server was started in, which the coding CLIs set to the project);
* ``project:<path>``: the project at ``<path>``;
* ``global``: for facts, what holds across every project (about the person); for
  ``memory_search``, every stored conversation;
* ``session``: the latest session of the current project; ``session:<id>``: that session (an
  unknown id is an error);
* ``directory`` / ``directory:<path>``: one directory (``memory_search`` only: facts have no
  directory scope).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from .errors import InvalidInput, NotFound, quoted
from .facts import tools as fact_tools

if TYPE_CHECKING:
    from .memory import GraphMemory

__all__ = ["SCOPE_HELP", "TOOLS", "ToolDef", "Where", "chat_tool_defs", "resolve_scope"]

MAX_TEXT = 2000

SCOPE_HELP = (
    "Where: 'project' = the server's current project (git root of cwd), 'project:<path>' = that project, "
    "'global' = facts about the person that hold in every project (for memory_search: every stored "
    "conversation), 'session' = the latest session of the current project, 'session:<id>' = that session, "
    "'directory' / 'directory:<path>' = one directory (memory_search only)."
)
ScopeWord = Literal["project", "global", "session", "directory"]
_ScopeValue = ScopeWord | Annotated[str, Field(pattern=r"^(project|session|directory):\S.*$")]
ScopeArg = Annotated[_ScopeValue, Field(description=SCOPE_HELP)]
_FactScopeValue = Literal["project", "global", "session"] | Annotated[str, Field(pattern=r"^(project|session):\S.*$")]
FactScopeArg = Annotated[_FactScopeValue, Field(description=SCOPE_HELP)]
Cwd = Annotated[str | None, Field(
    description="The directory that 'project', 'directory' and 'session' refer to; defaults to the directory "
    "the MCP server runs in (the coding CLI's project).")]
FactType = Literal["identity", "goal", "decision", "todo", "preference", "fact", "event", "observation"]


@dataclass(frozen=True)
class ToolDef:
    """One MCP tool: its name, its function ``fn(memory, **arguments)`` (the docstring is the
    description) and the hints clients show (MCP ``ToolAnnotations``)."""

    name: str
    fn: Callable[..., dict[str, Any]]
    title: str
    read_only: bool
    destructive: bool = False
    idempotent: bool = True


# -- scopes -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Where:
    """A scope argument resolved against the server's directory."""

    kind: Literal["global", "project", "directory", "session"]
    value: str | None
    project: str | None
    """The project the scope lies in (a session's own project), None for ``global``."""


def _cwd(cwd: str | None) -> str:
    from .paths import normalize_cwd

    return normalize_cwd(cwd or os.getcwd())


def _project(cwd: str | None) -> str:
    from .paths import find_project_root

    return find_project_root(_cwd(cwd))


def resolve_scope(mem: GraphMemory, scope: str, cwd: str | None) -> Where:
    """``scope`` (the words of :data:`SCOPE_HELP`) as a :class:`Where`; :class:`InvalidInput` names
    the ``scope`` field, :class:`NotFound` when ``session`` has no session to mean."""
    s = (scope or "project").strip()
    kind, sep, value = s.partition(":")
    value = value.strip()
    if sep and not value:
        raise InvalidInput(f"scope: {quoted(s)} needs a value after ':'")
    if kind in ("global", "everything") and not sep:
        return Where("global", None, None)
    if kind == "project":
        root = _cwd(value) if sep else _project(cwd)
        return Where("project", root, root)
    if kind == "directory":
        where = _cwd(value if sep else cwd)
        return Where("directory", where, _project(where))
    if kind == "session":
        if sep:  # an unknown id is a SessionNotFound
            return Where("session", value, mem.get_session(value).project_path)
        root = _project(cwd)
        latest = mem.sessions_for_project(root, limit=1)
        if not latest:
            raise NotFound(f"scope 'session': no session recorded for project {root} yet; pass 'session:<id>'")
        return Where("session", latest[0].id, root)
    raise InvalidInput(f"scope: {quoted(s)} is not a scope; {SCOPE_HELP}")


def _fact_where(mem: GraphMemory, scope: str, cwd: str | None) -> Where:
    where = resolve_scope(mem, scope, cwd)
    if where.kind == "directory":
        raise InvalidInput("scope: 'directory' applies to memory_search only; facts are 'global', 'project' "
                           "or 'session'")
    return where


# -- past conversations ----------------------------------------------------------------------------------
def _cut(text: str | None, n: int = MAX_TEXT) -> str | None:
    if text is None or len(text) <= n:
        return text
    return text[:n] + f" [... {len(text) - n} more chars]"


def _hit(h: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "kind": h.kind, "id": h.id, "level": h.level, "relevance": round(h.relevance, 4),
        "score": round(h.score, 6), "session_id": h.session_id, "cwd": h.cwd,
        "timestamp": h.timestamp.isoformat() if h.timestamp else None, "when": h.relative_time,
    }
    if h.kind == "turn":
        d.update(index=h.index, user_message=_cut(h.user_message), assistant_message=_cut(h.assistant_message),
                 tools=h.tools)
    else:
        d.update(text=_cut(h.text), key_findings=h.key_findings, files_mentioned=h.files_mentioned,
                 topics=h.topics)
    return d


def memory_search(
    mem: GraphMemory,
    query: Annotated[str, Field(min_length=1, description="What to look for, in natural language or keywords.")],
    scope: ScopeArg = "project",
    cwd: Cwd = None,
    k: Annotated[int, Field(ge=1, le=50, description="How many hits to return (1-50).")] = 10,
    mode: Annotated[Literal["hybrid", "semantic", "text"], Field(
        description="hybrid: vectors + full text (default); semantic: vectors only; text: full text only.")] = "hybrid",
    levels: Annotated[list[Literal[0, 1, 2, 3]] | None, Field(
        description="Which levels to search: 0 = raw turns, 1 = session-part summaries, 2-3 = roll-ups. "
        "Default: all.")] = None,
) -> dict[str, Any]:
    """Search past conversation turns (level 0) and their summaries (levels 1+) of the coding sessions
    graphmem recorded. Returns the hits, best first, with the time window the query named (if any)
    and the two events it compares (if any; each was also searched on its own)."""
    where = resolve_scope(mem, scope, cwd)
    spec = "everything" if where.kind == "global" else f"{where.kind}:{where.value}"
    res = mem.search(query, scope=spec, k=k, mode=mode, levels=tuple(levels) if levels else (0, 1, 2, 3))
    return {"query": res.query, "scope": res.scope, "mode": res.effective_mode, "warnings": res.warnings,
            "time_window": res.time_window, "events_searched_apart": res.parts, "hits": [_hit(h) for h in res.hits]}


def memory_context(
    mem: GraphMemory,
    message: Annotated[str, Field(min_length=1, description="The message about to be answered.")],
    session_id: Annotated[str | None, Field(
        description="The session to build the block for; default: the latest session of cwd's project.")] = None,
    cwd: Cwd = None,
) -> dict[str, Any]:
    """The context block graphmem would give an agent before it answers `message`: relevant past
    turns and summaries of the project, and recent level-1 summaries."""
    from .retrieval import ContextConfig

    sid = session_id
    if sid is None:
        sessions = mem.sessions_for_project(_project(cwd), limit=1)
        if not sessions:
            return {"session_id": None, "text": "", "note": "no sessions for this project yet"}
        sid = sessions[0].id
    block = mem.build_context(sid, message, config=ContextConfig(budget_chars=9800))
    return {"session_id": sid, "text": block.text, "chars": block.chars, "warnings": block.warnings}


def recent_sessions(
    mem: GraphMemory,
    cwd: Cwd = None,
    limit: Annotated[int, Field(ge=1, le=100, description="How many sessions (1-100).")] = 10,
    project: Annotated[bool, Field(
        description="true: the sessions of cwd's whole project (git root); false: of cwd itself.")] = True,
) -> dict[str, Any]:
    """The latest recorded coding sessions (newest first) of a project or directory, each with its
    agent, turn count, last activity and last message."""
    where = _cwd(cwd)
    rows = (mem.sessions_for_project(_project(where), limit=limit) if project
            else mem.sessions_for(where, limit=limit))
    return {
        "cwd": where,
        "sessions": [
            {"id": s.id, "agent": s.agent, "title": s.title, "cwd": s.cwd, "project_path": s.project_path,
             "turn_count": s.turn_count, "started_at": s.started_at.isoformat(),
             "last_activity_at": s.last_activity_at.isoformat(), "last_message": s.last_message}
            for s in rows
        ],
    }


def file_history(
    mem: GraphMemory,
    path: Annotated[str, Field(min_length=1, max_length=4096, description=(
        "The file: absolute, or relative to cwd (e.g. 'src/app.py').")) ],
    cwd: Cwd = None,
    limit: Annotated[int, Field(ge=1, le=50, description="How many of its latest tool calls (1-50).")] = 10,
) -> dict[str, Any]:
    """What happened to a file in earlier coding sessions of cwd's project (git root): the latest
    tool calls that read, edited, wrote, searched or ran it with the requests behind them, the failed
    ones, and the summaries that mention it. Empty lists when it has no history."""
    where = _cwd(cwd)
    history = mem.file_history(_project(where), path, cwd=where, limit=limit)
    return history.model_dump(mode="json")


# -- facts ----------------------------------------------------------------------------------------------
def memory_store_fact(
    mem: GraphMemory,
    content: Annotated[str, Field(min_length=1, description="One self-contained statement.")],
    subjects: Annotated[list[str] | None, Field(
        description="Flat lower-case tags of who or what it is about, e.g. [\"alice\", \"billing\"].")] = None,
    type: Annotated[FactType, Field(description="What kind of fact it is.")] = "fact",
    ttl: Annotated[str | None, Field(
        description="null for a durable fact, or a duration such as \"1d\", \"7d\", \"30d\" for a temporary "
        "state ('never' makes an expiring fact durable).")] = None,
    scope: FactScopeArg = "global",
    cwd: Cwd = None,
) -> dict[str, Any]:
    """Remember a fact about the user, their people or their project (connections, not general
    knowledge). A similar fact in the same scope is updated (the old text is kept as history).
    Returns {"action": "inserted"|"updated"|"unchanged", "fact": {...}, "previous": {...}|null}."""
    where = _fact_where(mem, scope, cwd)
    spec = "global" if where.kind == "global" else f"{where.kind}:{where.value}"
    return fact_tools.memory_store_fact(mem, content, subjects, type=type, ttl=ttl, scope=spec)


def _visible(mem: GraphMemory, scope: str, cwd: str | None) -> tuple[str | None, str | None]:
    where = _fact_where(mem, scope, cwd)
    return where.project, where.value if where.kind == "session" else None


_SEEN_SCOPE = Annotated[_FactScopeValue, Field(
    description="The narrowest scope to look in; broader ones are included (a project sees the global "
    "facts, a session its project's and the global ones). " + SCOPE_HELP)]


def memory_search_facts(
    mem: GraphMemory,
    query: Annotated[str, Field(min_length=1, description="What to look for, by meaning.")],
    limit: Annotated[int, Field(ge=1, le=50, description="How many facts to return (1-50).")] = 10,
    scope: _SEEN_SCOPE = "project",
    cwd: Cwd = None,
    type: Annotated[FactType | None, Field(description="Only facts of this type; default: every type.")] = None,
) -> dict[str, Any]:
    """Search remembered facts by meaning: the top `limit`, with their scores (no threshold: judge
    them yourself)."""
    project, session = _visible(mem, scope, cwd)
    return fact_tools.memory_search_facts(mem, query, limit=limit, project_path=project, session_id=session,
                                          type=type)


def memory_forget(
    mem: GraphMemory,
    topic_or_id: Annotated[str, Field(min_length=1, description="A fact id, or a topic: every fact about "
                                      "it (by meaning, subject tag or text) is forgotten.")],
    reason: Annotated[str | None, Field(description="Why, kept in the audit record.")] = None,
    scope: _SEEN_SCOPE = "project",
    cwd: Cwd = None,
) -> dict[str, Any]:
    """Forget a fact by its id, or every fact about a topic. An audit record keeps when and why,
    never the text. Returns what was removed."""
    project, session = _visible(mem, scope, cwd)
    return fact_tools.memory_forget(mem, topic_or_id, reason=reason, project_path=project, session_id=session)


TOOLS: list[ToolDef] = [
    ToolDef("memory_search", memory_search, "Search past coding sessions", read_only=True),
    ToolDef("memory_context", memory_context, "Context block for a message", read_only=True),
    ToolDef("recent_sessions", recent_sessions, "Recent sessions", read_only=True),
    ToolDef("file_history", file_history, "A file's history", read_only=True),
    ToolDef("memory_store_fact", memory_store_fact, "Remember a fact", read_only=False),
    ToolDef("memory_search_facts", memory_search_facts, "Search remembered facts", read_only=True),
    ToolDef("memory_forget", memory_forget, "Forget facts", read_only=False, destructive=True),
]
"""The tools every ``graphmem mcp`` serves, in order."""


_CHAT_TOOLS: dict[str, tuple[str, bool, bool]] = {  # name: (title, read-only, destructive)
    "chat_search_memories": ("Search the chat agent's memories", True, False),
    "chat_search_memories_text": ("Search the chat agent's memories by word", True, False),
    "chat_recent_memories": ("The chat agent's recent memories", True, False),
    "chat_store_memory": ("Remember (chat agent)", False, False),
    "chat_forget": ("Forget (chat agent)", False, True),
    "chat_search_self": ("Search the chat agent's self-knowledge", True, False),
    "chat_store_self": ("Remember about itself (chat agent)", False, False),
    "chat_search_goals": ("Search the chat agent's goals", True, False),
    "chat_store_goal": ("Remember a goal (chat agent)", False, False),
}


def chat_tool_defs() -> list[ToolDef]:
    """A chat agent's memory tools (served when ``GRAPHMEM_CHAT_AGENT`` is set), all named ``chat_*``
    to keep them apart from the ``memory_*`` tools of the person's coding memory."""
    from .chat.tools import MCP_TOOLS

    return [ToolDef(name, MCP_TOOLS[name], title, read_only=ro, destructive=destructive)
            for name, (title, ro, destructive) in _CHAT_TOOLS.items()]
