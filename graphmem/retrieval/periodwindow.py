"""Periods a query names that are longer than a day and not a whole month: seasons ("last summer",
"summer 2022", "in the fall", "towards the end of summer 2023", "l'été dernier", "au printemps"),
parts of a month ("the beginning of November 2022", "early March", "mid-August", "the first half of
September 2022", "fin mars") and
month ranges ("between August and November 2023", "from March to May", "entre mars et mai"), and
spans open on one side ("since March", "before May 2023", "until April", "since the start of the
year", "depuis mars": from or up to that month, as "since 1 May" is from that day).

Seasons are the northern hemisphere's meteorological ones: spring March to May, summer June to
August, autumn September to November, winter December to February ("winter 2022" is the winter that
ends in 2022). A season without a year is the latest one begun by the query's date ("this summer",
"in the fall"), or the latest one over by then ("last summer", "this past winter", "l'hiver
dernier"). A part of a period is its first, middle or last third (or half), with a tenth of the
period as slack on each side; without a year, a part still to come is last year's ("late June",
asked on June 5).

People tell of a season during it and for a while after ("last summer we went camping", said in
October), and of a part of a month until the month is out. So a season's window runs on for one more
season, and a part's window runs to the end of its month or season; "next summer" (a plan, told
before) is not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta

from .datewindow import OPEN_END, OPEN_START
from .timewords import MONTH, MONTHS, SEASON, SEASONS, SINCE, YEAR, midnight, month_start, named

__all__ = ["month_window", "period_rules"]

Window = tuple[datetime, datetime]
Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], Window | None]]

_PART_INDEX = {
    "beginning": 0, "start": 0, "early": 0, "début": 0, "debut": 0,
    "middle": 1, "mid": 1, "milieu": 1, "mi": 1,
    "end": 2, "late": 2, "fin": 2,
}
_LAST = frozenset({"last", "this past", "past", "previous", "dernier"})

_EN_PART = (r"(?:(?:at|in|towards?|around|by|during)\s+)?(?:the\s+)?"
            r"(?P<part>beginning|start|end|middle|first half|second half|last half)\s+of\s+"
            r"(?:the\s+)?|(?:(?:in|during)\s+)?(?P<part2>early|late|mid)[- ]?")
_FR_PART = r"(?:(?:au|à la|a la|en)\s+)?(?P<part>début|debut|fin|milieu|mi)(?:-|\s+(?:du mois\s+)?(?:de\s+|d'|du\s+)?)"
_EN_SEASON = re.compile(
    rf"\b(?:{_EN_PART}|(?P<during>in|during|over|throughout)\s+(?:the\s+)?)?"
    rf"(?:(?P<which>last|this past|past|previous|this)\s+)?{named(SEASON, 'season')}"
    rf"(?:\s+(?:of\s+)?{named(YEAR, 'year')})?\b")
_FR_SEASON = re.compile(
    rf"(?:\b{_FR_PART}\s*)?(?:\b(?P<which>cet|ce)\s+|\b(?P<during>en|au|à l'|a l')\s*|\b(?:l'|le\s+))?"
    rf"{named(SEASON, 'season')}(?:\s+(?P<last>dernier))?(?:\s+{named(YEAR, 'year')})?\b")
_EN_MONTH_PART = re.compile(rf"\b(?:{_EN_PART})\s*{named(MONTH, 'month')}(?:,?\s+{named(YEAR, 'year')})?\b")
_FR_MONTH_PART = re.compile(rf"\b{_FR_PART}\s*{named(MONTH, 'month')}(?:\s+{named(YEAR, 'year')})?\b")
_MONTH_RANGE = re.compile(
    rf"\b(?:between|from|entre|de|d')\s*{named(MONTH, 'm1')}(?:,?\s+{named(YEAR, 'y1')})?\s+"
    rf"(?:and|to|until|till|through|et|à|a|jusqu'à|jusqu'en)\s+{named(MONTH, 'm2')}(?:,?\s+{named(YEAR, 'y2')})?\b")
_OPEN_MONTH = re.compile(
    r"\b(?P<rel>since|after|before|until|till|depuis|après|apres|avant|jusqu'en|jusqu'à|jusqu'a)\s+"
    rf"(?:the\s+)?(?:(?P<edge>start|beginning|end)\s+of\s+)?{named(MONTH, 'month')}(?:,?\s+{named(YEAR, 'year')})?\b")
_OPEN_CURRENT = re.compile(
    r"\b(?P<rel>since|after|depuis)\s+(?:the\s+|le\s+)?(?:start|beginning|début|debut)\s+(?:of\s+(?:the|this)\s+|"
    r"de\s+l'|du\s+|de\s+ce\s+)(?P<unit>year|month|année|annee|mois)\b")


def month_window(month: int, year: int | None, today: date) -> Window:
    """The whole of ``month`` of ``year`` (without a year: the latest such month begun by ``today``)."""
    if year is None:
        year = today.year if month <= today.month else today.year - 1
    return month_start(year, month), month_start(year, month + 1)


_HALF = {"first half": 0, "second half": 1, "last half": 1}


def _part(start: datetime, end: datetime, part: str | None) -> Window:
    """From the start of the first, middle or last third of ``[start, end)`` (or of its first or
    second half) to ``end``, with a tenth of the period as slack on each side: what happened in a
    part is told then or later that period."""
    if part is None:
        return start, end
    slack = (end - start) / 10
    if part in _HALF:
        return start + _HALF[part] * (end - start) / 2 - slack, end + slack
    return start + _PART_INDEX[part] * (end - start) / 3 - slack, end + slack


def _season(first_month: int, year: int) -> Window:
    return month_start(year, first_month), month_start(year, first_month + 3)


def period_rules(today: date) -> list[Rule]:
    """The rules of this module for a query asked on ``today``: (pattern, window of a match or
    ``None`` when the match is not a period after all)."""
    midnight_today = midnight(today)

    def season(m: re.Match[str]) -> Window | None:
        groups = m.groupdict()
        part = groups.get("part") or groups.get("part2")
        which = groups.get("which") or groups.get("last")
        first = SEASONS[m.group("season")]
        if m.group("year"):
            year = int(m.group("year")) - (first == 12)
        elif which is None and part is None and groups.get("during") is None:
            return None  # "fall off a bike", "the spring in his step", "l'été est chaud"
        else:
            year = today.year
            if which in _LAST:
                while _season(first, year)[1] > midnight_today:
                    year -= 1
            else:
                while _season(first, year)[0] > midnight_today:
                    year -= 1
        start, end = _part(*_season(first, year), part)
        if start > midnight_today and not m.group("year") and which is None:
            start, end = _part(*_season(first, year - 1), part)  # "mid-summer" on June 5: last year's
        return start, end + (end - start if part is None else timedelta(0))

    def month_part(m: re.Match[str]) -> Window:
        groups = m.groupdict()
        part, month, year = groups.get("part") or groups.get("part2"), MONTHS[m.group("month")], m.group("year")
        start, end = _part(*month_window(month, int(year) if year else None, today), part)
        if start > midnight_today and not year:
            start, end = _part(*month_window(month, today.year - 1, today), part)  # "late June" on June 5
        return start, end

    def month_range(m: re.Match[str]) -> Window | None:
        m1, m2 = MONTHS[m.group("m1")], MONTHS[m.group("m2")]
        y2 = int(m.group("y2")) if m.group("y2") else None
        _, end = month_window(m2, y2, today)
        last_year = (end - timedelta(days=1)).year
        y1 = int(m.group("y1")) if m.group("y1") else (last_year if m1 <= m2 else last_year - 1)
        start = month_start(y1, m1)
        return (start, end) if start < end else None

    def open_month(m: re.Match[str]) -> Window:
        year = m.group("year")
        start, end = month_window(MONTHS[m.group("month")], int(year) if year else None, today)
        rel, edge = m.group("rel"), m.group("edge")
        if rel not in SINCE:  # "before May" ends where May starts; "until May", "before the end of May" with it
            return OPEN_START, start if rel in ("before", "avant") and edge is None else end
        if edge == "end":  # "since the end of March"
            return _part(start, end, "end")[0], OPEN_END
        # "since March", "since the start of March" from its first day; "after March" from April
        return (start if rel in ("since", "depuis") or edge is not None else end), OPEN_END

    def open_current(m: re.Match[str]) -> Window:
        year_long = m.group("unit") in ("year", "année", "annee")
        return midnight(today.replace(month=1, day=1) if year_long else today.replace(day=1)), OPEN_END

    return [(_EN_SEASON, season), (_FR_SEASON, season), (_EN_MONTH_PART, month_part),
            (_FR_MONTH_PART, month_part), (_MONTH_RANGE, month_range), (_OPEN_MONTH, open_month),
            (_OPEN_CURRENT, open_current)]
