"""Unit tests of the retrieval helpers: Lucene escaping, RRF, relative time, scopes, rendering."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from graphmem.errors import InvalidInput
from graphmem.retrieval import (
    ContextBlock,
    ContextConfig,
    ContextTurn,
    Scope,
    SearchHit,
    build_query,
    escape,
    max_rrf_score,
    parse_scope,
    query_terms,
    relative_time,
    render_context,
    rrf,
)
from graphmem.retrieval.lucene import MAX_TERMS, SPECIAL

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def test_escape_escapes_every_special_character() -> None:
    raw = "".join(sorted(SPECIAL))
    out = escape(raw)
    assert out == "".join("\\" + c for c in sorted(SPECIAL))
    assert escape("a\x00b\x1fc") == "a b c"


@pytest.mark.parametrize("text", ["", "   ", "!!!", "((((", '"', "\\", "&&||", "\x00\x01\x02", "-+~*?:/"])
def test_queries_without_words_build_nothing(text: str) -> None:
    assert build_query(text) is None
    assert query_terms(text) == []


def test_boolean_words_are_plain_terms_and_terms_are_capped() -> None:
    q = build_query("cats AND dogs OR NOT birds")
    assert q is not None
    assert "AND" not in q and "OR" not in q and "NOT" not in q
    assert "(cats and dogs or not birds)" in q
    many = " ".join(f"w{i}" for i in range(1000))
    assert len(query_terms(many)) == MAX_TERMS
    assert build_query("x" * 1_000_000) is not None


def test_scope_clause_is_required_zero_weight_phrase() -> None:
    q = build_query("cart", scope_field="cwd", scope_value='/home/a "b"/c:d')
    assert q is not None
    assert q.endswith('+cwd:"\\/home\\/a \\"b\\"\\/c\\:d"^0')
    assert build_query("cart", scope_field="sessionId", scope_value="---") == "+(" + build_query("cart")[2:-1] + ")"  # type: ignore[index]


def test_field_weights_and_stopwords() -> None:
    q = build_query("What did Caroline research?", fields={"userMessage": 1.0, "contextText": 0.3}, drop_stopwords=True)
    assert q == "+(userMessage:(caroline research)^1 contextText:(caroline research)^0.3)"
    # only stopwords: keep them rather than search nothing
    assert query_terms("what did", drop_stopwords=True) == ["what", "did"]


def test_rrf_weights_depths_and_ranks() -> None:
    fused = rrf({"vector": ["a", "b", "c"], "text": ["c", "a", "d"]}, k=60)
    scores = {d: s for d, s, _ in fused}
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[0][0] == "a" and fused[0][2] == {"vector": 1, "text": 2}
    weighted = rrf({"vector": ["a"], "text": ["b"]}, weights={"vector": 0.5, "text": 1.0})
    assert [d for d, _, _ in weighted] == ["b", "a"]
    shallow = rrf({"vector": ["a", "b", "c"]}, depths={"vector": 2})
    assert [d for d, _, _ in shallow] == ["a", "b"]
    assert max_rrf_score({"vector": 1.0, "text": 1.0}) == pytest.approx(2 / 61)


@pytest.mark.parametrize(
    ("delta", "en", "fr"),
    [
        (timedelta(seconds=5), "just now", "à l'instant"),
        (timedelta(minutes=1), "1 minute ago", "il y a 1 minute"),
        (timedelta(hours=5), "5 hours ago", "il y a 5 heures"),
        (timedelta(days=1, hours=2), "yesterday", "hier"),
        (timedelta(days=3), "3 days ago", "il y a 3 jours"),
        (timedelta(days=15), "2 weeks ago", "il y a 2 semaines"),
        (timedelta(days=65), "2 months ago", "il y a 2 mois"),
        (timedelta(days=800), "2 years ago", "il y a 2 ans"),
        (timedelta(days=-3), "in 3 days", "dans 3 jours"),
    ],
)
def test_relative_time(delta: timedelta, en: str, fr: str) -> None:
    assert relative_time(NOW - delta, NOW) == en
    assert relative_time(NOW - delta, NOW, "fr") == fr


def test_scopes() -> None:
    assert parse_scope(None) == Scope.everything()
    assert parse_scope("session:abc") == Scope.session("abc")
    assert parse_scope("cwd:/tmp/x/") == Scope("directory", "/tmp/x")
    assert Scope.session("a").contains("a", "/x", "/x") and not Scope.session("a").contains("b", "/x", "/x")
    assert Scope("project", "/p").contains("s", "/p/sub", "/p")
    with pytest.raises(InvalidInput):
        parse_scope("planet:mars")
    with pytest.raises(InvalidInput):
        Scope("session", "")


def test_a_facts_scope_given_to_a_search_is_named_in_the_error() -> None:
    from graphmem.facts import FactScope

    with pytest.raises(InvalidInput, match=r"project:/p is a fact's scope .*graphmem.retrieval.Scope"):
        parse_scope(FactScope.project("/p"))  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="not int"):
        parse_scope(3)  # type: ignore[arg-type]


def _hit(i: int, kind: str = "turn", size: int = 150) -> SearchHit:
    return SearchHit(kind=kind, id=f"h{i}", level=0 if kind == "turn" else 1, score=0.03, relevance=0.9,  # type: ignore[arg-type]
                     session_id="s", cwd="/c", project_path="/c", index=i, user_message="u" * size,
                     assistant_message="a" * size, text="t" * size, key_findings=["k"], files_mentioned=["f.py"])


@pytest.mark.parametrize("budget", [0, 50, 400, 2000, 12_000])
def test_render_respects_the_budget(budget: int) -> None:
    block = ContextBlock(
        session_id="s", message="m",
        recent_turns=[ContextTurn(id=f"r{i}", index=i, user_message="x" * 3000, assistant_message="y" * 3000)
                      for i in range(3)],
        relevant_turns=[_hit(i) for i in range(5)],
        relevant_summaries=[_hit(10 + i, "summary") for i in range(5)],
        level1_summaries=[_hit(20 + i, "summary") for i in range(10)],
    )
    dropped: dict[str, int] = {}
    text = render_context(block, ContextConfig(budget_chars=budget), dropped)
    assert len(text) <= budget
    assert block.chars == len(text)
    # whatever the block still lists is what the text shows
    for h in block.relevant_turns:
        assert f"[Turn {h.index} " in text
    if budget >= 12_000:
        assert "## Recent Conversation (Raw)" in text
        assert "## Recent Level 1 Summaries (Not Yet Summarized to Level 2)" in text


def test_combsum_normalises_each_source() -> None:
    from graphmem.retrieval import combsum

    fused = combsum({"text": [("a", 10.0), ("b", 5.0), ("c", 0.0)], "vector": [("c", 0.9), ("a", 0.1)]},
                    weights={"text": 0.7, "vector": 0.3})
    scores = {d: s for d, s, _ in fused}
    assert scores["a"] == pytest.approx(0.7)
    assert scores["c"] == pytest.approx(0.3)
    assert scores["b"] == pytest.approx(0.35)
    assert [d for d, _, _ in fused] == ["a", "b", "c"]


def test_combsum_min_span_damps_a_source_that_hardly_separates_its_candidates() -> None:
    from graphmem.retrieval import combsum

    narrow = {"text": [("a", 2.0), ("b", 1.0)], "vector": [("b", 0.62), ("a", 0.60)]}
    plain = {d: s for d, s, _ in combsum(narrow, weights={"text": 0.7, "vector": 0.3})}
    assert plain["b"] == pytest.approx(0.3) and plain["a"] == pytest.approx(0.7)
    floored = {d: s for d, s, _ in combsum(narrow, weights={"text": 0.7, "vector": 0.3}, min_spans={"vector": 0.1})}
    assert floored["b"] == pytest.approx(0.3 * 0.02 / 0.1)  # a 0.02 band counts a fifth
    assert floored["a"] == pytest.approx(0.7)
    # a band wider than the floor is scaled as before
    wide = {"vector": [("x", 0.9), ("y", 0.5)]}
    assert combsum(wide, min_spans={"vector": 0.1}) == combsum(wide)


def test_combsum_item_weights_scale_one_items_share_of_a_source() -> None:
    from graphmem.retrieval import combsum

    lists = {"text": [("a", 2.0), ("b", 1.0)], "vector": [("b", 0.9), ("a", 0.5)]}
    plain = {d: s for d, s, _ in combsum(lists, weights={"text": 0.7, "vector": 0.3})}
    halved = {d: s for d, s, _ in combsum(lists, weights={"text": 0.7, "vector": 0.3},
                                           item_weights={"vector": {"b": 0.5}})}
    assert plain["b"] == pytest.approx(0.3) and halved["b"] == pytest.approx(0.15)
    assert halved["a"] == plain["a"] == pytest.approx(0.7)


def test_vector_shares_name_long_turns_only_and_nothing_at_weight_one() -> None:
    from dataclasses import replace

    from graphmem.retrieval import RetrievalConfig
    from graphmem.retrieval.hits import Candidate
    from graphmem.retrieval.longturns import vector_shares

    cands = [Candidate("long", "turn", 0.8, 3000), Candidate("short", "turn", 0.7, 200),
             Candidate("summary", "summary", 0.6), Candidate("unknown", "turn", 0.5)]
    assert vector_shares(cands, replace(RetrievalConfig(), long_turn_vector_weight=1.0)) == {}
    assert vector_shares(cands, replace(RetrievalConfig(), long_turn_vector_weight=0.5)) == {"long": 0.5}
    assert vector_shares(cands, replace(RetrievalConfig(), long_turn_vector_weight=0.5, long_turn_chars=0)) == {}


def test_context_vectors_average_same_session_neighbours() -> None:
    import numpy as np

    from graphmem.embedding import context_vectors

    e = np.eye(6)[:5]  # five orthogonal unit vectors, turns 1..5
    out = np.array(context_vectors([(i + 1, e[i].tolist()) for i in range(5)], window=2, weight=0.3))
    # turn 3 sees 1, 2, 4, 5 with weight 0.3 each, itself with 1
    want = e[2] + 0.3 * (e[0] + e[1] + e[3] + e[4])
    assert np.allclose(out[2], want / np.linalg.norm(want))
    # turn 1 sees 2 and 3 only; the rows are unit length
    want = e[0] + 0.3 * (e[1] + e[2])
    assert np.allclose(out[0], want / np.linalg.norm(want))
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0)
    # a gap (turn 3 not embedded yet) is only a missing contribution; index distance, not list position
    gap = context_vectors([(1, e[0].tolist()), (4, e[3].tolist())], window=2, weight=0.3)
    assert np.allclose(gap[0], e[0]) and np.allclose(gap[1], e[3])
    assert np.allclose(context_vectors([(1, e[0].tolist()), (2, e[1].tolist())], window=2, weight=0.0)[0], e[0])
    assert context_vectors([]) == []


def test_a_long_turn_keeps_its_own_vector_and_still_lends_it_to_its_neighbours() -> None:
    import numpy as np

    from graphmem.embedding import context_vectors

    e = np.eye(4)[:3]
    out = np.array(context_vectors([(i + 1, e[i].tolist()) for i in range(3)], window=2, weight=0.3,
                                   own=[False, True, False]))
    assert np.allclose(out[1], e[1])  # the long turn: its own vector only
    want = e[0] + 0.3 * (e[1] + e[2])  # its short neighbours still average it in
    assert np.allclose(out[0], want / np.linalg.norm(want))


def test_session_scope_field_of_the_session_document() -> None:
    from graphmem.retrieval.lucene import build_query
    from graphmem.retrieval.search import SESSION_DOC_SCOPE_FIELD

    q = build_query("Where is the invoice?", fields={"sessionText": 1.0}, scope_field=SESSION_DOC_SCOPE_FIELD["session"],
                    scope_value="abc-1", drop_stopwords=True)
    assert q == '+(sessionText:(invoice)^1) +id:"abc\\-1"^0'
    assert SESSION_DOC_SCOPE_FIELD["everything"] is None


def test_search_result_is_the_sequence_of_its_hits() -> None:
    from graphmem.retrieval.models import SearchHit, SearchResult

    def hit(n: int) -> SearchHit:
        return SearchHit(kind="turn", id=f"t{n}", session_id="s", cwd="/x", project_path="/x", level=0, index=n,
                         score=1.0 / (n + 1), relevance=1.0, relative_time="now")

    res = SearchResult(query="q", mode="hybrid", effective_mode="text", scope="everything", levels=[0],
                       hits=[hit(0), hit(1), hit(2)], warnings=["w"])
    assert len(res) == 3 and bool(res)
    assert [h.id for h in res] == ["t0", "t1", "t2"]
    assert res[0].id == "t0" and res[-1].id == "t2" and [h.id for h in res[:2]] == ["t0", "t1"]
    assert res.warnings == ["w"] and res.effective_mode == "text"  # the attributes are still there
    assert res.model_dump(mode="json", by_alias=True)["hits"][0]["id"] == "t0"
    empty = SearchResult(query="q", mode="hybrid", effective_mode="hybrid", scope="everything", levels=[0])
    assert len(empty) == 0 and not empty and list(empty) == []


def test_build_query_keeps_the_clauses_lucene_accepts() -> None:
    from graphmem.retrieval.lucene import MAX_CLAUSES, build_query

    query = build_query("漢" * 5000 + " alpha " + "かな" * 900)
    assert query is not None
    # 4 fields, each with the kept terms: the characters of those terms bound the clauses
    per_field = query.split("userMessage:(", 1)[1].split(")^", 1)[0]
    assert 4 * sum(len(t) for t in per_field.split()) <= MAX_CLAUSES  # a token has at least one character
    odd = build_query("½j" * 50_000)  # "½" splits the letters around it
    assert odd is not None and 4 * len(odd.split("userMessage:(", 1)[1].split(")^", 1)[0]) <= MAX_CLAUSES
    ascii_query = build_query(" ".join(f"w{i}" for i in range(200)))
    assert ascii_query is not None and "w63" in ascii_query and "w64" not in ascii_query


def test_consecutive_query_words_also_score_as_sloppy_phrases() -> None:
    from graphmem.retrieval.lucene import MAX_CLAUSES, build_query

    query = build_query("Which tables did we add indexes to?", fields={"turnText": 1.0, "contextText": 0.7},
                        drop_stopwords=True, pairs=0.25, slop=8)
    assert query == ('+(turnText:(tables add indexes)^1 contextText:(tables add indexes)^0.7 '
                     'turnText:("tables add"~8 "add indexes"~8)^0.25 '
                     'contextText:("tables add"~8 "add indexes"~8)^0.175)')
    assert build_query("indexes", pairs=0.25) == build_query("indexes")  # one word: no pair
    assert build_query("add indexes", pairs=0.0) == build_query("add indexes")
    quoted = build_query('say "x" AND y:z', fields={"f": 1.0}, pairs=0.5)
    assert quoted is not None and '"x and"~8' in quoted and '"and y"~8' in quoted and '"y z"~8' in quoted
    # every term also stands in up to two phrases: the clause budget holds with them
    flood = build_query("漢" * 5000 + " alpha " + "かな" * 900, pairs=0.25)
    assert flood is not None
    per_field = flood.split("userMessage:(", 1)[1].split(")^", 1)[0]
    assert 3 * 4 * sum(len(t) for t in per_field.split()) <= MAX_CLAUSES


def test_a_search_queries_only_the_fields_of_the_kinds_it_asks_for() -> None:
    from graphmem.retrieval.lucene import SUMMARY_FIELDS, TURN_FIELDS, fields_for

    weights = {"userMessage": 1.0, "assistantMessage": 1.0, "contextText": 0.7, "text": 1.0, "keyFindings": 0.5,
               "custom": 0.2}
    assert set(fields_for(weights, turns=True, summaries=True)) == set(weights)
    assert set(fields_for(weights, turns=True, summaries=False)) == {"userMessage", "assistantMessage", "contextText",
                                                                    "custom"}
    assert set(fields_for(weights, turns=False, summaries=True)) == {"text", "keyFindings", "custom"}
    assert not TURN_FIELDS & SUMMARY_FIELDS


def test_long_turn_fields_combine_as_the_better_plus_a_share_of_the_other() -> None:
    from graphmem.retrieval.longturns import combine_fields

    # tie 1 is the plain sum, with the request scaled: what the short-request rule alone gave
    assert combine_fields(10.0, 4.0, 0.3, 1.0) == pytest.approx(6.0 + 1.2)
    assert combine_fields(10.0, 4.0, 1.0, 1.0) == pytest.approx(10.0)
    # the better of request (4) and reply (6), plus 0.3 of the other
    assert combine_fields(10.0, 4.0, 1.0, 0.3) == pytest.approx(6.0 + 0.3 * 4.0)
    assert combine_fields(10.0, 8.0, 1.0, 0.3) == pytest.approx(8.0 + 0.3 * 2.0)
    assert combine_fields(10.0, 0.0, 0.3, 0.0) == pytest.approx(10.0)  # a request that matched nothing


def test_a_short_turns_context_adds_at_most_its_weight_times_its_neighbours_own_scores() -> None:
    from graphmem.retrieval import RetrievalConfig
    from graphmem.retrieval.longturns import cap_context, joined_params

    cfg = RetrievalConfig()
    off = replace(cfg, context_cap=None)
    fields = {"userMessage": 1.0, "assistantMessage": 1.0, "contextText": 0.7}

    def hit(tid: str, index: int, score: float, turns: int = 2, chars: int = 100) -> dict[str, object]:
        return {"id": tid, "sessionId": "s", "index": index, "score": score, "chars": chars, "turns": turns}

    # a two-turn session: the answer (own 2.0, its context matches nothing) and the turn after it,
    # whose context is the answer's text (3.0 of context, own 0)
    joined = [hit("answer", 1, 2.0), hit("after", 2, 3.0)]
    own = [{"sessionId": "s", "index": 1, "score": 2.0}]
    assert cap_context(cfg, fields, joined, own, fetch=100) == {"after": pytest.approx(0.7 * 2.0 - 3.0)}
    # within the cap: nothing moves; off, or with the context not queried: nothing either
    assert cap_context(cfg, fields, [hit("after", 2, 1.0)], own, fetch=100) == {}
    assert cap_context(off, fields, joined, own, fetch=100) == {}
    assert cap_context(cfg, {**fields, "contextText": 0.0}, joined, own, fetch=100) == {}
    # a long hit takes no cap (it has no context); nor a hit the statement gave no turn count
    assert cap_context(cfg, fields, [hit("after", 2, 3.0, chars=5000)], own, fetch=100) == {}
    assert cap_context(cfg, fields, [{**hit("after", 2, 3.0), "turns": None}], own, fetch=100) == {}
    # a full page: a neighbour outside it counts the lowest score fetched, but only neighbours that
    # exist (indexes 1..turns of the session)
    full = [{"sessionId": "x", "index": i, "score": 1.0 + i} for i in range(1, 4)]
    last = hit("after", 2, 3.0, turns=2)
    assert cap_context(cfg, fields, [last], own + full[:2], fetch=3) == {"after": pytest.approx(0.7 * 2.0 - 3.0)}
    middle = hit("mid", 3, 9.0, turns=5)  # neighbours 1 (own 2.0), 2, 4, 5 (outside the page: 2.0 each)
    assert cap_context(cfg, fields, [middle], own + full[:2], fetch=3) == {"mid": pytest.approx(0.7 * 8.0 - 9.0)}
    # the statement reads the own scores only when the context is scored and capped
    _, params = joined_params(cfg, "shopping cart", Scope.directory("/w"), fields, "x")
    assert params["capContext"] and "contextText" not in params["ownQuery"]
    _, params = joined_params(off, "shopping cart", Scope.directory("/w"), fields, "x")
    assert not params["capContext"]
