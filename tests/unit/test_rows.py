"""Times read from Neo4j as numbers come back as the aware datetimes the driver would give."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from graphmem.db.rows import zoned_time

CASES = [
    (datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=UTC), "Z"),
    (datetime(2026, 3, 1, 9, 30, tzinfo=timezone(timedelta(hours=5, minutes=30))), "+05:30"),
    (datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=-8))), "-08:00"),
    (datetime(2026, 7, 14, 22, 0, 1, 5, tzinfo=ZoneInfo("Europe/Paris")), "Europe/Paris"),
    (datetime(2026, 1, 14, 22, 0, 1, tzinfo=ZoneInfo("Europe/Paris")), "Europe/Paris"),
    (datetime(1960, 5, 2, 3, 4, 5, 600000, tzinfo=UTC), "UTC"),
]


@pytest.mark.parametrize(("stored", "zone"), CASES)
def test_zoned_time_keeps_the_instant_and_the_offset(stored: datetime, zone: str) -> None:
    epoch = int((stored - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(seconds=1))
    nanos = stored.microsecond * 1000 + 789  # the part below a microsecond is dropped
    back = zoned_time(epoch, nanos, zone)
    assert back == stored
    assert back.utcoffset() == stored.utcoffset()
    assert back.isoformat() == stored.isoformat()


def test_an_offset_with_seconds_and_an_unknown_zone_name() -> None:
    assert zoned_time(0, 0, "+01:02:03").utcoffset() == timedelta(hours=1, minutes=2, seconds=3)
    unknown = zoned_time(86_400, 0, "Nowhere/Atlantis")
    assert unknown == datetime(1970, 1, 2, tzinfo=UTC) and unknown.utcoffset() == timedelta(0)
