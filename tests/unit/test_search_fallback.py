"""The vector side's fallback when Neo4j's in-index filtered SEARCH fails (2026.08.1 does on some
index states): over-fetch + post-filter instead, and the failing statement is not retried on every
search of that scope for a while."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pytest

from graphmem.db import Database
from graphmem.errors import DatabaseError, DatabaseUnavailable
from graphmem.retrieval import Searcher


@dataclass
class _Info:
    vector_search_clause: bool = True


class FakeDb:
    """Answers the statements a semantic search runs; the filtered SEARCH always fails."""

    def __init__(self, error: DatabaseError | None = None) -> None:
        self.calls: list[str] = []
        self.error = error or DatabaseError("Neo.DatabaseError.Statement.ExecutionFailed: Index 33554431 out of bounds",
                                            code="Neo.DatabaseError.Statement.ExecutionFailed")

    def server_info(self) -> _Info:
        return _Info()

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self.calls.append(name)
        if name.startswith("search/count_"):
            return [{"turns": 50_000, "summaries": 5_000}]
        if name.endswith("@search"):
            raise self.error
        return []


def test_failing_filtered_search_falls_back_and_is_not_retried_at_once() -> None:
    db = FakeDb()
    searcher = Searcher(cast(Database, db), None, dimensions=3)
    for _ in range(3):
        r = searcher.search("redis cache", scope="project:/repo", mode="semantic", vector=[0.1, 0.2, 0.3], k=5)
        assert r.strategy["vector"]["fallback"]
        assert any("filtered vector index search failed" in w for w in r.warnings)
    filtered = [c for c in db.calls if c.endswith("@search")]
    assert len(filtered) == 2  # one per side (turns, summaries), then the over-fetch directly
    assert db.calls.count("search/vector_project") >= 6  # the over-fetch ran for both sides every time
    searcher.forget_counts()
    searcher.search("redis cache", scope="project:/repo", mode="semantic", vector=[0.1, 0.2, 0.3], k=5)
    assert len([c for c in db.calls if c.endswith("@search")]) == 4  # tried again after forgetting


@pytest.mark.parametrize("error", [
    DatabaseUnavailable("Neo4j is unreachable: connection refused"),
    DatabaseError("Neo.ClientError.Statement.SyntaxError: Invalid input", code="Neo.ClientError.Statement.SyntaxError"),
    DatabaseError("Neo.TransientError.Transaction.DeadlockDetected: deadlock",
                  code="Neo.TransientError.Transaction.DeadlockDetected"),
    DatabaseError("no code"),
])
def test_other_errors_are_not_hidden_by_the_fallback(error: DatabaseError) -> None:
    db = FakeDb(error)
    searcher = Searcher(cast(Database, db), None, dimensions=3)
    with pytest.raises(type(error)) as caught:
        searcher.search("redis cache", scope="project:/repo", mode="semantic", vector=[0.1, 0.2, 0.3], k=5)
    assert caught.value is error
    assert "search/vector_project" not in db.calls  # no over-fetch ran behind the error
