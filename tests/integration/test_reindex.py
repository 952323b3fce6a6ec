"""Switching the embedding model: a clear error, then ``graphmem reindex`` (CLI and library) re-embeds
every turn and summary, records the new model and dimension, and search works again.

Reindex rewrites every vector in the database and drops/recreates the vector indexes, so this test
runs on its own managed Neo4j (a private home and free ports, the suite's version and jars), never on
the shared test server.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from graphmem import Database, EmbeddingMismatch, GraphMemory
from graphmem.embedding import E5Embedder, LocalEmbedder
from graphmem.worker import SummaryWorker

from ..conftest import Neo4jTarget
from ..fake_openai import FakeOpenAIServer
from ..servers import dedicated_server
from ..support import support_db

pytestmark = [pytest.mark.integration, pytest.mark.slow]


class HashEmbedder:
    """A small deterministic embedder (bag of hashed words), any dimension: no model, no network."""

    def __init__(self, model: str, dimensions: int) -> None:
        self._model, self._dimensions = model, dimensions

    @property
    def model(self) -> str:
        return self._model

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            v = np.zeros(self._dimensions)
            for word in text.lower().split():
                h = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "big")
                v[h % self._dimensions] += 1.0
            n = np.linalg.norm(v)
            out.append((v / n if n else v).tolist())
        return out

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jTarget]:
    home = tmp_path_factory.mktemp("reindex") / "gm-home"
    with dedicated_server(home, pagecache="256m") as spec:
        server = spec.server()
        st = server.start()
        yield Neo4jTarget(st.uri, "neo4j", server.password(), spec.version, "managed", home=home)


def _cli(target: Neo4jTarget, fake: FakeOpenAIServer, *args: str) -> subprocess.CompletedProcess[str]:
    return _cli_with(target, {
        "GRAPHMEM_EMBEDDER": "openai",
        "GRAPHMEM_EMBEDDING_MODEL": "text-embedding-3-small",
        "GRAPHMEM_EMBEDDING_DIMENSIONS": "48",
        "GRAPHMEM_OPENAI_API_KEY": fake.api_key,
        "GRAPHMEM_OPENAI_BASE_URL": fake.base_url,
    }, *args)


def _cli_with(target: Neo4jTarget, settings: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_", "OPENAI_"))}
    env.update(target.env())
    env.update({"GRAPHMEM_HOME": str(Path(str(target.home)).parent / "cli-home"), **settings})
    return subprocess.run([sys.executable, "-c", "from graphmem.cli import main; raise SystemExit(main())", *args],
                          capture_output=True, text=True, env=env, timeout=600)


def _vectors(db: Database) -> dict[str, list[tuple[str | None, int, int]]]:
    """(embeddingModel, len(embedding), len(ctxEmbedding)) of every turn / summary."""
    rows = db.read("embeddings/vector_states")
    out: dict[str, list[tuple[str | None, int, int]]] = {"turn": [], "summary": []}
    for r in rows:
        out[r["kind"]].append((r["model"], int(r["dims"]), int(r["ctx"])))
    return out


def _fact_dims(db: Database) -> set[tuple[str, int, bool]]:
    """(content, vector length, retired) of every fact of the test's project."""
    rows = support_db(db).read("testing/fact_vector_dims", prefix="project:/graphmem-test/reindex/")
    assert all(r["pending"] == 0 for r in rows), rows  # nothing left waiting for the index
    return {(r["content"], int(r["dims"]), bool(r["retired"])) for r in rows}


def _meta(db: Database) -> dict[str, object]:
    meta = db.read("meta/get", key="embedding")[0]["meta"] or {}
    return {"model": meta.get("model"), "dimensions": meta.get("dimensions")}


def test_switching_embedder_errors_then_reindex_cli_and_library(own_server: Neo4jTarget) -> None:
    db = Database(own_server.uri, own_server.user, own_server.password)
    try:
        first = HashEmbedder("hash-a", 16)
        mem = GraphMemory(db, embedder=first)
        mem.init_schema()
        s = mem.create_session("/graphmem-test/reindex/shop")
        talk = [("the zeppelin hangar door sticks", "oil the rails of the hangar door"),
                ("the invoice total is wrong", "rounding happens before the tax is added"),
                ("deploy the billing service", "the deploy failed on a missing secret")]
        for u, a in talk:
            mem.store_turn(s.id, u, a)
        project = "project:/graphmem-test/reindex/shop"
        assert mem.remember("the billing service deploys on fridays", scope=project).action == "inserted"
        assert mem.remember("the hangar door rails need oil every month", scope=project).action == "inserted"
        old = mem.remember("the invoice total rounds before tax", scope=project)
        assert mem.remember("the invoice total rounds before tax is added", scope=project).action == "updated"
        mem.deferred.wait_all()  # the facts' vectors are indexed
        assert _fact_dims(db) == {("the billing service deploys on fridays", 16, False),
                                  ("the hangar door rails need oil every month", 16, False),
                                  (old.fact.content, 0, True),
                                  ("the invoice total rounds before tax is added", 16, False)}
        SummaryWorker(db, embedder=first).run_until_idle(max_seconds=120)
        before = _vectors(db)
        assert len(before["turn"]) == 3 and before["summary"], before
        assert {m for m, _, _ in before["turn"] + before["summary"]} == {"hash-a"}
        assert _meta(db) == {"model": "hash-a", "dimensions": 16}

        # another model and dimension: a clear error, in the library and in the CLI
        second = HashEmbedder("hash-b", 24)
        with pytest.raises(EmbeddingMismatch, match=r"hash-a \(16-d\).*hash-b \(24-d\).*graphmem reindex"):
            GraphMemory(db, embedder=second).init_schema()
        with FakeOpenAIServer() as fake:
            out = _cli(own_server, fake, "db", "init")
            assert out.returncode != 0
            assert "hash-a (16-d)" in out.stderr and "text-embedding-3-small (48-d)" in out.stderr, out.stderr
            assert "graphmem reindex" in out.stderr

            # the CLI re-embeds everything with a progress bar
            out = _cli(own_server, fake, "reindex", "--yes")
            assert out.returncode == 0, out.stderr
            assert "re-embedded 3 turns" in out.stdout and "text-embedding-3-small (48-d)" in out.stdout, out.stdout
            assert "and 3 facts" in out.stdout, out.stdout  # the current ones: a retired fact keeps no vector
            assert {(c, d) for c, d, _ in _fact_dims(db)} == {
                ("the billing service deploys on fridays", 48), ("the hangar door rails need oil every month", 48),
                (old.fact.content, 0), ("the invoice total rounds before tax is added", 48)}
            assert "embedding" in out.stderr, out.stderr  # the progress bar's label
            after = _vectors(db)
            assert {(m, d) for m, d, _ in after["turn"] + after["summary"]} == {("text-embedding-3-small", 48)}
            assert {c for _, _, c in after["turn"]} == {48}  # neighbour-averaged vectors rebuilt too
            assert len(after["summary"]) == len(before["summary"])
            assert _meta(db) == {"model": "text-embedding-3-small", "dimensions": 48}
            assert _cli(own_server, fake, "db", "init").returncode == 0  # no mismatch any more
            out = _cli(own_server, fake, "search", "zeppelin hangar", "--scope", "everything", "--mode", "semantic",
                       "--json")
            assert out.returncode == 0, out.stderr
            assert '"vectorScore"' in out.stdout and s.id in out.stdout

        # back to the first embedder through the library
        with pytest.raises(EmbeddingMismatch):
            GraphMemory(db, embedder=first).init_schema()
        seen: list[int] = []
        mem = GraphMemory(db, embedder=first)
        stats = mem.reindex(on_total=seen.append, progress=seen.append)
        assert stats.turns == 3 and stats.summaries == len(before["summary"]) and stats.facts == 3
        assert seen[0] == 3 + len(before["summary"]) and sum(seen[1:]) == seen[0]
        again = _vectors(db)
        assert {(m, d) for m, d, _ in again["turn"] + again["summary"]} == {("hash-a", 16)}
        assert _meta(db) == {"model": "hash-a", "dimensions": 16}
        mem.init_schema()  # consistent again
        mem.await_text_index()
        res = mem.search("zeppelin hangar door", scope="everything", k=3, mode="semantic")
        assert res.effective_mode == "semantic" and not res.warnings
        assert res.hits and res.hits[0].vector_score is not None
        # facts: searched and deduplicated with the new vectors
        assert {d for _, d, r in _fact_dims(db) if not r} == {16}
        found = mem.search_facts("hangar door rails", scopes=[project], limit=1)
        assert [f.content for f in found] == ["the hangar door rails need oil every month"]
        upd = mem.remember("the billing service deploys on fridays at noon", scope=project)
        assert upd.action == "updated" and upd.previous is not None
        assert upd.previous.content == "the billing service deploys on fridays"
        hybrid = mem.search("invoice rounding tax", scope=f"session:{s.id}", k=3)
        assert hybrid.hits and hybrid.hits[0].kind in ("turn", "summary")
        assert "invoice" in hybrid.hits[0].body() or "rounding" in hybrid.hits[0].body()
    finally:
        db.close()


def _fact_index(db: Database) -> dict[str, object]:
    return next(i for i in db.read("meta/show_indexes") if i["name"] == "fact_embedding")


def test_an_older_quantized_fact_index_is_rebuilt_unquantized(own_server: Neo4jTarget) -> None:
    """Schema 0089: a database whose fact vector index predates it (the server's default, quantized)
    gets it rebuilt without quantization by the next ensure_schema, from the stored vectors."""
    from graphmem.db.schema import SCHEMA_VERSION, _quantized

    db = Database(own_server.uri, own_server.user, own_server.password)
    try:
        mem = GraphMemory(db, embedder=HashEmbedder("hash-a", 16))
        mem.init_schema()
        assert not _quantized(_fact_index(db)["options"])  # type: ignore[arg-type]
        project = "project:/graphmem-test/reindex/quantized"
        fact = mem.remember("the zeppelin hangar opens at dawn", scope=project).fact
        mem.deferred.wait_all()
        # as a graphmem from before schema 0089 left it
        db.write("facts/reindex_drop_index")
        if db.server_info().vector_search_clause:
            support_db(db).write("testing/create_quantized_fact_index@search", dimensions=16)
        else:
            support_db(db).write("testing/create_quantized_fact_index", dimensions=16)
        db.write("meta/await_indexes", timeoutSeconds=120)
        db.write("meta/set", key="schema", props={"version": SCHEMA_VERSION - 1})
        assert _quantized(_fact_index(db)["options"])  # type: ignore[arg-type]

        mem.ensure_schema()
        index = _fact_index(db)
        assert not _quantized(index["options"]) and index["state"] == "ONLINE", index  # type: ignore[arg-type]
        assert (db.read("meta/get", key="schema")[0]["meta"] or {})["version"] == SCHEMA_VERSION
        found = mem.search_facts("zeppelin hangar dawn", scopes=[project], limit=1)
        assert [f.id for f in found] == [fact.id]
        mem.init_schema()  # idempotent: nothing to rebuild any more
        assert not _quantized(_fact_index(db)["options"])  # type: ignore[arg-type]
    finally:
        db.close()


class _RecordingE5(E5Embedder):
    """The e5 embedder, noting every query it embeds on its query side."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return super().embed_query(text)


def test_auto_follows_the_recorded_model_and_reindex_moves_a_local_store_to_e5(own_server: Neo4jTarget) -> None:
    db = Database(own_server.uri, own_server.user, own_server.password)
    try:
        mem = GraphMemory(db, embedder=LocalEmbedder())
        mem.reindex()  # whatever embedder the module's other tests left: the default one now
        mem.init_schema()
        s = mem.create_session("/graphmem-test/reindex/e5")
        talk = [("how many retries does the billing client make?",
                 "It retries three times with exponential backoff, then gives up and logs the invoice id."),
                ("the summit photo is blurry", "a faster shutter speed would have frozen the wind in the trees"),
                ("why did the migration test fail last week?",
                 "the fixture database was not reset between runs, so the second migration found its table")]
        for u, a in talk:
            mem.store_turn(s.id, u, a)
        mem.embed_pending()
        assert _meta(db) == {"model": "use-multilingual-v3", "dimensions": 512}

        with pytest.raises(EmbeddingMismatch, match=r"use-multilingual-v3 \(512-d\).*multilingual-e5-small-q4 \(384-d\)"):
            GraphMemory(db, embedder=E5Embedder()).init_schema()
        # a command configured with e5 on a store of the default embedder: one line, nothing searched
        out = _cli_with(own_server, {"GRAPHMEM_EMBEDDER": "e5"}, "search", "migration test", "--scope", "everything")
        assert out.returncode != 0 and not out.stdout
        assert out.stderr.strip().splitlines() == [
            "graphmem: error: the database is indexed with use-multilingual-v3 (512-d) but the configured embedder "
            "is multilingual-e5-small-q4 (384-d): run `graphmem reindex` to re-embed everything, or configure the "
            "original embedder"], out.stderr
        # the default (auto) follows the model the database records, whatever else is installed
        out = _cli_with(own_server, {}, "search", "what made the migration test break", "--scope", "session",
                        "--session", s.id, "--mode", "semantic", "--json")
        assert out.returncode == 0 and "fixture database" in out.stdout, out.stderr
        assert _meta(db) == {"model": "use-multilingual-v3", "dimensions": 512}
        # and its reindex moves to the best embedder installed: e5, whose wheel the test venv has
        out = _cli_with(own_server, {}, "reindex", "--yes")
        assert out.returncode == 0, out.stderr
        assert "multilingual-e5-small-q4 (384-d)" in out.stdout, out.stdout
        assert _meta(db) == {"model": "multilingual-e5-small-q4", "dimensions": 384}
        vectors = _vectors(db)
        assert {(m, d) for m, d, _ in vectors["turn"]} == {("multilingual-e5-small-q4", 384)}

        out = _cli_with(own_server, {"GRAPHMEM_EMBEDDER": "e5"}, "search", "what made the migration test break",
                        "--scope", "session", "--session", s.id, "--mode", "semantic", "--json")
        assert out.returncode == 0 and "fixture database" in out.stdout, out.stderr
        out = _cli_with(own_server, {"GRAPHMEM_EMBEDDER": "local"}, "search", "migration test", "--scope", "everything")
        assert out.returncode != 0 and "use-multilingual-v3 (512-d)" in out.stderr, out.stderr
        assert "multilingual-e5-small-q4 (384-d)" in out.stderr and "graphmem reindex" in out.stderr
        out = _cli_with(own_server, {}, "search", "what made the migration test break", "--scope", "session",
                        "--session", s.id, "--mode", "semantic", "--json")  # auto now follows e5
        assert out.returncode == 0 and "fixture database" in out.stdout, out.stderr

        e5 = _RecordingE5()
        mem = GraphMemory(db, embedder=e5)
        mem.init_schema()  # consistent: no mismatch any more
        mem.await_text_index()
        question = "what made the migration test break"
        res = mem.search(question, scope=f"session:{s.id}", k=3, mode="semantic")
        assert res.effective_mode == "semantic" and not res.warnings
        assert "fixture database" in res.hits[0].body(), [h.body() for h in res.hits]
        assert e5.queries == [question]  # the query side, not the passage one
        mem.build_context(s.id, "billing client retry count")
        mem.deferred.wait_all()  # the context's retrieval log is written in the background
        assert e5.queries[-1] == "billing client retry count"

        # e5 gives unrelated sentences cosines near 0.8: the fact thresholds (chosen on USE's cosines)
        # are read in e5's, so distinct facts stay distinct and a topic forget takes only its own
        scope = "project:/graphmem-test/reindex/e5"
        distinct = ["Caroline attended an LGBTQ support group.", "Melanie painted a lake sunrise last year.",
                    "The staging database is shop_staging.", "The billing client retries three times.",
                    "Ines moved to Porto."]
        assert [mem.remember(t, ["e5"], scope=scope).action for t in distinct] == ["inserted"] * 5
        assert mem.remember("The billing client retries three times with backoff.", ["e5"],
                            scope=scope).action == "updated"  # the same fact, refined
        gone = mem.forget("billing client retries", scopes=[scope])
        assert [f.content for f in gone.removed] == ["The billing client retries three times with backoff."]
        assert len(mem.list_facts(scopes=[scope])) == 4
    finally:
        db.close()
