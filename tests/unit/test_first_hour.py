"""What a new user meets first, without a database: a wrong Neo4j URI and malformed turn input get
one clear error naming the setting or the field."""

from __future__ import annotations

import subprocess
import sys

import pytest

from graphmem.config import Settings
from graphmem.errors import InvalidInput, InvalidSettings
from graphmem.turns import turn_input


@pytest.mark.parametrize(("uri", "hint"), [
    ("localhost:7687", "must be a Bolt URI: bolt://host:7687 or neo4j://host:7687"),
    ("http://localhost:7474", "not http://: that is the Browser's address; the Bolt one is usually bolt://host:7687"),
    ("ftp://x", "not ftp://"),
])
def test_neo4j_uri_without_a_bolt_scheme_is_one_setting_error(monkeypatch: pytest.MonkeyPatch, uri: str,
                                                              hint: str) -> None:
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", uri)
    with pytest.raises(InvalidSettings) as info:
        Settings.load()
    assert len(info.value.problems) == 1
    assert info.value.problems[0].startswith(f"GRAPHMEM_NEO4J_URI={uri!r}: ")
    assert hint in info.value.problems[0]


@pytest.mark.parametrize("uri", ["bolt://h:7687", "neo4j+s://h", "bolt+ssc://h:1", ""])
def test_bolt_uris_are_accepted(monkeypatch: pytest.MonkeyPatch, uri: str) -> None:
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", uri)
    assert Settings.load().neo4j_uri == uri


def test_cli_names_the_setting_on_one_line_with_exit_2(tmp_path: object) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GRAPHMEM_NEO4J_URI": "http://localhost:7474",
           "GRAPHMEM_NEO4J_PASSWORD": "x"}
    out = subprocess.run([sys.executable, "-c", "from graphmem.cli import main; raise SystemExit(main())", "stats"],
                         capture_output=True, text=True, env=env, timeout=120, check=False)
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "graphmem: invalid setting GRAPHMEM_NEO4J_URI='http://localhost:7474': must be a Bolt URI (bolt:// or "
        "neo4j://), not http://: that is the Browser's address; the Bolt one is usually bolt://host:7687"]
    assert out.stdout == ""


def test_malformed_tool_call_is_invalid_input_naming_the_field() -> None:
    with pytest.raises(InvalidInput, match=r"^tool_calls\[1\]\.name: Field required$"):
        turn_input("q", "a", [{"name": "ok"}, {"args": {"x": 1}}])
    with pytest.raises(InvalidInput, match=r"^tool_calls\[0\]\.duration_ms: Input should be a valid integer"):
        turn_input("q", "a", [{"name": "x", "duration_ms": "slow"}])


def test_store_turn_raises_invalid_input_before_touching_the_database() -> None:
    from graphmem.db import Database
    from graphmem.memory import GraphMemory

    db = Database("bolt://127.0.0.1:9", "neo4j", "x", timeout=1.0, max_retry_time=1.0)
    try:
        with pytest.raises(InvalidInput, match=r"tool_calls\[0\]\.name"):
            GraphMemory(db).store_turn("some-session", "q", "a", tool_calls=[{"result": "r"}])
    finally:
        db.close()
