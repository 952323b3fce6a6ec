"""Query parameters the driver packs safely and cheaply: vectors that are cheap to log, and times
in zones the driver can pack.

The neo4j Python driver (6.x) formats every RUN message for its debug log *before* checking the
log level (``" ".join(map(repr, fields))``), so a 512-float list parameter costs a full ``repr`` of
every float on each statement: about 1.5 ms per vector on an idle core, seconds for a bulk batch of
2,000 vectors. :class:`VectorParam` is a plain ``list`` for the driver's packer (packed exactly as
before) whose ``repr`` is short.

The driver packs a ``datetime`` by asking its zone for the offset of the driver's own ``DateTime``
type. The standard library's ``zoneinfo`` zones are written in C and read that object as if it were
a ``datetime``: the offset comes out wrong (an hour off in summer) or the process crashes.
:func:`safe_time` gives such a time the same zone from ``pytz`` (which the driver depends on and
reads correctly), so the instant, the offset and the zone's name are stored as given.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta, timezone, tzinfo

import pytz

__all__ = ["VectorParam", "safe_time", "vector_param"]


class VectorParam(list[float]):
    """A list of floats with a short ``repr`` (see the module docstring)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<vector of {len(self)} floats>"


def vector_param(vector: Sequence[float] | Iterable[float] | None) -> VectorParam | None:
    """``vector`` as a :class:`VectorParam` (None stays None; an existing one is returned as is)."""
    if vector is None or isinstance(vector, VectorParam):
        return vector
    return VectorParam(vector)


def safe_time(value: datetime) -> datetime:
    """``value`` with a zone the driver packs correctly (see the module docstring): fixed offsets,
    ``pytz`` zones and naive times are returned as they are; a named zone (``zoneinfo``, or any zone
    with a ``key``) becomes the ``pytz`` zone of that name, and any other zone its fixed offset at
    that instant. A fixed offset Neo4j cannot hold (seconds in it, as in the local mean times of
    old dates, or beyond +-18:00) becomes the same instant in UTC."""
    tz = value.tzinfo
    if tz is None or isinstance(tz, pytz.BaseTzInfo):
        return value
    if type(tz) is not timezone:
        key = getattr(tz, "key", None)
        named = _pytz_zone(key) if isinstance(key, str) else None
        if named is not None:
            return value.astimezone(named)
    offset = value.utcoffset()
    if offset is None:
        return value
    if offset % timedelta(minutes=1) or abs(offset) > _MAX_OFFSET:
        return value.astimezone(UTC)
    return value if type(tz) is timezone else value.replace(tzinfo=timezone(offset))


_MAX_OFFSET = timedelta(hours=18)


@functools.lru_cache(maxsize=256)
def _pytz_zone(name: str) -> tzinfo | None:
    try:
        return pytz.timezone(name)
    except pytz.UnknownTimeZoneError:
        return None
