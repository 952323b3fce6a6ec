"""A server error during the semantic side of a search is not hidden behind the over-fetch fallback:
only the server's internal failure of its filtered index search (``Neo.DatabaseError.*``) falls back;
a statement that fails at run time on the real server reaches the caller."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import Database, GraphMemory
from graphmem.cypher import Statements, statements
from graphmem.embedding import LocalEmbedder
from graphmem.errors import DatabaseError
from graphmem.retrieval.models import RetrievalConfig

pytestmark = pytest.mark.integration

BROKEN = Statements(Path(__file__).resolve().parents[1] / "support" / "broken_cypher", base=statements())


def test_a_failing_vector_statement_reaches_the_caller(database: Database, namespace: str) -> None:
    mem = GraphMemory(database, embedder=LocalEmbedder())
    proj = f"{namespace}/p"
    session = mem.create_session(proj, project_path=proj, agent="claude-code")
    for i in range(3):
        mem.store_turn(session.id, f"how long should the redis cache keep entries ({i})?", "a TTL of 60 seconds")
    mem.embed_pending()
    # no exact scan: the index statements (filtered on 2026.01+, over-fetch on 5.26) run
    config = RetrievalConfig(exact_scan_max=0, exact_scan_max_filtered=0)
    good = mem.searcher(config).search("redis cache", scope=f"project:{proj}", mode="semantic", k=3)
    assert good.hits and not good.warnings and "fallback" not in good.strategy["vector"]

    broken = GraphMemory(database.with_statements(BROKEN), embedder=mem.embedder)
    with pytest.raises(DatabaseError) as caught:
        broken.searcher(config).search("redis cache", scope=f"project:{proj}", mode="semantic", k=3)
    assert caught.value.code == "Neo.ClientError.Statement.ArithmeticError"
    assert not caught.value.server_failure


@pytest.mark.parametrize("query", ["漢" * 3000, " ".join(["データベース接続"] * 200) + " 数据库连接" * 300, "ก" * 5000])
def test_a_query_the_analyzer_splits_per_character_stays_within_lucene_clauses(
    memory: GraphMemory, namespace: str, query: str
) -> None:
    """Words of scripts written without spaces become one token per character in the full-text
    index; a long one must not exceed Lucene's 1024 clauses (found by the hostile run)."""
    s = memory.create_session(namespace)
    memory.store_turn(s.id, "漢字の検索 データベース接続", "数据库连接 ok")
    memory.await_text_index()
    result = memory.search(query, scope=f"session:{s.id}", mode="text", k=5)
    if query[0] in "漢デ":
        assert result.hits  # the first terms, within the budget, still find the turn


def test_search_facts_refuses_a_limit_below_one(memory: GraphMemory) -> None:
    from graphmem.errors import InvalidInput

    for limit in (0, -1):
        with pytest.raises(InvalidInput, match=r"^limit must be between 1 and"):
            memory.search_facts("anything", limit=limit)
