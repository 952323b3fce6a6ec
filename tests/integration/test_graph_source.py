"""The graph as a retrieval source: turns reached from the best hits through the memory's edges (the
turns around a hit, turns that touched the same file, turns behind facts about the same subject, what
a summary covers) and the turns the facts nearest to the query came from enter the fusion as a third
list when ``graph_weight`` > 0, and say so in ``graph_rank``."""

from __future__ import annotations

from dataclasses import replace

import pytest

from graphmem import GraphMemory
from graphmem.embedding.base import query_vector
from graphmem.facts.vectors import wait_for_vectors
from graphmem.models import ToolCallIn
from graphmem.retrieval import RetrievalConfig, Scope, Searcher
from graphmem.retrieval.graph import fact_seeds
from graphmem.retrieval.hits import SearchRun
from graphmem.worker import SummaryWorker, WorkerConfig

pytestmark = pytest.mark.integration

DECOYS = [
    ("what is the weather like in lisbon", "sunny and warm all week"),
    ("recommend a novel for the holidays", "try a long russian classic"),
    ("how do I boil an egg", "nine minutes for a firm yolk"),
    ("which bus goes to the airport", "the express line from the station"),
]


def _edit(path: str) -> ToolCallIn:
    return ToolCallIn(name="Edit", args={"file_path": path, "old_string": "a", "new_string": "b"}, result="ok")


def _searcher(mem: GraphMemory, graph_weight: float) -> Searcher:
    """Every edge kind on (the ``file`` edge is off by default)."""
    cfg = replace(RetrievalConfig(), graph_weight=graph_weight,
                  graph_edge_weights={"next": 1.0, "covers": 1.0, "file": 0.5, "subject": 0.5})
    return Searcher(mem.db, mem.embedder, cfg, dimensions=mem.embedding_dimensions)


def _load(mem: GraphMemory, cwd: str) -> dict[str, str]:
    """A session about the login redirect (editing src/auth/redirect.py), a later session that edits
    the same file without naming the topic, and unrelated sessions."""
    ids: dict[str, str] = {}
    first = mem.create_session(cwd, project_path=cwd)
    ids["seed"] = mem.store_turn(
        first.id, "fix the login redirect loop after sign in",
        "the login redirect looped because the session cookie was dropped; fixed it",
        [_edit(f"{cwd}/src/auth/redirect.py")]).id
    ids["seed_session"] = first.id
    later = mem.create_session(cwd, project_path=cwd)
    ids["same_file"] = mem.store_turn(later.id, "tidy that module up", "renamed two helpers and removed dead code",
                                      [_edit(f"{cwd}/src/auth/redirect.py")]).id
    for user, assistant in DECOYS:
        s = mem.create_session(cwd, project_path=cwd)
        mem.store_turn(s.id, user, assistant)
    mem.embed_pending()
    mem.await_text_index()
    return ids


def test_a_turn_that_touched_the_same_file_is_reached(embedded_memory: GraphMemory, namespace: str) -> None:
    mem = embedded_memory
    cwd = namespace + "/app"
    ids = _load(mem, cwd)
    scope = Scope.directory(cwd)
    on = _searcher(mem, 0.5).search("login redirect loop", scope=scope, levels=(0,), k=6)
    order = [h.id for h in on.hits]
    assert order[:2] == [ids["seed"], ids["same_file"]]
    by_id = {h.id: h for h in on.hits}
    assert by_id[ids["same_file"]].graph_rank == 1
    assert on.strategy["graph"]["seeds"] >= 1 and on.strategy["graph"]["candidates"] >= 1
    assert "graph" in on.timings_ms
    off = _searcher(mem, 0.0).search("login redirect loop", scope=scope, levels=(0,), k=6)
    assert "graph" not in off.strategy and all(h.graph_rank is None for h in off.hits)


def test_turns_behind_facts_about_the_same_subject_are_reached(embedded_memory: GraphMemory, namespace: str) -> None:
    mem = embedded_memory
    cwd = namespace + "/app"
    s = mem.create_session(cwd, project_path=cwd)
    turns = [mem.store_turn(s.id, u, a) for u, a in [
        ("my sister Ines moved to Porto", "noted, Porto it is"), *DECOYS,
        ("she starts a new job in January", "good luck to her")]]
    mem.remember("Ines lives in Porto", ["Ines"], scope=f"project:{cwd}", turn_id=turns[0].id)
    mem.remember("Ines starts a new job in January", ["Ines"], scope=f"project:{cwd}", turn_id=turns[-1].id)
    mem.embed_pending()
    mem.await_text_index()
    res = _searcher(mem, 0.5).search("where did Ines move", scope=Scope.directory(cwd), levels=(0,), k=7)
    by_id = {h.id: h for h in res.hits}
    assert res.hits[0].id == turns[0].id
    assert by_id[turns[-1].id].graph_rank is not None
    # the decoys are reached only as the first turn's neighbour (NEXT), the job turn as a fact's source too
    assert [h.id for h in res.hits].index(turns[-1].id) < max([h.id for h in res.hits].index(t.id) for t in turns[2:-1])


def test_the_file_edge_is_off_by_default(embedded_memory: GraphMemory, namespace: str) -> None:
    mem = embedded_memory
    cwd = namespace + "/app"
    ids = _load(mem, cwd)
    assert RetrievalConfig().graph_edge_weights["file"] == 0.0
    res = Searcher(mem.db, mem.embedder, RetrievalConfig(), dimensions=mem.embedding_dimensions).search(
        "login redirect loop", scope=Scope.directory(cwd), levels=(0,), k=6)
    assert "graph" in res.strategy
    assert all(h.graph_rank is None for h in res.hits if h.id == ids["same_file"])


def test_text_and_semantic_modes_do_not_run_the_graph(embedded_memory: GraphMemory, namespace: str) -> None:
    mem = embedded_memory
    cwd = namespace + "/app"
    _load(mem, cwd)
    for mode in ("text", "semantic"):
        res = _searcher(mem, 0.5).search("login redirect loop", scope=Scope.directory(cwd), levels=(0,), k=5,
                                         mode=mode)  # type: ignore[arg-type]
        assert "graph" not in res.strategy and all(h.graph_rank is None for h in res.hits)


@pytest.mark.parametrize("scope_kind", ["session", "project", "everything"])
def test_every_scope_kind_keeps_graph_candidates_inside_it(embedded_memory: GraphMemory, namespace: str,
                                                           scope_kind: str) -> None:
    mem = embedded_memory
    cwd = namespace + "/app"
    ids = _load(mem, cwd)
    other = namespace + "/other"
    o = mem.create_session(other, project_path=other)
    mem.store_turn(o.id, "touch it elsewhere", "done", [_edit(f"{cwd}/src/auth/redirect.py")])
    mem.embed_pending()
    mem.await_text_index()
    scope = {"session": Scope.session(ids["seed_session"]),
             "project": Scope.project(cwd), "everything": Scope.everything()}[scope_kind]
    res = _searcher(mem, 0.5).search("login redirect loop", scope=scope, levels=(0,), k=10)
    assert "graph" in res.strategy
    for h in res.hits:
        assert scope.contains(h.session_id, h.cwd, h.project_path)
    if scope_kind == "project":
        assert {h.cwd for h in res.hits} == {cwd}


def test_a_turn_search_starts_the_graph_from_matching_summaries_too(embedded_memory: GraphMemory,
                                                                   namespace: str) -> None:
    mem = embedded_memory
    cwd = namespace + "/app"
    s = mem.create_session(cwd, project_path=cwd)
    filler = "The nightly build ran the whole suite and reported its timings to the dashboard. " * 30
    turns = [mem.store_turn(s.id, f"step {i} of the quarterly audit", f"Audit step {i} is done. {filler}")
             for i in range(4)]
    SummaryWorker(mem.db, embedder=mem.embedder, config=WorkerConfig(scope=namespace)).run_until_idle()
    mem.embed_pending()
    mem.await_text_index()
    scope = Scope.directory(cwd)
    res = _searcher(mem, 0.5).search("quarterly audit", scope=scope, levels=(0,), k=4)
    assert res.strategy["graph"]["summary_seeds"] >= 1
    assert all(h.kind == "turn" for h in res.hits)
    assert {h.id for h in res.hits} == {t.id for t in turns}
    assert any(h.graph_rank is not None for h in res.hits)
    # a search that asks for summaries itself seeds from its own fused hits only
    both = _searcher(mem, 0.5).search("quarterly audit", scope=scope, levels=(0, 1, 2), k=6)
    assert both.strategy["graph"]["summary_seeds"] == 0 and "graph_summaries" not in both.strategy


def _fact_load(mem: GraphMemory, namespace: str) -> tuple[str, str]:
    """A turn about a move that never names the city, with the fact extracted from it; decoy sessions;
    and, in another directory, a turn and fact about the same person. Returns (cwd, the turn's id)."""
    cwd, other = namespace + "/app", namespace + "/elsewhere"
    s = mem.create_session(cwd, project_path=cwd)
    turn = mem.store_turn(s.id, "she packed the last boxes today", "the van leaves at noon").id
    for user, assistant in DECOYS:
        d = mem.create_session(cwd, project_path=cwd)
        mem.store_turn(d.id, user, assistant)
    mem.remember("Ines moved to Porto in the north of Portugal", ["Ines"], scope=f"project:{cwd}", turn_id=turn)
    o = mem.create_session(other, project_path=other)
    far = mem.store_turn(o.id, "Ines lives in Porto now", "noted").id
    mem.remember("Ines lives in Porto", ["Ines"], scope=f"project:{other}", turn_id=far)
    mem.embed_pending()
    mem.await_text_index()
    return cwd, turn


def test_facts_nearest_to_the_query_lift_the_turns_they_came_from(embedded_memory: GraphMemory,
                                                                  namespace: str) -> None:
    mem = embedded_memory
    cwd, turn = _fact_load(mem, namespace)
    base = replace(RetrievalConfig(), graph_weight=0.5)
    assert base.graph_edge_weights["fact"] > 0  # on by default

    def search(cfg: RetrievalConfig) -> tuple[float, dict[str, object], int | None]:
        res = Searcher(mem.db, mem.embedder, cfg, dimensions=mem.embedding_dimensions).search(
            "where does Ines live now", scope=Scope.directory(cwd), levels=(0,), k=5)
        hit = next(h for h in res.hits if h.id == turn)
        return hit.score, res.strategy["graph"], hit.graph_rank

    score, graph, rank = search(base)
    assert graph["fact_seeds"] == 1  # the other directory's fact is not a seed of this scope
    assert rank == 1
    off = replace(base, graph_edge_weights={**base.graph_edge_weights, "fact": 0.0})
    score_off, graph_off, rank_off = search(off)
    assert graph_off["fact_seeds"] == 0 and rank_off is None
    assert score > score_off
    none = replace(base, graph_fact_seeds=0)
    assert search(none)[1]["fact_seeds"] == 0


def test_fact_seeds_leave_searches_of_summaries_and_other_modes_alone(embedded_memory: GraphMemory,
                                                                      namespace: str) -> None:
    mem = embedded_memory
    cwd, _turn = _fact_load(mem, namespace)
    searcher = Searcher(mem.db, mem.embedder, replace(RetrievalConfig(), graph_weight=0.5),
                        dimensions=mem.embedding_dimensions)
    summaries = searcher.search("where does Ines live now", scope=Scope.directory(cwd), levels=(1,), k=5)
    assert summaries.strategy["graph"]["fact_seeds"] == 0 and "fact_seeds" not in summaries.timings_ms
    for mode in ("text", "semantic"):
        res = searcher.search("where does Ines live now", scope=Scope.directory(cwd), levels=(0,), k=5, mode=mode)
        assert "graph" not in res.strategy and "fact_seeds" not in res.timings_ms


def test_a_small_scope_finds_its_facts_however_many_nearer_facts_other_scopes_hold(
    embedded_memory: GraphMemory, namespace: str,
) -> None:
    mem = embedded_memory
    cwd, _turn = _fact_load(mem, namespace)
    other = namespace + "/elsewhere"
    s = mem.create_session(other, project_path=other)
    for n, city in enumerate(("Porto", "Braga", "Faro")):
        t = mem.store_turn(s.id, f"Ines lives in {city} now, move {n}", "noted").id
        mem.remember(f"Ines lives in {city}, where does Ines live now: {city}", ["Ines"], scope=f"project:{other}",
                     turn_id=t)
    mem.embed_pending()
    assert wait_for_vectors(mem.deferred) == []  # every fact in the vector index, none read as pending
    # the fact index is read for the single nearest fact of every scope: another directory's
    cfg = replace(RetrievalConfig(), graph_weight=0.5, graph_fact_seeds=1, graph_fact_fetch=1)
    searcher = Searcher(mem.db, mem.embedder, cfg, dimensions=mem.embedding_dimensions)
    assert mem.embedder is not None
    vector = query_vector(mem.embedder, "where does Ines live now")
    scope = Scope.directory(cwd)
    assert fact_seeds(mem.db, cfg, vector, scope, SearchRun()) == []  # the index alone misses it
    exact = fact_seeds(mem.db, cfg, vector, scope, SearchRun(), searcher.scope_size)
    assert [d for d, _, _ in exact] == [f.id for f in mem.list_facts(scopes=[f"project:{cwd}"])]
    res = searcher.search("where does Ines live now", scope=scope, levels=(0,), k=5)
    assert res.strategy["graph"]["fact_seeds"] == 1
    big = replace(cfg, exact_scan_max=0)  # a scope too large to scan: the index, as before
    assert fact_seeds(mem.db, big, vector, scope, SearchRun(), searcher.scope_size) == []
