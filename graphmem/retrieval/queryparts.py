"""Questions that compare two events, split into one search per event.

"How many days passed between the day I adopted the cat and the day I moved?", "Which happened
first, the marathon or the wedding?", "How long after the launch did we fix the login bug?" need
the turn that tells each event. One search of the whole question ranks the turns that match either
event together, and the better-matched event often fills the top of the list alone. So the search
also runs once per event (:func:`parse_query_parts` finds them), beside the whole question's, and
the hits take the whole question's first hit, each event's first, the whole question's second,
each event's second, and so on (:func:`interleave`; ``RetrievalConfig.part_rounds`` can stop the
rounds early and let the rest of the whole question's ranking follow): the best turn of each event
reaches the top three.

Forms read, in English and French:

* "how many days / how long / how much time ... between A and B", "the gap / difference / time
  between A and B", "combien de jours ... entre A et B", "le temps / l'écart entre A et B";
* "which ... first / earlier / later / last, A or B" ("which did I do first, A or B"),
  "qu'est-ce qui ... en premier, A ou B";
* "how long / how many weeks after (or before) A did B";
* "how many days had passed since A when B";
* "did A before (or after) B".

Lead-ins are dropped from each part ("the day I", "when", "le jour où"), and elliptical parts are
completed (:func:`_complete`). A part without a word of its own ("between 3 and 5") means the
question names no two events.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from .lucene import query_terms
from .models import RetrievalConfig, SearchResult

__all__ = ["MAX_QUERY_CHARS", "QueryParts", "interleave", "merge_parts", "parse_query_parts", "parts_apply",
           "split_parts"]

MAX_QUERY_CHARS = 400
"""A longer query is a request or a prompt, not a question comparing two events: it is not split."""

T = TypeVar("T")

_SPAN = r"[^?!;\n]+"
_HOW = r"(?:how (?:long|many|much)|time|gap|interval|difference|elapsed|lapsed|passed|went by)"
_BETWEEN = re.compile(rf"\b{_HOW}\b[^?!;\n]*?\bbetween\s+(?P<rest>{_SPAN})")
_ENTRE = re.compile(rf"\b(?:combien|temps|écart|ecart|durée|duree|intervalle|différence|difference)\b[^?!;\n]*?"
                    rf"\bentre\s+(?P<rest>{_SPAN})")
_FIRST = re.compile(r"\bwhich\b[^?!;\n,:]*?\b(?:first|earlier|sooner|later|last|more recently|most recently)"
                    rf"\s*[,:]?\s+(?P<a>{_SPAN}?),?\s+or\s+(?P<b>{_SPAN})")
_PREMIER = re.compile(r"\b(?:qu'est-ce qui|lequel|laquelle|quel|quelle|qu'ai-je)\b[^?!;\n,:]*?"
                      rf"\b(?:en premier|d'abord|en dernier)\s*[,:]?\s+(?P<a>{_SPAN}?),?\s+ou\s+(?P<b>{_SPAN})")
_AFTER_DID = re.compile(r"\bhow (?:long|many \w+|much time)\s+(?:after|before)\s+(?P<a>[^?!;\n]+)\s+"
                        rf"(?:did|do|does)\s+(?P<b>{_SPAN})")
_AFTER = re.compile(r"\bhow (?:long|many \w+|much time)\s+(?:after|before)\s+(?P<a>[^?!;\n]+)\s+"
                    rf"(?:was|were|had|have|has)\s+(?P<b>{_SPAN})")
"""The event after "how long after" runs to the last "did" (else to the last "was", "had", ...):
"how long after I had lunch did I nap"."""
_SINCE_WHEN = re.compile(rf"\bhow (?:long|many \w+|much time)\b[^?!;\n]*?\bsince\s+(?P<a>{_SPAN}?)\s+when\s+"
                         rf"(?P<b>{_SPAN})")
_DID = re.compile(r"^\W*(?:did|was|were|had|have|has|do|does|is|are) (?P<a>[^?!;\n]+?)\s+(?:before|after|prior to)\s+"
                  rf"(?P<b>{_SPAN})")
_AND = re.compile(r"\s+(?:and|et)\s+")
_LEAD_AND = re.compile(r"\s+(?:and|et)\s+(?=(?:the (?:day|time|date|moment|week|month|year)|when|"
                       r"le (?:jour|moment)|la (?:fois|date|semaine)|quand)\b)")
_LEAD = re.compile(r"^(?:(?:the|le|la|l') ?(?:day|time|date|moment|week|month|year|jour|fois|semaine|mois|année)\s+"
                   r"(?:that |when |où |ou |que |qu')?|when |quand |that |que |qu')+")

_FORM_WORDS = frozenset((
    "how", "many", "much", "long", "time", "days", "weeks", "months", "years", "passed", "elapsed", "lapsed", "went",
    "gap", "interval", "difference", "between", "which", "first", "earlier", "sooner", "later", "last", "recently",
    "happened", "came", "event", "events", "after", "before", "since", "prior", "what", "what's", "when", "who",
    "did", "do", "does", "was", "were", "is", "are", "has", "have", "had", "combien", "jours", "semaines", "mois",
    "temps", "écart", "ecart", "durée", "duree", "entre", "premier", "dernier", "abord", "arrivé", "arrive", "passé",
    "qu'est-ce", "quel", "quelle", "lequel", "laquelle", "est", "ai-je",
))
"""Words of the forms themselves, left out of the context a one-word part borrows."""
_ORDINALS = frozenset((
    "first", "second", "third", "fourth", "fifth", "last", "next", "previous", "1st", "2nd", "3rd", "4th", "5th",
    "premier", "première", "deuxième", "seconde", "troisième", "dernier", "dernière",
))


@dataclass(frozen=True)
class QueryParts:
    """The events (as written) a question compares; ``phrase`` is where the question names them."""

    parts: tuple[str, ...]
    phrase: str


def _clean(part: str) -> str:
    part = part.strip().strip(",:-\u2013\u2014").strip()
    return _LEAD.sub("", part).strip()


def _split_and(rest: str) -> tuple[str, str] | None:
    """Split "A and B" at the "and" that starts a new event ("and the day ...", "and when ...")
    when there is one, else at the first "and"."""
    m = _LEAD_AND.search(rest) or _AND.search(rest)
    return (rest[:m.start()], rest[m.end():]) if m else None


def _words(part: str) -> list[str]:
    return [w for w in query_terms(part, drop_stopwords=True) if any(ch.isalpha() for ch in w)]


def _complete(a: str, b: str, context: list[str]) -> tuple[str, str]:
    """Elliptical parts made whole: a second part of one bare word after a longer first one stands
    for the first one's last word ("Andrew adopting Toby and Buddy": "Andrew adopting Buddy"); two
    ordinals share what surrounds them ("Sam's first and second doctor's appointment": "Sam's first
    doctor's appointment", "Sam's second doctor's appointment"); a part still of one word takes the
    question's other words ("which pet did Jolene adopt first, Susie or Seraphim": "Susie pet jolene
    adopt")."""
    wa, wb = a.split(), b.split()
    if len(wb) == 1 and len(_words(a)) >= 2:
        b = " ".join([*wa[:-1], b])
    elif wa and len(wb) > 1 and wa[-1].lower() in _ORDINALS and wb[0].lower() in _ORDINALS:
        a, b = " ".join([*wa, *wb[1:]]), " ".join([*wa[:-1], *wb])
    return _borrow(a, context), _borrow(b, context)


def _borrow(part: str, context: list[str]) -> str:
    """``part`` followed by the ``context`` words it lacks, when it has only one word of its own."""
    own = _words(part)
    return " ".join([part, *(w for w in context if w not in own)]) if len(own) == 1 and context else part


def parse_query_parts(query: str) -> QueryParts | None:
    """The two events ``query`` compares (see the module's forms), or ``None``."""
    if len(query) > MAX_QUERY_CHARS:
        return None
    text = query.replace("\u2019", "'")
    low = text.lower()
    found: tuple[int, int, int, int, int] | None = None  # a start/end, b start/end, phrase start
    for pattern in (_BETWEEN, _ENTRE):
        m = pattern.search(low)
        if m is not None:
            split = _split_and(m.group("rest"))
            if split is not None:
                base = m.start("rest")
                found = (base, base + len(split[0]), base + len(m.group("rest")) - len(split[1]),
                         m.end("rest"), m.start())
                break
    if found is None:
        for pattern in (_FIRST, _PREMIER, _AFTER_DID, _AFTER, _SINCE_WHEN, _DID):
            m = pattern.search(low)
            if m is not None:
                found = (m.start("a"), m.end("a"), m.start("b"), m.end("b"), m.start())
                break
    if found is None:
        return None
    a0, a1, b0, b1, start = found
    a, b = _clean(text[a0:a1]), _clean(text[b0:b1])
    if not _words(a) or not _words(b) or a.lower() == b.lower():
        return None
    context = [w for w in _words(text[:a0] + " " + text[b1:]) if w not in _FORM_WORDS]
    return QueryParts(_complete(a, b, context), text[start:b1].strip())


def interleave(rankings: Sequence[Sequence[T]], k: int, rounds: int = 0) -> list[T]:
    """Round-robin over ``rankings`` (best first each): the first of each in turn, then the
    second of each, ...; each item once (at its first place); at most ``k``. With ``rounds`` > 0
    only that many rounds go round: then the rest of the first ranking, then the others'."""
    out: dict[T, None] = {}
    deepest = max((len(r) for r in rankings), default=0)
    order = [(i, r) for i in range(min(rounds, deepest) if rounds > 0 else deepest) for r in range(len(rankings))]
    if rounds > 0 and rankings:
        order += [(i, 0) for i in range(rounds, len(rankings[0]))]
        order += [(i, r) for i in range(rounds, deepest) for r in range(1, len(rankings))]
    for i, r in order:
        if i < len(rankings[r]):
            out.setdefault(rankings[r][i], None)
            if len(out) >= k:
                break
    return list(out)


def split_parts(config: RetrievalConfig, query: str) -> QueryParts | None:
    """The events of ``query`` to search on their own, unless ``config.query_parts`` is off."""
    return parse_query_parts(query) if config.query_parts and isinstance(query, str) else None


def parts_apply(result: SearchResult) -> bool:
    """Whether the events' searches join ``result`` (the whole query's search): not when it found
    nothing, nor when the query names a time window of its own ("between May and June" compares
    months, not events; a window read from an event is kept)."""
    if not result.hits:
        return False
    return result.time_window is None or result.time_window.get("anchor") == "event"


def merge_parts(result: SearchResult, parts: QueryParts, found: Sequence[SearchResult], k: int,
                rounds: int = 0, total_ms: float | None = None) -> SearchResult:
    """``result`` with its hits interleaved with those of each event's search (``found``, in the
    order of ``parts.parts``; ``rounds``: see :func:`interleave`): each hit keeps the scores of the
    search that found it first. ``timings_ms["parts"]`` is the events' searches added up;
    ``total`` is ``total_ms`` (the time it all took, the searches side by side), else the sum."""
    rankings = [result.hits, *(r.hits for r in found)]
    by_id = {h.id: h for ranking in reversed(rankings) for h in ranking}
    merged = [by_id[i] for i in interleave([[h.id for h in ranking] for ranking in rankings], k, rounds)]
    took = round(sum(r.timings_ms.get("total", 0.0) for r in found), 3)
    warnings = list(dict.fromkeys([*result.warnings, *(w for r in found for w in r.warnings)]))
    strategy = {**result.strategy, "parts": {"phrase": parts.phrase, "parts": list(parts.parts),
                                             "hits": [len(r.hits) for r in found]}}
    total = total_ms if total_ms is not None else result.timings_ms.get("total", 0.0) + took
    timings = {**result.timings_ms, "parts": took, "total": round(total, 3)}
    return result.model_copy(update={"hits": merged, "warnings": warnings, "strategy": strategy,
                                     "timings_ms": timings, "parts": list(parts.parts)})
