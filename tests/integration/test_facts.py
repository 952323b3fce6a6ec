"""Fact memory on a real Neo4j: remember/update/unchanged, scopes, TTL, forget, search, injection,
settings, retrieval logs, LLM extraction (fake OpenAI server over real HTTP), CLI, bench smoke."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graphmem import Database, GraphMemory
from graphmem.db import DeferredWrites
from graphmem.embedding import LocalEmbedder
from graphmem.facts import (
    FactScope,
    FactTuning,
    delete_expired_facts,
    extract_facts_from_turn,
    forget_audits,
    get_fact,
    get_retrieval,
    get_tuning,
    index_pending_vectors,
    inject_facts,
    list_retrievals,
    set_tuning,
    unset_tuning,
    wait_for_vectors,
)
from graphmem.facts.extract import FactExtractor
from graphmem.facts.model import FactInjection, words
from graphmem.facts.store import _outcome, delete_facts
from graphmem.facts.tools import memory_forget, memory_search_facts, memory_store_fact
from tests.fake_openai import FakeOpenAIServer

from ..support import support_db

pytestmark = pytest.mark.integration


def _inject(mem: GraphMemory, session_id: str, message: str | list[str], **kw: Any) -> FactInjection:
    """:func:`inject_facts` with the memory's embedder and background writer."""
    return inject_facts(mem.db, session_id, message, embedder=mem.embedder, deferred=mem.deferred, **kw)


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    e = LocalEmbedder()
    e.load()
    return e


@pytest.fixture
def fmem(database: Database, embedder: LocalEmbedder) -> GraphMemory:
    return GraphMemory(database, embedder=embedder)


@pytest.fixture
def project(namespace: str) -> FactScope:
    return FactScope.project(namespace + "/proj")


@pytest.fixture
def global_ids(database: Database) -> Iterator[list[str]]:
    """Ids of global facts a test creates; deleted afterwards (global facts are outside namespaces)."""
    ids: list[str] = []
    yield ids
    delete_facts(database, ids)


def test_seed_000_update_and_distinct_facts_fr_en(fmem: GraphMemory, project: FactScope) -> None:
    r1 = fmem.remember("Mickael s'est cassé l'épaule", ["mickael", "blessure"], scope=project)
    assert r1.action == "inserted" and r1.fact.type == "fact" and r1.fact.importance == 0.6
    r2 = fmem.remember("Mickael s'est cassé l'épaule le 10 janvier 2026", ["mickael"], scope=project)
    assert r2.action == "updated" and r2.previous is not None and r2.previous.id == r1.fact.id
    assert set(r2.fact.subjects) == {"mickael", "blessure"}
    info = get_fact(fmem.db, r1.fact.id)
    assert info["superseded_at"] is not None and info["current_id"] == r2.fact.id
    assert get_fact(fmem.db, r2.fact.id)["history"] == ["Mickael s'est cassé l'épaule"]
    # the older, less precise text adds nothing
    r3 = fmem.remember("Mickael s'est cassé l'épaule", scope=project)
    assert r3.action == "unchanged" and r3.fact.id == r2.fact.id
    # same person, different facts: two facts (FR and EN)
    a = fmem.remember("Mickael habite à Paris", ["mickael"], scope=project)
    b = fmem.remember("Mickael a un fils", ["mickael"], scope=project)
    c = fmem.remember("Mickael lives in Paris", ["mickael"], scope=project)
    d = fmem.remember("Mickael has a son", ["mickael"], scope=project)
    assert a.action == b.action == "inserted"
    assert d.action == "inserted"
    assert c.action in ("inserted", "updated")  # FR/EN paraphrase: cosine 0.89 with USE v3
    e = fmem.remember("Mickael broke his shoulder", scope=project)
    f = fmem.remember("Mickael broke his shoulder on January 10, 2026", scope=project)
    assert e.action == "inserted" and f.action == "updated"
    about = fmem.facts_about("Mickael", scopes=[project])
    contents = {x.content for x in about}
    assert {"Mickael a un fils", "Mickael has a son"} <= contents
    assert {"Mickael habite à Paris", "Mickael lives in Paris"} & contents  # one fact, in either language
    assert "Mickael s'est cassé l'épaule" not in contents  # history is not current


def test_facts_stored_before_words_get_them_and_remember_decides(fmem: GraphMemory, project: FactScope) -> None:
    """remember's statement compares the stored `words`; a fact stored without them (an older
    graphmem) makes it write nothing, and remember gives the fact its words and runs it again."""
    old = fmem.remember("Mickael s'est cassé l'épaule", ["mickael"], scope=project)
    support_db(fmem.db).write("testing/fact_words_remove", id=old.fact.id)
    assert support_db(fmem.db).read("testing/fact_words", id=old.fact.id)[0]["words"] is None
    same = fmem.remember("Mickael s'est cassé l'épaule !", scope=project)  # same text: no words needed
    assert same.action == "unchanged" and same.fact.id == old.fact.id
    assert support_db(fmem.db).read("testing/fact_words", id=old.fact.id)[0]["words"] is None
    refined = fmem.remember("Mickael s'est cassé l'épaule le 10 janvier 2026", ["blessure"], scope=project)
    assert refined.action == "updated" and refined.previous is not None and refined.previous.id == old.fact.id
    assert refined.reason.startswith("the new text refines the stored one")
    assert set(refined.fact.subjects) == {"mickael", "blessure"}
    assert get_fact(fmem.db, refined.fact.id)["history"] == ["Mickael s'est cassé l'épaule"]
    assert support_db(fmem.db).read("testing/fact_words", id=refined.fact.id)[0]["words"] == words(refined.fact.content)
    # a stored fact without words that already says the new text: unchanged, and it gets its words
    support_db(fmem.db).write("testing/fact_words_remove", id=refined.fact.id)
    kept = fmem.remember("Mickael s'est cassé l'épaule le 10 janvier", ttl="30d", scope=project)
    assert kept.action == "unchanged" and kept.fact.id == refined.fact.id and kept.fact.expires_at is not None
    assert support_db(fmem.db).read("testing/fact_words", id=refined.fact.id)[0]["words"] == words(refined.fact.content)
    # and the next remember decides in its statement again
    again = fmem.remember("Mickael s'est cassé l'épaule le 10 janvier 2026 au ski", scope=project)
    assert again.action == "updated" and again.previous is not None and again.previous.id == refined.fact.id
    other = fmem.remember("Julie moved to Toulouse in March", scope=project)
    support_db(fmem.db).write("testing/fact_words_remove", id=other.fact.id)
    # a hit without words that no rule takes (cosine 0.705 with USE v3): Python inserts
    new = fmem.remember("Julie moved to Bordeaux in May", scope=project)
    assert new.action == "inserted" and new.reason == "no similar fact in the scope"
    assert support_db(fmem.db).read("testing/fact_words", id=other.fact.id)[0]["words"] == words(other.fact.content)


def test_a_remember_whose_connection_was_lost_reports_what_landed(fmem: GraphMemory, project: FactScope) -> None:
    """remember's auto-commit statement is run again after a lost connection only once
    facts/remember_landed (its recover step) has found that its new fact did not land."""
    first = fmem.remember("Mickael s'est cassé l'épaule", scope=project)
    second = fmem.remember("Mickael s'est cassé l'épaule le 10 janvier 2026", scope=project)
    inserted = _outcome(fmem.db.read("facts/remember_landed", id=first.fact.id)[0], 0.85)
    assert inserted is not None and inserted.action == "inserted" and inserted.fact.id == first.fact.id
    updated = _outcome(fmem.db.read("facts/remember_landed", id=second.fact.id)[0], 0.85)
    assert updated is not None and updated.action == "updated" and updated.fact.id == second.fact.id
    assert updated.previous is not None and updated.previous.id == first.fact.id
    assert fmem.db.read("facts/remember_landed", id="not-written") == []


def test_types_importance_exact_duplicate_and_validation(fmem: GraphMemory, project: FactScope) -> None:
    r = fmem.remember("The user prefers dark mode in all applications", type="preference", scope=project)
    assert r.fact.importance == 0.7
    same = fmem.remember("the user prefers DARK mode in all applications!", scope=project)
    assert same.action == "unchanged" and same.similarity == 1.0
    goal = fmem.remember("Ship the graphmem MCP server before June", type="goal", scope=project)
    assert goal.fact.importance == 0.9
    with pytest.raises(ValueError):
        fmem.remember("x", type="nonsense", scope=project)
    with pytest.raises(ValueError):
        fmem.remember("   ", scope=project)
    with pytest.raises(ValueError):
        fmem.remember("y is z", ttl="soon", scope=project)
    listed = fmem.list_facts(scopes=[project], order="importance")
    assert [x.type for x in listed][:2] == ["goal", "preference"]
    assert [x.type for x in fmem.list_facts(scopes=[project], type="goal")] == ["goal"]
    assert len(fmem.list_facts(scopes=[project], min_importance=0.8)) == 1


def test_scopes_never_leak_adversarial(fmem: GraphMemory, namespace: str) -> None:
    pa, pb = FactScope.project(namespace + "/a"), FactScope.project(namespace + "/b")
    sa = fmem.create_session(namespace + "/a", project_path=namespace + "/a")
    sb = fmem.create_session(namespace + "/b", project_path=namespace + "/b")
    text = "The deploy script for this repository lives in tools/deploy.sh"
    ra = fmem.remember(text, scope=pa)
    rb = fmem.remember(text, scope=pb)  # identical text in another project: a separate fact
    rs = fmem.remember(text + " (session note)", scope=FactScope.session(sb.id))
    assert ra.action == rb.action == rs.action == "inserted" and ra.fact.id != rb.fact.id
    for fact in fmem.search_facts("where is the deploy script?", scopes=[pa]):
        assert fact.scope_key == pa.key
    inj = _inject(fmem, sa.id, "where is the deploy script?")
    assert inj.items, "the project fact should be injected"
    allowed = {"global", pa.key, f"session:{sa.id}"}
    for item in inj.items:
        assert item.fact.scope_key in allowed
    assert ra.fact.id in {i.fact.id for i in inj.items}
    assert rb.fact.id not in {i.fact.id for i in inj.items} and rs.fact.id not in {i.fact.id for i in inj.items}


def test_ttl_hides_at_once_and_cleanup_deletes(fmem: GraphMemory, project: FactScope) -> None:
    r = fmem.remember("Mickael est malade", ["mickael", "santé"], ttl="7d", scope=project)
    assert r.fact.expires_at is not None
    assert timedelta(days=6, hours=23) < r.fact.expires_at - datetime.now(UTC) <= timedelta(days=7)
    past = fmem.remember("Mickael is at the dentist right now", ttl="1h", scope=project)
    support_db(fmem.db).write("testing/facts_set_expiry", id=past.fact.id, expiresAt=datetime.now(UTC) - timedelta(seconds=1))
    assert past.fact.id not in {f.id for f in fmem.list_facts(scopes=[project])}
    assert past.fact.id not in {f.id for f in fmem.search_facts("dentist", scopes=[project])}
    assert past.fact.id not in {f.id for f in fmem.facts_about("mickael", scopes=[project])}
    assert delete_expired_facts(fmem.db) >= 1
    with pytest.raises(LookupError):
        get_fact(fmem.db, past.fact.id)
    assert get_fact(fmem.db, r.fact.id)["fact"].id == r.fact.id


def test_worker_periodic_cleanup_deletes_expired_facts(fmem: GraphMemory, project: FactScope, namespace: str) -> None:
    from graphmem.worker import WorkerConfig

    gone = fmem.remember("Mickael is on a train to Lyon right now", ttl="1h", scope=project)
    kept = fmem.remember("Mickael works on the billing service", scope=project)
    support_db(fmem.db).write("testing/facts_set_expiry", id=gone.fact.id, expiresAt=datetime.now(UTC) - timedelta(seconds=1))
    worker = fmem.worker(config=WorkerConfig(gc_every_seconds=0.0, scope=namespace))
    worker.run_once()
    with pytest.raises(LookupError):
        get_fact(fmem.db, gone.fact.id)
    assert get_fact(fmem.db, kept.fact.id)["fact"].id == kept.fact.id


def test_forget_topic_and_id_with_audit(fmem: GraphMemory, namespace: str) -> None:
    pa, pb = FactScope.project(namespace + "/a"), FactScope.project(namespace + "/b")
    keep = fmem.remember("David est mon frère", ["david"], scope=pa)
    ex1 = fmem.remember("Julie, my ex, lives in Lyon", ["julie"], scope=pa)
    ex2 = fmem.remember("Julie and I broke up in March", ["julie"], scope=pa)
    other = fmem.remember("Julie, my ex, lives in Lyon", ["julie"], scope=pb)
    dry = fmem.forget("julie", scopes=[pa], dry_run=True)
    assert dry.dry_run and {f.id for f in dry.removed} == {ex1.fact.id, ex2.fact.id}
    res = fmem.forget("julie", scopes=[pa], reason="user asked")
    assert {f.id for f in res.removed} == {ex1.fact.id, ex2.fact.id} and res.audit_id
    assert {f.id for f in fmem.list_facts(scopes=[pa])} == {keep.fact.id}
    assert other.fact.id in {f.id for f in fmem.list_facts(scopes=[pb])}  # other project untouched
    audit = next(a for a in forget_audits(fmem.db, 200) if a["id"] == res.audit_id)
    assert audit["count"] == 2 and audit["reason"] == "user asked" and audit["method"] == "topic"
    assert "Lyon" not in json.dumps(audit, default=str) and "julie" not in json.dumps(audit, default=str).lower()
    by_id = fmem.forget(keep.fact.id)
    assert [f.id for f in by_id.removed] == [keep.fact.id]


def test_search_semantic_top10_and_access_count(fmem: GraphMemory, project: FactScope) -> None:
    texts = [f"Fact number {i}: the service {i} runs on port {8000 + i}" for i in range(12)]
    for t in texts:
        fmem.remember(t, scope=project)
    fmem.remember("dev = Mickael", ["mickael"], type="identity", scope=project)
    hits = fmem.search_facts("who is dev?", scopes=[project])
    assert len(hits) == 10  # no threshold: always the top 10
    assert hits[0].content == "dev = Mickael"
    assert all(hits[i].score >= hits[i + 1].score for i in range(9))  # type: ignore[operator]
    again = fmem.search_facts("who is dev?", scopes=[project], limit=1)
    assert again[0].access_count >= 1
    assert fmem.facts_about("mickael", scopes=[project])[0].last_accessed_at is not None


def test_injection_dedup_cap_skip_coalesce_and_log(fmem: GraphMemory, namespace: str, global_ids: list[str]) -> None:
    proj = namespace + "/inj"
    s = fmem.create_session(proj, project_path=proj)
    pscope = FactScope.project(proj)
    ident = fmem.remember(f"The user's name is Mickael ({uuid.uuid4().hex[:6]})", type="identity", scope="global")
    global_ids.append(ident.fact.id)
    dec = fmem.remember("Decision: use PostgreSQL for the persistence layer", type="decision", scope=pscope)
    near = fmem.remember("Decision: use PostgreSQL for the persistence layer!", type="fact", scope="global")
    global_ids.append(near.fact.id)
    for i in range(22):
        fmem.remember(f"Observation {i}: module m{i} has {i} open issues about caching layer {i}",
                      type="observation", scope=pscope)
    cfg = FactTuning(injection_recent_hours=0.0)
    assert _inject(fmem, s.id, "Worker #42 completed", source="system").skipped == "system message"
    assert _inject(fmem, s.id, "x", tuning=FactTuning(injection_enabled=False)).skipped == "disabled"
    first = _inject(fmem, s.id, ["En fait", "j'ai changé d'avis", "on va utiliser MySQL à la place"], tuning=cfg)
    ids = [i.fact.id for i in first.items]
    assert len(ids) == len(set(ids)) <= 20
    assert ids[0] == ident.fact.id and first.items[0].reason == "identity"
    assert dec.fact.id in ids
    assert near.fact.id not in ids  # same meaning as the decision injected before it (cosine >= 0.85)
    assert first.chars == len(first.text) > 0 and first.log_id
    # nothing is repeated within the dedup window
    second = _inject(fmem, s.id, "on va utiliser MySQL à la place", tuning=cfg)
    assert not set(ids) & {i.fact.id for i in second.items}
    logs = list_retrievals(fmem.db, session_id=s.id)
    assert [r["id"] for r in logs][:2] == [second.log_id, first.log_id]
    log = get_retrieval(fmem.db, first.log_id)  # type: ignore[arg-type]
    assert log is not None and log["itemCount"] == len(ids) and log["chars"] == first.chars
    assert log["messagePreview"].startswith("En fait j'ai changé d'avis")
    assert [i["id"] for i in log["items"]] == ids
    # a new turn window: after dedup_turns turns the facts may come back
    for n in range(3):
        fmem.store_turn(s.id, f"q{n}", f"a{n}")
    back = _inject(fmem, s.id, "PostgreSQL", tuning=FactTuning(injection_recent_hours=0.0, injection_dedup_turns=2))
    assert ident.fact.id in {i.fact.id for i in back.items}
    fmem.delete_session(s.id)
    assert list_retrievals(fmem.db, session_id=s.id) == []


def test_settings_get_set_unset(database: Database) -> None:
    before = get_tuning(database, fresh=True)
    try:
        assert set_tuning(database, "injection.max_results", "7") == 7
        assert get_tuning(database).injection_max_results == 7
        assert set_tuning(database, "injection.enabled", "off") is False
        with pytest.raises(ValueError):
            set_tuning(database, "injection.min_score", "2.5")
        with pytest.raises(ValueError):
            set_tuning(database, "no.such.key", 1)
    finally:
        unset_tuning(database, "injection.max_results")
        unset_tuning(database, "injection.enabled")
    after = get_tuning(database, fresh=True)
    assert after.injection_max_results == before.injection_max_results == 20


def test_llm_extraction_against_fake_openai(fmem: GraphMemory, namespace: str) -> None:
    answer = {"facts": [
        {"content": "David est le frère de Mickael", "type": "identity", "subjects": ["david", "mickael"],
         "ttl": None, "scope": "project"},
        {"content": "Mickael est malade", "type": "event", "subjects": ["mickael"], "ttl": "7d", "scope": "session"},
    ]}
    s = fmem.create_session(namespace + "/x", project_path=namespace + "/x")
    turn = fmem.store_turn(s.id, "Mon frère David vient demain, et je suis malade", "Repose-toi bien !",
                           [{"name": "Read", "args": {"p": "notes.md"}, "result": "David: frère", "success": True}])
    with FakeOpenAIServer(summary=answer) as server:
        extractor = FactExtractor("gpt-4o-mini", api_key=server.api_key, base_url=server.base_url)
        results = extract_facts_from_turn(fmem.db, turn.id, extractor, embedder=fmem.embedder, deferred=fmem.deferred)
        extractor.close()
        req = server.requests("chat/completions")[0]
        assert "connections, not general knowledge" in req.body["messages"][0]["content"]
        assert "David: frère" in req.body["messages"][1]["content"]  # tool results are read
    assert [r.action for r in results] == ["inserted", "inserted"]
    assert results[0].fact.scope_key == f"project:{s.project_path}" and results[0].fact.source == "extraction"
    assert results[1].fact.scope_key == f"session:{s.id}" and results[1].fact.expires_at is not None
    rows = support_db(fmem.db).read("testing/facts_provenance", id=results[0].fact.id)
    assert rows[0]["turnId"] == turn.id


def test_mcp_tool_functions(fmem: GraphMemory, namespace: str) -> None:
    proj = namespace + "/mcp"
    out = memory_store_fact(fmem, "The CI runs on GitHub Actions", ["ci"], type="fact", scope="project",
                            project_path=proj)
    assert out["action"] == "inserted"
    json.dumps(out)
    found = memory_search_facts(fmem, "which CI do we use?", project_path=proj)
    assert found["facts"][0]["id"] == out["fact"]["id"]
    gone = memory_forget(fmem, out["fact"]["id"], reason="test", project_path=proj)
    assert gone["count"] == 1


def test_cli_facts_settings_retrievals(fmem: GraphMemory, namespace: str, neo4j_target: object,
                                       monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from graphmem.cli.main import main

    for k, v in neo4j_target.env().items():  # type: ignore[attr-defined]
        monkeypatch.setenv(k, v)
    proj = namespace + "/cli"
    assert main(["facts", "add", "The staging DB is called shop_staging", "--subject", "db", "--scope",
                 f"project:{proj}", "--ttl", "30d", "--json"]) == 0
    added = json.loads(capsys.readouterr().out)
    assert added["action"] == "inserted"
    assert main(["facts", "list", "--scope", f"project:{proj}", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["id"] == added["fact"]["id"]
    assert main(["facts", "search", "staging database name", "--scope", f"project:{proj}"]) == 0
    assert "shop_staging" in capsys.readouterr().out
    assert main(["settings", "get", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["injection.max_results"] >= 1
    assert main(["retrievals", "list", "--limit", "1"]) == 0
    capsys.readouterr()
    assert main(["facts", "expire"]) == 0
    assert "deleted" in capsys.readouterr().out
    assert main(["facts", "forget", added["fact"]["id"], "--reason", "cli test"]) == 0
    assert "1 fact" in capsys.readouterr().out


def test_bench_smoke(fmem: GraphMemory) -> None:
    from graphmem_devtools.bench.facts import run_facts_bench

    result = run_facts_bench(fmem, facts=200, samples=5, warmup=2, batch=100, small_facts=5, warmup_seconds=0,
                             command="test")
    assert result.figures["remember (dedup check, warm embedder)"]["n"] == 5
    assert "inject_facts (message vector given)" in result.figures


def test_build_context_injects_facts_of_the_session_scopes_only(fmem: GraphMemory, namespace: str) -> None:
    mine = fmem.create_session(namespace + "/proj", agent="test")
    other = namespace + "/other"
    fmem.store_turn(mine.id, "How do we deploy the billing service?", "With `make deploy` from the repo root.")
    kept = fmem.remember("The billing service is deployed with make deploy on Fridays", scope=FactScope.project(mine.project_path),
                         type="decision")
    leak = fmem.remember("The billing service is deployed with make deploy on Fridays", scope=FactScope.project(other),
                         type="decision")
    block = fmem.build_context(mine.id, "when do we deploy billing?")
    ids = {f["id"] for f in block.facts}
    assert kept.fact.id in ids and leak.fact.id not in ids
    assert "## Known Facts (Long-Term Memory)" in block.text and "on Fridays" in block.text
    assert block.facts_log_id is not None
    assert "facts" in block.timings_ms
    assert len(block.text) <= block.budget_chars
    from graphmem.retrieval import ContextConfig

    assert ContextConfig(facts=False).facts is False
    assert fmem.build_context(mine.id, "when do we deploy billing?", config=ContextConfig(facts=False)).facts == []


def test_build_context_writes_its_injection_log_in_the_background(fmem: GraphMemory, namespace: str) -> None:
    s = fmem.create_session(namespace + "/bg", agent="test")
    fact = fmem.remember("The release train leaves every Tuesday at 10:00", scope=FactScope.project(s.project_path),
                         type="decision")
    block = fmem.build_context(s.id, "when does the release train leave?")
    assert fact.fact.id in {f["id"] for f in block.facts} and block.facts_log_id is not None
    # at once, no explicit wait: the next injection of the session waits for that log itself, so its
    # dedup window sees the fact
    again = fmem.build_context(s.id, "when does the release train leave?")
    assert fact.fact.id not in {f["id"] for f in again.facts}
    assert fmem.deferred.wait(s.id) == []
    log = get_retrieval(fmem.db, block.facts_log_id)
    assert log is not None and fact.fact.id in [i["id"] for i in log["items"]]
    fmem.build_context(s.id, "anything else?")
    fmem.deferred.wait(s.id)
    assert len(list_retrievals(fmem.db, session_id=s.id)) == 3


@pytest.mark.parametrize("max_fetch", [4000, 1])
def test_an_incomplete_index_search_is_widened(
    fmem: GraphMemory, namespace: str, monkeypatch: pytest.MonkeyPatch, max_fetch: int
) -> None:
    """An index search that may have missed a fact (it returned as many as it fetched, all close
    enough) makes remember's statement write nothing; remember runs it again with a larger search,
    and last with the exact scan (max_fetch 1: at once)."""
    import graphmem.facts.store as store_mod

    scope = FactScope.project(namespace + "/widen")
    for t in ["The cache layer uses Redis 7", "Julie prefers tea over coffee", "Paul is allergic to peanuts"]:
        assert fmem.remember(t, scope=scope).action == "inserted"
    # in the vector index, not pending: a pending fact is found by the exact pending scan, and an
    # unrelated nearest fact of another test then makes the first statement complete at once
    assert wait_for_vectors(fmem.deferred) == []
    monkeypatch.setattr(store_mod, "EXACT_SCAN_MAX", 0)
    monkeypatch.setattr(store_mod, "_REMEMBER_FETCH", {False: 1, True: 1})
    monkeypatch.setattr(store_mod, "MAX_FETCH", max_fetch)
    calls: list[str] = []
    transaction = fmem.db.transaction

    def counted(work: Any, **kw: Any) -> Any:
        calls.append("transaction")
        return transaction(work, **kw)

    monkeypatch.setattr(fmem.db, "transaction", counted)
    upd = fmem.remember("The cache layer uses Redis 7.2", scope=scope)
    assert upd.action == "updated" and upd.previous is not None
    assert upd.previous.content == "The cache layer uses Redis 7"
    assert calls == ["transaction"]  # the first statement could not decide
    assert fmem.remember("Hugo reviews every pull request", scope=scope).action == "inserted"


def test_index_path_agrees_with_exact_scan(fmem: GraphMemory, namespace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """remember's one-statement check and the injection's per-scope vector search give the same
    answers through the vector index as through the exact scan (forced with a zero scan limit)."""
    import graphmem.facts.inject as inject_mod
    import graphmem.facts.store as store_mod
    import graphmem.facts.vectors as vectors_mod

    session = fmem.create_session(namespace + "/idx", agent="test")
    scope = FactScope.project(session.project_path)
    texts = ["Julie prefers tea over coffee", "The CI runs on GitHub Actions", "Tom moved to Toulouse in 2021",
             "The cache layer uses Redis 7", "Paul is allergic to peanuts", "The mobile app is written in Kotlin"]
    for t in texts:
        assert fmem.remember(t, scope=scope).action == "inserted"
    assert wait_for_vectors(fmem.deferred) == []  # in the index: not found by the pending scan instead
    cfg = FactTuning(injection_dedup_turns=0, injection_recent_hours=0.0, injection_important_min=1.0,
                       injection_vector_k=4, injection_min_score=-1.0)
    msg = "which database does the cache use?"

    def mine(inj: FactInjection) -> list[tuple[str, float | None]]:
        # global facts of other tests may join in: compare this scope's vector hits
        return [(i.fact.id, i.score) for i in inj.items if i.reason == "vector" and i.fact.scope_key == scope.key]

    exact = mine(_inject(fmem, session.id, msg, tuning=cfg, log=False))
    monkeypatch.setattr(inject_mod, "EXACT_SCAN_MAX", 0)
    monkeypatch.setattr(store_mod, "EXACT_SCAN_MAX", 0)
    monkeypatch.setattr(vectors_mod, "EXACT_SCAN_MAX", 0)
    indexed = mine(_inject(fmem, session.id, msg, tuning=cfg, log=False))
    assert exact and [i for i, _ in indexed] == [i for i, _ in exact]
    # 5.26's index scores are approximate (quantized vectors): about 0.01 off the exact cosine
    assert [s for _, s in indexed] == pytest.approx([s for _, s in exact], abs=0.02)
    top = get_fact(fmem.db, exact[0][0])["fact"]
    assert top.content == "The cache layer uses Redis 7"
    # remember through the index: a near-identical text updates, a different one inserts
    upd = fmem.remember("The cache layer uses Redis 7.2", scope=scope)
    assert upd.action == "updated" and upd.previous is not None
    assert upd.previous.content == "The cache layer uses Redis 7"
    assert fmem.remember("Hugo reviews every pull request", scope=scope).action == "inserted"
    assert fmem.remember("Julie prefers tea over coffee", scope=scope).action == "unchanged"


def test_vector_parameters_are_cheap_to_log() -> None:
    from graphmem.db.params import VectorParam, vector_param

    v = vector_param([0.5] * 512)
    assert isinstance(v, VectorParam) and isinstance(v, list) and v == [0.5] * 512
    assert len(repr(v)) < 40 and vector_param(v) is v and vector_param(None) is None


class _HeldWrites(DeferredWrites):
    """The background writer, holding its writes until ``write_held`` (the moments between
    remember()'s commit and the indexing of its vector, or a process that stopped before indexing)."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.held: list[tuple[str, dict[str, Any]]] = []

    def submit(self, key: str, name: str, **params: Any) -> None:
        self.held.append((name, params))

    def submit_grouped(self, key: str, name: str, list_param: str, items: list[Any], *, linger: float) -> None:
        self.held.append((name, {list_param: list(items)}))

    def write_held(self) -> None:
        for name, params in self.held:
            self.db.write(name, **params)
        self.held.clear()


def _vector_state(db: Database, fact_id: str) -> dict[str, bool]:
    return support_db(db).read("testing/fact_vector_state", id=fact_id)[0]


@pytest.mark.parametrize("exact_max", [0, 2000], ids=["index-path", "exact-scan"])
def test_pending_vectors_are_seen_before_they_are_indexed(
    fmem: GraphMemory, namespace: str, monkeypatch: pytest.MonkeyPatch, exact_max: int
) -> None:
    import graphmem.facts.inject as inject_mod
    import graphmem.facts.store as store_mod
    import graphmem.facts.vectors as vectors_mod

    monkeypatch.setattr(inject_mod, "EXACT_SCAN_MAX", exact_max)
    monkeypatch.setattr(store_mod, "EXACT_SCAN_MAX", exact_max)
    monkeypatch.setattr(vectors_mod, "EXACT_SCAN_MAX", exact_max)
    held = _HeldWrites(fmem.db)
    fmem.deferred = held
    session = fmem.create_session(namespace + "/pending", agent="test")
    scope = FactScope.project(session.project_path)
    first = fmem.remember("The cache layer uses Redis 7", scope=scope)
    assert first.action == "inserted"
    # committed with its vector outside the index, its indexing queued on the background writer
    assert _vector_state(fmem.db, first.fact.id) == {
        "indexed": False, "pending": True, "pendingSince": True, "superseded": False}
    assert held.held == [("facts/index_vectors", {"ids": [first.fact.id]})]
    # the similarity check sees the pending vector: a near-identical text updates it
    upd = fmem.remember("The cache layer uses Redis 7.2", scope=scope)
    assert upd.action == "updated" and upd.previous is not None and upd.previous.id == first.fact.id
    assert _vector_state(fmem.db, first.fact.id) == {
        "indexed": False, "pending": False, "pendingSince": False, "superseded": True}
    # the injection's vector part sees it too
    cfg = FactTuning(injection_dedup_turns=0, injection_recent_hours=0.0, injection_important_min=1.0,
                       injection_vector_k=4, injection_min_score=0.2)
    inj = _inject(fmem, session.id, "which database does the cache use?", tuning=cfg, log=False)
    assert [i.fact.id for i in inj.items if i.reason == "vector"] == [upd.fact.id]
    # indexing: the superseded fact stays out of the index, the current one goes in
    held.write_held()
    assert _vector_state(fmem.db, first.fact.id)["indexed"] is False
    assert _vector_state(fmem.db, upd.fact.id) == {
        "indexed": True, "pending": False, "pendingSince": False, "superseded": False}
    inj = _inject(fmem, session.id, "which database does the cache use?", tuning=cfg, log=False)
    assert [i.fact.id for i in inj.items if i.reason == "vector"] == [upd.fact.id]
    # a vector left pending by a process that stopped: the worker's cleanup indexes it
    left = fmem.remember("Paul is allergic to peanuts", scope=scope)
    held.held.clear()
    assert _vector_state(fmem.db, left.fact.id)["pending"] is True
    assert index_pending_vectors(fmem.db, older_than=timedelta(0)) >= 1
    assert _vector_state(fmem.db, left.fact.id) == {
        "indexed": True, "pending": False, "pendingSince": False, "superseded": False}


def test_remember_indexes_its_vector_on_the_background_writer(fmem: GraphMemory, project: FactScope) -> None:
    r = fmem.remember("Nina wants to learn Rust this winter", scope=project)
    wait_for_vectors(fmem.deferred)
    assert _vector_state(fmem.db, r.fact.id) == {
        "indexed": True, "pending": False, "pendingSince": False, "superseded": False}
    hits = fmem.search_facts("who is learning Rust?", scopes=[project])
    assert hits and hits[0].id == r.fact.id
