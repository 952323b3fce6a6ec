"""Calendar dates named in a query, and the spans built on them.

"on October 13, 2023", "16 November 2023", "8th December, 2023", "2023-10-13", "13/10/2023",
"le 3 juin" name a day. Around a date, a query can name a span:

* "the week before August 3, 2023", "the weekend before 4th October", "the day after ...",
  "la semaine avant le 3 août";
* "two weeks before August 11, 2023", "3 days after 1 May", "deux semaines avant le 11 août";
* "the Monday before July 24, 2023", "the Saturday after October 28", "le lundi avant le 24 juillet";
* "between August 11 and August 15 2023", "between the 3rd and 5th of May", "between May 3 and 5",
  "from the 11th to the 15th of August", "entre le 11 et le 15 août", "du 11 au 15 août";
* "as of 27 March, 2022", "by July 10", "until", "before", "jusqu'au", "avant le": everything up to
  the end of that day; "since 1 May", "after", "depuis le", "après le": from that day on.

A span that ends at a date runs to the end of that day: what happened in the week before a day is
often told on that day. A date without its year is the latest such day on or before the query's
date. Numeric dates are ISO (2023-10-13) or day/month/year (13/10/2023, the form graphmem prints);
month/day/year is taken only when the day cannot be a month (10/13/2023), and a form that could be
either (03/04/2023) is left alone.
"""

from __future__ import annotations

import re
from calendar import monthrange
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from .timewords import (
    MONTH_ABBREVIATIONS,
    MONTHS,
    NUM,
    SINCE,
    UNIT,
    UNIT_DAYS,
    WEEKDAY,
    WEEKDAYS,
    midnight,
    named,
    number,
    vague_days,
)

__all__ = ["OPEN_END", "OPEN_START", "DateSpan", "parse_date_span"]

OPEN_START = datetime(1, 1, 1, tzinfo=UTC)
"""The start of a window open to the past ("as of", "by", "until" a date)."""
OPEN_END = datetime(9999, 12, 31, tzinfo=UTC)
"""The end of a window open to the future ("since", "after" a date)."""

_MONTHS = {**MONTHS, **MONTH_ABBREVIATIONS}
_MONTH = r"(?P<m>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")"
_DAY = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th|er)?"
_YEAR = r"(?P<y>(?:19|20)\d\d)"
_DATES = (
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b\.?(?:,?\s*{_YEAR}\b)?"),
    re.compile(rf"\b{_MONTH}\b\.?\s+{_DAY}(?![\d:])\b(?:,?\s*{_YEAR}\b)?"),
    re.compile(rf"\b{_YEAR}-(?P<mo>[01]?\d)-{_DAY}\b"),
    re.compile(rf"\b(?P<a>[0-3]?\d)[/.](?P<b>[0-3]?\d)[/.]{_YEAR}\b"),
)
_NUM = named(NUM, "n")
_UNIT = named(UNIT, "unit")
_REL = r"(?P<rel>before|after|prior to|avant|après|apres)"
_THE = r"(?:the\s+|le\s+|l'|on\s+the\s+)?"
_SPANS = (
    ("units", re.compile(rf"\b{_NUM}\s+{_UNIT}\s+{_REL}\s+{_THE}$")),
    ("span", re.compile(rf"\b(?:the\s+|last\s+|la\s+|le\s+)?(?P<span>week-?ends?|week|month|day|semaine|mois|jour)"
                        rf"\s+{_REL}\s+{_THE}$")),
    ("weekday", re.compile(rf"\b{named(WEEKDAY, 'wd')}\s+{_REL}\s+{_THE}$")),
    ("open", re.compile(r"\b(?P<rel>as of|by|until|till|up to|before|prior to|after|since|jusqu'au|jusqu'à|"
                        rf"avant|après|apres|depuis)\s+{_THE}$")),
)
_BETWEEN = re.compile(rf"\b(?:between|from)\s+{_THE}$")
_AND = re.compile(r"\s*(?:and|to|until|-)\s+(?:the\s+)?")
_FIRST_DAY = re.compile(r"\b(?:between|from|entre|du)\s+(?:the\s+|le\s+)?(?P<d>[0-3]?\d)(?:st|nd|rd|th|er)?"
                        r"\s*(?:and|to|until|-|et|au)\s*(?:the\s+|le\s+)?$")
"""The first day of "between the 3rd and 5th of May", "du 11 au 15 août": before a date that starts
with its day."""
_LAST_DAY = re.compile(r"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?\b(?![/.:]?\d)")
"""The last day of "between May 3 and 5": right after the first date and the joint."""


@dataclass(frozen=True)
class DateSpan:
    """The window ``[start, end)`` a date names (with the span words around it), where its phrase
    sits in the query (``pos``, ``length``), the day itself, and whether its year was written."""

    start: datetime
    end: datetime
    pos: int
    length: int
    day: date
    explicit_year: bool


def _date_at(m: re.Match[str], today: date) -> tuple[date, bool] | None:
    """The day a date match names (``None`` if it is not a valid or unambiguous date)."""
    groups = m.groupdict()
    year = int(groups["y"]) if groups.get("y") else None
    if groups.get("a") is not None:
        a, b = int(groups["a"]), int(groups["b"])
        if 1 <= b <= 12 < a:
            day, month = a, b
        elif 1 <= a <= 12 < b:
            day, month = b, a
        elif a == b and 1 <= a <= 12:
            day, month = a, b
        else:
            return None
    else:
        day = int(groups["d"])
        month = int(groups["mo"]) if groups.get("mo") else _MONTHS[groups["m"]]
    try:
        if year is not None:
            return date(year, month, day), True
        found = date(today.year, month, day)
        return (found if found <= today else date(today.year - 1, month, day)), False
    except ValueError:
        return None


_MAY_DATE = re.compile(r"\b(?:on|by|since|until|till|before|after|from|between|and|to|of|as of|in|the|le|du|au)\s+$")


def _first_date(text: str, today: date, start: int = 0) -> tuple[re.Match[str], date, bool] | None:
    best: tuple[re.Match[str], date, bool] | None = None
    for pattern in _DATES:
        for m in pattern.finditer(text, start):
            if m.groupdict().get("m") == "may" and not m.group("y") and m.start() == m.start("m") \
                    and not _MAY_DATE.search(text, 0, m.start()):
                continue  # "I may 5 ..." is not a date; "on May 5" is
            found = _date_at(m, today)
            if found is not None:
                if best is None or m.start() < best[0].start():
                    best = (m, *found)
                break
    return best


def _span(kind: str, m: re.Match[str], day: date) -> tuple[datetime, datetime]:
    """The window of the span words ``m`` (of ``kind``) around ``day``."""
    d0, d1 = midnight(day), midnight(day + timedelta(days=1))
    after = m.group("rel") in SINCE
    if kind == "open":
        return (d0, OPEN_END) if after else (OPEN_START, d1)
    if kind == "units":
        n, unit = number(m.group("n")), UNIT_DAYS[m.group("unit")]
        days = n * unit
        slack = timedelta(days=vague_days(n, unit))
        if after:
            return d0, d0 + timedelta(days=days + 1) + slack
        return d0 - timedelta(days=days) - slack, d1
    if kind == "weekday":
        wd = WEEKDAYS[m.group("wd")]
        if after:
            return d0, d0 + timedelta(days=((wd - day.weekday()) % 7 or 7) + 1)
        return d0 - timedelta(days=(day.weekday() - wd) % 7 or 7), d1
    span = m.group("span")
    if span.startswith("week") and span.endswith(("end", "ends")):
        if after:
            sat = day + timedelta(days=(5 - day.weekday()) % 7 or 7)
            return d0, midnight(sat + timedelta(days=2))
        back = (day.weekday() - 5) % 7
        sat = day - timedelta(days=back + 7 if back < 2 else back)
        return midnight(sat) - timedelta(hours=6), d1
    days = UNIT_DAYS[span]
    if after:
        return d0, d1 + timedelta(days=days)
    return d0 - timedelta(days=days), d1


def parse_date_span(text: str, today: date) -> DateSpan | None:
    """The window of the first calendar date in ``text`` (lower-cased), with the span words before
    it, or ``None``. ``today`` settles the year of a date written without one."""
    found = _first_date(text, today)
    if found is None:
        return None
    m, day, explicit = found
    prefix = text[:m.start()]
    between = _BETWEEN.search(prefix)
    if between is not None and (joint := _AND.match(text, m.end())) is not None:
        second = _first_date(text, today, joint.end())
        if second is not None and second[0].start() == joint.end():
            m2, last, explicit2 = second
            if not explicit and explicit2 and (first := _date_at(m, last)) is not None:
                day = first[0]  # "between August 11 and August 15 2023": the second date's year
            if day <= last:
                return DateSpan(midnight(day), midnight(last + timedelta(days=1)), between.start(),
                                m2.end() - between.start(), day, explicit or explicit2)
        elif m.groupdict().get("m") and m.start() == m.start("m") \
                and (bare := _LAST_DAY.match(text, joint.end())) is not None \
                and day.day < int(bare.group("d")) <= monthrange(day.year, day.month)[1]:
            last = day.replace(day=int(bare.group("d")))
            return DateSpan(midnight(day), midnight(last + timedelta(days=1)), between.start(),
                            bare.end() - between.start(), day, explicit)
    first_day = _FIRST_DAY.search(prefix)
    if first_day is not None and m.groupdict().get("d") and m.start() == m.start("d") \
            and 1 <= int(first_day.group("d")) < day.day:
        start = day.replace(day=int(first_day.group("d")))
        return DateSpan(midnight(start), midnight(day + timedelta(days=1)), first_day.start(),
                        m.end() - first_day.start(), start, explicit)
    for kind, pattern in _SPANS:
        words = pattern.search(prefix)
        if words is not None:
            start, end = _span(kind, words, day)
            return DateSpan(start, end, words.start(), m.end() - words.start(), day, explicit)
    return DateSpan(midnight(day), midnight(day + timedelta(days=1)), m.start(), m.end() - m.start(), day,
                    explicit)
