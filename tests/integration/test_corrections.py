"""Corrections without forget through every writer: ``GraphMemory.remember`` (the library, ``graphmem
facts add``, the service and MCP go through it) applies the correction rule without an LLM, and the LLM
judge when one is configured; a failing judge falls back to the rule. The old fact stays as history."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest

from graphmem import Database, GraphMemory, InvalidInput
from graphmem.chat import ChatConfig
from graphmem.config import Settings
from graphmem.db.client import Tx
from graphmem.embedding import LocalEmbedder
from graphmem.facts import FactJudge, make_fact_judge
from graphmem.models import utcnow
from graphmem.providers.retry import RetryPolicy

from ..fake_openai import FakeOpenAIServer, chat_content, server_error
from ..support import support_db

pytestmark = pytest.mark.integration


def test_remember_applies_the_rule_without_an_llm(database: Database, namespace: str) -> None:
    scope = f"project:{namespace}/pet"
    mem = GraphMemory(database, embedder=LocalEmbedder())
    before = utcnow() - timedelta(seconds=1)
    first = mem.remember("David habite à Ordizan", ["david"], scope=scope)
    assert first.action == "inserted" and first.retired == []
    during = utcnow()
    second = mem.remember("Non en fait David a déménagé à Toulouse", ["david"], scope=scope)
    assert second.action == "updated"
    assert second.previous is not None and second.previous.id == first.fact.id
    assert [f.content for f in second.retired] == ["David habite à Ordizan"]
    assert second.to_dict()["retired"][0]["content"] == "David habite à Ordizan"
    assert [f.content for f in mem.list_facts(scopes=[scope])] == ["Non en fait David a déménagé à Toulouse"]
    assert [f.content for f in mem.facts_as_of(during, scopes=[scope])] == ["David habite à Ordizan"]
    assert mem.facts_as_of(before, scopes=[scope]) == []
    # a naive time is read as UTC, the same zone-aware time in Paris finds the same fact
    assert [f.content for f in mem.facts_as_of(during.replace(tzinfo=None), scopes=[scope])] == ["David habite à Ordizan"]
    paris = during.astimezone(ZoneInfo("Europe/Paris"))
    assert [f.content for f in mem.facts_as_of(paris, scopes=[scope])] == ["David habite à Ordizan"]
    with pytest.raises(InvalidInput, match=r"^at must be a datetime .*not str$"):
        mem.facts_as_of(during.isoformat(), scopes=[scope])  # type: ignore[arg-type]
    # an unrelated statement about David, or another person's move, retires nothing
    assert mem.remember("David joue au badminton le mardi", ["david"], scope=scope).retired == []
    assert mem.remember("Julie habite à Lyon", ["julie"], scope=scope).retired == []
    assert sorted(f.content for f in mem.list_facts(scopes=[scope])) == [
        "David joue au badminton le mardi", "Julie habite à Lyon", "Non en fait David a déménagé à Toulouse"]


def test_the_rule_stays_in_its_scope(database: Database, namespace: str) -> None:
    mem = GraphMemory(database, embedder=LocalEmbedder())
    a, b = f"project:{namespace}/a", f"project:{namespace}/b"
    mem.remember("David lives in Ordizan", ["david"], scope=a)
    moved = mem.remember("David moved to Toulouse", ["david"], scope=b)
    assert moved.action == "inserted" and moved.retired == []
    assert [f.content for f in mem.list_facts(scopes=[a])] == ["David lives in Ordizan"]


def _says(action: str, fact_id: str | None) -> object:
    return chat_content(json.dumps({"action": action, "id": fact_id, "reason": "test"}))


def test_the_judge_decides_and_a_failing_judge_falls_back_to_the_rule(database: Database, namespace: str) -> None:
    scope = f"project:{namespace}/pet"
    with FakeOpenAIServer() as fake:
        settings = Settings(summarizer="openai", openai_base_url=fake.base_url, openai_api_key=fake.api_key,
                            llm_model="gpt-4o-mini")
        made: list[FactJudge | None] = []

        def factory() -> FactJudge | None:
            judge = make_fact_judge(settings)
            assert judge is not None
            judge.retry = RetryPolicy(max_attempts=1)
            made.append(judge)
            return judge

        mem = GraphMemory(database, embedder=LocalEmbedder(), judge_factory=factory)
        assert made == []  # made on first use only
        mem.remember("David lives in Ordizan", ["david"], scope=scope)
        assert len(made) == 1 and fake.count("chat/completions") == 0  # nothing to judge against
        # the model says "add": its decision stands, the rule does not retire behind its back
        fake.script("chat/completions", _says("add", None))
        kept = mem.remember("David lives in Toulouse during the week", ["david"], scope=scope)
        assert kept.action == "inserted" and kept.retired == []
        # the call's usage is on the fact the model decided about
        [usage] = support_db(database).read("testing/llm_usage_of", id=kept.fact.id)
        assert usage["calls"] == 1 and usage["promptTokens"] == 120 and usage["completionTokens"] == 40
        assert len(mem.list_facts(scopes=[scope])) == 2
        # the model fails: the rule applies, nothing is lost
        fake.script("chat/completions", server_error(500))
        moved = mem.remember("David moved to Bordeaux", ["david"], scope=scope)
        assert moved.action == "updated"
        assert sorted(f.content for f in moved.retired) == ["David lives in Ordizan",
                                                          "David lives in Toulouse during the week"]
        assert [f.content for f in mem.list_facts(scopes=[scope])] == ["David moved to Bordeaux"]
        assert len(made) == 1
    assert make_fact_judge(Settings(summarizer="extractive")) is None


def test_chat_tools_use_the_memory_judge(database: Database, namespace: str) -> None:
    with FakeOpenAIServer() as fake:
        judge = FactJudge("gpt-4o-mini", api_key=fake.api_key, base_url=fake.base_url,
                          retry=RetryPolicy(max_attempts=1))
        mem = GraphMemory(database, embedder=LocalEmbedder(), judge=judge, chat=ChatConfig(root=namespace))
        tools = mem.chat_tools("pet")
        first = tools.store_memory("David works at Airbus", ["david"])
        fake.script("chat/completions", _says("update", first["id"]))
        second = tools.store_memory("David left Airbus for a start-up in Toulouse", ["david"])
        assert second["action"] == "updated" and second["retired"] == ["David works at Airbus"]
        assert fake.count("chat/completions") == 1


def test_two_corrections_of_one_fact_retire_it_once(database: Database, namespace: str) -> None:
    """A correction that commits while another correction of the same fact waits for it: the waiting
    one finds the fact already retired and changes nothing (one SUPERSEDES edge, the scope's count
    of current facts down by one)."""
    from graphmem.facts.store import retire_fact

    scope = f"project:{namespace}/pet"
    mem = GraphMemory(database, embedder=LocalEmbedder())
    old = mem.remember("David habite à Ordizan", ["david"], scope=scope).fact
    first = mem.remember("David aime le thé", ["david"], scope=scope).fact
    second = mem.remember("David joue au badminton", ["david"], scope=scope).fact
    db = support_db(database)
    count_before = db.read("testing/fact_supersedes", id=old.id)[0]["scopeCount"]
    waiting: list[bool] = []
    other = threading.Thread(target=lambda: waiting.append(retire_fact(database, second.id, old.id, rule="test")))

    def first_correction(tx: Tx) -> list[dict[str, object]]:
        rows = tx.run("corrections/retire", newId=first.id, oldId=old.id, now=utcnow(), rule="test")
        if other.ident is None:  # (not again if this transaction is retried)
            other.start()
        # commit only once the other correction waits for this transaction's lock
        while not db.read("testing/blocked_transactions", marker="SUPERSEDES {at: $now"):
            if not other.is_alive():
                break  # it did not wait: the assertions below fail
            other.join(0.05)
        return rows

    assert database.transaction(first_correction) == [{"retired": old.id}]
    other.join()
    assert waiting == [False]
    after = db.read("testing/fact_supersedes", id=old.id)[0]
    assert (after["edges"], after["scopeCount"]) == (1, count_before - 1)
    assert sorted(f.content for f in mem.list_facts(scopes=[scope])) == ["David aime le thé", "David joue au badminton"]
