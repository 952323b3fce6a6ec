"""Scoped hybrid search on a real Neo4j: modes, levels, scopes (adversarial), strategies, escaping."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from graphmem import Database, GraphMemory
from graphmem.embedding import LocalEmbedder
from graphmem.errors import InvalidInput, ProviderError
from graphmem.retrieval import RetrievalConfig, Scope, Searcher, SearchMode

from ..support import support_db

pytestmark = pytest.mark.integration

MODES: tuple[SearchMode, ...] = ("hybrid", "semantic", "text")


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    e = LocalEmbedder()
    e.load()
    return e


@pytest.fixture
def mem(database: Database, embedder: LocalEmbedder) -> Iterator[GraphMemory]:
    yield GraphMemory(database, embedder=embedder)


def add_summary(mem: GraphMemory, session_id: str, text: str, *, level: int = 1, children: Sequence[str] = (),
                findings: Sequence[str] = (), files: Sequence[str] = (), ts: datetime | None = None) -> str:
    sid = str(uuid.uuid4())
    support_db(mem.db).write(
        "testing/create_summary", sessionId=session_id, id=sid, level=level, text=text, charCount=len(text),
        turnCount=max(1, len(children)), keyFindings=list(findings), filesMentioned=list(files), toolsUsed=["Grep"],
        topics=["t"], timestamp=ts or datetime.now(UTC), childIds=list(children),
    )
    return sid


def ready(mem: GraphMemory) -> None:
    mem.embed_pending()
    mem.await_text_index()


def test_hybrid_search_returns_turns_and_summaries_with_ranks(mem: GraphMemory, namespace: str) -> None:
    s = mem.create_session(namespace + "/app", project_path=namespace)
    old = datetime.now(UTC) - timedelta(days=3)
    t1 = mem.store_turn(s.id, "Why is the shopping cart empty after login?",
                        "The session cookie was dropped because of SameSite=Strict.", [{"name": "Grep"}], timestamp=old)
    mem.store_turn(s.id, "How do I set the timezone?", "Set TZ=UTC in settings.py.", timestamp=old)
    sm = add_summary(mem, s.id, "Fixed the empty cart: the session cookie needed SameSite=Lax.", children=[t1.id],
                     findings=["cookie SameSite"], files=["src/cart.py"], ts=old)
    ready(mem)
    scope = Scope.project(namespace)
    res = mem.search("empty cart cookie", scope=scope, k=5, locale="fr")
    assert res.effective_mode == "hybrid" and not res.warnings
    ids = [h.id for h in res.hits]
    assert t1.id in ids and sm in ids
    turn = next(h for h in res.hits if h.id == t1.id)
    assert turn.vector_rank is not None and turn.text_rank is not None
    assert turn.kind == "turn" and turn.level == 0 and turn.index == 1 and turn.tools == ["Grep"]
    assert turn.session_id == s.id and turn.cwd == namespace + "/app" and turn.project_path == namespace
    assert turn.relative_time == "il y a 3 jours"
    summ = next(h for h in res.hits if h.id == sm)
    assert summ.kind == "summary" and summ.level == 1 and summ.files_mentioned == ["src/cart.py"]
    assert [h.score for h in res.hits] == sorted((h.score for h in res.hits), reverse=True)
    en = mem.search("empty cart cookie", scope=scope, k=5)
    assert en.hits[0].relative_time == "3 days ago"
    # levels
    only_turns = mem.search("empty cart cookie", scope=scope, levels=[0])
    assert only_turns.hits and all(h.kind == "turn" for h in only_turns.hits)
    only_sums = mem.search("empty cart cookie", scope=scope, levels=[1, 2])
    assert [h.id for h in only_sums.hits] == [sm]
    assert mem.search("empty cart cookie", scope=scope, levels=[2]).hits == []
    # JSON
    assert '"vectorRank"' in res.to_json()


def test_scope_isolation_with_adversarial_near_identical_data(mem: GraphMemory, namespace: str) -> None:
    """3 projects x 2 directories x 2 sessions, all saying nearly the same thing (and naming each
    other's paths and ids); every scope, mode and vector strategy returns only its own nodes."""
    sessions = []
    for p in range(3):
        for d in range(2):
            for _n in range(2):
                cwd = f"{namespace}/proj{p}/dir{d}"
                sessions.append(mem.create_session(cwd, project_path=f"{namespace}/proj{p}"))
    other_ids = " ".join(x.id for x in sessions)
    own: dict[str, set[str]] = {}
    for i, s in enumerate(sessions):
        ids = set()
        for j in range(3):
            t = mem.store_turn(
                s.id, f"deploy the payment service to staging {j}",
                f"deployed payment service {i % 2} to staging; paths {namespace}/proj0/dir0 {other_ids}",
            )
            ids.add(t.id)
        ids.add(add_summary(mem, s.id, f"deployed the payment service to staging {i % 2}", children=[]))
        own[s.id] = ids
    ready(mem)
    configs = {
        "adaptive": RetrievalConfig(),
        "index": RetrievalConfig(exact_scan_max=0, exact_scan_max_filtered=0),
        "index-tight-overfetch": RetrievalConfig(exact_scan_max=0, exact_scan_max_filtered=0, overfetch=0.01),
        "exact": RetrievalConfig(exact_scan_max=10**9, exact_scan_max_filtered=10**9),
    }
    scopes: list[tuple[Scope, set[str]]] = []
    for s in sessions:
        scopes.append((Scope.session(s.id), own[s.id]))
    for p in range(3):
        proj = f"{namespace}/proj{p}"
        scopes.append((Scope.project(proj), set().union(*(own[s.id] for s in sessions if s.project_path == proj))))
        for d in range(2):
            cwd = f"{proj}/dir{d}"
            scopes.append((Scope.directory(cwd), set().union(*(own[s.id] for s in sessions if s.cwd == cwd))))
    seen_strategies = set()
    for name, cfg in configs.items():
        searcher = Searcher(mem.db, mem.embedder, cfg, dimensions=mem.embedding_dimensions)
        for scope, expected in scopes:
            for mode in MODES:
                res = searcher.search("deploy payment service staging " + namespace, scope=scope, k=50, mode=mode)
                got = {h.id for h in res.hits}
                assert got <= expected, (name, str(scope), mode, got - expected)
                for h in res.hits:
                    assert scope.contains(h.session_id, h.cwd, h.project_path), (name, str(scope), mode, h.id)
                if mode != "text":
                    seen_strategies.add(res.strategy["vector"]["strategy"])
                # every node of the scope matches the query: a complete answer returns all of them
                assert got == expected, (name, str(scope), mode, expected - got)
    assert "exact" in seen_strategies
    assert {"index-filtered", "index-overfetch"} & seen_strategies


@pytest.mark.parametrize(
    "query",
    [
        "", "   ", "!!!", "((((", ")", '"', '"unbalanced', "\\", "a\\", "&&||!", "*", "?", "~", "^2", "field:value",
        "title:(a OR b)", "NOT", "AND OR NOT", "/regex/", "[a TO z]", "{x}", "\x00\x01\x1f", "\u202e\u200b",
        "x" * 300_000, " ".join(["word"] * 5000), "emoji 🎉 café naïve ☃", "-minus +plus", "a:b:c:d",
        "userMessage:secret", "\ud800 lone surrogate",
    ],
)
def test_no_query_string_crashes(mem: GraphMemory, namespace: str, query: str) -> None:
    s = mem.create_session(namespace)
    mem.store_turn(s.id, "hello world", "field value regex word")
    mem.await_text_index()
    for mode in MODES:
        res = mem.search(query, scope=Scope.session(s.id), mode=mode)
        assert all(h.session_id == s.id for h in res.hits)
        if not any(ch.isalnum() for ch in query):
            assert res.hits == []


def test_turns_not_yet_embedded_are_found_by_text(mem: GraphMemory, namespace: str) -> None:
    s = mem.create_session(namespace)
    t = mem.store_turn(s.id, "the flux capacitor overheats", "reduce the gigawatts")
    mem.await_text_index()
    res = mem.search("flux capacitor", scope=Scope.session(s.id))
    assert [h.id for h in res.hits] == [t.id]
    assert res.hits[0].text_rank == 1 and res.hits[0].vector_rank is None
    assert mem.recent_turns(s.id)[0].id == t.id


def test_inline_embedding_option(database: Database, embedder: LocalEmbedder, namespace: str) -> None:
    mem = GraphMemory(database, embedder=embedder, embed_inline=True)
    s = mem.create_session(namespace)
    mem.embed_pending()  # a backlog from other tests must not hide ours
    t = mem.store_turn(s.id, "inline please", "embedded before store_turn returned")
    res = mem.search("inline please", scope=Scope.session(s.id), mode="semantic")
    assert [h.id for h in res.hits] == [t.id]


class BrokenEmbedder:
    model = "use-multilingual-v3"
    dimensions = 512

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise ProviderError("the embedding server is down")

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]


def test_embedder_unavailable_degrades_to_text(database: Database, namespace: str) -> None:
    mem = GraphMemory(database, embedder=BrokenEmbedder())
    s = mem.create_session(namespace)
    t = mem.store_turn(s.id, "graceful degradation works", "yes")
    mem.await_text_index()
    for mode in ("hybrid", "semantic"):
        res = mem.search("graceful degradation", scope=Scope.session(s.id), mode=mode)  # type: ignore[arg-type]
        assert res.effective_mode == "text"
        assert res.warnings and "text-only" in res.warnings[0]
        assert [h.id for h in res.hits] == [t.id]
    no_embedder = GraphMemory(database).search("graceful", scope=Scope.session(s.id))
    assert no_embedder.effective_mode == "text" and no_embedder.warnings


def test_min_score_is_a_cosine_threshold(mem: GraphMemory, namespace: str) -> None:
    # two sessions: turns of one session share their neighbours' vectors (ctxEmbedding), which would
    # pull the unrelated turn towards the query
    for user, assistant in (("kubernetes pod crash loop", "the liveness probe was too strict"),
                            ("recipe for apple pie", "use cinnamon")):
        mem.store_turn(mem.create_session(namespace).id, user, assistant)
    ready(mem)
    scope = Scope.directory(namespace)
    all_hits = mem.search("kubernetes pod crash loop", scope=scope, mode="semantic").hits
    assert len(all_hits) == 2
    assert all(-1.0 <= (h.vector_score or 0) <= 1.0 for h in all_hits)
    strict = mem.search("kubernetes pod crash loop", scope=scope, mode="semantic", min_score=0.6).hits
    assert [h.user_message for h in strict] == ["kubernetes pod crash loop"]


def test_search_over_many_scopes_uses_counts_cache(mem: GraphMemory, namespace: str) -> None:
    s = mem.create_session(namespace)
    mem.store_turn(s.id, "cache me", "ok")
    ready(mem)
    searcher = Searcher(mem.db, mem.embedder, replace(RetrievalConfig(), count_cache_seconds=60))
    searcher.search("cache", scope=Scope.session(s.id))
    assert searcher.scope_size(Scope.session(s.id)) == (1, 0)


def test_hits_keep_the_time_and_zone_their_turns_and_summaries_were_stored_with(mem: GraphMemory, namespace: str) -> None:
    s = mem.create_session(namespace + "/app", project_path=namespace)
    stored = [
        datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=timezone(timedelta(hours=5, minutes=30))),
        datetime(2026, 7, 14, 22, 0, 1, 5, tzinfo=ZoneInfo("Europe/Paris")),
        datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=timezone(timedelta(hours=-8))),
        datetime(2026, 11, 2, 8, 0, tzinfo=UTC),
    ]
    turns = {mem.store_turn(s.id, f"lighthouse beacon number {i}", "the lamp was replaced", timestamp=ts).id: ts
             for i, ts in enumerate(stored)}
    summary = add_summary(mem, s.id, "lighthouse beacon lamps replaced", children=list(turns), ts=stored[1])
    ready(mem)
    for mode in MODES:
        res = mem.search("lighthouse beacon lamp", scope=Scope.project(namespace), k=10, mode=mode)
        got = {h.id: h.timestamp for h in res.hits}
        assert set(got) == {*turns, summary}, mode
        for hid, ts in [*turns.items(), (summary, stored[1])]:
            back = got[hid]
            assert isinstance(back, datetime) and back == ts and back.utcoffset() == ts.utcoffset(), (mode, hid)
            assert back.isoformat() == ts.isoformat()


def test_a_naive_now_is_read_as_utc_and_a_non_time_is_refused(mem: GraphMemory, namespace: str) -> None:
    s = mem.create_session(namespace + "/app", project_path=namespace)
    told = datetime(2026, 5, 9, 18, 0, tzinfo=UTC)
    t = mem.store_turn(s.id, "I went climbing at the quarry", "Sounds fun", timestamp=told)
    ready(mem)
    aware = told + timedelta(days=3)
    for mode in MODES:
        a = mem.search("where did I go climbing last weekend?", scope=Scope.project(namespace), mode=mode, now=aware)
        n = mem.search("where did I go climbing last weekend?", scope=Scope.project(namespace), mode=mode,
                       now=aware.replace(tzinfo=None))
        assert [h.id for h in n.hits] == [h.id for h in a.hits] == [t.id], mode
        assert n.time_window == a.time_window and a.time_window is not None
        assert n.hits[0].relative_time == "3 days ago"
    later = mem.create_session(namespace + "/app", project_path=namespace)  # its own recent turns are left out
    mem.store_turn(later.id, "hello", "hi", timestamp=aware)
    block = mem.build_context(later.id, "where did I go climbing last weekend?", now=aware.replace(tzinfo=None))
    assert [h.id for h in block.relevant_turns] == [t.id] and block.relevant_turns[0].relative_time == "3 days ago"
    for bad in ("2026-05-12", 1778000000):
        with pytest.raises(InvalidInput, match=r"^now must be a datetime"):
            mem.search("climbing", scope=Scope.project(namespace), now=bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidInput, match=r"^now must be a datetime"):
            mem.build_context(later.id, "climbing", now=bad)  # type: ignore[arg-type]
