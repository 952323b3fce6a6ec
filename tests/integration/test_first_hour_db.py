"""`graphmem db browser` (the Browser's URL with the connection filled in, the password on request)
and `graphmem db up` embedding what waits, through the CLI as a subprocess against the managed test
server; the background worker a large backlog gets, in process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from graphmem.cli.embed_waiting import embed_waiting
from graphmem.config import Settings
from graphmem.db import Database, managed_server
from graphmem.embedding import LocalEmbedder
from graphmem.memory import GraphMemory

from ..conftest import Neo4jTarget
from ..support import support_db

pytestmark = pytest.mark.integration


def _managed_env(target: Neo4jTarget, **extra: str) -> dict[str, str]:
    if target.kind != "managed" or target.home is None:
        pytest.skip("`graphmem db` manages graphmem's own server; the test server is not one")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_", "OPENAI_"))}
    env.update(GRAPHMEM_HOME=str(target.home), GRAPHMEM_NEO4J_VERSION=target.version, GRAPHMEM_DAEMON_WORKER="0",
               GRAPHMEM_UP_DAEMON="0")
    env.update(extra)
    return env


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from graphmem.cli import main; raise SystemExit(main())", *args],
                          capture_output=True, text=True, env=env, timeout=600, check=False)


def test_browser_prints_the_url_with_the_connection_filled_in(neo4j_target: Neo4jTarget, tmp_path: Path) -> None:
    env = _managed_env(neo4j_target)
    server = managed_server(Settings(home=neo4j_target.home, neo4j_version=neo4j_target.version))
    st = server.state()
    assert st is not None
    out = _cli(env, "db", "browser")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == [
        f"http://127.0.0.1:{st.http_port}/browser/?dbms=bolt://neo4j@127.0.0.1:{st.bolt_port}&db=neo4j",
        f"connect URL: bolt://127.0.0.1:{st.bolt_port}  credentials: user neo4j, password: "
        "`graphmem db browser --password` (or --copy)",
    ]
    assert neo4j_target.password not in out.stdout + out.stderr

    password = _cli(env, "db", "browser", "--password")
    assert password.returncode == 0 and password.stdout == neo4j_target.password + "\n" and password.stderr == ""

    # --copy with a clipboard tool: the password goes to it, not to the terminal
    tools = tmp_path / "bin"
    tools.mkdir()
    clip = tmp_path / "clipboard"
    (tools / "xclip").write_text(f"#!/bin/sh\nexec /bin/cat > {clip}\n")
    (tools / "xclip").chmod(0o755)
    copied = _cli({**env, "PATH": str(tools)}, "db", "browser", "--password", "--copy")
    assert copied.returncode == 0, copied.stderr
    assert copied.stdout.splitlines() == ["the password is in the clipboard (copied with xclip)"]
    assert clip.read_text() == neo4j_target.password

    # without one: the password is printed, and one line says why
    empty = tmp_path / "empty"
    empty.mkdir()
    none = _cli({**env, "PATH": str(empty)}, "db", "browser", "--copy")
    assert none.returncode == 0
    assert none.stdout == neo4j_target.password + "\n"
    assert none.stderr.splitlines() == [
        "graphmem: no clipboard tool worked (wl-copy, xclip, xsel, pbcopy): the password is printed above"]


def test_db_up_embeds_what_waits(neo4j_target: Neo4jTarget, database: Database, namespace: str) -> None:
    env = _managed_env(neo4j_target)
    mem = GraphMemory(database)
    s = mem.create_session(namespace)
    for i in range(3):
        mem.store_turn(s.id, f"question {i} about the flaky login test", f"answer {i}: the clock was mocked")
    out = _cli(env, "db", "up")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(f"Neo4j {neo4j_target.version} already running on ")
    assert lines[1].startswith("Browser: http://127.0.0.1:") and "?dbms=bolt://neo4j@127.0.0.1:" in lines[1]
    assert re.fullmatch(r"embedded \d+ turns? and \d+ summar(y|ies) that were waiting \(\d+\.\d s\)", lines[-1]), lines
    states = support_db(database).read("testing/turn_states", sessionId=s.id)
    assert [r["embedState"] for r in states] == ["done"] * 3

    again = _cli(env, "db", "up")  # nothing waits: no line about it
    assert again.returncode == 0 and "that were waiting" not in again.stdout


def test_a_large_backlog_goes_to_a_background_worker(neo4j_target: Neo4jTarget, database: Database,
                                                     namespace: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in neo4j_target.env().items():
        monkeypatch.setenv(key, value)
    mem = GraphMemory(database, embedder=LocalEmbedder())  # the worker makes its own; this one stays unloaded
    s = mem.create_session(namespace)
    mem.store_turn(s.id, "where is the release checklist?", "in docs/release.md")
    line = embed_waiting(mem, tmp_path, limit=0)
    assert line is not None
    found = re.fullmatch(r"\d+ turns? and \d+ summar(y|ies) wait for their embedding: a worker embeds them in the "
                         r"background \(pid (\d+), log (.+); `graphmem worker status`\)", line)
    assert found, line
    pid, log = int(found.group(2)), Path(found.group(3))
    assert log == tmp_path / "worker-embed.log"
    _, status = os.waitpid(pid, 0)  # the worker is this process's child; `--once` ends when nothing is left
    assert os.waitstatus_to_exitcode(status) == 0, log.read_text()
    states = support_db(database).read("testing/turn_states", sessionId=s.id)
    assert [r["embedState"] for r in states] == ["done"]


def test_db_up_leaves_a_warm_daemon_that_answers_the_cli(neo4j_target: Neo4jTarget, tmp_path: Path) -> None:
    """``db up`` starts the home's daemon (unless GRAPHMEM_UP_DAEMON=0); the CLI's read commands
    are then answered through it, as the first hour's commands are after ``make demo``."""
    from graphmem.runtime.client import PROTOCOL, daemon_request
    from graphmem.runtime.daemon_control import daemon_status, stop_daemon

    env = _managed_env(neo4j_target, GRAPHMEM_UP_DAEMON="1", GRAPHMEM_EMBEDDER="none")
    home = Path(env["GRAPHMEM_HOME"])
    assert not daemon_status(home).running
    try:
        out = _cli(env, "db", "up", "--no-init")
        assert out.returncode == 0, out.stderr
        last = out.stdout.splitlines()[-1]
        assert re.fullmatch(r"warm daemon running \(pid \d+\): read commands and hooks answer through it .*", last), last
        assert daemon_status(home).running
        before = daemon_request({"v": PROTOCOL, "op": "ping"}, home=str(home), timeout=30)["cli"]["served"]
        stats = _cli(env, "stats")
        assert stats.returncode == 0, stats.stderr
        after = daemon_request({"v": PROTOCOL, "op": "ping"}, home=str(home), timeout=30)["cli"]["served"]
        assert after == before + 1
    finally:
        stop_daemon(home)
    assert not daemon_status(home).running
    off = _cli(_managed_env(neo4j_target, GRAPHMEM_EMBEDDER="none"), "db", "up", "--no-init")
    assert off.returncode == 0 and "warm daemon" not in off.stdout
    assert not daemon_status(home).running
