"""The periodic digest of live messages into facts, on the real server with a local OpenAI-compatible
server scripting the LLM's answers: it stores the extracted facts through ``remember``, clears the
messages it read and only those, does nothing without an LLM (and says why), and a digest stopped
half-way (an LLM failure, a killed process) resumes without losing or duplicating anything."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphmem import Database, GraphMemory
from graphmem.chat import DigestConfig, Digester, recent_digests
from graphmem.embedding import LocalEmbedder
from graphmem.errors import ConfigError, ProviderError
from graphmem.facts import FactExtractor
from graphmem.providers.retry import RetryPolicy

from ..conftest import Neo4jTarget
from ..fake_openai import FakeOpenAIServer, chat_content, unauthorized
from ..support import support_db

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
FACTS = [
    {"content": "David moved to Toulouse", "type": "fact", "subjects": ["david"], "ttl": None, "scope": "global"},
    {"content": "Lea is in Greece this week", "type": "event", "subjects": ["lea"], "ttl": "7d", "scope": "global"},
    {"content": "The group plays badminton on Thursdays", "type": "fact", "subjects": ["group"], "ttl": None,
     "scope": "global"},
]


def _answer(facts: list[dict[str, object]]) -> object:
    return chat_content(json.dumps({"facts": facts}))


@pytest.fixture
def rooms(database: Database) -> Iterator[str]:
    """A prefix for this test's room names; their messages and digests are deleted afterwards."""
    prefix = f"digest-{uuid.uuid4().hex[:10]}-"
    yield prefix
    support_db(database).write("testing/digest_cleanup", prefix=prefix)


@pytest.fixture
def mem(database: Database) -> GraphMemory:
    return GraphMemory(database, embedder=LocalEmbedder())


def _digester(mem: GraphMemory, fake: FakeOpenAIServer | None, scope: str) -> Digester:
    extractor = None if fake is None else FactExtractor(
        "gpt-4o-mini", api_key=fake.api_key, base_url=fake.base_url,
        retry=RetryPolicy(max_attempts=1))
    return mem.digester(extractor, DigestConfig(scope=scope))


def _observe_lobby(mem: GraphMemory, room: str) -> None:
    mem.observe(room, "david", "Non en fait j'ai déménagé à Toulouse", datetime(2026, 11, 20, 9, 0, tzinfo=UTC))
    mem.observe(room, "lea", "je pars en Grèce cette semaine", datetime(2026, 11, 20, 9, 5, tzinfo=UTC))
    mem.observe(room, "max", "badminton jeudi comme d'habitude ?", datetime(2026, 11, 20, 9, 7, tzinfo=UTC))


def test_a_digest_stores_the_facts_and_clears_only_what_it_read(mem: GraphMemory, namespace: str,
                                                                 rooms: str) -> None:
    lobby, other = rooms + "lobby", rooms + "other"
    scope = f"project:{namespace}/chat"
    _observe_lobby(mem, lobby)
    mem.observe(other, "zoe", "hello", datetime(2026, 11, 20, 9, 8, tzinfo=UTC))
    with FakeOpenAIServer() as fake:
        fake.script("chat/completions", _answer(FACTS))
        digester = _digester(mem, fake, scope)
        assert digester.status(lobby).due and digester.status(lobby).waiting == 3
        late: list[str] = []
        # a message arriving while the digest runs is not one it read: it stays for the next digest
        done = digester.run([lobby], on_fact=lambda r: late.append(mem.observe(lobby, "max", "encore là ?"))
                            if not late else None)
        [request] = fake.requests("chat/completions")
    body = request.body["messages"][1]["content"]
    assert "david (20/11 10:00): Non en fait j'ai déménagé à Toulouse" in body  # Europe/Paris by default
    assert "hello" not in body
    [digest] = done.digests
    assert digest["messages"] == 3 and digest["cleared"] == 3 and len(digest["results"]) == 3
    stored = {f.content: f for f in mem.list_facts(scopes=[scope], limit=10)}
    assert set(stored) == {f["content"] for f in FACTS}
    assert stored["Lea is in Greece this week"].expires_at is not None  # the temporary state has its TTL
    assert [m.text for m in mem.live_messages(lobby)] == ["encore là ?"]
    assert [m.text for m in mem.live_messages(other)] == ["hello"]
    [listed] = recent_digests(mem.db, room=lobby)
    assert listed["state"] == "done" and sorted(listed["facts"]) == sorted(stored)
    assert listed["llmCalls"] == 1 and listed["promptTokens"] == 120 and listed["completionTokens"] == 40
    assert listed["model"] == "gpt-4o-mini" and listed["costUsd"] > 0
    [explored] = mem.db.read("explore/digest_facts", room=lobby)  # the Browser guide's query
    assert explored["messagesRead"] == 3 and sorted(explored["facts"]) == sorted(stored)
    status = digester.status(lobby)
    assert status.waiting == 1 and status.last is not None and status.digests == 1


def test_without_an_llm_no_digest_runs_and_the_status_says_why(mem: GraphMemory, namespace: str, rooms: str,
                                                               neo4j_target: Neo4jTarget, tmp_path: Path) -> None:
    lobby = rooms + "lobby"
    _observe_lobby(mem, lobby)
    digester = _digester(mem, None, f"project:{namespace}/chat")
    status = digester.status(lobby)
    assert not status.due and status.waiting == 3 and status.reason.startswith("no LLM configured")
    with pytest.raises(ConfigError, match="no LLM configured"):
        digester.run([lobby])
    assert digester.run_if_due() is None
    env = {**os.environ, **neo4j_target.env(), "GRAPHMEM_HOME": str(tmp_path / "home"),
           "GRAPHMEM_EMBEDDER": "none", "GRAPHMEM_SUMMARIZER": "extractive"}
    cli = [sys.executable, "-c", "import sys; from graphmem.cli import main; sys.exit(main(sys.argv[1:]))"]
    out = subprocess.run([*cli, "digest", "status", "--room", lobby], env=env, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.splitlines()[0].startswith("no LLM configured"), out
    out = subprocess.run([*cli, "digest", "run", "--room", lobby], env=env, capture_output=True, text=True)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out
    assert "no LLM configured" in out.stderr
    assert len(mem.live_messages(lobby)) == 3  # nothing lost


def test_a_digest_whose_llm_failed_resumes_with_the_same_messages(mem: GraphMemory, namespace: str,
                                                                  rooms: str) -> None:
    lobby = rooms + "lobby"
    scope = f"project:{namespace}/chat"
    _observe_lobby(mem, lobby)
    with FakeOpenAIServer() as fake:
        fake.script("chat/completions", unauthorized())
        digester = _digester(mem, fake, scope)
        with pytest.raises(ProviderError):
            digester.run([lobby])
        assert digester.status(lobby).unfinished == 1 and len(mem.live_messages(lobby)) == 3
        mem.observe(lobby, "zoe", "arrived after the claim", datetime(2026, 11, 20, 9, 9, tzinfo=UTC))
        fake.script("chat/completions", _answer(FACTS[:1]), _answer([]))
        done = digester.run([lobby])
    # the claimed digest first (the same three messages), then a new one for the message that came later
    assert [d["messages"] for d in done.digests] == [3, 1]
    assert done.digests[0]["facts"] == [FACTS[0]["content"]]
    assert mem.live_messages(lobby) == [] and digester.status(lobby).unfinished == 0
    assert [f.content for f in mem.list_facts(scopes=[scope], limit=10)] == [FACTS[0]["content"]]


def test_a_killed_digest_loses_nothing_and_stores_nothing_twice(mem: GraphMemory, namespace: str, rooms: str,
                                                                 neo4j_target: Neo4jTarget, tmp_path: Path) -> None:
    lobby = rooms + "lobby"
    scope = f"project:{namespace}/chat"
    _observe_lobby(mem, lobby)
    with FakeOpenAIServer() as fake:
        fake.script("chat/completions", _answer(FACTS))
        env = {**os.environ, **neo4j_target.env(), "GRAPHMEM_HOME": str(tmp_path / "home"),
               "GRAPHMEM_EMBEDDER": "local", "PYTHONPATH": str(ROOT)}
        victim = subprocess.Popen([sys.executable, "-m", "tests.support.digest_victim", lobby, scope, fake.base_url,
                                   fake.api_key],
                                  env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert victim.stdout is not None
            line = victim.stdout.readline()  # blocks until the first fact is stored
            if not line.startswith("stored "):
                victim.wait(timeout=60)
                raise AssertionError(f"the victim exited ({victim.returncode}): {victim.stderr.read() if victim.stderr else ''}")
        finally:
            victim.send_signal(signal.SIGKILL)
            victim.wait(timeout=60)
        assert victim.returncode == -signal.SIGKILL
        assert len(mem.list_facts(scopes=[scope], limit=10)) == 1 and len(mem.live_messages(lobby)) == 3
        done = _digester(mem, fake, scope).run([lobby])
        assert fake.count("chat/completions") == 1  # the extracted facts were kept: the model is not asked again
    [digest] = done.digests
    assert digest["resumed_at"] == 1 and len(digest["results"]) == 2
    contents = sorted(f.content for f in mem.list_facts(scopes=[scope], limit=10))
    assert contents == sorted(f["content"] for f in FACTS)  # each once
    assert mem.live_messages(lobby) == []
    [listed] = recent_digests(mem.db, room=lobby)
    assert listed["state"] == "done" and len(listed["facts"]) == 3
