"""Times given to the driver keep their instant, offset and zone name, whatever zone type they use."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

import pytz

from graphmem.db.client import lean_params
from graphmem.db.params import safe_time


class _Plus3(tzinfo):
    """A hand-written zone: neither a fixed ``timezone`` nor a named one."""

    def utcoffset(self, dt: datetime | None) -> timedelta:
        return timedelta(hours=3)

    def dst(self, dt: datetime | None) -> timedelta:
        return timedelta(0)


class _Named(_Plus3):
    """A named zone whose name pytz does not know."""

    key = "Nowhere/Atlantis"


def test_fixed_offsets_pytz_and_naive_times_are_left_alone() -> None:
    for ts in (datetime(2026, 7, 1, tzinfo=UTC), datetime(2026, 7, 1, tzinfo=timezone(timedelta(hours=-3))),
               pytz.timezone("Europe/Paris").localize(datetime(2026, 7, 1, 12)), datetime(2026, 7, 1)):
        assert safe_time(ts) is ts


def test_a_zoneinfo_time_gets_the_pytz_zone_of_the_same_name() -> None:
    for ts in (datetime(2026, 7, 14, 22, 0, 1, 5, tzinfo=ZoneInfo("Europe/Paris")),
               datetime(2026, 1, 14, 22, 0, tzinfo=ZoneInfo("Europe/Paris")),
               datetime(2026, 3, 8, 1, 30, tzinfo=ZoneInfo("America/New_York"))):
        safe = safe_time(ts)
        assert safe == ts and safe.utcoffset() == ts.utcoffset() and safe.isoformat() == ts.isoformat()
        assert isinstance(safe.tzinfo, pytz.BaseTzInfo) and safe.tzinfo.zone == str(ts.tzinfo)


def test_other_zones_become_their_fixed_offset() -> None:
    ts = datetime(2026, 7, 14, 22, 0, tzinfo=_Plus3())
    safe = safe_time(ts)
    assert safe == ts and type(safe.tzinfo) is timezone and safe.utcoffset() == timedelta(hours=3)
    unknown = datetime(2026, 7, 14, 22, 0, tzinfo=_Named())
    safe = safe_time(unknown)
    assert safe == unknown and type(safe.tzinfo) is timezone and safe.utcoffset() == timedelta(hours=3)


def test_lean_params_reaches_times_at_the_top_and_in_rows_of_maps() -> None:
    paris = datetime(2026, 7, 14, 22, 0, tzinfo=ZoneInfo("Europe/Paris"))
    out = lean_params({"at": paris, "rows": [{"timestamp": paris, "n": 1}], "row": {"timestamp": paris}})
    for ts in (out["at"], out["rows"][0]["timestamp"], out["row"]["timestamp"]):
        assert isinstance(ts.tzinfo, pytz.BaseTzInfo) and ts == paris
    assert out["rows"][0]["n"] == 1


def test_an_offset_neo4j_cannot_hold_becomes_the_same_instant_in_utc() -> None:
    for offset in (timedelta(seconds=30), timedelta(hours=5, minutes=30, seconds=15), timedelta(hours=20),
                   timedelta(hours=-23, minutes=-59)):
        at = datetime(2026, 5, 1, 12, 0, tzinfo=timezone(offset))
        packed = safe_time(at)
        assert packed == at and packed.tzinfo is UTC
    edge = datetime(2026, 5, 1, 12, 0, tzinfo=timezone(timedelta(hours=-18)))
    assert safe_time(edge) is edge
