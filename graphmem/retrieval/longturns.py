"""How the full-text side treats long turns (a coding assistant's request and its long reply).

Lucene scores each field of the ``memory_search`` index on its own, normalised by that field's
length, and adds the fields up. A long turn's short request that repeats the query's words then
outscores the long reply that holds the answer, in that turn and against other turns; and a long
reply that mentions the query's words in passing adds to a request that does too. Two rules keep
a long turn ranked on its own words, and a third can be switched on:

* it takes no whole-session prior (:func:`session_prior_share`);
* a short request (under ``short_request_chars``: a question or a command, whose words are the
  topic, not the answer) counts ``long_turn_user_weight`` times (:func:`reweigh_long_turns`): the
  request's share of its BM25 score is read with a second query over that field alone and scaled.
  A longer request, one that tells something, keeps its full weight;
* with ``long_turn_field_tie`` under 1, a short request's share and the rest (the reply) are not
  added up but combined as the better of the two plus that share of the other (a disjunction max;
  1, the default, is the plain sum).

Short turns (chat messages) keep their scores exactly. On the dense side, a long turn's share of
the fusion can be scaled by ``long_turn_vector_weight`` (:func:`vector_shares`; 1 = as short turns).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..db import Database
from .hits import Candidate
from .lucene import build_query
from .models import RetrievalConfig
from .scopes import Scope

__all__ = ["combine_fields", "is_long", "reweigh_long_turns", "session_prior_share", "vector_shares"]

USER_FIELD = "userMessage"


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
    when it goes down) so that a short request counts ``cfg.long_turn_user_weight`` times its weight
    in ``fields`` and combines with its reply by ``cfg.long_turn_field_tie`` (:func:`combine_fields`). Empty (and no round trip) when both rules are off, the query leaves the
    request field out, or no hit is a long turn. A long turn outside the request field's first
    ``fetch`` hits keeps its score (its request matched little); a request at least
    ``cfg.short_request_chars`` long keeps its full weight and is added to its reply."""
    weight = fields.get(USER_FIELD, 0.0)
    if (cfg.long_turn_user_weight == 1.0 and cfg.long_turn_field_tie == 1.0) or weight <= 0:
        return {}
    long_hits = {h["id"]: float(h["score"]) for h in hits
                 if h["kind"] == "turn" and is_long(h.get("chars"), cfg.long_turn_chars)}
    if not long_hits:
        return {}
    lucene = build_query(query, fields={USER_FIELD: weight}, scope_field=scope.property, scope_value=scope.value,
                         drop_stopwords=cfg.drop_query_stopwords)
    if lucene is None:
        return {}
    rows = db.read("search/user_field_scores", query=lucene, ids=sorted(long_hits), fetch=fetch,
                   shortChars=cfg.short_request_chars)
    out: dict[str, float] = {}
    for r in rows:
        total = long_hits[r["id"]]
        shift = combine_fields(total, float(r["score"]), cfg.long_turn_user_weight, cfg.long_turn_field_tie) - total
        if shift:
            out[r["id"]] = shift
    return out
