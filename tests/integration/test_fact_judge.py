"""remember with an LLM judge (graphmem.facts.judge), against the local OpenAI-compatible server
scripting the judge's answers: a correction worded differently retires the old fact (kept as history),
a repetition writes nothing, an answer out of bounds falls back to a plain remember."""

from __future__ import annotations

import json

import pytest

from graphmem import Database, GraphMemory
from graphmem.embedding import LocalEmbedder
from graphmem.facts import FactJudge
from graphmem.models import utcnow
from graphmem.providers.retry import RetryPolicy

from ..fake_openai import FakeOpenAIServer, chat_content

pytestmark = pytest.mark.integration


def _says(action: str, fact_id: str | None) -> object:
    return chat_content(json.dumps({"action": action, "id": fact_id, "reason": "test"}))


def test_the_judge_updates_noops_and_falls_back(database: Database, namespace: str) -> None:
    scope = f"project:{namespace}/pet"
    with FakeOpenAIServer() as fake:
        judge = FactJudge("gpt-4o-mini", api_key=fake.api_key, base_url=fake.base_url,
                          retry=RetryPolicy(max_attempts=1))
        mem = GraphMemory(database, embedder=LocalEmbedder(), judge=judge)
        first = mem.remember("David lives in Ordizan", ["david"], scope=scope)
        assert first.action == "inserted" and fake.count("chat/completions") == 0  # nothing to judge against
        before = utcnow()
        fake.script("chat/completions", _says("update", first.fact.id))
        moved = mem.remember("Actually David moved to Toulouse", ["david"], scope=scope)
        assert moved.action == "updated" and moved.previous is not None and moved.previous.id == first.fact.id
        assert [f.content for f in mem.list_facts(scopes=[scope])] == ["Actually David moved to Toulouse"]
        assert [f.content for f in mem.facts_as_of(before, scopes=[scope])] == \
            ["David lives in Ordizan"]
        fake.script("chat/completions", _says("noop", moved.fact.id))
        same = mem.remember("David is living in Toulouse now", ["david"], scope=scope)
        assert same.action == "unchanged" and same.fact.id == moved.fact.id
        assert len(mem.list_facts(scopes=[scope])) == 1
        fake.script("chat/completions", _says("update", "not-a-known-id"))
        other = mem.remember("David plays badminton on Tuesdays", ["david"], scope=scope)
        assert other.action == "inserted"  # out of bounds: a plain remember, nothing lost
        request = fake.requests("chat/completions")[0].body
        assert "David lives in Ordizan" in request["messages"][1]["content"]
    assert sorted(f.content for f in mem.list_facts(scopes=[scope])) == [
        "Actually David moved to Toulouse", "David plays badminton on Tuesdays"]
