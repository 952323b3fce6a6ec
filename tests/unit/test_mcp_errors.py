"""The one-line errors of ``graphmem mcp``: graphmem's errors and rejected arguments (no database:
arguments are checked before the memory is opened)."""

from __future__ import annotations

import anyio
import pytest

from graphmem.errors import (
    ConfigError,
    DatabaseError,
    DatabaseUnavailable,
    InvalidInput,
    InvalidSettings,
    SessionNotFound,
)
from graphmem.mcp_server import build_server, error_line

WHERE = "bolt://db.example:7687"


@pytest.mark.parametrize(("error", "line"), [
    (InvalidInput("invalid TTL 'soon': use a duration like '1h'"), "invalid input: invalid TTL 'soon': use a duration like '1h'"),
    (SessionNotFound("abc"), "session not found: 'abc'"),
    (DatabaseUnavailable("Neo4j is unreachable: Couldn't connect to db.example:7687\nFailed to establish"),
     f"Neo4j is not reachable at {WHERE}: start it with `graphmem db up` (or fix GRAPHMEM_NEO4J_URI if it points "
     "at your own server)"),
    (DatabaseUnavailable("the managed Neo4j under /h is not running: run `graphmem db up`"),
     "the managed Neo4j under /h is not running: run `graphmem db up`"),
    (DatabaseUnavailable("Neo4j refused the credentials: unauthorized"),
     f"Neo4j at {WHERE} refused the credentials: check GRAPHMEM_NEO4J_USER and GRAPHMEM_NEO4J_PASSWORD"),
    (InvalidSettings(["GRAPHMEM_CONNECT_TIMEOUT='x': not a number"]),
     "invalid setting GRAPHMEM_CONNECT_TIMEOUT='x': not a number"),
    (ConfigError("GRAPHMEM_NEO4J_URI is set but no password"), "configuration: GRAPHMEM_NEO4J_URI is set but no password"),
    (DatabaseError("Neo.ClientError.Statement.SyntaxError:\n  bad"), "Neo.ClientError.Statement.SyntaxError: bad"),
])
def test_each_error_is_one_line(error: Exception, line: str) -> None:
    assert error_line(error, WHERE) == line  # type: ignore[arg-type]


def _call(name: str, arguments: dict[str, object]) -> str:
    server = build_server()

    async def run() -> str:
        try:
            await server.call_tool(name, arguments)
        except Exception as e:
            return str(e)
        raise AssertionError("the call was accepted")

    return anyio.run(run)


@pytest.mark.parametrize(("tool", "arguments", "expected"), [
    ("memory_search", {"query": "x", "k": 0}, "invalid input: k: Input should be greater than or equal to 1"),
    ("memory_search", {"query": "x", "mode": "fuzzy"}, "invalid input: mode: Input should be"),
    ("memory_search_facts", {"query": "x", "limit": 51}, "invalid input: limit: Input should be less than or equal to 50"),
    ("memory_store_fact", {"content": "x", "scope": "directory"}, "invalid input: scope: "),
    ("memory_store_fact", {"content": ""}, "invalid input: content: String should have at least 1 character"),
    ("memory_forget", {}, "invalid input: topic_or_id: Field required"),
])
def test_rejected_arguments_are_one_line_naming_the_field(tool: str, arguments: dict[str, object],
                                                          expected: str) -> None:
    text = _call(tool, arguments)
    assert text.startswith(f"Error executing tool {tool}: {expected}"), text
    assert "\n" not in text
