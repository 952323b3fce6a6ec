"""Lucene query building for the full-text side of retrieval.

User text never reaches Lucene's query parser as syntax: it is cut into word tokens, each token is
escaped (every special character of the classic syntax, see :data:`SPECIAL`), lowercased (so the
bare words ``AND``/``OR``/``NOT`` are plain terms) and the tokens are OR-ed inside per-field groups
with field boosts. A query with no word at all (only punctuation, control characters, empty) yields
``None`` and the caller returns no hit. The scope is a required zero-weight phrase clause on the
scope property (``+sessionId:"..."^0``), so Lucene filters while BM25 scores are unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = [
    "DEFAULT_FIELD_WEIGHTS",
    "MAX_QUERY_CHARS",
    "MAX_TERMS",
    "QUERY_STOPWORDS",
    "SPECIAL",
    "SUMMARY_FIELDS",
    "TURN_FIELDS",
    "build_query",
    "escape",
    "fields_for",
    "query_terms",
]

SPECIAL = frozenset('+-&|!(){}[]^"~*?:\\/')
"""Characters with a meaning in Lucene's classic query syntax (``&&``/``||`` via ``&``/``|``)."""

MAX_QUERY_CHARS = 20_000
"""Longer user text is cut before tokenising (a query is not a document)."""
MAX_TERMS = 64
"""At most this many distinct terms (fields x terms stays far below Lucene's 1024 clauses)."""
MAX_CLAUSES = 1000
"""Lucene refuses a query of more than 1024 clauses. The analyzer may split one of our words into
several tokens (a word of ideographs or kana into one per character; a ``½`` between letters
splits them), each a clause in every field, so the terms kept are counted by the most tokens they
may become (see :func:`_tokens`), within this budget."""

DEFAULT_FIELD_WEIGHTS: Mapping[str, float] = {
    "userMessage": 1.0,
    "assistantMessage": 1.0,
    "text": 1.0,
    "keyFindings": 0.5,
}
"""Text fields of the ``memory_search`` index queried by default, with their boosts."""
TURN_FIELDS = frozenset({"userMessage", "assistantMessage", "contextText"})
"""The ``memory_search`` text fields only turns carry."""
SUMMARY_FIELDS = frozenset({"text", "keyFindings"})
"""The ``memory_search`` text fields only summaries carry."""


def fields_for(weights: Mapping[str, float], *, turns: bool, summaries: bool) -> dict[str, float]:
    """``weights`` without the fields of the node kind a search leaves out: a turn-only search then
    matches no summary at all (same turn scores; no page of candidates thinned out by summaries)."""
    drop = (frozenset() if turns else TURN_FIELDS) | (frozenset() if summaries else SUMMARY_FIELDS)
    return {f: w for f, w in weights.items() if f not in drop}

_STOP_TEXT = """what when where who whom whose which why how did does do done doing has have had having was were
is are am be been being would could should can may might will shall must the a an of to in on at for from by with
about as into than then that this these those it its they them their there here i you he she we his her our your my
me him us and or but if so not no any some many much more most also too very just ever likely kind sort type thing
things yes something anything someone anyone according mentioned mention say said tell told"""
QUERY_STOPWORDS = frozenset(_STOP_TEXT.split())
"""Question words and filler dropped from queries when ``drop_stopwords`` is on (never all terms)."""

_WORD = re.compile(r"\w+(?:['\u2019]\w+)*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def escape(text: str) -> str:
    """Backslash-escape every Lucene special character (and drop control characters)."""
    text = _CONTROL.sub(" ", text)
    return "".join("\\" + ch if ch in SPECIAL else ch for ch in text)


def query_terms(text: str, *, drop_stopwords: bool = False, max_terms: int = MAX_TERMS) -> list[str]:
    """Distinct lowercase word tokens of ``text`` in order (apostrophes inside words kept)."""
    text = _CONTROL.sub(" ", text[:MAX_QUERY_CHARS])
    words = [w.replace("\u2019", "'").lower() for w in _WORD.findall(text)]
    words = [w for w in words if w.strip("_")]
    if drop_stopwords:
        kept = [w for w in words if w not in QUERY_STOPWORDS]
        words = kept or words
    return list(dict.fromkeys(words))[:max_terms]


def _tokens(term: str) -> int:
    """At most how many tokens the index's analyzer makes of ``term``: one for a word of ASCII
    letters, digits and underscores; else each other character may stand alone and split the
    word around it (and never more tokens than characters)."""
    other = sum(1 for ch in term if ch >= "\x80")
    return min(len(term), 1 + 2 * other)


def _within(terms: list[str], budget: int) -> list[str]:
    """The terms, in order, until their tokens fill ``budget``; the term that does not fit is cut
    to its first ``budget`` characters (no more tokens than that)."""
    kept: list[str] = []
    for term in terms:
        cost = _tokens(term)
        if cost > budget:
            if budget > 0:
                kept.append(term[:budget])
            break
        budget -= cost
        kept.append(term)
    return kept


def _boost(w: float) -> str:
    return f"{w:.4g}"


def build_query(
    text: str,
    *,
    fields: Mapping[str, float] | None = None,
    scope_field: str | None = None,
    scope_value: str | None = None,
    drop_stopwords: bool = False,
    pairs: float = 0.0,
    slop: int = 8,
) -> str | None:
    """The Lucene query for user ``text`` (``None`` when it has no searchable word). With ``pairs``
    > 0, each two consecutive terms also score as a phrase within ``slop`` positions in each field,
    at ``pairs`` times its weight."""
    weights = {f: w for f, w in (fields or DEFAULT_FIELD_WEIGHTS).items() if w > 0}
    if not weights:
        return None
    per_term = len(weights) * (3 if pairs > 0 else 1)  # each term also stands in up to two phrases
    terms = _within(query_terms(text, drop_stopwords=drop_stopwords), MAX_CLAUSES // per_term)
    if not terms:
        return None
    group = " ".join(escape(t) for t in terms)
    body = " ".join(f"{f}:({group})^{_boost(w)}" for f, w in weights.items())
    if pairs > 0 and len(terms) > 1:
        near = [f"{phrase(terms[i:i + 2])}~{slop}" for i in range(len(terms) - 1)]
        body += " " + " ".join(f"{f}:({' '.join(near)})^{_boost(w * pairs)}" for f, w in weights.items())
    query = f"+({body})"
    if scope_field and scope_value is not None and _WORD.search(scope_value):
        query += f' +{scope_field}:"{escape(scope_value)}"^0'
    return query


def phrase(words: Iterable[str]) -> str:
    """A quoted, escaped phrase (helper for callers that need one)."""
    return '"' + escape(" ".join(words)) + '"'
