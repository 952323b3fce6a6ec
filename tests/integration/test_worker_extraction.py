"""With an LLM configured, the worker extracts facts from each turn once the turn is summarized
(never on the hook path): against the local OpenAI-compatible server scripting the extraction."""

from __future__ import annotations

import json

import pytest

from graphmem import Database, GraphMemory
from graphmem.embedding import LocalEmbedder
from graphmem.facts import FactExtractor
from graphmem.providers.retry import RetryPolicy
from graphmem.stats import llm_usage
from graphmem.worker import WorkerConfig

from ..fake_openai import FakeOpenAIServer, chat_content, server_error
from ..support import support_db

pytestmark = pytest.mark.integration


def test_the_worker_extracts_facts_from_summarized_turns(database: Database, namespace: str) -> None:
    mem = GraphMemory(database, embedder=LocalEmbedder())
    project = f"{namespace}/shop"
    s = mem.create_session(project, project_path=project, agent="claude-code")
    mem.store_turn(s.id, "We deploy the shop with Kamal now, not Capistrano", "Noted, I updated deploy.yml.")
    mem.store_turn(s.id, "What's the weather?", "I can't know that.")
    answer = {"facts": [{"content": "The shop is deployed with Kamal", "type": "decision", "subjects": ["deploy"],
                         "ttl": None, "scope": "project"}]}
    with FakeOpenAIServer() as fake:
        # the first turn's extraction answers; the second's fails: logged, the summaries are written anyway
        fake.script("chat/completions", chat_content(json.dumps(answer)), server_error(), server_error())
        extractor = FactExtractor("gpt-4o-mini", api_key=fake.api_key, base_url=fake.base_url,
                                  retry=RetryPolicy(max_attempts=2, initial_backoff=0.0, jitter=0.0))
        worker = mem.worker(config=WorkerConfig(batch_chars=0, scope=project), extractor=extractor)
        stats = worker.run_until_idle()
        assert fake.count("chat/completions") == 3
    assert stats.facts_extracted == 1 and stats.summaries[1] == 2
    [fact] = mem.list_facts(scopes=[f"project:{project}"])
    assert fact.content == "The shop is deployed with Kamal" and fact.source == "extraction"
    assert len(mem.summaries(s.id, 1)) == 2
    # the answered call's usage is on its turn (the fake server reports 120 + 40 tokens), the failed one has none
    usages = [support_db(database).read("testing/llm_usage_of", id=t.id)[0] for t in mem.load_session(s.id).turns]
    answered = [u for u in usages if u["calls"] is not None]
    assert answered == [{"calls": 1, "promptTokens": 120, "completionTokens": 40, "model": "gpt-4o-mini",
                         "costUsd": pytest.approx((120 * 0.15 + 40 * 0.60) / 1e6)}]
    assert len(usages) == 2  # the other turn's extraction failed: no usage recorded
    totals = {p["purpose"]: p for p in llm_usage(database)["purposes"]}
    assert totals["fact extraction"]["calls"] >= 1 and totals["fact extraction"]["prompt_tokens"] >= 120
