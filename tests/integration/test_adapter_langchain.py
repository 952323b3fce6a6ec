"""LangChain on graphmem (``graphmem.adapters.langchain``) on a real server.

The retriever runs LangChain's own standard tests (``langchain_tests``' ``RetrieversIntegrationTests``).
``langchain-tests`` publishes none for chat message histories, so the history's contract is written
here from ``langchain_core``'s documented behaviour: ``messages``, ``add_messages`` (and the single
adders), ``clear``, their async variants, persistence across instances, and its use by
``RunnableWithMessageHistory``; then what graphmem adds (turns that search and the context see).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory
from langchain_tests.integration_tests import RetrieversIntegrationTests

from graphmem import Database, GraphMemory
from graphmem.adapters.langchain import GraphMemoryChatMessageHistory, GraphMemoryRetriever
from graphmem.embedding import LocalEmbedder
from graphmem.errors import InvalidInput

from ..conftest import Neo4jTarget

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def history(database: Database, namespace: str) -> GraphMemoryChatMessageHistory:
    return GraphMemoryChatMessageHistory(GraphMemory(database), uuid.uuid4().hex, cwd=namespace)


def _shape(messages: list[BaseMessage]) -> list[tuple[Any, ...]]:
    """What a graphmem history keeps of each message: type, text, tool calls, the call a result answers."""
    out: list[tuple[Any, ...]] = []
    for m in messages:
        calls = [(c["name"], c["args"], c["id"]) for c in m.tool_calls] if isinstance(m, AIMessage) else []
        out.append((m.type, m.content, calls, getattr(m, "tool_call_id", None)))
    return out


def test_an_empty_history(history: GraphMemoryChatMessageHistory) -> None:
    assert history.messages == []
    history.clear()  # clearing nothing is no error
    history.add_messages([])
    assert history.messages == []


def test_messages_round_trip(history: GraphMemoryChatMessageHistory) -> None:
    sent = [HumanMessage("hi, I am Ana"), AIMessage("Hello Ana!"), HumanMessage("what's 2+2?"), AIMessage("4")]
    history.add_messages(sent)
    assert _shape(history.messages) == _shape(sent)
    assert all(isinstance(m, type(s)) for m, s in zip(history.messages, sent, strict=True))


def test_single_messages_are_stored_at_once(history: GraphMemoryChatMessageHistory) -> None:
    history.add_user_message("first question")
    assert _shape(history.messages) == _shape([HumanMessage("first question")])
    history.add_ai_message("first answer")
    history.add_message(HumanMessage("second"))
    history.add_message(AIMessage("second answer"))
    assert [(m.type, m.content) for m in history.messages] == [
        ("human", "first question"), ("ai", "first answer"), ("human", "second"), ("ai", "second answer")]


def test_tool_calls_and_results_round_trip(history: GraphMemoryChatMessageHistory) -> None:
    sent: list[BaseMessage] = [
        HumanMessage("weather in Paris?"),
        AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Paris"}, "id": "call_1"},
                                  {"name": "clock", "args": {}, "id": "call_2"}]),
        ToolMessage("18°C, cloudy", tool_call_id="call_1"),
        ToolMessage("boom", tool_call_id="call_2", status="error"),
        AIMessage("It is 18°C and cloudy."),
    ]
    history.add_messages(sent)
    got = history.messages
    assert _shape(got) == _shape(sent)
    assert [getattr(m, "status", None) for m in got] == [None, None, "success", "error", None]
    turn = history.mem.load_session(history.session_id).turns[0]
    assert (turn.user_message, turn.assistant_message) == ("weather in Paris?", "It is 18°C and cloudy.")
    assert [(c.name, c.result, c.success, c.source_id) for c in turn.tool_calls] == [
        ("weather", "18°C, cloudy", True, "call_1"), ("clock", "boom", False, "call_2")]


def test_content_blocks_keep_their_text(history: GraphMemoryChatMessageHistory) -> None:
    history.add_messages([HumanMessage([{"type": "text", "text": "look at this"}]), AIMessage("seen")])
    assert [(m.type, m.content) for m in history.messages] == [("human", "look at this"), ("ai", "seen")]


def test_system_messages_are_refused_and_nothing_is_stored(history: GraphMemoryChatMessageHistory) -> None:
    with pytest.raises(InvalidInput, match=r"messages\[1\]: a system message is not stored"):
        history.add_messages([HumanMessage("hi"), SystemMessage("be nice"), AIMessage("hello")])
    assert history.messages == []


def test_clear_and_start_again(history: GraphMemoryChatMessageHistory) -> None:
    history.add_messages([HumanMessage("a"), AIMessage("b")])
    history.clear()
    assert history.messages == []
    history.add_messages([HumanMessage("c"), AIMessage("d")])
    assert [m.content for m in history.messages] == ["c", "d"]


def test_histories_persist_and_stay_apart(database: Database, namespace: str) -> None:
    mem = GraphMemory(database)
    one = GraphMemoryChatMessageHistory(mem, uuid.uuid4().hex, cwd=namespace)
    two = GraphMemoryChatMessageHistory(mem, uuid.uuid4().hex, cwd=namespace)
    one.add_messages([HumanMessage("only in one"), AIMessage("ok")])
    assert two.messages == []
    again = GraphMemoryChatMessageHistory(GraphMemory(database), one.session_id, cwd=namespace)
    assert [m.content for m in again.messages] == ["only in one", "ok"]


def test_async_variants(history: GraphMemoryChatMessageHistory) -> None:
    async def scenario() -> None:
        await history.aadd_messages([HumanMessage("async hi"), AIMessage("async hello")])
        assert [m.content for m in await history.aget_messages()] == ["async hi", "async hello"]
        await history.aclear()
        assert await history.aget_messages() == []

    asyncio.run(scenario())


def test_runnable_with_message_history_and_graphmem_context(database: Database, namespace: str) -> None:
    mem = GraphMemory(database)
    histories: dict[str, GraphMemoryChatMessageHistory] = {}

    def get_history(session_id: str) -> GraphMemoryChatMessageHistory:
        return histories.setdefault(session_id, GraphMemoryChatMessageHistory(mem, session_id, cwd=namespace))

    def model(messages: list[BaseMessage]) -> AIMessage:  # answers with how much it was given
        return AIMessage(f"{len(messages)} messages; last: {messages[-1].content}")

    chain = RunnableWithMessageHistory(RunnableLambda(model), get_history)  # deprecated in LangChain 1.x, still used
    sid = uuid.uuid4().hex
    config: Any = {"configurable": {"session_id": sid}}
    assert chain.invoke([HumanMessage("my cat is called Miso")], config=config).content == \
        "1 messages; last: my cat is called Miso"
    assert chain.invoke([HumanMessage("and my dog Rex")], config=config).content == "3 messages; last: and my dog Rex"
    assert [m.type for m in histories[sid].messages] == ["human", "ai", "human", "ai"]
    assert mem.get_session(sid).turn_count == 2
    mem.await_text_index()
    assert "Miso" in histories[sid].context("what is my cat called?").text
    hits = GraphMemoryRetriever(mem=mem, scope=f"session:{sid}", mode="text").invoke("cat Miso")
    assert hits and "Miso" in hits[0].page_content


class TestGraphMemoryRetrieverStandard(RetrieversIntegrationTests):
    """LangChain's standard retriever tests, on turns stored (and embedded) in this test's namespace."""

    @pytest.fixture(autouse=True)
    def _turns(self, database: Database, namespace: str) -> None:
        mem = GraphMemory(database, embedder=LocalEmbedder())
        session = mem.create_session(namespace, agent="langchain")
        for n, (q, a) in enumerate([("How do I deploy the shop?", "Run make deploy on the main branch."),
                                    ("Where are the deploy logs?", "In /var/log/shop/deploy.log."),
                                    ("Who approves a deploy?", "Ana approves production deploys."),
                                    ("What does the deploy script check?", "Tests, migrations and the disk."),
                                    ("Can I deploy on friday?", "Only hotfixes are deployed on fridays.")]):
            mem.store_turn(session.id, q, a + f" ({n})")
        mem.embed_pending()
        mem.await_text_index()
        self._params = {"mem": mem, "scope": f"directory:{namespace}"}

    @property
    def retriever_constructor(self) -> type[GraphMemoryRetriever]:
        return GraphMemoryRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return self._params

    @property
    def retriever_query_example(self) -> str:
        return "how to deploy"


def test_retriever_documents_carry_their_metadata(database: Database, namespace: str) -> None:
    mem = GraphMemory(database)
    session = mem.create_session(namespace)
    turn = mem.store_turn(session.id, "the build uses bazel", "yes, bazel 7")
    mem.await_text_index()
    docs = GraphMemoryRetriever(mem=mem, scope=f"directory:{namespace}", mode="text", k=2).invoke("bazel build")
    assert len(docs) == 1
    doc = docs[0]
    assert doc.page_content == "User: the build uses bazel\nAssistant: yes, bazel 7" and doc.id == turn.id
    meta = doc.metadata
    assert (meta["kind"], meta["level"], meta["session_id"], meta["cwd"], meta["index"]) == ("turn", 0, session.id,
                                                                                             namespace, 1)
    assert meta["score"] > 0 and 0 < meta["relevance"] <= 1 and meta["timestamp"].startswith(str(turn.timestamp.year))


def test_the_example_runs(neo4j_target: Neo4jTarget, namespace: str, tmp_path: Path) -> None:
    env = {**os.environ, **neo4j_target.env(), "GRAPHMEM_HOME": str(tmp_path / "home"), "GRAPHMEM_EMBEDDER": "local"}
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "langchain_history.py"), "--cwd", namespace],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.splitlines() == [
        "> my cat is called Miso",
        "< (1 messages in the prompt) noted",
        "> I moved to Lyon last year",
        "< (3 messages in the prompt) noted",
        "history: 4 messages in 2 turns",
        "search 'where do I live?': User: I moved to Lyon last year",
        "removed the session",
    ]
