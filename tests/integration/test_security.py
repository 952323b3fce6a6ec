"""Access and secrets (issue #8): the managed Neo4j listens on loopback only and requires
authentication (bolt and HTTP), its home and password file are private, graphmem's own files
(spool, cursors, daemon socket) are private, and nothing logs a password or an API key: after a
run of CLI commands with a recognisable fake OpenAI key and the real Neo4j password, every
output and log file is searched for both. ``test_managed_server.py`` covers a fresh server's
lifecycle; this file checks the suite's running server and the runtime files."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import stat
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from neo4j import exceptions as nex

from graphmem import GraphMemory
from graphmem.cli.main import main
from graphmem.errors import DatabaseUnavailable
from graphmem.neo4j_local import ManagedServer
from graphmem.runtime.service import HookService
from tests.conftest import Neo4jTarget, _test_home
from tests.integration.test_hooks import GRAPHMEM, claude_file, closed_port, stop_payload, write_lines
from tests.integration.test_managed_server import LOOPBACK, _listening

pytestmark = pytest.mark.integration

FAKE_KEY = "sk-proj-GRAPHMEMFAKEKEY0123456789abcdefghijklmnop"


def _mode(p: Path) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def test_server_is_loopback_only_and_requires_authentication(neo4j_target: Neo4jTarget) -> None:
    with pytest.raises(nex.AuthError), GraphDatabase.driver(neo4j_target.uri, auth=("neo4j", "wrong")) as d:
        d.verify_connectivity()
    with pytest.raises((nex.AuthError, nex.ClientError)), GraphDatabase.driver(neo4j_target.uri, auth=None) as d:
        d.verify_connectivity()
    with GraphDatabase.driver(neo4j_target.uri, auth=(neo4j_target.user, neo4j_target.password)) as d:
        d.verify_connectivity()
    if neo4j_target.kind != "managed":  # testcontainers / explicit server: not ours to configure
        return
    server = ManagedServer(_test_home(), neo4j_target.version)
    st = server.state()
    assert st is not None
    for port in (st.bolt_port, st.http_port):
        addrs = _listening(port)
        assert addrs and set(addrs) <= LOOPBACK, (port, addrs)
    # the HTTP API refuses a query without credentials, or with wrong ones
    url = f"http://127.0.0.1:{st.http_port}/db/neo4j/query/v2"
    body = json.dumps({"statement": "RETURN 1"}).encode()
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never via a proxy
    for auth in (None, "neo4j:wrong"):
        req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
        if auth:
            req.add_header("Authorization", "Basic " + base64.b64encode(auth.encode()).decode())
        with pytest.raises(urllib.error.HTTPError) as err:
            opener.open(req, timeout=120)
        assert err.value.code in (401, 403, 404), err.value.code  # 404: an older server without /query/v2
    assert _mode(server.home) == 0o700
    assert _mode(server.password_file) == 0o600


def test_runtime_files_are_private(tmp_path: Path, namespace: str, neo4j_target: Neo4jTarget) -> None:
    """Spool, cursors (a Stop hook while Neo4j is down) and the daemon's socket, pid and log."""
    home = tmp_path / "home"
    _t, lines, sid, cwd = claude_file(tmp_path, namespace, n_turns=2)
    path = tmp_path / f"{sid}.jsonl"
    write_lines(path, lines)

    def down() -> GraphMemory:
        raise DatabaseUnavailable("down for the test")

    reply = HookService(home, down).handle("claude-code", json.dumps(stop_payload(sid, path, cwd)))
    assert "spooled" in reply.stderr
    assert _mode(home) == 0o700
    for d in ("spool", "cursors"):
        assert _mode(home / d) == 0o700, d
        files = [p for p in (home / d).rglob("*") if p.is_file()]
        assert files, d
        for f in files:
            assert _mode(f) & 0o077 == 0, (f, oct(_mode(f)))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_"))}
    env.update(neo4j_target.env())
    env.update({"GRAPHMEM_HOME": str(home), "GRAPHMEM_EMBEDDER": "none", "GRAPHMEM_DAEMON_WORKER": "0",
                "GRAPHMEM_DAEMON_IDLE": "120"})
    r = subprocess.run([*GRAPHMEM, "daemon", "start", "--wait", "120"], env=env, capture_output=True, text=True,
                       timeout=300)
    try:
        assert r.returncode == 0, r.stderr
        sockets = [p for p in home.rglob("*") if p.is_socket()]
        status = subprocess.run([*GRAPHMEM, "daemon", "status"], env=env, capture_output=True, text=True, timeout=120)
        assert status.returncode == 0, status.stderr
        # the socket may live under /tmp when the home's path is too long for a Unix socket
        for p in sockets:
            assert _mode(p) & 0o077 == 0, (p, oct(_mode(p)))
        for p in home.rglob("*"):
            if p.is_file() or p.is_socket() or p.is_dir():
                assert _mode(p) & 0o077 == 0, (p, oct(_mode(p)))
    finally:
        subprocess.run([*GRAPHMEM, "daemon", "stop"], env=env, capture_output=True, text=True, timeout=120)


def test_no_password_or_api_key_in_any_output_or_log(
    tmp_path: Path, namespace: str, neo4j_target: Neo4jTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    for k, v in neo4j_target.env().items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("GRAPHMEM_HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "none")
    monkeypatch.setenv("GRAPHMEM_DAEMON_WORKER", "0")
    password = neo4j_target.password
    assert password
    outputs: list[str] = []

    def run(*argv: str) -> int:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as e:
                code = int(e.code or 0)
        outputs.append(out.getvalue() + err.getvalue())
        return code

    cwd = namespace + "/secure"
    assert run("db", "status") in (0, 1)
    run("db", "status", "--json")
    run("db", "browser")
    assert run("turns", "add", "--cwd", cwd, "--user", "hello", "--assistant", "hi", "--json") == 0
    sid = json.loads(outputs[-1])["session_id"] if "session_id" in outputs[-1] else None
    run("sessions", "list", "--cwd", cwd)
    if sid:
        run("sessions", "show", sid, "--json")
        run("context", sid, "hello", "--mode", "text")
    run("search", "hello", "--scope", "directory", "--cwd", cwd, "--mode", "text")
    run("facts", "add", "the CI uses GitHub Actions", "--scope", f"project:{cwd}")
    run("facts", "list", "--scope", f"project:{cwd}")
    run("settings", "get")
    run("stats")
    run("worker", "status")
    run("spool", "status")
    run("export", "--format", "json", "--cwd", cwd, "--output", str(tmp_path / "export.json"))
    _t, lines, csid, ccwd = claude_file(tmp_path, namespace, n_turns=2)
    transcript = tmp_path / f"{csid}.jsonl"
    write_lines(transcript, lines)
    run("import", "claude-code", str(transcript), "--json")
    # failures are where credentials leak most often: a wrong password, an unreachable server,
    # an OpenAI embedder whose endpoint refuses the key
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", password + "-wrong")
    run("sessions", "list", "--cwd", cwd)
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", password)
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", f"bolt://127.0.0.1:{closed_port()}")
    run("stats")
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", neo4j_target.uri)
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{closed_port()}/v1")
    run("search", "hello", "--scope", "directory", "--cwd", cwd)
    # a hook through a real process (its stderr is what the coding CLI shows)
    env = {k: v for k, v in os.environ.items()}
    env["GRAPHMEM_EMBEDDER"] = "none"
    env["GRAPHMEM_HOOK_DAEMON"] = "0"
    hook = subprocess.run([*GRAPHMEM, "hook", "claude-code"], input=json.dumps(stop_payload(csid, transcript, ccwd)),
                          env=env, capture_output=True, text=True, timeout=300)
    outputs.append(hook.stdout + hook.stderr)
    with contextlib.suppress(Exception):
        subprocess.run([*GRAPHMEM, "daemon", "stop"], env=env, capture_output=True, timeout=120)

    assert len(outputs) >= 15
    texts = {f"output {i}": o for i, o in enumerate(outputs)}
    roots = [home, tmp_path]
    if neo4j_target.home is not None:
        roots.append(neo4j_target.home / "neo4j" / neo4j_target.version / "logs")
    for root in roots:
        for p in root.rglob("*"):
            if p.is_file() and p.name != "neo4j-password":
                texts[str(p)] = p.read_bytes().decode("utf-8", "replace")
    leaks = [name for name, text in texts.items() if password in text or FAKE_KEY in text]
    assert not leaks, leaks
    assert any("neo4j" in name for name in texts) or neo4j_target.home is None
