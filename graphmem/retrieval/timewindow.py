"""Time windows named in a query: "yesterday", "last weekend", "in March", "two weeks ago",
"il y a 3 jours", relative to the query's own date, calendar dates ("on October 13, 2023", "the
week before 3 August", "as of 27 March": :mod:`.datewindow`), and seasons, parts of a month and
month ranges ("last summer", "early March", "between August and November": :mod:`.periodwindow`).

:func:`parse_time_window` finds the first time expression it understands (English or French) and
returns the half-open UTC window ``[start, end)`` it designates, widened by a little slack where
people are vague ("two weeks ago" is about that week, not to the day). Expressions relative to an
event ("before I moved", "after the wedding") yield ``None`` here: :mod:`.eventwindow` reads them. :func:`boost_in_window` lifts the ranked candidates whose timestamp falls in
the window (a soft filter: evidence outside the window can still rank).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

from .datewindow import parse_date_span
from .fusion import lift
from .periodwindow import month_window, period_rules
from .timewords import MONTH, MONTHS, NUM, UNIT, UNIT_DAYS, WEEKDAY, WEEKDAYS, midnight, named, number, vague_days

__all__ = ["TimeWindow", "boost_in_window", "parse_time_window"]

K = TypeVar("K")

@dataclass(frozen=True)
class TimeWindow:
    """``[start, end)`` in UTC, designated by ``phrase`` of the query relative to a date: the query's
    own (``anchor`` ``"query date"``), the current time (``"now"``), the scope's last turn
    (``"last turn"``, when the scope's history ends before the window starts), or none: a date
    written with its year (``"date"``), or the turn that tells an event the query names (``"event"``,
    ``event_turn``: "before I moved"). A window open on one side ("as of", "since" a date) starts
    at :data:`~.datewindow.OPEN_START` or ends at :data:`~.datewindow.OPEN_END`."""

    start: datetime
    end: datetime
    phrase: str
    anchor: str = "now"
    event_turn: str | None = None
    """With ``anchor`` ``"event"``: the turn that tells the event the window starts or ends at."""

    def contains(self, ts: datetime) -> bool:
        if ts.tzinfo is None:
            ts = ts.replace(tzinfo=UTC)
        return self.start <= ts < self.end

    def as_dict(self) -> dict[str, Any]:
        out = {"phrase": self.phrase, "start": self.start.isoformat(), "end": self.end.isoformat(),
               "anchor": self.anchor}
        if self.event_turn is not None:
            out["event_turn"] = self.event_turn
        return out


def _ago(n: int, unit_days: int, now: datetime) -> tuple[datetime, datetime]:
    """About ``n`` units before ``now``: the target day +- a quarter of the distance (at least a day,
    a whole unit for weeks and longer)."""
    target = now - timedelta(days=n * unit_days)
    slack = timedelta(days=vague_days(n, unit_days))
    day = midnight(target.date())
    return day - slack, min(day + timedelta(days=1) + slack, now + timedelta(seconds=1))


def _rules(now: datetime, periods: bool) -> list[tuple[re.Pattern[str], Any]]:
    today = now.date()
    monday = today - timedelta(days=today.weekday())

    def fixed(a: date, b: date) -> Any:
        return lambda m: (midnight(a), midnight(b))

    def last_weekday(m: re.Match[str]) -> tuple[datetime, datetime]:
        wd = WEEKDAYS[m.group("wd") or m.group("wd2")]
        back = (today.weekday() - wd) % 7 or 7
        d = today - timedelta(days=back)
        return midnight(d), midnight(d + timedelta(days=1))

    def last_weekend(m: re.Match[str]) -> tuple[datetime, datetime]:
        # the latest Saturday-Sunday that ended before today (Friday evening counts too)
        back = (today.weekday() - 5) % 7
        sat = today - timedelta(days=back)
        if sat + timedelta(days=2) > today:
            sat -= timedelta(days=7)
        return midnight(sat) - timedelta(hours=6), midnight(sat + timedelta(days=2))

    def in_month(m: re.Match[str]) -> tuple[datetime, datetime]:
        year = m.group("year")
        return month_window(MONTHS[m.group("month")], int(year) if year else None, today)

    def ago(m: re.Match[str]) -> tuple[datetime, datetime]:
        return _ago(number(m.group("n")), UNIT_DAYS[m.group("unit")], now)

    def part_of_month(m: re.Match[str]) -> tuple[datetime, datetime]:
        year = m.group("year")
        start, end = month_window(MONTHS[m.group("month")], int(year) if year else None, today)
        days = number(m.group("n")) * UNIT_DAYS[m.group("unit")] if m.group("n") else UNIT_DAYS[m.group("unit")]
        if m.group("which") == "last":
            return end - timedelta(days=days), end
        nth = {"first": 0, "second": 1, "third": 2}[m.group("which")]
        return start + timedelta(days=nth * days), start + timedelta(days=(nth + 1) * days)

    def past(m: re.Match[str]) -> tuple[datetime, datetime]:
        n = number(m.group("n")) if m.group("n") else 1
        return now - timedelta(days=n * UNIT_DAYS[m.group("unit")]), now + timedelta(seconds=1)

    prev_month_start = today.replace(day=1) - timedelta(days=1)
    return [
        (re.compile(r"\b(?:the )?day before yesterday\b|\bavant[- ]hier\b"),
         fixed(today - timedelta(days=2), today - timedelta(days=1))),
        (re.compile(r"\byesterday\b|\blast night\b|\bhier( soir)?\b"), fixed(today - timedelta(days=1), today)),
        (re.compile(r"\b(?:earlier )?today\b|\bthis morning\b|\btonight\b|\baujourd'hui\b|\bce matin\b"),
         fixed(today, today + timedelta(days=1))),
        (re.compile(r"\b(?:last|past|previous) weekend\b|\bweek-?end dernier\b|\bce week-?end\b"),
         last_weekend),
        (re.compile(r"\b(?:the )?week-?end before last\b"), lambda m: tuple(
            t - timedelta(days=7) for t in last_weekend(m))),
        (re.compile(r"\b(?:the )?week before last\b|\bla semaine d'avant\b"),
         fixed(monday - timedelta(days=14), monday - timedelta(days=7))),
        (re.compile(r"\b(?:last|previous) week\b|\bla semaine (?:dernière|derniere|passée|passee)\b"),
         fixed(monday - timedelta(days=7), monday)),
        (re.compile(r"\bthis week\b|\bcette semaine\b"), fixed(monday, today + timedelta(days=1))),
        (re.compile(r"\b(?:last|previous) month\b|\ble mois (?:dernier|passé|passe)\b"),
         fixed(prev_month_start.replace(day=1), today.replace(day=1))),
        (re.compile(r"\bthis month\b|\bce mois-?ci\b"), fixed(today.replace(day=1), today + timedelta(days=1))),
        (re.compile(r"\b(?:last|previous) year\b|\bl'année (?:dernière|derniere|passée|passee)\b"),
         fixed(date(today.year - 1, 1, 1), date(today.year, 1, 1))),
        (re.compile(r"\bthis year\b|\bcette année\b"), fixed(date(today.year, 1, 1), today + timedelta(days=1))),
        (re.compile(rf"\b{named(NUM, 'n')}\s+{named(UNIT, 'unit')}\s+ago\b"), ago),
        (re.compile(rf"\bil y a\s+{named(NUM, 'n')}\s+{named(UNIT, 'unit')}\b"), ago),
        (re.compile(rf"\b(?:(?:in|during) )?the (?P<which>last|first|second|third)\s+"
                    rf"(?:{named(NUM, 'n')}\s+)?(?P<unit>days?|weeks?)\s+of\s+"
                    rf"{named(MONTH, 'month')}(?:,?\s+(?P<year>(?:19|20)\d\d))?\b"), part_of_month),
        (re.compile(rf"\b(?:in|over|during) the (?:last|past)\s+(?:{named(NUM, 'n')}\s+)?"
                    rf"{named(UNIT, 'unit')}\b"), past),
        (re.compile(rf"\b(?:last|previous|past)\s+{named(NUM, 'n')}\s+{named(UNIT, 'unit')}\b"),
         past),
        (re.compile(rf"\b(?:last|on|this past)\s+{named(WEEKDAY, 'wd')}\b|"
                    rf"\b{named(WEEKDAY, 'wd2')}\s+dernier\b"),
         last_weekday),
        (re.compile(rf"\b(?:in|during|en|au mois d[e'])\s*{'' if periods else '(?:early |late |mid-?)?'}"
                    rf"{named(MONTH, 'month')}(?:\s+(?P<year>(?:19|20)\d\d))?\b"), in_month),
        *(period_rules(today) if periods else []),
    ]


def _relative(text: str, now: datetime, periods: bool = True) -> list[tuple[int, int, datetime, datetime]]:
    """Every relative expression of ``text`` understood, the first of each rule: (position, end,
    start, end of its window)."""
    found = []
    for pattern, make in _rules(now, periods):
        for m in pattern.finditer(text):
            try:
                window = make(m)
            except OverflowError:  # a window before year 1 or after 9999: not a time anyone means
                continue
            if window is not None and window[0] < window[1]:
                found.append((m.start(), m.end(), *window))
                break
    return found


def _first(found: list[tuple[int, int, datetime, datetime]]) -> tuple[int, int, datetime, datetime]:
    """The expression that comes first; of two at one place, the longer."""
    return min(found, key=lambda f: (f[0], -f[1]))


def parse_time_window(
    query: str, now: datetime | None = None, *, dates: bool = True, periods: bool = True,
) -> TimeWindow | None:
    """The window of the first time expression of ``query`` understood, relative to ``now`` (default:
    the current time), or ``None``. A calendar date ("on October 13, 2023", "the week before 3 August")
    comes first (unless ``dates`` is false); a relative expression beside a day ("last Friday, on 23
    January") is read from that day, and the window runs from it to the end of that day."""
    anchor = "now" if now is None else "query date"
    now = now or datetime.now(UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    now = now.astimezone(UTC)
    text = query.lower().replace("\u2019", "'")
    dated = parse_date_span(text, now.date()) if dates else None
    if dated is not None:
        lo, hi = dated.pos, dated.pos + dated.length
        start, end = dated.start, dated.end
        if end - start == timedelta(days=1):
            beside = [f for f in _relative(text, midnight(dated.day), periods)
                      if f[1] <= dated.pos or f[0] >= dated.pos + dated.length]
            if beside:
                pos, stop, w_start, w_end = _first(beside)
                lo, hi = min(lo, pos), max(hi, stop)
                start, end = min(start, w_start), max(end, w_end)
        return TimeWindow(start, end, query[lo:hi], "date" if dated.explicit_year else anchor)
    found = _relative(text, now, periods)
    if not found:
        return None
    pos, stop, start, end = _first(found)
    return TimeWindow(start, end, query[pos:stop], anchor)


def boost_in_window(
    ranked: Sequence[tuple[K, float]], timestamps: Mapping[K, datetime | None], window: TimeWindow, boost: float,
) -> list[tuple[K, float]]:
    """Add ``boost`` x the best score to each candidate whose timestamp is in ``window``; best first
    (stable)."""
    return lift(ranked, lambda item: (ts := timestamps.get(item)) is not None and window.contains(ts), boost)[0]
