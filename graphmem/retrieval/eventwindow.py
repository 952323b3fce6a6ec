"""Time windows relative to an event the query names: "before I moved", "after the wedding", "since
we switched to Postgres", "how many days before I bought the iPhone did I ...", "avant mon
déménagement", "depuis que j'ai changé de travail".

:func:`parse_event_reference` finds the clause naming the event. The search looks it up among the
scope's turns: the first of the best full-text hits of the clause that holds at least half of its
words (:func:`covers`) is the event's turn. :func:`event_window` is then the side of that turn the
query names, its whole session included: "how many days before I bought the iPhone did I ..." needs
the purchase too, and what happened right after an event is often told in the same conversation. When no turn tells the event, nothing is lifted. Calendar and relative expressions
("before March 3", "after last week") are time windows of their own and take precedence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from .datewindow import OPEN_END, OPEN_START
from .lucene import query_terms
from .timewords import SINCE

__all__ = ["EventReference", "covers", "event_window", "parse_event_reference", "stem"]

_EN = re.compile(r"\b(?P<rel>ever since|before|after|since|until|till|prior to)\s+(?P<event>[^?.!,;:()]+)")
_FR = re.compile(r"\b(?P<rel>avant|après|apres|depuis|jusqu'à ce)\s+(?P<event>(?:que\s+|qu'|mon |ma |mes |notre |nos "
                 r"|le |la |les |l'|son |sa |ses |leur |leurs |d'|de )[^?.!,;:()]+)")
_CUT = re.compile(r"\s+(?:did|do|does|was|were|is|are|had|has|have|will|would|could|should|can)\s+"
                  r"(?:i|we|you|he|she|they|it)\b|\s+(?:and|or|but|so)\s+(?:what|how|why|where|when|did|do)\b|"
                  r"\s+when\s+(?:i|we|you|he|she|they|it)\b|\s+quand\s+(?:j'|je|nous|tu|vous|il|elle|on)\b|"
                  r"\s+(?:ai-je|avons-nous|est-ce)\b")
_NOT_EVENT = re.compile(r"(?:that|then|this|these|those|it|now|long|ever|all|yesterday|today|tomorrow|tonight|"
                        r"midnight|noon|lunch|dinner|breakfast|bed|work|school|date|how|what|when|where|who|"
                        r"why|which|a (?:long|short|while|bit|few|couple)|some time|\d)\b")
_NOT_TEMPORAL = re.compile(r"\b(?:look(?:s|ed|ing)?|named|take(?:s|n)?|took|taking|day|one|time|year)\s+$")
_QUESTION = re.compile(r"^\W*(?:what|when|where|who|whom|whose|which|why|how|did|do|does|was|were|is|are|have|has|had|"
                       r"can|could|would|should|will|quel|quelle|quels|quelles|qu'|que|quand|où|ou|comment|pourquoi|"
                       r"combien|est-ce|ai-je|avons-nous|as-tu|avez-vous)\b")
_SUFFIX = re.compile(r"(?:ing|ed|es|s|e|ions?|ments?)$")


@dataclass(frozen=True)
class EventReference:
    """``relation`` ("before" or "after") an ``event`` (the clause as written); ``phrase`` is both."""

    relation: str
    event: str
    phrase: str


def parse_event_reference(query: str) -> EventReference | None:
    """The first "before / after / since <event>" clause of ``query`` that names an event, or ``None``
    ("before that", "look after my dog", "after lunch" name none). Only a question is read so: "run
    the linter before committing" is an instruction, not a question about the past."""
    text = query.lower().replace("\u2019", "'")
    if not (_QUESTION.search(text) or text.rstrip().endswith("?")):
        return None
    for pattern in (_EN, _FR):
        for m in pattern.finditer(text):
            event = m.group("event")
            cut = _CUT.search(event)
            if cut is not None:
                event = event[:cut.start()]
            event = event.strip()
            if _NOT_EVENT.match(event) or _NOT_TEMPORAL.search(text, 0, m.start()):
                continue
            if m.group("rel") == "since" and not text[:m.start()].strip():
                continue  # "Since I like cats, ..." gives a reason
            if not query_terms(event, drop_stopwords=True):
                continue
            start, end = m.start("event"), m.start("event") + len(event)
            return EventReference("after" if m.group("rel") in SINCE else "before", query[start:end],
                                  query[m.start():end])
    return None


def stem(word: str) -> str:
    """A crude stem for matching words across forms ("moved" and "moving", "wedding" and "weddings")."""
    for _ in range(2):
        word = _SUFFIX.sub("", word) if len(word) > 4 else word
    return word[:5]


def covers(text: str, event: str) -> bool:
    """Whether ``text`` holds at least half of the event clause's words (a crude stem match: "moved"
    and "moving", "wedding" and "weddings")."""
    words = {stem(w) for w in query_terms(event.lower(), drop_stopwords=True)}
    if not words:
        return False
    seen = {stem(w) for w in re.findall(r"\w+", text.lower())}
    return 2 * len(words & seen) >= len(words)


def event_window(ref: EventReference, session_start: datetime, session_end: datetime) -> tuple[datetime, datetime]:
    """``[start, end)`` on the side of the event that ``ref`` names, the session that tells it
    (from ``session_start`` to ``session_end``) included: what came right before or after an event is
    often told in the same conversation."""
    if ref.relation == "after":
        return session_start, OPEN_END
    return OPEN_START, session_end + timedelta(seconds=1)
