"""``graphmem mcp``: graphmem's memory as MCP tools, served over stdio with the official SDK.

Register it with a coding CLI::

    claude mcp add graphmem -- graphmem mcp          # Claude Code
    codex mcp add graphmem -- graphmem mcp           # Codex CLI
    gemini mcp add graphmem graphmem mcp             # Gemini CLI

Tools: ``memory_search`` (hybrid search of past turns and summaries), ``memory_context`` (the
context block for a message), ``recent_sessions`` (the sessions of a directory or project), and,
from :mod:`graphmem.facts.tools`, ``memory_store_fact``, ``memory_search_facts`` and
``memory_forget``. Directory arguments default to the server's working directory (the CLIs start
MCP servers in the project). Neo4j is opened on the first tool call, so listing the tools works
even while it is down; errors come back as tool errors.

Written against ``mcp`` 2.x (``mcp.server.mcpserver.MCPServer``, the successor of v1's
``FastMCP``); with ``mcp`` 1.x it falls back to ``mcp.server.fastmcp.FastMCP``, whose
``tool()``/``add_tool()``/``run()`` have the same shape.
"""

from __future__ import annotations

import inspect
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .memory import GraphMemory

__all__ = ["INSTRUCTIONS", "build_server", "serve"]

INSTRUCTIONS = (
    "graphmem is the long-term memory of this person's coding sessions (Claude Code, Codex, Gemini CLI, "
    "Aider), stored as a graph in Neo4j. Use memory_search to find what was said or done before (past "
    "turns and summaries), memory_context for the context block relevant to a message, recent_sessions to "
    "see what happened lately in a directory, and the fact tools to remember durable facts."
)
MAX_TEXT = 2000


class _Memory:
    """The GraphMemory of the server, opened on first use (thread-safe)."""

    def __init__(self) -> None:
        self._mem: GraphMemory | None = None
        self._lock = threading.Lock()

    def get(self) -> GraphMemory:
        with self._lock:
            if self._mem is None:
                from .memory import open_memory

                # a bad GRAPHMEM_* value raises InvalidSettings: a one-line tool error
                self._mem = open_memory()
            return self._mem

    def close(self) -> None:
        with self._lock:
            if self._mem is not None:
                self._mem.close()
                self._mem = None


def _cut(text: str | None, n: int = MAX_TEXT) -> str | None:
    if text is None or len(text) <= n:
        return text
    return text[:n] + f" [... {len(text) - n} more chars]"


def _cwd(cwd: str | None) -> str:
    from .paths import normalize_cwd

    return normalize_cwd(cwd or os.getcwd())


def _scope(scope: str, cwd: str | None) -> str:
    from .paths import find_project_root

    s = scope.strip() or "project"
    if s == "project":
        return f"project:{find_project_root(_cwd(cwd))}"
    if s == "directory":
        return f"directory:{_cwd(cwd)}"
    return s  # "everything", "session:<id>", "directory:<path>", "project:<path>"


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


def _bind(fn: Callable[..., Any], memory: _Memory) -> Callable[..., Any]:
    """``fn(mem, **kwargs)`` as a tool function of ``**kwargs`` (same name, docs and parameters)."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())[1:]
    hints = {}
    for p in params:
        ann = p.annotation
        if isinstance(ann, str):  # postponed annotations of our own code: evaluate in fn's module
            ann = eval(ann, fn.__globals__)
        hints[p.name] = ann
    new_params = [p.replace(annotation=hints[p.name]) for p in params]
    ret = sig.return_annotation
    if isinstance(ret, str):
        ret = eval(ret, fn.__globals__)

    def tool(**kwargs: Any) -> Any:
        return fn(memory.get(), **kwargs)

    tool.__name__ = fn.__name__
    tool.__doc__ = fn.__doc__
    tool.__signature__ = sig.replace(parameters=new_params, return_annotation=ret)  # type: ignore[attr-defined]
    tool.__annotations__ = {**hints, "return": ret}
    return tool


def build_server(memory: _Memory | None = None) -> Any:
    """The MCP server with graphmem's tools (not started)."""
    import importlib

    from . import __version__

    server_cls: Any
    try:
        server_cls = importlib.import_module("mcp.server.mcpserver").MCPServer
    except ImportError:  # mcp 1.x
        server_cls = importlib.import_module("mcp.server.fastmcp").FastMCP

    mem = memory or _Memory()
    try:
        server = server_cls("graphmem", instructions=INSTRUCTIONS, version=__version__)
    except TypeError:  # mcp 1.x has no version argument
        server = server_cls("graphmem", instructions=INSTRUCTIONS)

    def memory_search(
        query: str,
        scope: str = "project",
        cwd: str | None = None,
        k: int = 10,
        mode: Literal["hybrid", "semantic", "text"] = "hybrid",
        levels: list[int] | None = None,
    ) -> dict[str, Any]:
        """Search past conversation turns (level 0) and their summaries (levels 1+).
        scope: "project" (the git root of cwd, default), "directory" (cwd only), "everything",
        "session:<id>", "directory:<path>" or "project:<path>". cwd defaults to the server's directory.
        mode: hybrid (vector + full-text, default), semantic or text. Returns the hits, best first."""
        res = mem.get().search(query, scope=_scope(scope, cwd), k=max(1, min(int(k), 50)), mode=mode,
                               levels=tuple(levels) if levels else (0, 1, 2, 3))
        return {"query": res.query, "scope": res.scope, "mode": res.effective_mode, "warnings": res.warnings,
                "hits": [_hit(h) for h in res.hits]}

    def memory_context(message: str, session_id: str | None = None, cwd: str | None = None) -> dict[str, Any]:
        """The context block graphmem would give an agent before it answers `message`: relevant past
        turns and summaries of the project, and recent level-1 summaries. Uses `session_id` if given,
        else the latest session of cwd's project (cwd defaults to the server's directory)."""
        from .paths import find_project_root
        from .retrieval import ContextConfig

        m = mem.get()
        sid = session_id
        if sid is None:
            sessions = m.sessions_for_project(find_project_root(_cwd(cwd)), limit=1)
            if not sessions:
                return {"session_id": None, "text": "", "note": "no sessions for this project yet"}
            sid = sessions[0].id
        block = m.build_context(sid, message, config=ContextConfig(budget_chars=9800))
        return {"session_id": sid, "text": block.text, "chars": block.chars, "warnings": block.warnings}

    def recent_sessions(cwd: str | None = None, limit: int = 10, project: bool = True) -> dict[str, Any]:
        """The latest sessions (newest first) of cwd's project (git root), or of cwd itself with
        project=false; cwd defaults to the server's directory. Each has its agent, turn count, last
        activity and last message."""
        from .paths import find_project_root

        m = mem.get()
        where = _cwd(cwd)
        limit = max(1, min(int(limit), 100))
        rows = (m.sessions_for_project(find_project_root(where), limit=limit) if project
                else m.sessions_for(where, limit=limit))
        return {
            "cwd": where,
            "sessions": [
                {"id": s.id, "agent": s.agent, "title": s.title, "cwd": s.cwd, "project_path": s.project_path,
                 "turn_count": s.turn_count, "started_at": s.started_at.isoformat(),
                 "last_activity_at": s.last_activity_at.isoformat(), "last_message": s.last_message}
                for s in rows
            ],
        }

    for tool in (memory_search, memory_context, recent_sessions):
        server.add_tool(tool)
    fact_tools: dict[str, Any] = {}
    try:
        from .facts.tools import TOOLS

        fact_tools.update(TOOLS)
    except ImportError:  # facts not part of this build
        pass
    if os.environ.get("GRAPHMEM_CHAT_AGENT"):  # a chat agent's memory tools (graphmem.chat.tools), opt-in
        from .chat.tools import MCP_TOOLS

        fact_tools.update(MCP_TOOLS)
    for name, fn in fact_tools.items():
        server.add_tool(_bind(fn, mem), name=name, description=inspect.getdoc(fn))
    return server


def serve() -> None:
    """Serve over stdio until the client closes the connection."""
    memory = _Memory()
    server = build_server(memory)
    try:
        server.run("stdio")
    finally:
        memory.close()
