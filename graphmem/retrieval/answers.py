"""The turn that answers: in a conversation the answer to a question comes in the next message.

A question such as "what kind of books does Alex have in her library?" often matches best the turn
that *asks* it ("What kind of books you got in your library?"), while the turn that tells the
answer ("I've got lots of kids' books, classics, ...") shares none of its words. So when one of the
best hits ends on a question -- its last message (the reply, or the request of a turn without one)
holds a sentence ending in ``?`` with at least two of the query's words (one, for a one-word query)
-- the turn after it in its session gains ``answer_lift`` times that hit's score, and ranks right
after it when the two tie.

A turn whose request asks and whose reply answers is left alone: its reply is the answer, in the
same turn. The last messages of the best turns that hold a ``?``, and which turn follows each, are
read in the hybrid search's graph statement (``search/graph_*``), for the best ``2 x answer_seeds``
turns before the graph and the re-ranking; a search without the graph source (text mode, or
``graph_weight`` 0) reads them after its ranking, in one round trip of its own
(``search/answer_turns``). Semantic searches lift nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..db import Database
from .eventwindow import stem
from .lucene import query_terms
from .models import RetrievalConfig
from .rerank import Fused

__all__ = ["askers_of", "asks_about", "lift_answers", "read_askers"]

_QUESTION = re.compile(r"[^.!?\n]*\?")
_WORD = re.compile(r"\w+")


def asks_about(text: str, words: set[str]) -> bool:
    """Whether ``text`` holds a question (a sentence ending in ``?``) with at least two of the stemmed
    ``words`` (all of them when there is only one)."""
    if not words or not text:
        return False
    need = min(2, len(words))
    for m in _QUESTION.finditer(text):
        if len(words & {stem(w) for w in _WORD.findall(m.group(0).lower())}) >= need:
            return True
    return False


def read_askers(db: Database, ids: Sequence[str], config: RetrievalConfig) -> dict[str, tuple[str, str]]:
    """Turn id -> (the id of the turn after it, its last message), for the turns of ``ids`` that have
    a next turn and whose last message holds a question mark (one round trip; none when ``ids`` is
    empty)."""
    if not ids:
        return {}
    return askers_of(db.read("search/answer_turns", ids=list(ids), textChars=config.max_chars))


def askers_of(rows: Sequence[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """Rows ``{id, next, last}`` (``search/answer_turns``'s, or the ``askers`` of a graph statement)
    as :func:`read_askers` returns them."""
    return {r["id"]: (r["next"], r["last"] or "") for r in rows}


def lift_answers(ranked: Sequence[Fused], query: str, config: RetrievalConfig, askers: dict[str, tuple[str, str]],
                 strategy: dict[str, Any]) -> list[Fused]:
    """``ranked`` (best first) with the turn after each of the best ``config.answer_seeds`` turns that
    asks about the query's words (``askers``: what :func:`read_askers` read, for those turns or
    more) lifted to ``config.answer_lift`` times that turn's score (added when it was not ranked).
    Ties keep the asking turn first and its answer right after it."""
    words = {stem(w) for w in query_terms(query, drop_stopwords=True)}
    seeds = [d for d, kind, _, _ in ranked if kind == "turn"][: config.answer_seeds]
    score = {d: s for d, _, s, _ in ranked}
    # each item's place in the order: its rank, or just after the turn that asks
    place: dict[str, float] = {d: float(i) for i, (d, _, _, _) in enumerate(ranked)}
    lifted = 0
    for asker in seeds:
        nxt, last = askers.get(asker, (None, ""))
        if nxt is None or not asks_about(last, words):
            continue
        gain = config.answer_lift * score[asker]
        if gain > score.get(nxt, float("-inf")):
            score[nxt] = gain
            place[nxt] = place[asker] + 0.5
            lifted += 1
    strategy["answers"] = {"seeds": len(seeds), "read": len(askers), "lifted": lifted}
    if not lifted:
        return list(ranked)
    meta = {d: (kind, ranks) for d, kind, _, ranks in ranked}
    out: list[Fused] = []
    for d in sorted(score, key=lambda d: (-score[d], place[d])):
        kind, ranks = meta.get(d, ("turn", {}))
        out.append((d, kind, score[d], ranks))
    return out
