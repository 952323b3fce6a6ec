"""When a digest is due: the latest digest hour at or before now, in the configured time zone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.chat.digest import DigestConfig, last_slot, next_slot
from graphmem.config import Settings
from graphmem.errors import InvalidInput


def test_the_latest_digest_hour_in_paris() -> None:
    cfg = DigestConfig()
    # 25 Nov 2026 13:30 UTC = 14:30 in Paris (UTC+1): the 14:00 digest is the latest, the next is at 18:00
    now = datetime(2026, 11, 25, 13, 30, tzinfo=UTC)
    assert last_slot(now, cfg) == datetime(2026, 11, 25, 13, 0, tzinfo=UTC)
    assert next_slot(now, cfg) == datetime(2026, 11, 25, 17, 0, tzinfo=UTC)
    # 00:30 in Paris: the latest is 22:00 the day before
    assert last_slot(datetime(2026, 11, 24, 23, 30, tzinfo=UTC), cfg) == datetime(2026, 11, 24, 21, 0, tzinfo=UTC)
    # summer time (UTC+2)
    assert last_slot(datetime(2026, 7, 1, 8, 5, tzinfo=UTC), cfg) == datetime(2026, 7, 1, 8, 0, tzinfo=UTC)


def test_one_hour_a_day() -> None:
    cfg = DigestConfig(hours=(3,), timezone="UTC")
    assert last_slot(datetime(2026, 11, 25, 2, 59, tzinfo=UTC), cfg) == datetime(2026, 11, 24, 3, 0, tzinfo=UTC)
    assert next_slot(datetime(2026, 11, 25, 3, 0, tzinfo=UTC), cfg) == datetime(2026, 11, 26, 3, 0, tzinfo=UTC)


@pytest.mark.parametrize("hours", ["", "2,25", "two", "-1"])
def test_bad_hours_name_the_setting(hours: str) -> None:
    with pytest.raises(InvalidInput, match="GRAPHMEM_DIGEST_HOURS"):
        DigestConfig.from_settings(Settings(digest_hours=hours))


def test_settings() -> None:
    cfg = DigestConfig.from_settings(Settings(digest_hours="22, 6,6", digest_timezone="UTC", digest_scope="global"))
    assert cfg.hours == (6, 22) and cfg.timezone == "UTC"
    with pytest.raises(InvalidInput, match="GRAPHMEM_DIGEST_TIMEZONE"):
        DigestConfig.from_settings(Settings(digest_timezone="Mars/Olympus"))
