"""Fact model helpers without a server: TTLs, scopes, text keys, settings values, LLM answer parsing."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from graphmem.errors import InvalidInput, ProviderError
from graphmem.facts import FACT_TYPES, FactScope, parse_ttl
from graphmem.facts.extract import _parse
from graphmem.facts.model import containment, content_key, words
from graphmem.facts.tuning import TUNING_HELP, _coerce


def test_types_and_default_importance() -> None:
    assert FACT_TYPES == {"identity": 1.0, "goal": 0.9, "decision": 0.8, "todo": 0.8, "preference": 0.7,
                          "fact": 0.6, "event": 0.4, "observation": 0.3}


@pytest.mark.parametrize(("text", "want"), [
    ("1h", timedelta(hours=1)), ("7d", timedelta(days=7)), ("30d", timedelta(days=30)),
    ("2w", timedelta(weeks=2)), ("1h30m", timedelta(minutes=90)), ("90 minutes", timedelta(minutes=90)),
    ("45s", timedelta(seconds=45)), (" 1D ", timedelta(days=1)),
])
def test_parse_ttl(text: str, want: timedelta) -> None:
    assert parse_ttl(text) == want


def test_parse_ttl_special_and_invalid() -> None:
    assert parse_ttl(None) is None
    assert parse_ttl("never") == timedelta.max
    for bad in ("", "soon", "7", "d7", "0d", "-1d", "7d garbage"):
        with pytest.raises(InvalidInput):
            parse_ttl(bad)
    # an expiry must stay a date: past 1000 years it is a clear error, not an OverflowError (found by the
    # hostile run: remember(ttl="99999999d"))
    assert parse_ttl("999y") == timedelta(days=999 * 365)
    for huge in ("99999999d", "1e400d".replace("e400", "0" * 400), "1001y"):
        with pytest.raises(InvalidInput, match="never"):
            parse_ttl(huge)
    with pytest.raises(InvalidInput, match="never"):
        parse_ttl(timedelta(days=10**6))
    assert parse_ttl(timedelta.max) == timedelta.max
    # a fact gone before anything reads it is a mistake, not a TTL
    assert parse_ttl("1s") == timedelta(seconds=1)
    for tiny in ("0.0000001s", "0.5s", timedelta(microseconds=1), timedelta(0)):
        with pytest.raises(InvalidInput, match="one second"):
            parse_ttl(tiny)


def test_scopes() -> None:
    assert FactScope.parse("global").key == "global"
    assert FactScope.parse("project:/tmp/x/").key == "project:/tmp/x"
    assert FactScope.parse("session:abc").key == "session:abc"
    for bad in ("", "projects:/x", "session:", "other"):
        with pytest.raises(InvalidInput):
            FactScope.parse(bad)


def test_content_key_and_containment() -> None:
    assert content_key("Mickael  habite à Paris!") == content_key("mickael habite à paris")
    assert content_key("a b") != content_key("a c")
    assert containment("Mickael broke his shoulder", "Mickael broke his shoulder on January 10, 2026") == 1.0
    assert containment("Mickael a un fils", "Mickael a une fille") == 0.5
    # the words a fact stores for remember's statement: distinct, normalised (NFKC, case-folded), sorted
    assert words("Mickael s'est cassé l'ÉPAULE, l'épaule !") == ["cassé", "est", "l", "mickael", "s", "épaule"]
    assert words("  ") == [] and words("ﬁx the ﬁle") == ["file", "fix", "the"]


def test_setting_values_are_typed_and_checked() -> None:
    assert _coerce("injection.enabled", "off") is False
    assert _coerce("injection.max_results", "7") == 7
    assert _coerce("injection.recent_hours", "48") == 48.0
    for key, bad in (("injection.min_score", "1.5"), ("injection.max_results", "-1"), ("injection.enabled", "maybe")):
        with pytest.raises(InvalidInput):
            _coerce(key, bad)
    assert "facts.dedup_threshold" in TUNING_HELP


@pytest.mark.parametrize(("key", "bad"), [
    ("injection.max_results", 10**30), ("injection.max_results", float("inf")), ("injection.max_results", 2.5),
    ("injection.max_results", True), ("injection.max_results", "1e3"), ("injection.min_score", "NaN"),
    ("injection.min_score", float("nan")), ("injection.recent_hours", "inf"), ("injection.recent_hours", 10**9),
])
def test_a_setting_out_of_its_range_is_one_line_naming_it(key: str, bad: object) -> None:
    # a huge integer reached the driver (OverflowError, a 500 from the service); NaN and infinity were stored
    with pytest.raises(InvalidInput, match=key) as caught:
        _coerce(key, bad)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 200
    assert _coerce("injection.max_results", 7.0) == 7 and _coerce("injection.recent_hours", 8760) == 8760.0


def test_llm_answer_parsing_is_lenient() -> None:
    facts = _parse('```json\n{"facts": [{"content": "David est mon frère", "type": "identity", "subjects": ["david"], '
                   '"ttl": null, "scope": "global"}, {"content": "  "}, {"content": "x", "type": "bogus"}]}\n```')
    assert [f.content for f in facts] == ["David est mon frère", "x"]
    assert facts[1].type == "fact" and facts[1].scope == "global"
    with pytest.raises(ProviderError):
        _parse("no json here")


def test_session_vectors_cache_fills_rows_the_server_left_without_a_vector() -> None:
    from graphmem.facts.inject import _SessionVectors

    sv = _SessionVectors()
    key = ("model", "s1")
    assert sv.known(key) == []
    sv.fill(key, [{"id": "a", "embedding": [1.0, 0.0]}, {"id": "b", "embedding": None}, None])
    assert sv.known(key) == ["a"]
    rows: list[dict[str, object] | None] = [{"id": "a", "embedding": None}, {"id": "b", "embedding": None}]
    sv.fill(key, rows)  # type: ignore[arg-type]
    first, second = rows
    assert first is not None and second == {"id": "b", "embedding": None}
    # kept as a float32 array: the injection stacks the window's vectors without converting lists
    assert first["embedding"].dtype == np.float32 and first["embedding"].tolist() == [1.0, 0.0]  # type: ignore[union-attr]
    assert sv.known(("other-model", "s1")) == [] and sv.known(("model", "s2")) == []
    many = [{"id": f"f{i}", "embedding": [float(i)]} for i in range(sv.MAX_PER_SESSION + 10)]
    sv.fill(key, many)  # type: ignore[arg-type]
    known = sv.known(key)
    assert len(known) == sv.MAX_PER_SESSION and "a" not in known and known[-1] == f"f{sv.MAX_PER_SESSION + 9}"


def test_fact_rows_take_datetimes_as_iso_strings_or_driver_values() -> None:
    from datetime import UTC, datetime

    from neo4j.time import DateTime

    from graphmem.facts.model import Fact

    row = {"id": "f1", "content": "x", "type": "fact", "importance": 0.6, "scope": "global", "scopeKey": "global",
           "createdAt": "2026-11-25T00:03:54.509447123Z", "updatedAt": "2026-11-25T01:03:54.5+01:00[Europe/Paris]",
           "expiresAt": None, "lastAccessedAt": DateTime(2026, 11, 25, 0, 3, 54, tzinfo=UTC)}
    f = Fact.from_row(row)
    assert f.created_at == datetime(2026, 11, 25, 0, 3, 54, 509447, tzinfo=UTC)
    assert f.updated_at == datetime(2026, 11, 25, 0, 3, 54, 500000, tzinfo=UTC)
    assert f.expires_at is None
    assert f.last_accessed_at == datetime(2026, 11, 25, 0, 3, 54, tzinfo=UTC)
    assert f.to_dict()["created_at"] == "2026-11-25T00:03:54.509447+00:00"
