"""The documented Browser queries in cypher/explore/ run on real data and show what they say.

Facts and retrieval logs have no writer yet: their data comes from test-only files
(tests/support/cypher/testing/explore_*.cypher) that follow the model the explore queries document.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from graphmem import Database, GraphMemory, cypher
from graphmem.embedding import LocalEmbedder, embed_pending_turns

from ..support import support_db

pytestmark = pytest.mark.integration

# far in the future, so "the most recent sessions" are this test's even on a shared server
BASE = datetime(2099, 3, 4, 5, 6, 7, tzinfo=UTC)


@dataclass
class Seed:
    ns: str
    app: str
    other: str
    main: str  # session with 4 turns and tool calls
    side: str  # older session in the same directory
    elsewhere: str  # session in another directory of the same project
    turn_ids: dict[int, str] = field(default_factory=dict)


def _seed(memory: GraphMemory, ns: str) -> Seed:
    app, other = f"{ns}/app", f"{ns}/other"
    main = memory.create_session(app, project_path=ns, agent="claude-code", title="flaky cart", started_at=BASE)
    side = memory.create_session(app, project_path=ns, agent="codex", started_at=BASE - timedelta(days=1))
    elsewhere = memory.create_session(other, project_path=ns, agent="aider", started_at=BASE - timedelta(days=2))
    seed = Seed(ns, app, other, main.id, side.id, elsewhere.id)
    turns = [
        ("Why is the shopping cart empty after login?", "The session cookie is dropped by the proxy.",
         [{"name": "Grep", "args": {"pattern": "cart"}, "result": "src/cart.py", "success": True, "duration_ms": 12},
          {"name": "Read", "args": {"file_path": "src/cart.py"}, "result": "def cart(): ...", "success": True,
           "duration_ms": 3}]),
        ("Run the cart tests", "Two tests fail on the expired cookie.",
         [{"name": "Bash", "args": {"command": "pytest tests/test_cart.py"}, "result": "2 failed",
           "success": False, "duration_ms": 1840}]),
        ("Fix the cookie expiry and rerun", "Fixed; the tests pass now.",
         [{"name": "Edit", "args": {"file_path": "src/cookies.py"}, "result": "ok", "success": True, "duration_ms": 8},
          {"name": "Bash", "args": {"command": "pytest"}, "result": "ImportError: no module named cookies",
           "success": False, "duration_ms": 900},
          {"name": "Bash", "args": {"command": "pytest"}, "result": "12 passed", "success": True, "duration_ms": 2100}]),
        ("Why does the shopping basket come back empty once I log in?", "Same cause: the proxy drops the cookie.",
         []),
    ]
    for i, (user, assistant, tools) in enumerate(turns):
        t = memory.store_turn(main.id, user, assistant, tools, timestamp=BASE + timedelta(minutes=i + 1))
        seed.turn_ids[t.index] = t.id
    memory.store_turn(side.id, "Add a README badge", "Done.", [], timestamp=BASE - timedelta(days=1))
    memory.store_turn(elsewhere.id, "Deploy the docs", "Deployed.",
                      [{"name": "Bash", "args": {"command": "make docs"}, "result": "ok", "success": True}],
                      timestamp=BASE - timedelta(days=2))
    return seed


@pytest.fixture
def seed(memory: GraphMemory, namespace: str) -> Iterator[Seed]:
    s = _seed(memory, namespace)
    yield s
    support_db(memory.db).write("testing/explore_cleanup", ns=namespace)


# -- the files themselves --------------------------------------------------------------------

def test_every_explore_file_says_what_it_shows_and_its_parameters() -> None:
    names = [n for n in cypher.all_names() if n.startswith("explore/")]
    assert len(names) >= 9
    for name in names:
        text = cypher.query(name)
        comment = "\n".join(line for line in text.splitlines() if line.startswith("//"))
        assert text.startswith("//"), f"{name} does not start with a comment"
        assert len(comment.splitlines()) >= 2, f"{name}: say what it shows"
        assert "Parameters:" in comment, f"{name}: document the parameters"
        for p in cypher.params(name):
            assert f"${p}" in comment and f":param {p} =>" in comment, f"{name}: document ${p} and its :param line"
        if not cypher.params(name):
            assert re.search(r"Parameters: none", comment), name


# -- sessions ------------------------------------------------------------------------------

def test_recent_sessions_lists_the_newest_first(database: Database, seed: Seed) -> None:
    rows = database.read("explore/recent_sessions")
    mine = [r["sessionId"] for r in rows if r["directory"].startswith(seed.ns)]
    assert mine[:3] == [seed.main, seed.side, seed.elsewhere]
    top = rows[0]
    assert top["sessionId"] == seed.main and top["turns"] == 4 and top["agent"] == "claude-code"
    assert top["p"] is not None


def test_directory_sessions(database: Database, seed: Seed) -> None:
    rows = database.read("explore/directory_sessions", cwd=seed.app)
    assert [r["sessionId"] for r in rows] == [seed.main, seed.side]
    main = rows[0]
    assert main["turns"] == 4 and main["title"] == "flaky cart"
    assert main["firstMessage"] == "Why is the shopping cart empty after login?"
    assert main["lastMessage"].startswith("Why does the shopping basket")
    assert rows[1]["firstMessage"] == rows[1]["lastMessage"] == "Add a README badge"
    assert database.read("explore/directory_sessions", cwd=seed.ns + "/nowhere") == []


def test_session_turns_shows_the_chain_and_tool_calls_in_order(database: Database, seed: Seed) -> None:
    rows = database.read("explore/session_turns", sessionId=seed.main)
    assert [r["index"] for r in rows] == [1, 2, 3, 4]
    assert [r["next"] is not None for r in rows] == [True, True, True, False]
    assert [r["tools"] for r in rows] == [
        ["Grep", "Read"], ["Bash (failed)"], ["Edit", "Bash (failed)", "Bash"], [],
    ]
    assert [len(r["toolCalls"]) for r in rows] == [2, 1, 3, 0]
    # a path is start node, relationship, end node: the NEXT path goes from turn n to turn n+1
    first_next = rows[0]["next"]
    assert first_next[0]["index"] == 1 and first_next[-1]["index"] == 2
    assert rows[0]["turn"][0]["id"] == seed.main


def test_session_summary_tree(database: Database, seed: Seed) -> None:
    ids = seed.turn_ids
    l1a, l1b, l2 = (f"explore-{uuid.uuid4()}" for _ in range(3))
    for sid, level, text, children, count in (
        (l1a, 1, "Cart empty after login: the proxy drops the cookie; tests fail.", [ids[1], ids[2]], 2),
        (l1b, 1, "Cookie expiry fixed; tests pass; same question asked again.", [ids[3], ids[4]], 2),
        (l2, 2, "Debugged and fixed the lost cart session cookie.", [l1a, l1b], 4),
    ):
        support_db(database).write("testing/explore_summary", sessionId=seed.main, id=sid, level=level, text=text,
                       childIds=children, turnCount=count)
    rows = database.read("explore/session_summary_tree", sessionId=seed.main)
    mine = [r for r in rows if r["summary"][-1]["id"] in {l1a, l1b, l2}]
    assert [r["level"] for r in mine] == [2, 1, 1]
    top = mine[0]
    assert top["turnIndexes"] == [] and sorted(top["childSummaries"]) == sorted([l1a, l1b])
    assert len(top["covers"]) == 2 and top["turnCount"] == 4
    assert sorted(tuple(r["turnIndexes"]) for r in mine[1:]) == [(1, 2), (3, 4)]
    assert database.read("explore/session_summary_tree", sessionId=seed.side) == []


def test_similar_turns_uses_the_vector_index(database: Database, seed: Seed) -> None:
    query_turn = seed.turn_ids[1]
    assert database.read("explore/similar_turns", turnId=query_turn) == []  # not embedded yet
    embedder = LocalEmbedder()
    for _ in range(50):  # the whole database's pending turns, 128 at a time
        if embed_pending_turns(database, embedder).total == 0:
            break
    database.write("meta/await_indexes", timeoutSeconds=120)
    rows = database.read("explore/similar_turns", turnId=query_turn)
    assert 0 < len(rows) <= 10
    assert all(r["similarTurnId"] != query_turn for r in rows)
    cosines = [r["cosine"] for r in rows]
    assert cosines == sorted(cosines, reverse=True) and all(-1.0 <= c <= 1.0 + 1e-9 for c in cosines)
    # the paraphrase of the same question (turn 4) is among the nearest, with its session
    hit = next(r for r in rows if r["similarTurnId"] == seed.turn_ids[4])
    assert hit["sessionId"] == seed.main and hit["index"] == 4 and hit["cosine"] > 0.5
    assert rows[0]["turn"]["id"] == query_turn


# -- tools ---------------------------------------------------------------------------------

def test_failed_tool_calls_of_a_project(database: Database, seed: Seed) -> None:
    rows = database.read("explore/failed_tool_calls", projectPath=seed.ns)
    assert [(r["tool"], r["turnIndex"]) for r in rows] == [("Bash", 3), ("Bash", 2)]
    assert rows[0]["result"].startswith("ImportError") and rows[0]["sessionId"] == seed.main
    assert rows[1]["args"] == '{"command": "pytest tests/test_cart.py"}'
    assert rows[0]["call"] is not None
    assert database.read("explore/failed_tool_calls", projectPath=seed.ns + "/nowhere") == []


def test_tool_usage_per_project(database: Database, seed: Seed) -> None:
    rows = database.read("explore/tool_usage", projectPath=seed.ns)
    got = [(r["tool"], r["calls"], r["failures"]) for r in rows]
    assert got == [("Bash", 4, 2), ("Edit", 1, 0), ("Grep", 1, 0), ("Read", 1, 0)]
    bash = rows[0]
    assert bash["project"] == seed.ns and bash["failurePercent"] == 50.0
    assert bash["meanDurationMs"] == round((1840 + 900 + 2100) / 3)  # the call without a duration is left out
    everything = database.read("explore/tool_usage", projectPath=None)
    assert [(r["tool"], r["calls"]) for r in everything if r["project"] == seed.ns] == [(t, c) for t, c, _ in got]


def test_file_history_of_a_project(database: Database, seed: Seed) -> None:
    # the session works in <ns>/app, the project is <ns>: paths are relative to the project root
    rows = database.read("explore/file_history", projectPath=seed.ns, path="app/tests/test_cart.py")
    assert [(r["tool"], r["action"], r["success"], r["turnIndex"]) for r in rows] == [("Bash", "run", False, 2)]
    assert rows[0]["request"] == "Run the cart tests" and rows[0]["history"] is not None
    cart = database.read("explore/file_history", projectPath=seed.ns, path="app/src/cart.py")
    assert [(r["tool"], r["action"]) for r in cart] == [("Read", "read")]
    assert database.read("explore/file_history", projectPath=seed.ns + "/app", path="src/cart.py") == []


# -- retrieval logs and facts (writers not built yet: test data from tests/support/cypher/) --

def test_last_injections(database: Database, seed: Seed) -> None:
    facts = [f"explore-fact-{uuid.uuid4()}" for _ in range(3)]
    support_db(database).write("testing/explore_facts", ns=seed.ns, subject=f"cart-{uuid.uuid4()}", facts=[
        {"id": fid, "content": content, "type": "project", "importance": 0.5, "turnId": seed.turn_ids[1],
         "supersedes": None, "supersededAt": None}
        for fid, content in zip(facts, ["The proxy strips cookies over 4 KB", "Tests run with pytest",
                                        "The cart lives in src/cart.py"], strict=True)
    ])
    retrievals = []
    for i in range(7):
        items = [{"id": facts[1], "score": 0.3, "reason": None}]
        if i == 6:
            items = [{"id": facts[0], "score": 0.81, "reason": "similar"},
                     {"id": facts[2], "score": 0.5, "reason": None},
                     {"id": f"forgotten-{uuid.uuid4()}", "score": 0.4, "reason": None}]
        retrievals.append({
            "id": f"explore-retrieval-{uuid.uuid4()}", "preview": f"prompt number {i}", "turnIndex": i + 1,
            "at": BASE + timedelta(hours=1, minutes=i), "chars": 100 * i, "items": items,
        })
    support_db(database).write("testing/explore_retrievals", ns=seed.ns, sessionId=seed.main, retrievals=retrievals)
    rows = database.read("explore/last_injections", sessionId=seed.main)
    assert [r["prompt"] for r in rows] == [f"prompt number {i}" for i in (6, 5, 4, 3, 2)]
    last = rows[0]
    # the third item was forgotten: the log still counts it, no edge leads to it
    assert last["facts"] == ["1. The proxy strips cookies over 4 KB (similar)", "2. The cart lives in src/cart.py (score 0.5)"]
    assert last["itemCount"] == 3 and len(last["injected"]) == 2
    assert last["log"] is not None and last["sessionId"] == seed.main and last["turnIndex"] == 7
    assert rows[1]["facts"] == ["1. Tests run with pytest (score 0.3)"]
    assert database.read("explore/last_injections", sessionId=seed.side) == []
    anywhere = database.read("explore/last_injections", sessionId=None)
    assert len(anywhere) == 5 and anywhere[0]["prompt"] == "prompt number 6"  # the 2099 logs are the latest


def test_facts_about_a_subject(database: Database, seed: Seed) -> None:
    subject = f"Postgres-{uuid.uuid4()}"
    old, new, minor = (f"explore-fact-{uuid.uuid4()}" for _ in range(3))
    support_db(database).write("testing/explore_facts", ns=seed.ns, subject=subject, facts=[
        {"id": old, "content": "The project uses Postgres 14", "type": "decision", "importance": 0.6,
         "turnId": None, "supersedes": None, "supersededAt": BASE},
        {"id": new, "content": "The project moved to Postgres 16", "type": "decision", "importance": 0.8,
         "turnId": seed.turn_ids[3], "supersedes": old, "supersededAt": None},
        {"id": minor, "content": "Postgres runs on port 5433 locally", "type": "project", "importance": 0.3,
         "turnId": None, "supersedes": None, "supersededAt": None},
    ])
    rows = database.read("explore/facts_about", subject=subject.upper())  # case does not matter
    assert [(r["fact"], r["current"]) for r in rows] == [
        ("The project moved to Postgres 16", True),
        ("Postgres runs on port 5433 locally", True),
        ("The project uses Postgres 14", False),
    ]
    assert rows[0]["source"][-1]["id"] == seed.turn_ids[3] and rows[0]["older"][-1]["id"] == old
    assert rows[2]["source"] is None and rows[2]["older"] is None
    assert rows[0]["type"] == "decision" and rows[0]["importance"] == 0.8
    assert database.read("explore/facts_about", subject=f"nothing-{uuid.uuid4()}") == []
