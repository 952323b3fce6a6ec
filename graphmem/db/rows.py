"""Values read from Neo4j, as Python values: ``neo4j.time`` types become ``datetime``."""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["native", "native_row", "zoned_time"]

_OFFSET = re.compile(r"(?P<sign>[+-])(?P<h>\d{2}):?(?P<m>\d{2})?(?::?(?P<s>\d{2}))?")


def native(value: Any) -> Any:
    """A ``neo4j.time`` value as its ``datetime``/``date``; anything else unchanged."""
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def native_row(row: dict[str, Any] | None) -> dict[str, Any]:
    """A row (or map) with each value through :func:`native`; None gives an empty dict."""
    return {k: native(v) for k, v in (row or {}).items()}


def zoned_time(epoch_seconds: int, nanosecond: int, zone: str) -> datetime:
    """A zoned time read as its epoch second, nanosecond and zone (``Z``, an offset such as
    ``+02:00``, or a zone name such as ``Europe/Paris``), as an aware ``datetime`` in that zone:
    the instant and the offset the driver's ``DateTime`` would give, to the microsecond."""
    at = datetime.fromtimestamp(epoch_seconds, UTC) + timedelta(microseconds=nanosecond // 1000)
    return at.astimezone(_zone(zone))


@functools.lru_cache(maxsize=256)
def _zone(zone: str) -> tzinfo:
    if zone in ("Z", "UTC"):
        return UTC
    m = _OFFSET.fullmatch(zone)
    if m:
        sign = -1 if m["sign"] == "-" else 1
        return timezone(sign * timedelta(hours=int(m["h"]), minutes=int(m["m"] or 0), seconds=int(m["s"] or 0)))
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC  # a zone name this Python does not know: the instant stays right, in UTC
