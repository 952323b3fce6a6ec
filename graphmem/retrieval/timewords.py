"""The words time expressions are made of, shared by the relative (:mod:`.timewindow`) and calendar
(:mod:`.datewindow`) parsers: numbers, units, months and weekdays in English and French, the regular
expressions built on them, and the arithmetic both use."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

__all__ = [
    "MONTH",
    "MONTHS",
    "MONTH_ABBREVIATIONS",
    "NUM",
    "NUMBERS",
    "SEASON",
    "SEASONS",
    "SINCE",
    "UNIT",
    "UNIT_DAYS",
    "WEEKDAY",
    "WEEKDAYS",
    "YEAR",
    "midnight",
    "month_start",
    "named",
    "number",
    "vague_days",
]

NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "couple": 2, "a couple of": 2, "couple of": 2, "few": 3, "a few": 3, "several": 3,
    "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8,
    "neuf": 9, "dix": 10, "onze": 11, "douze": 12, "quinze": 15, "vingt": 20, "trente": 30, "quelques": 3,
}
UNIT_DAYS = {
    "day": 1, "days": 1, "jour": 1, "jours": 1,
    "week": 7, "weeks": 7, "semaine": 7, "semaines": 7,
    "weekend": 7, "weekends": 7, "week-end": 7, "week-ends": 7, "fortnight": 14, "fortnights": 14,
    "month": 30, "months": 30, "mois": 30,
    "year": 365, "years": 365, "an": 365, "ans": 365, "année": 365, "années": 365,
}
MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    "janvier": 1, "février": 2, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6, "juillet": 7,
    "août": 8, "aout": 8, "septembre": 9, "octobre": 10, "novembre": 11, "décembre": 12, "decembre": 12,
}
MONTH_ABBREVIATIONS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
                       "oct": 10, "nov": 11, "dec": 12}
"""Read only next to a day number ("Dec. 5"): alone, "mar" or "sept" are other words."""
WEEKDAYS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
    "lundi": 0, "mardi": 1, "mercredi": 2, "jeudi": 3, "vendredi": 4, "samedi": 5, "dimanche": 6,
}
SEASONS = {
    "spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12,
    "printemps": 3, "été": 6, "ete": 6, "automne": 9, "hiver": 12,
}
"""The month each season starts in (meteorological seasons of the northern hemisphere: three months
each; winter starts in December)."""

SINCE = frozenset({"after", "since", "ever since", "après", "apres", "depuis"})
"""The words that open a window at what follows them ("since 1 May", "after the wedding"); "before",
"until" and their kin close one there."""

NUM = r"(\d{1,3}|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + ")"
UNIT = r"(days?|week-?ends?|weeks?|fortnights?|months?|years?|jours?|semaines?|mois|ans?|années?)"
MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")"
WEEKDAY = "(" + "|".join(WEEKDAYS) + ")"
SEASON = "(" + "|".join(SEASONS) + ")"
YEAR = r"((?:19|20)\d\d)"


def named(pattern: str, name: str) -> str:
    """``pattern`` (one of the groups above) as the named group ``name``."""
    return pattern.replace("(", f"(?P<{name}>", 1)


def midnight(d: date) -> datetime:
    return datetime.combine(d, time(0), tzinfo=UTC)


def month_start(year: int, month: int) -> datetime:
    """Midnight on the first day of ``month`` of ``year``; months past 12 run into the next years."""
    return midnight(date(year + (month - 1) // 12, (month - 1) % 12 + 1, 1))


def number(word: str) -> int:
    """The value of a number word or digits (1 for a word not known)."""
    w = word.strip().lower()
    if w.isdigit():
        return int(w)
    return NUMBERS.get(w, 1)


def vague_days(n: int, unit_days: int) -> float:
    """How far "n units" before or after a day may stray, in days: a quarter of the distance, at least
    a day, and half a unit for weeks and longer ("two weeks ago" is about that week)."""
    return max(1.0, n * unit_days / 4, unit_days / 2 if unit_days >= 7 else 1)
