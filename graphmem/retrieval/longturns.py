"""How the full-text side treats long turns (a coding assistant's request and its long reply).

Lucene scores each field of the ``memory_search`` index on its own, normalised by that field's
length, and adds the fields up. A long turn's short request that repeats the query's words then
outscores the long reply that holds the answer, in that turn and against other turns; a short
message that tells something (a personal assistant's history) is lost under a reply field that
echoes it. So a long turn is scored on its own words, as one document:

* it takes no whole-session prior (:func:`session_prior_share`);
* the embedding pass writes its request and reply joined (``turnText``) into the
  ``turn_search`` index, and with ``join_long_turns`` the full-text side scores it there
  (BM25 over the whole turn, one length norm) instead of field by field. A request of at least
  ``short_request_chars`` (one that tells something: a decision, a preference, a fact) adds its own
  field's score ``long_request_weight`` times (:func:`reweigh_long_turns`), read with one more
  query over that field alone;
* a long turn not joined yet (written before the rule, or with ``join_long_turns`` off) keeps the
  field-by-field score, its short request counting ``long_turn_user_weight`` times and combined
  with its reply by ``long_turn_field_tie`` (:func:`combine_fields`; 1 = the plain sum).

A short turn (a chat message) is joined too (``shortTurnText``, a field of its own in the same
index, so each length class keeps its own statistics) and, with ``join_short_turns``, scored there
with its neighbours' ``contextText`` and the session prior, as in ``memory_search`` but over one
document. That context adds at most ``context_cap`` times its weight times the neighbours' own
scores (:func:`cap_context`): a turn next to the one that says it ranks below it. On the dense side, a long turn's share of
the fusion can be scaled by ``long_turn_vector_weight`` (:func:`vector_shares`; 1 = as short turns).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..db import Database
from ..embedding.pending import NEIGHBOUR_WINDOW
from .hits import Candidate
from .lucene import build_query
from .models import RetrievalConfig
from .scopes import Scope

__all__ = [
    "JOINED_FIELD", "SHORT_JOINED_FIELD", "cap_context", "combine_fields", "is_long", "joined_counts", "joined_fields", "joined_params",
    "reweigh_long_turns", "session_prior_share",
    "vector_shares",
]

USER_FIELD = "userMessage"
JOINED_FIELD = "turnText"
"""A long turn's request and reply as one document (index ``turn_search``)."""
SHORT_JOINED_FIELD = "shortTurnText"
"""A short turn's request and reply as one document (index ``turn_search``)."""
CONTEXT_FIELD = "contextText"


def is_long(chars: int | None, long_turn_chars: int) -> bool:
    """Whether a turn of ``chars`` characters (request + reply) is a long turn."""
    return long_turn_chars > 0 and chars is not None and int(chars) > long_turn_chars


def session_prior_share(chars: int | None, long_turn_chars: int) -> float:
    """1 when a full-text hit takes its session's prior, 0 for a long turn (found on its own words)."""
    return 0.0 if is_long(chars, long_turn_chars) else 1.0


def vector_shares(cands: Sequence[Candidate], cfg: RetrievalConfig) -> dict[str, float]:
    """Candidate id -> ``cfg.long_turn_vector_weight`` for the long turns among the vector side's
    candidates; empty when that weight is 1."""
    if cfg.long_turn_vector_weight == 1.0:
        return {}
    return {c.id: cfg.long_turn_vector_weight for c in cands if is_long(c.chars, cfg.long_turn_chars)}


def joined_fields(cfg: RetrievalConfig, fields: Mapping[str, float]) -> dict[str, float]:
    """The ``turn_search`` fields a search asks and their boosts (empty: no turn is scored joined):
    joined long turns with ``join_long_turns``; joined short turns with ``join_short_turns``, with
    their neighbours' context at its weight in ``fields`` (the search's ``memory_search`` fields,
    empty of turn fields when it leaves turns out)."""
    if not any(fields.get(f, 0.0) > 0 for f in (USER_FIELD, "assistantMessage")):
        return {}
    out: dict[str, float] = {}
    if cfg.join_long_turns and cfg.long_turn_chars > 0:
        out[JOINED_FIELD] = 1.0
    if cfg.join_short_turns:
        out[SHORT_JOINED_FIELD] = 1.0
        if fields.get(CONTEXT_FIELD, 0.0) > 0:
            out[CONTEXT_FIELD] = fields[CONTEXT_FIELD]
    return out


def joined_params(cfg: RetrievalConfig, query: str, scope: Scope, fields: Mapping[str, float],
                  fallback: str) -> tuple[bool, dict[str, Any]]:
    """Whether the full-text statement asks ``turn_search``, and its parameters for it: the Lucene
    query over the :func:`joined_fields` (``fallback``, a valid query, when none is asked or the
    query has no word), which length classes it scores joined, and whether it also reads the
    turns' own scores (``ownQuery``: their joined text without the context) for :func:`cap_context`."""
    asked = joined_fields(cfg, fields)
    lucene = build_query(query, fields=asked, scope_field=scope.property, scope_value=scope.value,
                         drop_stopwords=cfg.drop_query_stopwords, pairs=cfg.proximity_weight,
                         slop=cfg.proximity_slop) if asked else None
    own = None
    if lucene is not None and cfg.context_cap is not None and CONTEXT_FIELD in asked:
        # every neighbour's own text, long or short, whichever of them this search scores joined
        own = build_query(query, fields={JOINED_FIELD: 1.0, SHORT_JOINED_FIELD: 1.0}, scope_field=scope.property,
                          scope_value=scope.value, drop_stopwords=cfg.drop_query_stopwords,
                          pairs=cfg.proximity_weight, slop=cfg.proximity_slop)
    return lucene is not None, {"joinedQuery": lucene or fallback, "joinLong": JOINED_FIELD in asked,
                                "joinShort": SHORT_JOINED_FIELD in asked, "capContext": own is not None,
                                "ownQuery": own or fallback}


def joined_counts(joined: Sequence[Mapping[str, Any]], cfg: RetrievalConfig) -> dict[str, int]:
    """How many of the ``joined`` hits are long turns and how many short ones (for the run's report)."""
    n_long = sum(1 for h in joined if is_long(h.get("chars"), cfg.long_turn_chars))
    return {"long_turns_joined": n_long, "short_turns_joined": len(joined) - n_long}


def combine_fields(total: float, request: float, weight: float, tie: float) -> float:
    """A long turn's full-text score from its ``total`` (every field) and its ``request`` field's
    share: the request counts ``weight`` times, and the better of request and reply plus ``tie``
    times the other (``tie`` 1 = the sum)."""
    mine, rest = weight * request, total - request
    return max(mine, rest) + tie * min(mine, rest)


def reweigh_long_turns(
    db: Database,
    cfg: RetrievalConfig,
    query: str,
    scope: Scope,
    fields: Mapping[str, float],
    hits: Sequence[Mapping[str, Any]],
    fetch: int,
) -> dict[str, float]:
    """For the long turns among full-text ``hits``: how much to add to each one's score (negative
    when it goes down). A joined long hit (``joined`` set: scored as one document) whose request is at
    least ``cfg.short_request_chars`` long gains ``cfg.long_request_weight`` times that request's
    own score; a long hit scored field by field whose request is shorter counts that request
    ``cfg.long_turn_user_weight`` times and combines it with its reply by ``cfg.long_turn_field_tie``
    (:func:`combine_fields`). Empty (and no round trip) when no rule applies, the query leaves the
    request field out, or no hit is a long turn. A turn outside the request field's first ``fetch``
    hits keeps its score (its request matched little). A request's own score is its words alone,
    without the query's proximity pairs: the turn's score already holds them once, and adding them
    again lowered the coding histories whose evidence is in the requests."""
    weight = fields.get(USER_FIELD, 0.0)
    if weight <= 0:
        return {}
    split = cfg.long_turn_user_weight != 1.0 or cfg.long_turn_field_tie != 1.0
    wanted: dict[str, tuple[float, bool]] = {}
    for h in hits:
        if h["kind"] != "turn":
            continue
        if h.get("joined"):
            if cfg.long_request_weight != 0.0 and is_long(h.get("chars"), cfg.long_turn_chars):
                wanted[h["id"]] = (float(h["score"]), True)
        elif split and is_long(h.get("chars"), cfg.long_turn_chars):
            wanted[h["id"]] = (float(h["score"]), False)
    if not wanted:
        return {}
    lucene = build_query(query, fields={USER_FIELD: weight}, scope_field=scope.property, scope_value=scope.value,
                         drop_stopwords=cfg.drop_query_stopwords)
    if lucene is None:
        return {}
    rows = db.read("search/user_field_scores", query=lucene, ids=sorted(wanted), fetch=fetch)
    out: dict[str, float] = {}
    for r in rows:
        total, joined = wanted[r["id"]]
        request, long_request = float(r["score"]), int(r["requestChars"]) >= cfg.short_request_chars
        if joined:
            shift = cfg.long_request_weight * request if long_request else 0.0
        elif long_request:
            continue
        else:
            shift = combine_fields(total, request, cfg.long_turn_user_weight, cfg.long_turn_field_tie) - total
        if shift:
            out[r["id"]] = shift
    return out


def cap_context(
    cfg: RetrievalConfig,
    fields: Mapping[str, float],
    joined: Sequence[Mapping[str, Any]],
    own: Sequence[Mapping[str, Any]],
    fetch: int,
    *,
    window: int = NEIGHBOUR_WINDOW,
) -> dict[str, float]:
    """For the short turns among the ``joined`` hits (scored with their neighbours' ``contextText``;
    each with its ``sessionId``, ``index`` and its session's ``turns``): how much to take off each
    one's score so that the context adds at most ``cfg.context_cap`` times its weight in ``fields``
    times the sum of its neighbours' own scores (turns of the session within ``window``). ``own``:
    the turns' own-text hits (``sessionId``, ``index``, ``score``; the statement's first ``fetch``
    for ``ownQuery``, see :func:`joined_params`); a neighbour outside them counts the lowest score
    fetched when the page was full, 0 otherwise. BM25 normalises a context by its length, so the
    short context of a session's first or last turn can outscore the neighbour it was copied from;
    capped, a turn next to the one that says it ranks below it. Empty when the cap is off or the
    context is not queried."""
    weight = joined_fields(cfg, fields).get(CONTEXT_FIELD, 0.0)
    if cfg.context_cap is None or weight <= 0 or not own:
        return {}
    scores = {(r["sessionId"], int(r["index"])): float(r["score"]) for r in own if r["index"] is not None}
    floor = min(scores.values()) if len(own) >= fetch and scores else 0.0
    out: dict[str, float] = {}
    for h in joined:
        if h.get("turns") is None or h.get("index") is None or is_long(h.get("chars"), cfg.long_turn_chars):
            continue
        session, index = h["sessionId"], int(h["index"])
        around = sum(scores.get((session, i), floor)
                     for i in range(max(1, index - window), min(int(h["turns"]), index + window) + 1) if i != index)
        context = float(h["score"]) - scores.get((session, index), 0.0)
        cap = cfg.context_cap * weight * around
        if context > cap:
            out[h["id"]] = cap - context
    return out
