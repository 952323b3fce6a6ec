"""A question comparing two events finds the turn of each, on a real Neo4j."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from graphmem import Database, GraphMemory
from graphmem.embedding import LocalEmbedder
from graphmem.retrieval import RetrievalConfig, Scope
from graphmem.retrieval.models import SearchMode

pytestmark = pytest.mark.integration

QUESTION = "How many days passed between the day I adopted the kitten and the day I ran the marathon?"


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    e = LocalEmbedder()
    e.load()
    return e


@pytest.fixture
def mem(database: Database, embedder: LocalEmbedder) -> Iterator[GraphMemory]:
    yield GraphMemory(database, embedder=embedder)


def _session(mem: GraphMemory, cwd: str, when: datetime, turns: list[tuple[str, str]]) -> list[str]:
    s = mem.create_session(cwd, project_path=cwd, started_at=when)
    return [mem.store_turn(s.id, u, a, timestamp=when + timedelta(minutes=i)).id for i, (u, a) in enumerate(turns)]


def _loaded(mem: GraphMemory, cwd: str) -> tuple[str, str]:
    """A history where the kitten comes up often and the marathon once: the turns that tell the
    adoption and the marathon."""
    t0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
    kitten = _session(mem, cwd, t0, [("I adopted the kitten today from the shelter.", "Congratulations on the kitten!")])[0]
    _session(mem, cwd, t0 + timedelta(days=3), [
        ("The kitten keeps me up all day, what can I do?", "A kitten needs play during the day."),
        ("Which toys suit a kitten on a long day alone?", "A kitten this young likes wand toys all day."),
        ("The kitten passed her first vet check today.", "Good news, the kitten passed."),
        ("How many days until the kitten can go outside?", "Keep the kitten in for some days."),
    ])
    _session(mem, cwd, t0 + timedelta(days=20), [("Some weather today.", "Indeed.")])
    marathon = _session(mem, cwd, t0 + timedelta(days=40),
                        [("Finished the city marathon in four hours!", "Well done, that is a great time.")])[0]
    mem.embed_pending()
    mem.await_text_index()
    return kitten, marathon


@pytest.mark.parametrize("mode", ["text", "hybrid"])
def test_each_event_reaches_the_top(mem: GraphMemory, namespace: str, mode: SearchMode) -> None:
    cwd = f"{namespace}/life-{mode}"
    kitten, marathon = _loaded(mem, cwd)
    scope = Scope.directory(cwd)
    mem.searcher(RetrievalConfig(query_parts=False))
    whole = mem.search(QUESTION, scope=scope, levels=(0,), k=3, mode=mode)
    assert marathon not in [h.id for h in whole.hits] and whole.parts is None
    mem.searcher(RetrievalConfig())
    split = mem.search(QUESTION, scope=scope, levels=(0,), k=3, mode=mode)
    ids = [h.id for h in split.hits]
    assert marathon in ids and kitten in ids and len(ids) == len(set(ids)) == 3
    assert split.parts == ["I adopted the kitten", "I ran the marathon"]
    assert split.strategy["parts"]["parts"] == split.parts and "parts" in split.timings_ms
    # a question about one event is searched once
    one = mem.search("when did I run the marathon?", scope=scope, levels=(0,), k=3, mode=mode)
    assert one.parts is None and "parts" not in one.strategy
