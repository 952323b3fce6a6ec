"""``graphmem mcp``: the MCP server over stdio (``claude mcp add graphmem -- graphmem mcp``)."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    mcp = sub.add_parser(
        "mcp",
        help="serve the MCP tools over stdio (claude mcp add graphmem -- graphmem mcp)",
        description="The MCP server (stdio): memory_search, memory_context, recent_sessions, file_history, memory_store_fact, "
        "memory_search_facts and memory_forget (plus the chat_* tools when GRAPHMEM_CHAT_AGENT is set). "
        "Errors come back to the agent as one-line tool errors. Register it with `claude mcp add graphmem -- graphmem mcp` (Claude Code), "
        "`codex mcp add graphmem -- graphmem mcp` (Codex) or `gemini mcp add graphmem graphmem mcp`.",
    )
    mcp.set_defaults(handler=_mcp)


def _mcp(args: argparse.Namespace) -> int:
    from ..mcp_server import serve

    serve()
    return 0
