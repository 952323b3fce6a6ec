"""``graphmem mcp`` driven by the official MCP SDK's own client over stdio."""

from __future__ import annotations

import json
import socket
import sys
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from graphmem import GraphMemory
from graphmem.chat.model import DEFAULT_ROOT, agent_path
from graphmem.db import Database
from graphmem.models import ToolCallIn
from graphmem.paths import normalize_cwd
from tests.conftest import Neo4jTarget, cleanup_namespace
from tests.integration.test_hooks import hook_env

pytestmark = pytest.mark.integration

mcp_client = pytest.importorskip("mcp.client.session")
mcp_stdio = pytest.importorskip("mcp.client.stdio")

HINTS = {  # tool: (read-only, destructive)
    "memory_search": (True, False), "memory_context": (True, False), "recent_sessions": (True, False),
    "file_history": (True, False),
    "memory_store_fact": (False, False), "memory_search_facts": (True, False), "memory_forget": (False, True),
}
CHAT_HINTS = {
    "chat_search_memories": (True, False), "chat_search_memories_text": (True, False),
    "chat_recent_memories": (True, False), "chat_store_memory": (False, False), "chat_forget": (False, True),
    "chat_search_self": (True, False), "chat_store_self": (False, False), "chat_search_goals": (True, False),
    "chat_store_goal": (False, False),
}


def _payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result
    structured = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    if structured:
        return dict(structured)
    return dict(json.loads(result.content[0].text))


def _error(result: Any) -> str:
    """The text of an isError result: one line, and more than the SDK's generic crash message."""
    assert result.is_error, result
    text = str(result.content[0].text)
    assert "\n" not in text.strip(), text
    return text


def _run(env: dict[str, str], cwd: Path, body: Callable[[Any], Awaitable[None]]) -> None:
    params = mcp_stdio.StdioServerParameters(
        command=sys.executable,
        args=["-c", "import sys; from graphmem.cli import main; sys.exit(main())", "mcp"],
        env=env, cwd=str(cwd),
    )

    async def drive() -> None:
        async with mcp_stdio.stdio_client(params) as (read, write), mcp_client.ClientSession(read, write) as session:
            init = await session.initialize()
            info = getattr(init, "server_info", None) or init.serverInfo
            assert info.name == "graphmem"
            await body(session)

    anyio.run(drive)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _hint(tool: Any, name: str) -> Any:
    ann = tool.annotations
    return getattr(ann, name, None) if hasattr(ann, name) else getattr(ann, {
        "read_only_hint": "readOnlyHint", "destructive_hint": "destructiveHint"}[name])


def test_every_tool_describes_its_parameters_and_declares_its_hints(tmp_path: Path) -> None:
    # listing the tools needs no database: point the server at a closed port
    env = hook_env(None, tmp_path / "gh", GRAPHMEM_NEO4J_URI=f"bolt://127.0.0.1:{_closed_port()}",
                   GRAPHMEM_NEO4J_PASSWORD="unused", GRAPHMEM_CHAT_AGENT="mcp-test-agent")

    async def body(session: Any) -> None:
        tools = (await session.list_tools()).tools
        names = [t.name for t in tools]
        assert list(HINTS) == names[: len(HINTS)] and set(CHAT_HINTS) <= set(names), names
        assert len(set(names)) == len(names)
        # one name per concept: the chat agent's tools are chat_*, never a bare "forget" next to memory_forget
        assert not {"forget", "store_memory", "search_memories", "get_recent_memories"} & set(names), names
        expected = HINTS | CHAT_HINTS
        for t in tools:
            assert t.description, t.name
            schema = t.input_schema if hasattr(t, "input_schema") else t.inputSchema
            for pname, prop in schema["properties"].items():
                assert prop.get("description"), f"{t.name}.{pname} has no description"
            assert t.annotations is not None, t.name
            assert isinstance(_hint(t, "read_only_hint"), bool), t.name
            assert isinstance(_hint(t, "destructive_hint"), bool), t.name
            if t.name in expected:
                assert (_hint(t, "read_only_hint"), _hint(t, "destructive_hint")) == expected[t.name], t.name
        by = {t.name: (t.input_schema if hasattr(t, "input_schema") else t.inputSchema)["properties"] for t in tools}
        assert by["memory_search"]["k"]["minimum"] == 1 and by["memory_search"]["k"]["maximum"] == 50
        assert by["recent_sessions"]["limit"]["maximum"] == 100
        assert by["memory_search_facts"]["limit"]["maximum"] == 50
        assert "decision" in by["memory_store_fact"]["type"]["enum"]
        assert by["memory_search"]["mode"]["enum"] == ["hybrid", "semantic", "text"]
        for tool in ("memory_search", "memory_store_fact", "memory_search_facts", "memory_forget"):
            scope = by[tool]["scope"]
            words = next(a["enum"] for a in scope["anyOf"] if "enum" in a)
            assert {"project", "global", "session"} <= set(words), tool
            assert "'project' = the server's current project" in scope["description"], tool

    _run(env, tmp_path, body)


def test_mcp_server_over_stdio(
    neo4j_target: Neo4jTarget, memory: GraphMemory, database: Database, namespace: str, tmp_path: Path
) -> None:
    # the server runs in a subdirectory of a git project: scope "project" means that project's root
    shop = tmp_path / "shop"
    (shop / ".git").mkdir(parents=True)
    (shop / "src").mkdir()
    project = normalize_cwd(shop)
    try:
        s = memory.create_session(project, agent="claude-code")
        memory.store_turn(s.id, "Why is the shopping cart empty after login?",
                          "The session cookie was dropped by the SameSite=Strict setting; I changed it to Lax.",
                          tool_calls=[ToolCallIn(name="Edit", args={"file_path": f"{project}/src/cookies.py",
                                                                     "old_string": "Strict", "new_string": "Lax"},
                                                 success=True)])
        elsewhere = memory.create_session(f"{namespace}/other", agent="codex")
        memory.store_turn(elsewhere.id, "Is the shopping cart empty on the other site too?", "No.")
        memory.await_text_index()
        env = hook_env(neo4j_target, tmp_path / "gh", GRAPHMEM_EMBEDDER="local")  # fact search is semantic

        async def body(session: Any) -> None:
            hits = _payload(await session.call_tool(
                "memory_search", {"query": "shopping cart empty", "scope": "project", "mode": "text"}))
            assert [h["session_id"] for h in hits["hits"]] == [s.id]
            assert "SameSite" in hits["hits"][0]["assistant_message"]
            assert hits["time_window"] is None and hits["events_searched_apart"] is None
            both = _payload(await session.call_tool(
                "memory_search", {"query": "shopping cart empty", "scope": "global", "mode": "text", "k": 50}))
            assert {s.id, elsewhere.id} <= {h["session_id"] for h in both["hits"]}

            # a file's history: the edit with the request behind it; nothing for a file never touched
            # (the server runs in shop/src: a relative path is taken from there, like a shell's)
            history = _payload(await session.call_tool("file_history", {"path": "cookies.py"}))
            assert history["path"] == "src/cookies.py" and history["project"] == project
            assert [t["action"] for t in history["touches"]] == ["edit"]
            assert "shopping cart" in json.dumps(history["touches"][0])
            absolute = _payload(await session.call_tool("file_history", {"path": f"{project}/src/cookies.py"}))
            assert absolute["touches"] == history["touches"]
            untouched = _payload(await session.call_tool("file_history", {"path": "other.py"}))
            assert untouched["touches"] == [] and untouched["failures"] == []

            recent = _payload(await session.call_tool("recent_sessions", {}))
            assert [x["id"] for x in recent["sessions"]] == [s.id]
            ctx = _payload(await session.call_tool("memory_context", {"message": "cart empty"}))
            assert ctx["session_id"] == s.id and "text" in ctx

            # one meaning of "project" for facts too: store there, find it there, not from another project
            stored = _payload(await session.call_tool("memory_store_fact", {
                "content": "The shop's checkout uses Stripe in test mode", "subjects": ["shop"], "scope": "project"}))
            assert stored["action"] == "inserted" and stored["fact"]["scope_key"] == f"project:{project}"
            found = _payload(await session.call_tool("memory_search_facts", {"query": "checkout payments",
                                                                            "scope": "project"}))
            assert any("Stripe" in f["content"] for f in found["facts"])
            other = _payload(await session.call_tool("memory_search_facts", {
                "query": "checkout payments", "scope": f"project:{namespace}/other"}))
            assert not any("Stripe" in f["content"] for f in other["facts"])
            in_session = _payload(await session.call_tool("memory_store_fact", {
                "content": "Today the shop's staging server is down", "type": "event", "ttl": "1d",
                "scope": "session"}))
            assert in_session["fact"]["scope_key"] == f"session:{s.id}"

            # invalid input: the field is named, in one line
            assert "k" in _error(await session.call_tool("memory_search", {"query": "x", "k": 0}))
            assert "scope" in _error(await session.call_tool("memory_search", {"query": "x", "scope": "nonsense:x"}))
            assert "scope" in _error(await session.call_tool("memory_store_fact", {"content": "x",
                                                                                   "scope": "directory"}))
            assert "type" in _error(await session.call_tool("memory_store_fact", {"content": "x", "type": "rumour"}))
            ttl = _error(await session.call_tool("memory_store_fact", {"content": "x", "ttl": "soon"}))
            assert "invalid input: invalid TTL 'soon'" in ttl
            # not found: the reason, not "Error executing tool"
            missing = _error(await session.call_tool("memory_context", {"message": "x", "session_id": "no-such-id"}))
            assert "session not found: 'no-such-id'" in missing
            unknown = _error(await session.call_tool("memory_search_facts", {"query": "x",
                                                                              "scope": "session:no-such-id"}))
            assert "session not found: 'no-such-id'" in unknown
            nobody = _error(await session.call_tool("memory_store_fact", {
                "content": "x", "scope": "session", "cwd": f"{namespace}/empty"}))
            assert "no session recorded for project" in nobody

            forgot = _payload(await session.call_tool("memory_forget", {"topic_or_id": stored["fact"]["id"]}))
            assert [f["id"] for f in forgot["removed"]] == [stored["fact"]["id"]]

        _run(env, shop / "src", body)
    finally:
        cleanup_namespace(database, project)


def test_chat_agent_tools_over_stdio(neo4j_target: Neo4jTarget, database: Database, tmp_path: Path) -> None:
    agent = f"mcp-test-{uuid.uuid4().hex}"
    env = hook_env(neo4j_target, tmp_path / "gh", GRAPHMEM_EMBEDDER="local", GRAPHMEM_CHAT_AGENT=agent)

    async def body(session: Any) -> None:
        stored = _payload(await session.call_tool("chat_store_memory", {"content": "Mickael a une entorse",
                                                                         "subjects": ["mickael"]}))
        assert stored["action"] == "inserted"
        found = _payload(await session.call_tool("chat_search_memories_text", {"query": "entorse"}))
        assert [m["id"] for m in found["memories"]] == [stored["id"]]
        bad = _error(await session.call_tool("chat_store_self", {"content": "x", "category": "mood"}))
        assert "category" in bad
        gone = _payload(await session.call_tool("chat_forget", {"topic": stored["id"]}))
        assert [f["id"] for f in gone["removed"]] == [stored["id"]]

    try:
        _run(env, tmp_path, body)
    finally:
        cleanup_namespace(database, agent_path(DEFAULT_ROOT, agent))  # the agent's fact scopes


def test_database_down_is_one_line_with_the_fix(tmp_path: Path) -> None:
    port = _closed_port()
    env = hook_env(None, tmp_path / "gh", GRAPHMEM_NEO4J_URI=f"bolt://127.0.0.1:{port}",
                   GRAPHMEM_NEO4J_PASSWORD="unused", GRAPHMEM_CONNECT_TIMEOUT="2")

    async def body(session: Any) -> None:
        for tool, args in (("memory_search", {"query": "anything"}), ("memory_store_fact", {"content": "x"})):
            text = _error(await session.call_tool(tool, args))
            assert f"Neo4j is not reachable at bolt://127.0.0.1:{port}: start it with `graphmem db up`" in text

    _run(env, tmp_path, body)

    # the managed server (no URI) that was never started: the same, with its home
    home = tmp_path / "home"
    managed = hook_env(None, home)

    async def managed_body(session: Any) -> None:
        text = _error(await session.call_tool("recent_sessions", {}))
        assert "is not running: run `graphmem db up`" in text and str(home) in text

    _run(managed, tmp_path, managed_body)
