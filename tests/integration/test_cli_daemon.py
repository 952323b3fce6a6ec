"""The CLI's read commands answered by the warm daemon print exactly what they print without it.

Each command runs twice as a subprocess, once through a daemon serving the same home and
settings and once with ``GRAPHMEM_CLI_DAEMON=0``; exit codes, stdout and stderr are compared
(search's "(text, 12 ms)" timing and its JSON ``timingsMs`` are the only parts masked: they
measure the run). The daemon's ``cli`` counters tell which runs it answered.
"""

from __future__ import annotations

import json
import re
import subprocess
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem import GraphMemory
from graphmem.models import TurnIn
from graphmem.runtime.client import PROTOCOL, daemon_request
from tests.conftest import Neo4jTarget
from tests.support import support_db

from .test_hooks import GRAPHMEM as _GRAPHMEM
from .test_hooks import graphmem, hook_env, prompt_payload, run_hook, stop_test_daemon

pytestmark = pytest.mark.integration

_TIMING = re.compile(r"\((text|hybrid|semantic)[^)]*?, \d+ ms\)")


def _served(home: Path) -> dict[str, int]:
    counts: dict[str, int] = daemon_request({"v": PROTOCOL, "op": "ping"}, home=str(home), timeout=30)["cli"]
    return counts


def _masked(r: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    out = _TIMING.sub(r"(\1, N ms)", r.stdout)
    if out.lstrip().startswith("{"):
        data = json.loads(out)
        if isinstance(data, dict):
            data.pop("timingsMs", None)
            out = json.dumps(data, sort_keys=True)
    return r.returncode, out, r.stderr


class Both:
    """Runs a command through the daemon and without it, and compares."""

    def __init__(self, env: dict[str, str], home: Path, cwd: Path) -> None:
        self.env, self.home, self.cwd = env, home, cwd

    def run(self, *args: str, served: bool = True) -> subprocess.CompletedProcess[str]:
        before = _served(self.home)
        routed = subprocess.run([*_GRAPHMEM, *args], capture_output=True, text=True, env=self.env, cwd=self.cwd,
                                timeout=300)
        after = _served(self.home)
        assert after["served"] - before["served"] == (1 if served else 0), (args, routed.stderr)
        direct = subprocess.run([*_GRAPHMEM, *args], capture_output=True, text=True, cwd=self.cwd, timeout=300,
                                env={**self.env, "GRAPHMEM_CLI_DAEMON": "0"})
        assert _served(self.home) == after  # the switch keeps the command in its own process
        assert _masked(routed) == _masked(direct), args
        return routed


@pytest.fixture
def daemon_home(tmp_path: Path) -> Iterator[Path]:
    h = tmp_path / "gh"
    yield h
    stop_test_daemon(h)


def _seed(memory: GraphMemory, namespace: str) -> tuple[str, str]:
    cwd = f"{namespace}/billing-api"
    sid = memory.create_session(cwd, agent="claude-code").id
    old = datetime.now(UTC) - timedelta(days=10)  # "10 days ago" in both runs of a listing
    memory.import_turns(sid, [
        TurnIn(user_message=f"why does the invoice total test fail? ({n})",
               assistant_message=f"the invoice total rounds before adding tax, step {n}",
               timestamp=old + timedelta(minutes=n), source_id=f"t{n}")
        for n in range(5)
    ])
    _age(memory, sid, f"project:{cwd}")
    memory.await_text_index()
    return cwd, sid


def _age(memory: GraphMemory, sid: str, scope_key: str) -> None:
    """Everything listed dates from 10 days ago: "10 days ago" in both runs of a listing."""
    support_db(memory.db).write("testing/age_session_facts", sessionId=sid, scopeKey=scope_key,
                                at=datetime.now(UTC) - timedelta(days=10))


def _seeded_daemon(target: Neo4jTarget, memory: GraphMemory, namespace: str,
                   home: Path) -> tuple[str, str, dict[str, str]]:
    """The seeded data's directory and session, and the environment of a daemon started on it."""
    cwd, sid = _seed(memory, namespace)
    env = hook_env(target, home)
    r = graphmem(env, "daemon", "start", "--wait", "120")
    assert r.returncode == 0, r.stderr
    # the daemon logs its steps: the line before it answers is there once it answers
    assert "listening on" in (home / "daemon.log").read_text()
    return cwd, sid, env


def test_read_commands_print_the_same_through_the_daemon(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, daemon_home: Path, tmp_path: Path
) -> None:
    cwd, sid, env = _seeded_daemon(neo4j_target, memory, namespace, daemon_home)
    here = tmp_path / "elsewhere"
    here.mkdir()
    both = Both(env, daemon_home, here)

    r = both.run("stats")
    assert r.returncode == 0 and "sessions" in r.stdout
    both.run("stats", "--json")
    r = both.run("sessions", "list", "--cwd", cwd)
    assert sid in r.stdout and "10 days ago" in r.stdout
    both.run("sessions", "list", "--cwd", cwd, "--json")
    both.run("sessions", "list", "--cwd", cwd, "--project", "--ids")
    r = both.run("sessions", "list")  # the client's directory, not the daemon's
    assert r.stderr == f"no sessions for {here}\n"
    both.run("sessions", "show", sid)
    r = both.run("sessions", "show", "nope")
    assert r.returncode == 3 and r.stderr.count("\n") == 1
    both.run("turns", "list", sid, "--limit", "3")

    r = both.run("search", "invoice total", "--scope", "project", "--cwd", cwd)
    assert r.returncode == 0 and "results in" in r.stdout and sid in r.stdout
    both.run("search", "invoice", "--scope", "session", "--session", sid, "--mode", "text", "--json")
    both.run("search", "invoice", "--scope", "session", "--session", sid, "--mode", "semantic")
    both.run("search", "zzzqqqxxx", "--scope", "directory", "--cwd", cwd)
    r = both.run("search", "x", "--scope", "session", "--session", "nope")
    assert r.returncode == 3 and r.stdout == "" and r.stderr == "graphmem: error: session not found: 'nope'\n"
    r = both.run("search", "   ")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    r = both.run("search", "x", "-k", "0")
    assert r.returncode == 2
    r = both.run("search", served=False)  # argparse's usage error: the client prints it itself
    assert r.returncode == 2 and "usage:" in r.stderr

    scope = f"project:{cwd}"
    memory.remember("the billing service runs on Postgres 16", ["billing"], scope=scope, type="fact")
    memory.remember("invoices are rounded half-up to the cent", ["billing", "invoices"], scope=scope)
    _age(memory, sid, scope)
    r = both.run("facts", "list", "--scope", scope)
    assert "Postgres 16" in r.stdout
    both.run("facts", "list", "--scope", scope, "--json")
    both.run("facts", "list", "--scope", scope, "--subject", "invoices")
    both.run("facts", "search", "postgres", "--scope", scope)
    r = both.run("facts", "list", "--scope", "project:")
    assert r.returncode == 2
    both.run("settings", "get")
    r = both.run("settings", "get", "no_such_key")
    assert r.returncode == 2

    both.run("context", sid, "why does the invoice total test fail?", "--scope", "session")
    r = both.run("context", "nope", "hello")
    assert r.returncode != 0 and r.stderr.count("\n") == 1
    both.run("retrievals", "list", "--session", sid)
    st = _served(daemon_home)
    assert st["served"] > 20 and st["fallbacks"] == 1


def test_other_settings_run_in_the_clients_process(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, daemon_home: Path, tmp_path: Path
) -> None:
    cwd, sid, env = _seeded_daemon(neo4j_target, memory, namespace, daemon_home)
    for extra in ({"GRAPHMEM_DAEMON_IDLE": "999"}, {"LC_ALL": "fr_FR.UTF-8"}):
        r = subprocess.run([*_GRAPHMEM, "sessions", "list", "--cwd", cwd, "--ids"], capture_output=True, text=True,
                           env={**env, **extra}, timeout=300)
        assert r.returncode == 0 and r.stdout == f"{sid}\n", r.stderr
    assert _served(daemon_home) == {"served": 0, "fallbacks": 2}
    r = graphmem(env, "daemon", "status", "--json")  # still the same daemon: a command never restarts it
    assert json.loads(r.stdout)["running"]


def test_a_daemon_whose_embedder_does_not_fit_the_store_says_so_and_stays_text_only(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, daemon_home: Path
) -> None:
    """The test database records USE; a daemon configured with e5 would search 384-d vectors in
    512-d indexes. It keeps its searches text-only and names the mismatch; the CLI, which then runs
    the command itself, prints the mismatch line."""
    cwd, sid = _seed(memory, namespace)
    env = hook_env(neo4j_target, daemon_home, GRAPHMEM_EMBEDDER="e5", GRAPHMEM_HOOK_DAEMON="1",
                   GRAPHMEM_HOOK_BUDGET="20")
    r = graphmem(env, "daemon", "start", "--wait", "120")
    assert r.returncode == 0, r.stderr
    # the routing waits for the daemon's warm-up to settle, which then refuses the embedder
    r = subprocess.run([*_GRAPHMEM, "search", "invoice total", "--scope", "everything"], capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode != 0 and not r.stdout
    assert r.stderr.strip().splitlines() == [
        "graphmem: error: the database is indexed with use-multilingual-v3 (512-d) but the configured embedder "
        "is multilingual-e5-small-q4 (384-d): run `graphmem reindex` to re-embed everything, or configure the "
        "original embedder"], r.stderr
    st = json.loads(graphmem(env, "daemon", "status", "--json").stdout)
    assert st["embedder_ready"] is False and st["embedder"] is None
    assert "indexed with use-multilingual-v3 (512-d)" in st["embedder_error"], st
    # a prompt hook through it still answers, from the full-text side
    r = run_hook(env, "claude-code", prompt_payload(str(uuid.uuid4()), daemon_home / "t.jsonl", cwd,
                                                    "why does the invoice total test fail?"))
    assert r.returncode == 0, r.stderr
    assert "invoice" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"].lower()
    del sid
