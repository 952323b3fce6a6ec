"""The LangGraph store (``graphmem.adapters.langgraph.GraphMemoryStore``) on a real server.

LangGraph publishes no conformance suite for ``BaseStore`` implementations; its reference is
``InMemoryStore``. So the same random sequences of operations run on both, and every read must
agree (values, keys, namespaces; timestamps and the order of unranked results are the store's own).
Then what the reference does not define: search by meaning and by text, paging order, batches,
the async methods, redaction, bad input, and a LangGraph graph that uses the store.
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
from langgraph.store.base import GetOp, InvalidNamespaceError, Item, ListNamespacesOp, MatchCondition, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from graphmem import Database, GraphMemory
from graphmem.adapters.langgraph import GraphMemoryStore
from graphmem.embedding import LocalEmbedder
from graphmem.errors import InvalidInput

from ..conftest import Neo4jTarget

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
LABELS = ("users", "docs", "u1", "u2", "prefs", "v1")


@pytest.fixture
def store(database: Database, namespace: str) -> Iterator[GraphMemoryStore]:
    s = GraphMemoryStore(GraphMemory(database), name=namespace)
    yield s
    s.clear()


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


@pytest.fixture
def semantic(database: Database, namespace: str, embedder: LocalEmbedder) -> Iterator[GraphMemoryStore]:
    s = GraphMemoryStore(GraphMemory(database, embedder=embedder), name=namespace + "/semantic")
    yield s
    s.clear()


def _plain(result: Any) -> Any:
    """A read's result without what differs by design (timestamps; the order of unranked hits)."""
    if isinstance(result, Item):
        return (result.namespace, result.key, result.value)
    if isinstance(result, list) and result and isinstance(result[0], Item):
        return sorted((_plain(r) for r in result), key=repr)
    return result


def _random_ops(rng: random.Random, n: int) -> list[Any]:
    def ns() -> tuple[str, ...]:
        return tuple(rng.choice(LABELS) for _ in range(rng.randint(1, 3)))

    ops: list[Any] = []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.45:
            value = None if rng.random() < 0.15 else {
                "n": rng.randint(0, 9), "tag": rng.choice(["a", "b"]), "nested": {"k": rng.choice([1, 2])},
                "list": [rng.randint(0, 1), "x"]}
            ops.append(PutOp(ns(), rng.choice("pqrs"), value, index=False))
        elif kind < 0.6:
            ops.append(GetOp(ns(), rng.choice("pqrs")))
        elif kind < 0.85:
            prefix = ns()[: rng.randint(0, 2)]
            flt = rng.choice([None, {"tag": "a"}, {"n": {"$gte": 5}}, {"n": {"$gt": 2, "$lte": 7}, "tag": "b"},
                              {"nested": {"k": 2}}, {"n": {"$ne": 3}}, {"list": [1, "x"]}, {"missing": 1}])
            ops.append(SearchOp(prefix, flt, limit=1000))
        else:
            conds = rng.choice([None, (MatchCondition("prefix", (rng.choice(LABELS),)),),
                                (MatchCondition("suffix", (rng.choice(LABELS),)),),
                                (MatchCondition("prefix", ("*", rng.choice(LABELS))),),
                                (MatchCondition("prefix", (rng.choice(LABELS),)), MatchCondition("suffix", ("*",)))])
            ops.append(ListNamespacesOp(conds, max_depth=rng.choice([None, 1, 2]), limit=rng.choice([100, 3]),
                                        offset=rng.choice([0, 1])))
    return ops


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_operations_agree_with_langgraphs_reference(store: GraphMemoryStore, seed: int) -> None:
    rng = random.Random(seed)
    reference = InMemoryStore()
    ops = _random_ops(rng, 120)
    for start in range(0, len(ops), 1 if seed == 1 else 7):  # one op per batch, then batches of 7
        chunk = ops[start: start + (1 if seed == 1 else 7)]
        # the reference lists a namespace whose items were all deleted; graphmem lists only namespaces with
        # items (a batch reads before it writes: the namespaces before it)
        live = {ns for ns in reference._data if reference._data[ns]}
        ours, theirs = store.batch(chunk), reference.batch(chunk)
        for op, a, b in zip(chunk, ours, theirs, strict=True):
            if isinstance(op, ListNamespacesOp):
                expected = sorted({n[: op.max_depth] if op.max_depth else n for n in live
                                   if all(_matches(c, n) for c in op.match_conditions or ())})
                assert a == expected[op.offset: op.offset + op.limit], op
            else:
                assert _plain(a) == _plain(b), op


def _matches(condition: MatchCondition, ns: tuple[str, ...]) -> bool:
    path = condition.path
    part = ns[len(ns) - len(path):] if condition.match_type == "suffix" else ns[: len(path)]
    return len(path) <= len(ns) and all(p in ("*", n) for n, p in zip(part, path, strict=True))


def test_put_get_replace_and_delete(store: GraphMemoryStore) -> None:
    assert store.get(("users", "u1"), "prefs") is None
    store.put(("users", "u1"), "prefs", {"theme": "dark", "lang": "fr"})
    first = store.get(("users", "u1"), "prefs")
    assert first is not None and first.value == {"theme": "dark", "lang": "fr"} and first.namespace == ("users", "u1")
    store.put(("users", "u1"), "prefs", {"theme": "light"})
    second = store.get(("users", "u1"), "prefs")
    assert second is not None and second.value == {"theme": "light"}
    assert second.created_at == first.created_at and second.updated_at >= first.updated_at
    assert store.get(("users", "u2"), "prefs") is None  # another namespace
    store.delete(("users", "u1"), "prefs")
    assert store.get(("users", "u1"), "prefs") is None
    store.delete(("users", "u1"), "prefs")  # deleting nothing is no error
    assert store.list_namespaces() == []


def test_values_round_trip_exactly(store: GraphMemoryStore) -> None:
    value = {"text": "naïve café ☕ \u0000 ctrl", "n": 1.5, "big": 2**53, "none": None, "deep": {"a": [1, {"b": True}]}}
    store.put(("docs",), "k", value)
    got = store.get(("docs",), "k")
    assert got is not None and got.value == value


def test_a_batch_reads_before_it_writes(store: GraphMemoryStore) -> None:
    store.put(("docs",), "a", {"v": 1})
    results = store.batch([PutOp(("docs",), "a", {"v": 2}), GetOp(("docs",), "a"), PutOp(("docs",), "b", {"v": 1}),
                           PutOp(("docs",), "b", None), SearchOp(("docs",))])
    assert results[0] is None and results[2] is None and results[3] is None
    assert isinstance(results[1], Item) and results[1].value == {"v": 1}
    assert [i.key for i in results[4]] == ["a"]  # type: ignore[union-attr]
    after = store.get(("docs",), "a")
    assert after is not None and after.value == {"v": 2}
    assert store.get(("docs",), "b") is None  # the last write of an address wins


def test_search_without_query_pages_newest_first(store: GraphMemoryStore) -> None:
    for n in range(5):
        store.put(("docs", "u1"), f"k{n}", {"n": n})
    store.put(("docs", "u2"), "other", {"n": 9})
    store.put(("users",), "elsewhere", {"n": 9})
    keys = [i.key for i in store.search(("docs", "u1"), limit=10)]
    assert keys == ["k4", "k3", "k2", "k1", "k0"]
    assert [i.key for i in store.search(("docs", "u1"), limit=2, offset=1)] == ["k3", "k2"]
    assert {i.key for i in store.search(("docs",), limit=10)} == {"k0", "k1", "k2", "k3", "k4", "other"}
    assert len(store.search((), limit=100)) == 7
    assert [i.key for i in store.search(("docs",), filter={"n": {"$gte": 3}}, limit=2)] == ["other", "k4"]
    assert all(i.score is None for i in store.search(("docs",)))


def test_search_by_meaning(semantic: GraphMemoryStore) -> None:
    semantic.put(("memories", "u1"), "food", {"text": "I love Italian food, especially pasta carbonara"})
    semantic.put(("memories", "u1"), "code", {"text": "My laptop runs Linux and I write Rust"})
    semantic.put(("memories", "u1"), "sport", {"text": "Every Tuesday I play badminton with friends"})
    semantic.put(("memories", "u1"), "secret", {"text": "pasta pasta pasta"}, index=False)
    semantic.put(("memories", "u2"), "food", {"text": "Sushi is my favourite dish"})
    hits = semantic.search(("memories", "u1"), query="what does the user like to eat?", limit=3)
    assert hits[0].key == "food"
    assert all(h.score is not None and -1.0 <= h.score <= 1.0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    everything = semantic.search(("memories", "u1"), query="pasta", limit=10)
    assert everything[-1].key == "secret" and everything[-1].score is None  # stored unsearchable: last, unscored
    sport = semantic.search(("memories",), query="racket sport", filter={"text": {"$ne": "x"}}, limit=1)
    assert [h.key for h in sport] == ["sport"]


def test_index_fields_choose_what_is_searched(database: Database, namespace: str, embedder: LocalEmbedder) -> None:
    s = GraphMemoryStore(GraphMemory(database, embedder=embedder), name=namespace + "/fields", index=["title"])
    try:
        s.put(("d",), "a", {"title": "Gardening tips for tomatoes", "body": "quantum chromodynamics"})
        s.put(("d",), "b", {"title": "Particle physics lecture", "body": "tomatoes and basil"})
        s.put(("d",), "c", {"title": "Cooking", "body": "x", "tags": ["physics"]}, index=["tags[*]"])
        hits = s.search(("d",), query="growing tomato plants", limit=1)
        assert [h.key for h in hits] == ["a"]
    finally:
        s.clear()


def test_text_search_without_an_embedder(store: GraphMemoryStore) -> None:
    store.put(("notes",), "n1", {"text": "the deploy uses blue green switching"})
    store.put(("notes",), "n2", {"text": "lunch on friday"})
    store.mem.await_text_index()
    hits = store.search(("notes",), query="green deploy")
    assert [h.key for h in hits] == ["n1"] and hits[0].score is not None and hits[0].score > 0
    assert store.search(("notes",), query="!!!") == store.search(("notes",))  # no word: as without a query


def test_list_namespaces(store: GraphMemoryStore) -> None:
    for ns in [("a", "b", "c"), ("a", "b", "d"), ("a", "e"), ("x", "b", "c")]:
        store.put(ns, "k", {"v": 1})
    assert store.list_namespaces() == [("a", "b", "c"), ("a", "b", "d"), ("a", "e"), ("x", "b", "c")]
    assert store.list_namespaces(prefix=("a",), max_depth=2) == [("a", "b"), ("a", "e")]
    assert store.list_namespaces(suffix=("c",)) == [("a", "b", "c"), ("x", "b", "c")]
    assert store.list_namespaces(prefix=("*", "b")) == [("a", "b", "c"), ("a", "b", "d"), ("x", "b", "c")]
    assert store.list_namespaces(limit=2, offset=1) == [("a", "b", "d"), ("a", "e")]


def test_stores_of_different_names_are_apart(database: Database, namespace: str) -> None:
    mem = GraphMemory(database)
    one, two = GraphMemoryStore(mem, name=namespace + "/one"), GraphMemoryStore(mem, name=namespace + "/two")
    try:
        one.put(("users",), "k", {"v": 1})
        assert two.get(("users",), "k") is None and two.search(()) == [] and two.list_namespaces() == []
        assert two.clear() == 0 and one.clear() == 1
    finally:
        one.clear()
        two.clear()


def test_async_methods(store: GraphMemoryStore) -> None:
    async def scenario() -> None:
        await asyncio.gather(*(store.aput(("users", f"u{n}"), "k", {"n": n}) for n in range(5)))
        got = await store.aget(("users", "u3"), "k")
        assert got is not None and got.value == {"n": 3}
        assert {i.key for i in await store.asearch(("users",), filter={"n": {"$lt": 2}})} == {"k"}
        assert len(await store.asearch(("users",), filter={"n": {"$lt": 2}})) == 2
        assert len(await store.alist_namespaces(prefix=("users",))) == 5
        await store.adelete(("users", "u3"), "k")
        assert await store.aget(("users", "u3"), "k") is None

    asyncio.run(scenario())


def test_secrets_are_redacted_like_every_stored_text(store: GraphMemoryStore) -> None:
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 3
    store.put(("users",), "creds", {"note": f"my key is {key}"})
    got = store.get(("users",), "creds")
    assert got is not None and key not in got.value["note"] and "[REDACTED:" in got.value["note"]


def test_bad_input_is_one_clear_error_and_writes_nothing(store: GraphMemoryStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put(("a.b",), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(("a", ""), "k", {"v": 1})])
    with pytest.raises(InvalidInput, match=r"puts\[1\]\.value: not JSON"):
        store.batch([PutOp(("a",), "ok", {"v": 1}), PutOp(("a",), "bad", {"v": object()})])
    assert store.get(("a",), "ok") is None  # the whole batch was refused
    with pytest.raises(InvalidInput, match=r"filter\.n: unknown operator \$regex"):
        store.search(("a",), filter={"n": {"$regex": "x"}})
    with pytest.raises(NotImplementedError):
        store.put(("a",), "k", {"v": 1}, ttl=5)


def test_a_langgraph_graph_remembers_across_threads(store: GraphMemoryStore) -> None:
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph
    from langgraph.runtime import Runtime

    class State(TypedDict):
        user: str
        message: str
        reply: str

    def node(state: State, runtime: Runtime[None]) -> dict[str, str]:
        assert runtime.store is not None
        ns = ("users", state["user"], "memories")
        if state["message"].startswith("remember "):
            runtime.store.put(ns, uuid.uuid4().hex, {"text": state["message"].removeprefix("remember ")})
            return {"reply": "noted"}
        return {"reply": "; ".join(sorted(i.value["text"] for i in runtime.store.search(ns)))}

    builder = StateGraph(State)
    builder.add_node("remember", node)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", END)
    graph = builder.compile(store=store)
    assert graph.invoke({"user": "ana", "message": "remember I like tea", "reply": ""})["reply"] == "noted"
    assert graph.invoke({"user": "bob", "message": "remember I like coffee", "reply": ""})["reply"] == "noted"
    assert graph.invoke({"user": "ana", "message": "what?", "reply": ""})["reply"] == "I like tea"


def test_the_example_runs(neo4j_target: Neo4jTarget, namespace: str, tmp_path: Path) -> None:
    env = {**os.environ, **neo4j_target.env(), "GRAPHMEM_HOME": str(tmp_path / "home"), "GRAPHMEM_EMBEDDER": "local"}
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "langgraph_store.py"), "--store", namespace],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.splitlines() == [
        "ana: noted",
        "bob: noted",
        "ana: you told me: I drink green tea every morning",
        "bob: you told me: I am allergic to peanuts",
        "removed 2 items",
    ]
