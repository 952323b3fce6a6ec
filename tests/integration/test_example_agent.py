"""The example chat agent (``examples/chat_agent.py``) end to end, as a user runs it: its self memories
seeded from a file by the CLI, then two messages on stdin against a local OpenAI-compatible server that
scripts the model's tool calls (store a memory, then search it). The memory tools run against the real
graph, the turns are stored in the user's conversation, and the second answer is built on what the
search returned."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphmem import Database, GraphMemory
from graphmem.chat import ChatConfig, parse_self_file
from graphmem.embedding import LocalEmbedder
from graphmem.errors import InvalidInput

from ..conftest import Neo4jTarget
from ..fake_openai import FakeOpenAIServer, chat_content, tool_calls
from ..support import support_db

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
CLI = "import sys; from graphmem.cli import main; sys.exit(main(sys.argv[1:]))"


def test_the_example_agent_searches_stores_and_answers(database: Database, namespace: str,
                                                       neo4j_target: Neo4jTarget, tmp_path: Path) -> None:
    env = {**os.environ, **neo4j_target.env(), "GRAPHMEM_HOME": str(tmp_path / "home"), "GRAPHMEM_EMBEDDER": "local",
           "GRAPHMEM_CHAT_ROOT": namespace, "GRAPHMEM_CHAT_TIMEZONE": "Europe/Paris"}
    self_file = tmp_path / "pet.md"
    self_file.write_text("# context\n- I am Pet, the companion of the Tuesday badminton group.\n"
                         "## Limitation\n* I cannot see images.\n", encoding="utf-8")
    try:
        for _ in range(2):  # seeding again changes nothing
            seeded = subprocess.run([sys.executable, "-c", CLI, "chat", "seed-self", "pet", str(self_file)], env=env,
                                    capture_output=True, text=True, timeout=300)
            assert seeded.returncode == 0 and seeded.stdout.strip() == "2 self memories seeded for pet", seeded
        with FakeOpenAIServer() as fake:
            fake.script("chat/completions",
                        tool_calls(("store_memory", {"content": "David moved to Toulouse", "subjects": ["david"],
                                                     "ttl": None})),
                        chat_content("Noted: Toulouse."),
                        tool_calls(("search_memories", {"query": "where does David live?"})),
                        chat_content("David lives in Toulouse."))
            run = subprocess.run(
                [sys.executable, str(ROOT / "examples" / "chat_agent.py"), "--agent", "pet", "--channel", "discord",
                 "--user", "david"],
                input="j'ai déménagé à Toulouse\noù j'habite ?\n", env={**env, "OPENAI_BASE_URL": fake.base_url,
                                                                      "OPENAI_API_KEY": fake.api_key},
                capture_output=True, text=True, timeout=600)
            assert run.returncode == 0, run.stderr[-3000:]
            assert run.stdout.splitlines() == ["Noted: Toulouse.", "David lives in Toulouse."]
            requests = [r.body for r in fake.requests("chat/completions")]
        assert len(requests) == 4
        assert {t["function"]["name"] for t in requests[0]["tools"]} >= {"search_memories", "store_memory", "store_self"}
        stored = json.loads(requests[1]["messages"][-1]["content"])  # the store_memory result the model read
        assert stored["action"] == "inserted" and stored["content"] == "David moved to Toulouse"
        found = json.loads(requests[3]["messages"][-1]["content"])
        assert found["memories"][0]["content"] == "David moved to Toulouse"
        # the second call's context block already carries the first exchange and the stored fact
        assert "Toulouse" in requests[2]["messages"][0]["content"]
        mem = GraphMemory(database, embedder=LocalEmbedder(), chat=ChatConfig(root=namespace))
        [session] = mem.conversation_sessions("pet", "discord", "david")
        turns = mem.load_session(session.id).turns
        assert [t.user_message for t in turns] == ["j'ai déménagé à Toulouse", "où j'habite ?"]
        assert turns[1].assistant_message == "David lives in Toulouse."
        selves = mem.chat_tools("pet").search_self("who am I?")["memories"]
        assert sorted(m["content"] for m in selves) == ["I am Pet, the companion of the Tuesday badminton group.",
                                                        "I cannot see images."]
    finally:
        support_db(database).write("testing/chat_cleanup", prefix=namespace + "/")


def test_a_bad_self_file_names_the_line() -> None:
    with pytest.raises(InvalidInput, match=r"pet.md:2: unknown category 'hobbies'"):
        parse_self_file("# context\n# hobbies\n- badminton\n", name="pet.md")
    with pytest.raises(InvalidInput, match=r"pet.md:1: a statement before any category heading"):
        parse_self_file("- I am Pet\n", name="pet.md")
    assert parse_self_file('{"relation": ["David is my friend"]}') == [("relation", "David is my friend")]
