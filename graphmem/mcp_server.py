"""``graphmem mcp``: graphmem's memory as MCP tools, served over stdio with the official SDK.

Register it with a coding CLI::

    claude mcp add graphmem -- graphmem mcp          # Claude Code
    codex mcp add graphmem -- graphmem mcp           # Codex CLI
    gemini mcp add graphmem graphmem mcp             # Gemini CLI

The tools are defined in :mod:`graphmem.mcp_tools` (:data:`~graphmem.mcp_tools.TOOLS`, and the
``chat_*`` tools when ``GRAPHMEM_CHAT_AGENT`` is set). Neo4j is opened on the first tool call, so
listing the tools works while it is down. A graphmem error comes back as the tool's error result
(``isError``) with one line saying what went wrong: the invalid field, what was not found, or that
Neo4j is not reachable and how to start it.

Written against ``mcp`` 2.x (``mcp.server.mcpserver.MCPServer``, the successor of v1's
``FastMCP``); with ``mcp`` 1.x it falls back to ``mcp.server.fastmcp.FastMCP``, whose
``add_tool()``/``run()`` and ``ToolError`` have the same shape.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from .errors import (
    ConfigError,
    DatabaseUnavailable,
    GraphMemError,
    InvalidInput,
    InvalidSettings,
    NotFound,
)
from .mcp_tools import TOOLS, ToolDef, chat_tool_defs

if TYPE_CHECKING:
    from .memory import GraphMemory

__all__ = ["INSTRUCTIONS", "build_server", "error_line", "serve", "tool_defs"]

INSTRUCTIONS = (
    "graphmem is the long-term memory of this person's coding sessions (Claude Code, Codex, Gemini CLI, "
    "Aider), stored as a graph in Neo4j. Use memory_search to find what was said or done before (past "
    "turns and summaries), memory_context for the context block relevant to a message, recent_sessions to "
    "see what happened lately in a directory, and the memory_*_fact tools to remember durable facts. "
    "scope 'project' always means the project the server runs in."
)


class _Memory:
    """The GraphMemory of the server, opened on first use (thread-safe); a failed open is retried
    on the next call, so starting Neo4j later is enough."""

    def __init__(self) -> None:
        self._mem: GraphMemory | None = None
        self._lock = threading.Lock()
        self.where = "the configured Neo4j"
        """The server the memory talks to, for error messages."""

    def get(self) -> GraphMemory:
        with self._lock:
            if self._mem is None:
                from .config import Settings
                from .memory import open_memory

                # a bad GRAPHMEM_* value raises InvalidSettings: a one-line tool error
                settings = Settings.load()
                self.where = settings.neo4j_uri or f"bolt://localhost:{settings.bolt_port}"
                self._mem = open_memory(settings=settings)
            return self._mem

    def close(self) -> None:
        with self._lock:
            if self._mem is not None:
                self._mem.close()
                self._mem = None


def error_line(e: GraphMemError, where: str) -> str:
    """One line for the agent: what went wrong and, for an unreachable Neo4j, how to fix it."""
    text = " ".join(str(e).split()) or type(e).__name__
    first = str(e).strip().splitlines()[0].strip() if str(e).strip() else type(e).__name__
    if isinstance(e, InvalidSettings):
        return f"invalid setting {'; '.join(e.problems)}"
    if isinstance(e, DatabaseUnavailable):
        if "graphmem db up" in first:  # the managed server is not running
            return first
        if "credentials" in first:
            return f"Neo4j at {where} refused the credentials: check GRAPHMEM_NEO4J_USER and GRAPHMEM_NEO4J_PASSWORD"
        return (f"Neo4j is not reachable at {where}: start it with `graphmem db up` "
                "(or fix GRAPHMEM_NEO4J_URI if it points at your own server)")
    if isinstance(e, InvalidInput):
        return f"invalid input: {text}"
    if isinstance(e, NotFound):
        return text if "not found" in text.lower() else f"not found: {text}"
    if isinstance(e, ConfigError):
        return f"configuration: {text}"
    return text


def _tool_error() -> type[Exception]:
    try:
        cls: type[Exception] = importlib.import_module("mcp.server.mcpserver.exceptions").ToolError
    except ImportError:  # mcp 1.x
        cls = importlib.import_module("mcp.server.fastmcp.exceptions").ToolError
    return cls


def _validation_line(e: ValidationError) -> str:
    """A pydantic validation error of tool arguments as ``field: problem; ...`` (one line)."""
    by_field: dict[str, list[str]] = {}
    for err in e.errors():
        field = str(err["loc"][0]) if err["loc"] else "arguments"
        msg = " ".join(str(err["msg"]).split())
        if msg not in by_field.setdefault(field, []):
            by_field[field].append(msg)
    return "; ".join(f"{field}: {' or '.join(msgs)}" for field, msgs in by_field.items())


def _server_class(base: Any, tool_error: type[Exception]) -> Any:
    """``base`` (the SDK's server) whose rejected tool arguments come back as one line naming the
    field, like graphmem's own errors, instead of pydantic's multi-line report."""

    class GraphMemServer(base):  # type: ignore[misc]
        async def call_tool(self, name: str, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
            try:
                return await super().call_tool(name, arguments, *args, **kwargs)
            except tool_error as e:
                if isinstance(e.__cause__, ValidationError):
                    raise tool_error(f"Error executing tool {name}: invalid input: "
                                     f"{_validation_line(e.__cause__)}") from e.__cause__
                raise

    return GraphMemServer


def _bind(fn: Callable[..., Any], memory: _Memory, tool_error: type[Exception]) -> Callable[..., Any]:
    """``fn(mem, **kwargs)`` as a tool function of ``**kwargs`` (same name, docs and parameters, with
    their ``Annotated`` descriptions and bounds); a :class:`GraphMemError` becomes the SDK's
    ``ToolError`` carrying :func:`error_line`, which the client receives as an ``isError`` result."""
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
        try:
            return fn(memory.get(), **kwargs)
        except GraphMemError as e:
            raise tool_error(error_line(e, memory.where)) from e

    tool.__name__ = fn.__name__
    tool.__doc__ = fn.__doc__
    tool.__signature__ = sig.replace(parameters=new_params, return_annotation=ret)  # type: ignore[attr-defined]
    tool.__annotations__ = {**hints, "return": ret}
    return tool


def tool_defs() -> list[ToolDef]:
    """The tools this process serves: :data:`~graphmem.mcp_tools.TOOLS`, plus the chat agent's
    ``chat_*`` tools when ``GRAPHMEM_CHAT_AGENT`` is set."""
    defs = list(TOOLS)
    if os.environ.get("GRAPHMEM_CHAT_AGENT"):
        defs += chat_tool_defs()
    return defs


def build_server(memory: _Memory | None = None, tools: Iterable[ToolDef] | None = None) -> Any:
    """The MCP server with graphmem's tools (not started)."""
    from mcp.types import ToolAnnotations

    from . import __version__

    server_cls: Any
    try:
        server_cls = importlib.import_module("mcp.server.mcpserver").MCPServer
    except ImportError:  # mcp 1.x
        server_cls = importlib.import_module("mcp.server.fastmcp").FastMCP

    tool_error = _tool_error()
    server_cls = _server_class(server_cls, tool_error)
    mem = memory or _Memory()
    try:
        server = server_cls("graphmem", instructions=INSTRUCTIONS, version=__version__)
    except TypeError:  # mcp 1.x has no version argument
        server = server_cls("graphmem", instructions=INSTRUCTIONS)
    names: set[str] = set()
    for t in tool_defs() if tools is None else tools:
        if t.name in names:
            raise ValueError(f"two MCP tools named {t.name!r}")
        names.add(t.name)
        # the wire names: mcp 1.x has them as fields, 2.x as aliases of snake_case fields
        hints = ToolAnnotations.model_validate({
            "title": t.title, "readOnlyHint": t.read_only, "destructiveHint": t.destructive,
            "idempotentHint": t.idempotent, "openWorldHint": False})
        server.add_tool(_bind(t.fn, mem, tool_error), name=t.name, description=inspect.getdoc(t.fn),
                        annotations=hints)
    return server


def serve() -> None:
    """Serve over stdio until the client closes the connection. The memory is opened beside the
    first requests and runs its search warm-up (a line on stderr says what it did), so that the
    agent's first searches on a server just started are not the ones planned."""
    from .retrieval.warmup import warm_up_in_background

    memory = _Memory()
    server = build_server(memory)
    warm_up_in_background(lambda: memory.get().warm_up(), lambda line: print(f"graphmem: {line}", file=sys.stderr))
    try:
        server.run("stdio")
    finally:
        memory.close()
