"""Times of memories as an agent should read them: relative ("3 days ago" / "il y a 3 jours"),
absolute (``17/01/2026 10:23`` in a time zone) or both (:func:`memory_time`); ``relative`` for listings.

Every function takes the ``now`` it measures from (the current time when omitted), so a caller that
renders many items (or a test) uses one instant for all of them."""

from __future__ import annotations

import os
from datetime import UTC, datetime, tzinfo

__all__ = ["SUPPORTED_LOCALES", "absolute_time", "locale_from_env", "memory_time", "relative", "relative_time"]

SUPPORTED_LOCALES = ("en", "fr")

_UNITS = (("year", 365 * 86400), ("month", 30 * 86400), ("week", 7 * 86400), ("day", 86400),
          ("hour", 3600), ("minute", 60))
_FR = {"year": ("an", "ans"), "month": ("mois", "mois"), "week": ("semaine", "semaines"), "day": ("jour", "jours"),
       "hour": ("heure", "heures"), "minute": ("minute", "minutes")}


def locale_from_env(default: str = "en") -> str:
    """``fr`` when LC_ALL / LC_MESSAGES / LANG / LANGUAGE starts with ``fr``, else ``default``."""
    for var in ("GRAPHMEM_LOCALE", "LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var, "")
        if value:
            code = value.split(":")[0].split("_")[0].split(".")[0].lower()
            return code if code in SUPPORTED_LOCALES else default
    return default


def relative_time(ts: datetime, now: datetime | None = None, locale: str = "en") -> str:
    """How long ago ``ts`` was, in words: ``"just now"``, ``"yesterday"``, ``"3 days ago"``,
    ``"in 2 hours"`` (future); French with ``locale="fr"`` (``"il y a 3 jours"``, ``"hier"``)."""
    fr = locale.lower().startswith("fr")
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    delta = (now - ts).total_seconds()
    future = delta < 0
    secs = abs(int(delta))
    if secs < 60:
        return "à l'instant" if fr else "just now"
    unit, n = next((u, secs // size) for u, size in _UNITS if secs >= size)
    if unit == "day" and n == 1:
        if fr:
            return "demain" if future else "hier"
        return "tomorrow" if future else "yesterday"
    if fr:
        word = _FR[unit][0 if n == 1 else 1]
        return f"dans {n} {word}" if future else f"il y a {n} {word}"
    word = unit if n == 1 else unit + "s"
    return f"in {n} {word}" if future else f"{n} {word} ago"


def absolute_time(ts: datetime, tz: tzinfo | None = None, *, year: bool = True) -> str:
    """``ts`` in ``tz`` (UTC by default) as ``dd/mm/yyyy hh:mm`` (``dd/mm hh:mm`` without ``year``);
    the same numeric form in every locale."""
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    local = ts.astimezone(tz or UTC)
    return local.strftime("%d/%m/%Y %H:%M" if year else "%d/%m %H:%M")


def memory_time(ts: datetime, now: datetime | None = None, locale: str = "en", tz: tzinfo | None = None) -> str:
    """When a memory dates from, absolute and relative: ``"14/01/2026 10:23, 3 days ago"`` /
    ``"14/01/2026 10:23, il y a 3 jours"``."""
    return f"{absolute_time(ts, tz)}, {relative_time(ts, now, locale)}"


def relative(ts: datetime | None, now: datetime | None = None) -> str:
    """'3 minutes ago' style, for listings."""
    if ts is None:
        return "-"
    now = now or datetime.now(ts.tzinfo)
    secs = max(0, int((now - ts).total_seconds()))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if secs >= size:
            n = secs // size
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"
