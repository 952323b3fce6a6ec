"""The OpenAI Agents SDK session (``graphmem.adapters.openai_agents.GraphMemorySession``) on a real server.

The SDK publishes no conformance suite for sessions; its own ``SQLiteSession`` is the reference, so the
same random sequences of ``add_items``/``get_items``/``pop_item``/``clear_session`` run on both and
must agree. Then what graphmem adds (one turn per exchange), persistence, bad input, and a real
``Runner.run`` against the local OpenAI-compatible test server.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, OpenAIChatCompletionsModel, Runner, SQLiteSession, function_tool, set_tracing_disabled
from agents.memory import SessionSettings
from openai import AsyncOpenAI

from graphmem import Database, GraphMemory
from graphmem.adapters.openai_agents import GraphMemorySession
from graphmem.errors import InvalidInput

from ..conftest import Neo4jTarget
from ..fake_openai import FakeOpenAIServer, chat_content, tool_calls

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def session(database: Database, namespace: str) -> Iterator[GraphMemorySession]:
    s = GraphMemorySession(uuid.uuid4().hex, GraphMemory(database), cwd=namespace)
    yield s
    asyncio.run(s.clear_session())


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _assistant(text: str, n: int = 0) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "id": f"msg_{n}", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _call(name: str, args: str, call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "name": name, "arguments": args, "call_id": call_id, "id": "fc_" + call_id}


def _output(call_id: str, output: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def _random_item(rng: random.Random, n: int) -> dict[str, Any]:
    return rng.choice([_user(f"question {n} ✓"), _assistant(f"answer {n}", n), _call("f", f'{{"x": {n}}}', f"c{n}"),
                       _output(f"c{n}", f"out {n}"), {"type": "reasoning", "id": f"rs_{n}", "summary": []}])


@pytest.mark.parametrize("seed", [1, 2])
def test_random_operations_agree_with_the_sdks_sqlite_session(session: GraphMemorySession, seed: int) -> None:
    rng = random.Random(seed)
    reference = SQLiteSession(session.session_id)

    async def scenario() -> None:
        n = 0
        for _ in range(60):
            r = rng.random()
            if r < 0.45:
                batch = []
                for _ in range(rng.randint(1, 4)):
                    n += 1
                    batch.append(_random_item(rng, n))
                await session.add_items(batch)  # type: ignore[arg-type]
                await reference.add_items(batch)  # type: ignore[arg-type]
            elif r < 0.75:
                limit = rng.choice([None, 0, 1, 3, 50])
                assert await session.get_items(limit) == await reference.get_items(limit), limit
            elif r < 0.95:
                assert await session.pop_item() == await reference.pop_item()
            else:
                await session.clear_session()
                await reference.clear_session()
        assert await session.get_items() == await reference.get_items()

    asyncio.run(scenario())
    reference.close()


def test_an_empty_session(session: GraphMemorySession) -> None:
    async def scenario() -> None:
        assert await session.get_items() == [] and await session.get_items(3) == []
        assert await session.pop_item() is None
        await session.clear_session()
        await session.add_items([])
        assert await session.get_items() == []

    asyncio.run(scenario())


def test_each_exchange_becomes_one_turn(session: GraphMemorySession) -> None:
    mem = session.mem

    async def scenario() -> None:
        await session.add_items([_user("weather in Paris?")])  # type: ignore[list-item]
        assert mem.get_session(session.session_id).turn_count == 0  # not answered yet
        await session.add_items([_call("weather", '{"city": "Paris"}', "call_1"), _output("call_1", "18C cloudy"),  # type: ignore[list-item]
                                 {"type": "reasoning", "id": "rs_1", "summary": []},  # type: ignore[list-item]
                                 _assistant("18°C and cloudy.")])  # type: ignore[list-item]
        await session.add_items([_user("and tomorrow?"), _assistant("Rain.", 2)])  # type: ignore[list-item]

    asyncio.run(scenario())
    turns = mem.load_session(session.session_id).turns
    assert [(t.user_message, t.assistant_message) for t in turns] == [("weather in Paris?", "18°C and cloudy."),
                                                                      ("and tomorrow?", "Rain.")]
    assert [(c.name, c.args, c.result, c.source_id) for c in turns[0].tool_calls] == [
        ("weather", '{"city": "Paris"}', "18C cloudy", "call_1")]
    assert len(asyncio.run(session.get_items())) == 7  # every item kept exactly, reasoning included


def test_items_persist_and_sessions_stay_apart(database: Database, namespace: str) -> None:
    mem = GraphMemory(database)
    one = GraphMemorySession(uuid.uuid4().hex, mem, cwd=namespace)
    two = GraphMemorySession(uuid.uuid4().hex, mem, cwd=namespace)

    async def scenario() -> None:
        await one.add_items([_user("only in one")])  # type: ignore[list-item]
        assert await two.get_items() == []
        again = GraphMemorySession(one.session_id, GraphMemory(database), cwd=namespace)
        assert await again.get_items() == [_user("only in one")]

    asyncio.run(scenario())


def test_session_settings_limit(session: GraphMemorySession) -> None:
    session.session_settings = SessionSettings(limit=2)

    async def scenario() -> None:
        await session.add_items([_user("a"), _user("b"), _user("c")])  # type: ignore[list-item]
        assert await session.get_items() == [_user("b"), _user("c")]
        assert len(await session.get_items(3)) == 3

    asyncio.run(scenario())


def test_bad_items_are_one_clear_error(session: GraphMemorySession) -> None:
    with pytest.raises(InvalidInput, match=r"items\[1\]: not JSON"):
        asyncio.run(session.add_items([_user("ok"), {"role": "user", "content": object()}]))  # type: ignore[list-item]
    assert asyncio.run(session.get_items()) == []
    with pytest.raises(InvalidInput, match="session_id"):
        GraphMemorySession("", session.mem)


def test_a_runner_remembers_across_runs(session: GraphMemorySession) -> None:
    set_tracing_disabled(True)
    seen: list[str] = []

    @function_tool
    def lookup_city(name: str) -> str:
        """The city a person lives in."""
        seen.append(name)
        return "Toulouse"

    with FakeOpenAIServer() as fake:
        fake.script("chat/completions", tool_calls(("lookup_city", {"name": "David"})), chat_content("David lives in Toulouse."),
                    chat_content("You asked where David lives."))
        client = AsyncOpenAI(base_url=fake.base_url, api_key=fake.api_key)
        agent = Agent(name="pet", instructions="Answer briefly.", tools=[lookup_city],
                      model=OpenAIChatCompletionsModel(model="gpt-test", openai_client=client))

        async def scenario() -> tuple[str, str]:
            first = await Runner.run(agent, "Where does David live?", session=session)
            second = await Runner.run(agent, "What did I ask you?", session=session)
            return str(first.final_output), str(second.final_output)

        assert asyncio.run(scenario()) == ("David lives in Toulouse.", "You asked where David lives.")
        last_request = fake.requests("chat/completions")[-1].body
    assert seen == ["David"]
    sent = [m.get("content") for m in last_request["messages"]]
    assert "Where does David live?" in sent and "David lives in Toulouse." in sent  # the history was replayed
    turns = session.mem.load_session(session.session_id).turns
    assert [(t.user_message, t.assistant_message, [c.name for c in t.tool_calls]) for t in turns] == [
        ("Where does David live?", "David lives in Toulouse.", ["lookup_city"]),
        ("What did I ask you?", "You asked where David lives.", [])]


def test_the_example_runs(neo4j_target: Neo4jTarget, namespace: str, tmp_path: Path) -> None:
    env = {**os.environ, **neo4j_target.env(), "GRAPHMEM_HOME": str(tmp_path / "home"), "GRAPHMEM_EMBEDDER": "local"}
    with FakeOpenAIServer() as fake:
        fake.script("chat/completions", chat_content("Nice to meet you, Ana."), chat_content("Your name is Ana."))
        run = subprocess.run([sys.executable, str(ROOT / "examples" / "openai_agents_session.py"), "--cwd", namespace],
                             env={**env, "OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": fake.api_key},
                             capture_output=True, text=True, timeout=600)
        requests = [r.body for r in fake.requests("chat/completions")]
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.splitlines() == [
        "> I am Ana",
        "< Nice to meet you, Ana.",
        "> What is my name?",
        "< Your name is Ana.",
        "graphmem turns: 2",
        "removed the session",
    ]
    assert "I am Ana" in [m.get("content") for m in requests[1]["messages"]]
