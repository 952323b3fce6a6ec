"""Long turns (a coding assistant's replies of thousands of characters) are retrieved on their own
words: no neighbour text in ``contextText``, their own vector as ``ctxEmbedding`` (read, with an
embedder that reads short texts best, from the request and the head of the reply), no whole-session
prior, a smaller share for their vector in the fusion, and a full-text score over request and reply
joined (``turnText``). Short turns keep all of them, and are joined too (``shortTurnText``, a field of
their own). ``long_turn_chars=0`` restores the neighbours for every turn."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from graphmem import Database, GraphMemory
from graphmem.embedding import (
    LONG_TURN_CHARS,
    LONG_TURN_REPLY_HEAD_CHARS,
    LocalEmbedder,
    embedding_hash,
    turn_embedding_text,
)
from graphmem.retrieval import RetrievalConfig, Scope
from graphmem.retrieval.longturns import combine_fields

from ..support import support_db

pytestmark = pytest.mark.integration

FILLER = ("The build runs the unit suite first, then the integration suite against the managed server; "
          "each step prints its timing and the failing test names when there are any. ")


@pytest.fixture
def mem(embedded_memory: GraphMemory) -> GraphMemory:
    return embedded_memory


def _session(mem: GraphMemory, cwd: str) -> tuple[str, list[str]]:
    """A session of three turns: short (names zanzibar), long (a 1,400-character reply), short."""
    s = mem.create_session(cwd, project_path=cwd)
    ids = [
        mem.store_turn(s.id, "we ship the zanzibar release tomorrow", "noted, zanzibar ships tomorrow").id,
        mem.store_turn(s.id, "why did the migration test fail?", "The migration test failed. " + FILLER * 8).id,
        mem.store_turn(s.id, "ok, thanks", "you are welcome").id,
    ]
    return s.id, ids


def _rows(database: Database, session_id: str) -> list[dict[str, object]]:
    return support_db(database).read("testing/turn_vectors", sessionId=session_id)


def test_a_long_turn_gets_no_neighbour_context(mem: GraphMemory, database: Database, namespace: str) -> None:
    cwd = namespace + "/app"
    sid, ids = _session(mem, cwd)
    assert len("The migration test failed. " + FILLER * 8) > LONG_TURN_CHARS
    mem.embed_pending()
    rows = _rows(database, sid)
    assert rows[1]["contextText"] == ""
    assert rows[1]["turnText"] == "why did the migration test fail?\nThe migration test failed. " + FILLER * 8
    assert rows[0]["turnText"] is None and rows[2]["turnText"] is None  # short turns are joined apart
    assert rows[0]["shortTurnText"] == "we ship the zanzibar release tomorrow\nnoted, zanzibar ships tomorrow"
    assert rows[1]["shortTurnText"] is None
    assert np.allclose(np.array(rows[1]["ctxEmbedding"]), np.array(rows[1]["embedding"]), atol=1e-5)
    # the short turns around it still hold their neighbours' words and vectors, the long one's included
    assert "migration test failed" in str(rows[0]["contextText"])
    assert "zanzibar" in str(rows[2]["contextText"])
    assert not np.allclose(np.array(rows[0]["ctxEmbedding"]), np.array(rows[0]["embedding"]), atol=1e-3)
    mem.await_text_index()
    found = mem.search("zanzibar", scope=Scope.directory(cwd), levels=(0,), k=5, mode="text")
    assert ids[1] not in [h.id for h in found.hits] and ids[0] in [h.id for h in found.hits]


class HeadReadingEmbedder(LocalEmbedder):
    """USE, told to read only the head of a long reply, as e5 does."""

    long_reply_head_chars = LONG_TURN_REPLY_HEAD_CHARS


def test_a_long_turns_vector_reads_as_much_of_the_reply_as_its_embedder_says(
        mem: GraphMemory, database: Database, namespace: str) -> None:
    reply = "The migration test failed. " + FILLER * 8
    request = "User: why did the migration test fail?\nAssistant: "
    assert mem.embedder is not None
    model = mem.embedder.model
    sid, _ = _session(mem, namespace + "/use")
    mem.embed_pending()  # USE reads the whole reply
    assert _rows(database, sid)[1]["embeddingHash"] == embedding_hash(request + reply.strip(), model)

    heads = GraphMemory(database, embedder=HeadReadingEmbedder())
    sid, _ = _session(heads, namespace + "/head")
    heads.embed_pending()
    rows = _rows(database, sid)
    head = request + reply[:LONG_TURN_REPLY_HEAD_CHARS]
    assert rows[1]["embeddingHash"] == embedding_hash(head, model)
    assert np.allclose(np.array(rows[1]["embedding"]), np.array(mem.embedder.embed([head])[0]), atol=1e-5)
    short = turn_embedding_text("ok, thanks", "you are welcome")
    assert rows[2]["embeddingHash"] == embedding_hash(short, model)  # a short turn is read whole
    assert rows[1]["turnText"] == "why did the migration test fail?\n" + reply  # the full text is still searched
    # with no turn long, the whole reply is read whatever the embedder
    sid, _ = _session(heads, namespace + "/none-long")
    heads.embed_pending(long_turn_chars=0)
    assert _rows(database, sid)[1]["embeddingHash"] == embedding_hash(request + reply.strip(), model)


def test_long_turn_chars_zero_gives_every_turn_its_neighbours(mem: GraphMemory, database: Database,
                                                               namespace: str) -> None:
    cwd = namespace + "/app"
    sid, ids = _session(mem, cwd)
    mem.embed_pending(long_turn_chars=0)
    rows = _rows(database, sid)
    assert "zanzibar" in str(rows[1]["contextText"])
    assert rows[1]["turnText"] is None  # no turn is long
    assert rows[1]["shortTurnText"] == "why did the migration test fail?\nThe migration test failed. " + FILLER * 8
    assert not np.allclose(np.array(rows[1]["ctxEmbedding"]), np.array(rows[1]["embedding"]), atol=1e-3)
    mem.await_text_index()
    found = mem.search("zanzibar", scope=Scope.directory(cwd), levels=(0,), k=5, mode="text")
    assert ids[1] in [h.id for h in found.hits]


def test_long_turns_embedded_before_the_joined_documents_get_theirs(mem: GraphMemory, database: Database,
                                                                    namespace: str) -> None:
    """Applying the schema gives the embedded turns that have no joined text theirs, without
    embedding them again: a long turn in ``turnText``, a short one in ``shortTurnText``."""
    cwd = namespace + "/app"
    sid, _ = _session(mem, cwd)
    mem.embed_pending()
    support_db(database).write("testing/forget_turn_text", sessionId=sid)
    assert [(r["turnText"], r["shortTurnText"]) for r in _rows(database, sid)] == [(None, None)] * 3
    mem.init_schema()
    rows = _rows(database, sid)
    assert rows[1]["turnText"] == "why did the migration test fail?\nThe migration test failed. " + FILLER * 8
    assert rows[0]["turnText"] is None and rows[2]["turnText"] is None and rows[1]["shortTurnText"] is None
    assert [rows[0]["shortTurnText"], rows[2]["shortTurnText"]] == [
        "we ship the zanzibar release tomorrow\nnoted, zanzibar ships tomorrow", "ok, thanks\nyou are welcome"]
    assert mem.embed_pending().turns == 0  # nothing was embedded again
    mem.await_text_index()
    found = mem.search("migration test failed", scope=Scope.directory(cwd), levels=(0,), k=5, mode="text")
    assert found.strategy["text"]["long_turns_joined"] == 1


def test_a_long_turn_gets_no_session_prior(mem: GraphMemory, namespace: str) -> None:
    cwd = namespace + "/app"
    _, ids = _session(mem, cwd)
    mem.embed_pending()
    mem.await_text_index()
    scope = Scope.directory(cwd)

    def scores(**knobs: object) -> dict[str, float]:
        mem.searcher(replace(RetrievalConfig(), time_boost=0.0, **knobs))  # type: ignore[arg-type]
        res = mem.search("migration test failed zanzibar", scope=scope, levels=(0,), k=5, mode="text")
        return {h.id: h.score for h in res.hits}

    bare, default, everyone = scores(session_weight=0.0), scores(), scores(long_turn_chars=0)
    assert default[ids[1]] == pytest.approx(bare[ids[1]])  # the long turn: its own BM25 only
    assert default[ids[0]] > bare[ids[0]]  # a short turn of the same session takes the prior
    assert everyone[ids[1]] > bare[ids[1]]


def _retry_session(mem: GraphMemory, cwd: str) -> dict[str, str]:
    """Long turns whose short request repeats the question (asked), whose reply answers it (answered),
    whose long request tells it (told), whose request and reply both match (both); a short turn."""
    s = mem.create_session(cwd, project_path=cwd)
    asked = mem.store_turn(s.id, "what is the retry policy of the uploader?", "Let me look at the code. " + FILLER * 8).id
    answered = mem.store_turn(s.id, "go on", "The uploader's retry policy: three retries with exponential "
                              "backoff, then the job fails. " + FILLER * 8).id
    short = mem.store_turn(s.id, "is the retry policy documented?", "not yet").id
    told_request = ("For the record: the uploader's retry policy stays at three retries with exponential backoff, "
                    "whatever the billing team asks for next quarter. Now, can you look at the logs?")
    assert len(told_request) >= RetrievalConfig().short_request_chars
    told = mem.store_turn(s.id, told_request, "Looking at the logs now. " + FILLER * 8).id
    both = mem.store_turn(s.id, "why does the uploader retry so often?",
                          "The uploader's retry policy retries on every error. " + FILLER * 8).id
    mem.embed_pending()
    mem.await_text_index()
    return {"asked": asked, "answered": answered, "short": short, "told": told, "both": both}


def _text_scores(mem: GraphMemory, cwd: str, **knobs: object) -> tuple[list[str], dict[str, float]]:
    """Text-only scores with the rules under test alone: no time boost, no session prior, and no
    proximity pairs (a long request's own score, which the rules add or weigh, is its words alone)."""
    knobs = {"time_boost": 0.0, "session_weight": 0.0, "proximity_weight": 0.0, **knobs}
    mem.searcher(replace(RetrievalConfig(), **knobs))  # type: ignore[arg-type]
    res = mem.search("uploader retry policy", scope=Scope.directory(cwd), levels=(0,), k=5, mode="text")
    ids = [h.id for h in res.hits]
    assert len(ids) == len(set(ids))  # a joined long turn is one candidate, never two
    return ids, {h.id: h.score for h in res.hits}


def test_a_long_turns_request_counts_less_than_its_reply(mem: GraphMemory, namespace: str) -> None:
    """Scored field by field (a long turn not joined), a long turn's short request counts
    ``long_turn_user_weight`` times: a request that only repeats the question no longer outranks the
    long reply that answers it. A long request (one that tells something) and short turns keep their
    scores."""
    cwd = namespace + "/app"
    t = _retry_session(mem, cwd)
    asked, answered, short, told, both = (t[k] for k in ("asked", "answered", "short", "told", "both"))

    def scores(**knobs: object) -> tuple[list[str], dict[str, float]]:
        return _text_scores(mem, cwd, join_long_turns=False, **knobs)

    summed = {"long_turn_field_tie": 1.0}  # request and reply added up, as for short turns
    _, request_only = scores(field_weights={"userMessage": 1.0}, long_turn_user_weight=1.0, **summed)
    _, one = scores(long_turn_user_weight=1.0, **summed)
    _, half = scores(long_turn_user_weight=0.5, **summed)
    order_none, _ = scores(long_turn_user_weight=0.0, **summed)  # scores are rounded to 6 decimals: abs tolerance
    assert half[asked] == pytest.approx(one[asked] - 0.5 * request_only[asked], abs=1e-5)
    assert half[answered] == pytest.approx(one[answered] - 0.5 * request_only.get(answered, 0.0), abs=1e-5)
    assert half[short] == pytest.approx(one[short], abs=1e-5)  # a short turn: untouched
    assert half[told] == pytest.approx(one[told], abs=1e-5)  # a long request: its full weight
    # with no weight at all, a request that only repeats the question no longer ranks its turn
    assert order_none.index(answered) < (order_none.index(asked) if asked in order_none else len(order_none))
    # with a field tie under 1, a short request and its reply combine as the better of the two plus a
    # share of the other; a long request is still added to its reply
    cfg = RetrievalConfig()
    assert cfg.long_turn_field_tie == 1.0  # off by default
    _, tied = scores(long_turn_field_tie=0.3)
    _, default = scores()
    for turn in (asked, answered, both):
        expected = combine_fields(one[turn], request_only.get(turn, 0.0), cfg.long_turn_user_weight, 0.3)
        assert tied[turn] == pytest.approx(expected, abs=1e-5)
    assert tied[both] < default[both]  # its request and its reply both matched: no longer their sum
    for turn in (told, short):
        assert tied[turn] == pytest.approx(default[turn], abs=1e-5)


def test_a_long_turn_is_scored_as_one_document(mem: GraphMemory, namespace: str) -> None:
    """A joined long turn is scored over its request and reply as one document (``long_turn_search``);
    a long request (one that tells something) adds its own field's score ``long_request_weight``
    times, a short one nothing. Short turns keep their scores exactly."""
    cwd = namespace + "/app"
    t = _retry_session(mem, cwd)
    cfg = RetrievalConfig()
    assert cfg.join_long_turns and cfg.long_request_weight == 1.0
    _, fields = _text_scores(mem, cwd, join_long_turns=False)
    _, request_only = _text_scores(mem, cwd, join_long_turns=False, field_weights={"userMessage": 1.0})
    _, alone = _text_scores(mem, cwd, long_request_weight=0.0)
    order, default = _text_scores(mem, cwd)
    assert default[t["short"]] == pytest.approx(fields[t["short"]], abs=1e-5)
    assert default[t["told"]] == pytest.approx(alone[t["told"]] + request_only[t["told"]], abs=1e-5)
    for k in ("asked", "answered", "both"):  # short requests: the joined document alone
        assert default[t[k]] == pytest.approx(alone[t[k]], abs=1e-5)
        assert default[t[k]] != pytest.approx(fields[t[k]], abs=1e-5)
    # the reply that answers outranks the request that only repeats the question
    assert order.index(t["answered"]) < order.index(t["asked"])
    # a turn the embedding pass has not joined yet is still found, field by field
    s = mem.create_session(cwd + "/later", project_path=cwd)
    late = mem.store_turn(s.id, "go on", "The uploader's retry policy: five retries. " + FILLER * 8).id
    mem.await_text_index()
    later, _ = _text_scores(mem, cwd + "/later")
    assert later == [late]


def test_a_long_turns_vector_share_follows_its_weight(mem: GraphMemory, namespace: str) -> None:
    """``long_turn_vector_weight`` scales the dense side's share of a long turn in the fusion (the
    vector statements report each turn's length); short turns keep theirs."""
    cwd = namespace + "/app"
    _, ids = _session(mem, cwd)
    mem.embed_pending()
    mem.await_text_index()
    scope = Scope.directory(cwd)
    query = "the build runs the unit suite, then the integration suite against the managed server"

    def scores(mode: str = "hybrid", **knobs: object) -> tuple[list[str], dict[str, float]]:
        mem.searcher(replace(RetrievalConfig(), time_boost=0.0, graph_weight=0.0, **knobs))  # type: ignore[arg-type]
        res = mem.search(query, scope=scope, levels=(0,), k=5, mode=mode)  # type: ignore[arg-type]
        return [h.id for h in res.hits], {h.id: h.score for h in res.hits}

    order, _ = scores("semantic")
    assert order[0] == ids[1]  # the long turn is the vector side's best: its share is the full 0.3
    _, full = scores(long_turn_vector_weight=1.0)
    _, none = scores(long_turn_vector_weight=0.0)
    _, default = scores()
    vector_weight = RetrievalConfig().vector_weight
    assert full[ids[1]] - none[ids[1]] == pytest.approx(vector_weight, abs=1e-5)
    share = RetrievalConfig().long_turn_vector_weight
    assert default[ids[1]] - none[ids[1]] == pytest.approx(share * vector_weight, abs=1e-5)
    for short in (ids[0], ids[2]):
        assert none.get(short) == pytest.approx(full.get(short), abs=1e-5)


def test_a_short_turn_is_scored_as_one_document_with_its_neighbours(mem: GraphMemory, database: Database,
                                                                       namespace: str) -> None:
    """A joined short turn (``shortTurnText``) is scored over its request and reply as one document,
    plus its neighbours' context, in the same query (``join_short_turns``); off, field by field in
    ``memory_search``. A short turn not joined yet is still found, field by field."""
    cwd = namespace + "/app"
    sid, ids = _session(mem, cwd)
    mem.embed_pending()
    mem.await_text_index()
    scope = Scope.directory(cwd)

    def search(query: str, **knobs: object) -> tuple[dict[str, float], dict[str, object]]:
        mem.searcher(replace(RetrievalConfig(), time_boost=0.0, session_weight=0.0, **knobs))  # type: ignore[arg-type]
        res = mem.search(query, scope=scope, levels=(0,), k=5, mode="text")
        assert len(res.hits) == len({h.id for h in res.hits})  # one candidate per turn
        return {h.id: h.score for h in res.hits}, res.strategy["text"]

    assert RetrievalConfig().join_short_turns
    joined, info = search("zanzibar ships")
    fields, off = search("zanzibar ships", join_short_turns=False)
    assert info["short_turns_joined"] == 2 and off["short_turns_joined"] == 0
    # the first turn names zanzibar in its request and its reply: one document scores it otherwise
    assert joined[ids[0]] != pytest.approx(fields[ids[0]], abs=1e-5)
    # the third turn holds zanzibar only in its neighbours' context: found through that field
    assert ids[2] in joined and joined[ids[2]] < joined[ids[0]]
    no_context, _ = search("zanzibar ships", field_weights={"userMessage": 1.0, "assistantMessage": 1.0})
    assert ids[2] not in no_context and ids[0] in no_context
    # a short turn the embedding pass has not joined yet is still found, field by field
    support_db(database).write("testing/forget_turn_text", sessionId=sid)
    mem.await_text_index()
    late, info = search("zanzibar ships")
    assert info["short_turns_joined"] == 0 and ids[0] in late


def test_a_turn_ranks_above_the_neighbour_whose_context_copies_it(mem: GraphMemory, namespace: str) -> None:
    """A short turn's neighbours' context adds at most its field weight times those neighbours' own
    scores (``context_cap``): the turn after the one that answers ranks below it, but is still found."""
    cwd = namespace + "/shop"
    s = mem.create_session(cwd, agent="test")
    answer = mem.store_turn(s.id, "Why is the shopping cart empty after login?",
                            "The reverse proxy drops the session cookie because of its SameSite attribute. " * 6)
    after = mem.store_turn(s.id, "Unrelated: which font does the invoice use?", "Inter, 11 points.")
    mem.embed_pending()
    mem.await_text_index()
    scope = Scope.directory(cwd)

    def search(**knobs: object) -> tuple[dict[str, float], dict[str, object]]:
        mem.searcher(replace(RetrievalConfig(), time_boost=0.0, session_weight=0.0, **knobs))  # type: ignore[arg-type]
        res = mem.search("shopping cart cookie", scope=scope, levels=(0,), k=5, mode="text")
        return {h.id: h.score for h in res.hits}, res.strategy["text"]

    cfg = RetrievalConfig()
    assert cfg.context_cap == 1.0
    capped, _ = search()
    # the answer's own context (the font question) does not match: its score is its own text's
    assert list(capped) == [answer.id, after.id]
    assert capped[after.id] <= cfg.field_weights["contextText"] * capped[answer.id] + 1e-4
    free, info = search(context_cap=None)
    assert info["contexts_capped"] == 0 and free[answer.id] == pytest.approx(capped[answer.id])
    assert free[after.id] >= capped[after.id] - 1e-6
    # a cap of 0: the neighbours' context adds nothing, and the font turn matches nothing of its own
    nothing, info = search(context_cap=0.0)
    assert info["contexts_capped"] == 1 and nothing[after.id] == pytest.approx(0.0, abs=1e-5)
    assert nothing[answer.id] == pytest.approx(capped[answer.id])
