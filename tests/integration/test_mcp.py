"""``graphmem mcp`` driven by the official MCP SDK's own client over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from graphmem import GraphMemory
from tests.conftest import Neo4jTarget
from tests.integration.test_hooks import hook_env

pytestmark = pytest.mark.integration

mcp_client = pytest.importorskip("mcp.client.session")
mcp_stdio = pytest.importorskip("mcp.client.stdio")


def _payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result
    structured = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    if structured:
        return dict(structured)
    return dict(json.loads(result.content[0].text))


def test_mcp_server_over_stdio(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, tmp_path: Path
) -> None:
    cwd = f"{namespace}/shop"
    s = memory.create_session(cwd, agent="claude-code")
    memory.store_turn(s.id, "Why is the shopping cart empty after login?",
                      "The session cookie was dropped by the SameSite=Strict setting; I changed it to Lax.")
    memory.await_text_index()
    env = hook_env(neo4j_target, tmp_path / "gh", GRAPHMEM_EMBEDDER="local")  # fact search is semantic
    params = mcp_stdio.StdioServerParameters(
        command=sys.executable,
        args=["-c", "import sys; from graphmem.cli import main; sys.exit(main())", "mcp"],
        env=env, cwd=str(tmp_path),
    )

    async def drive() -> None:
        async with mcp_stdio.stdio_client(params) as (read, write), mcp_client.ClientSession(read, write) as session:
            init = await session.initialize()
            info = getattr(init, "server_info", None) or init.serverInfo
            assert info.name == "graphmem"
            names = {t.name for t in (await session.list_tools()).tools}
            assert {"memory_search", "memory_context", "recent_sessions"} <= names
            assert {"memory_store_fact", "memory_search_facts", "memory_forget"} <= names

            hits = _payload(await session.call_tool(
                "memory_search", {"query": "shopping cart empty", "scope": f"directory:{cwd}", "mode": "text"}))
            assert hits["hits"] and hits["hits"][0]["session_id"] == s.id
            assert "SameSite" in hits["hits"][0]["assistant_message"]

            recent = _payload(await session.call_tool("recent_sessions", {"cwd": cwd, "project": False}))
            assert [x["id"] for x in recent["sessions"]] == [s.id]

            ctx = _payload(await session.call_tool("memory_context", {"message": "cart empty", "session_id": s.id}))
            assert ctx["session_id"] == s.id and "text" in ctx

            stored = _payload(await session.call_tool("memory_store_fact", {
                "content": "The shop's checkout uses Stripe in test mode", "subjects": ["shop"],
                "scope": "project", "project_path": cwd}))
            assert stored["action"] == "inserted"
            found = _payload(await session.call_tool("memory_search_facts", {"query": "checkout payments",
                                                                            "project_path": cwd}))
            assert any("Stripe" in f["content"] for f in found["facts"])

            bad = await session.call_tool("memory_search", {"query": "x", "scope": "nonsense:scope"})
            assert bad.is_error

    anyio.run(drive)
