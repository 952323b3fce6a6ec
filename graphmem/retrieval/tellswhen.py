"""Questions that ask *when*, and memories that tell when.

"When did Caroline go to the support group?" is best answered by the turn that places the event
in time ("I went to a support group yesterday"), not by another turn about the same group. So a
question that asks for a time (:func:`asks_when`: "when ...", "what year ...", "how long ago ...",
"quand ...", "en quelle année ...") lifts the candidates whose text tells one (:func:`tells_when`: a
relative time such as "yesterday", "last week", "3 days ago", a weekday, a month, a year, a date,
a time of day; English and French). The turn's own timestamp then dates the event. The lift is
``RetrievalConfig.when_boost`` x the best score (:mod:`.rerank`).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from .fusion import lift
from .timewords import MONTHS, NUM, SEASON, UNIT, WEEKDAY, WEEKDAYS, YEAR

__all__ = ["asks_when", "lift_told", "tells_when"]

K = TypeVar("K", bound=Hashable)

_LEAD = r"^\W*(?:(?:and|so|but|ok|okay|hey|et|alors|mais)\W+)?"
_ASKS = re.compile(
    _LEAD + r"(?:when\b|since when\b|how long ago\b"
    r"|(?:in |at |on )?(?:what|which) (?:year|month|date|day|season|time)\b"
    r"|(?:depuis )?quand\b|il y a combien de temps\b|en quel(?:le)? (?:année|annee|mois|saison)\b"
    r"|(?:à|a|en|de) quelle (?:date|année|annee|époque|epoque)\b|quel jour\b)",
    re.IGNORECASE,
)

_WORDS = frozenset({
    "yesterday", "today", "tonight", "tomorrow", "recently", "lately", "ago", "weekend", "weekends",
    "noon", "midnight", "hier", "aujourd", "demain", "midi", "minuit", "récemment",
    "recemment", "dernièrement", "dernierement", "dernier", "dernière", "derniere", "passé", "passée",
    "passee", "prochain", "prochaine",
    *WEEKDAYS, *(f"{d}s" for d in WEEKDAYS), *(m for m in MONTHS if m != "may"),
})
"""Words that tell a time alone ("aujourd" of "aujourd'hui"; the modal "may" is read as May only in
the phrases below)."""
_WORD = re.compile(r"[^\W\d_]+")
_OPENERS = frozenset({"last", "this", "next", "past", "previous", "other", "earlier", "may", "il", "ce", "cette",
                      "week"})
"""A phrase below starts with, or holds, one of these words."""
_PERIOD = rf"(?:{UNIT}|{WEEKDAY}|{SEASON}|night|morning|evening|afternoon)"
_PHRASES = re.compile(
    rf"\b(?:(?:last|this|next|past|previous) {_PERIOD}|the other day|earlier this"
    r"|(?:in|early|late|mid|last|next|this|of) may|may \d{1,2}|\d{1,2}(?:st|nd|rd|th)? (?:of )?may"
    rf"|il y a {NUM} {UNIT}|ce (?:soir|matin|week-end|mois)|cette (?:semaine|année|annee)|week-ends?)\b",
    re.IGNORECASE,
)
_NUMBERS = re.compile(
    rf"\b(?:{YEAR}|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?|\d{{4}}-\d\d-\d\d"
    r"|\d{1,2}:\d\d|\d{1,2}h\d\d|\d{1,2} ?(?:am|pm|a\.m\.|p\.m\.))(?!\w)",
    re.IGNORECASE,
)


def asks_when(query: str) -> bool:
    """Whether ``query`` asks for a time: it opens with "when", "since when", "how long ago", "what /
    which year (month, date, day)", "quand", "depuis quand", "en quelle année", "quel jour"…"""
    return bool(_ASKS.search(query[:200]))


def tells_when(text: str) -> bool:
    """Whether ``text`` tells a time: a relative one ("yesterday", "last week", "3 days ago", "il y a
    deux jours", "la semaine dernière"), a weekday, a weekend, a month (the modal "may" is not
    read as May), a year, a date or a time of day ("03:00", "7 pm", "14h30")."""
    words = set(_WORD.findall(text.lower()))
    if not words.isdisjoint(_WORDS):
        return True
    if not words.isdisjoint(_OPENERS) and _PHRASES.search(text):
        return True
    return any(c.isdigit() for c in text) and _NUMBERS.search(text) is not None


def lift_told(
    ranked: Sequence[tuple[K, float]], texts: Mapping[K, str | None], boost: float,
) -> tuple[list[tuple[K, float]], int]:
    """Add ``boost`` x the best score to each candidate whose text (``texts``; unknown or empty:
    none) tells a time; best first (stable), and how many were lifted."""
    return lift(ranked, lambda item: tells_when(texts.get(item) or ""), boost)
