"""The time-window parser (injected ``now``: deterministic) and the in-window boost."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.retrieval.timewindow import TimeWindow, boost_in_window, parse_time_window

NOW = datetime(2024, 6, 12, 15, 0, tzinfo=UTC)  # a Wednesday


def _d(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "phrase", "start", "end"),
    [
        ("What did I buy yesterday?", "yesterday", "2024-06-11", "2024-06-12"),
        ("the day before yesterday I cooked", "the day before yesterday", "2024-06-10", "2024-06-11"),
        ("what did I do last weekend", "last weekend", "2024-06-07T18:00", "2024-06-10"),
        ("which movie did I watch last week?", "last week", "2024-06-03", "2024-06-10"),
        ("what did I cook in March", "in March", "2024-03-01", "2024-04-01"),
        ("trips in December", "in December", "2023-12-01", "2024-01-01"),
        ("what happened in March 2023", "in March 2023", "2023-03-01", "2023-04-01"),
        ("the concert two weeks ago", "two weeks ago", "2024-05-25T12:00", "2024-06-02T12:00"),
        ("qu'ai-je lu il y a 3 jours", "il y a 3 jours", "2024-06-08", "2024-06-11"),
        ("le film de la semaine dernière", "la semaine dernière", "2024-06-03", "2024-06-10"),
        ("la réunion d'hier", "hier", "2024-06-11", "2024-06-12"),
        ("what did I do last Monday", "last Monday", "2024-06-10", "2024-06-11"),
        ("mes notes de lundi dernier", "lundi dernier", "2024-06-10", "2024-06-11"),
        ("bugs fixed in the past 3 days", "in the past 3 days", "2024-06-09T15:00", "2024-06-12T15:00:01"),
        ("the budget last month", "last month", "2024-05-01", "2024-06-01"),
        ("goals set last year", "last year", "2023-01-01", "2024-01-01"),
    ],
)
def test_windows(query: str, phrase: str, start: str, end: str) -> None:
    w = parse_time_window(query, NOW)
    assert w is not None
    assert (w.phrase, w.start, w.end) == (phrase, _d(start), _d(end))


@pytest.mark.parametrize("query", [
    "what did I do before I moved", "how many days before the wedding did I buy shoes",
    "I may go to Paris", "what is my favourite colour", "",
])
def test_no_window(query: str) -> None:
    assert parse_time_window(query, NOW) is None


def test_first_expression_wins_and_now_defaults_to_the_current_time() -> None:
    w = parse_time_window("yesterday, not last month", NOW)
    assert w is not None and w.phrase == "yesterday"
    assert parse_time_window("yesterday") is not None


def test_naive_now_is_utc() -> None:
    w = parse_time_window("yesterday", datetime(2024, 6, 12, 15, 0))
    assert w is not None and w.start == _d("2024-06-11")


def test_window_contains_and_dict() -> None:
    w = TimeWindow(_d("2024-06-01"), _d("2024-06-02"), "x")
    assert w.contains(datetime(2024, 6, 1, 12, 0))  # naive = UTC
    assert not w.contains(_d("2024-06-02"))
    assert w.as_dict() == {"phrase": "x", "start": "2024-06-01T00:00:00+00:00", "end": "2024-06-02T00:00:00+00:00",
                           "anchor": "now"}


def test_the_window_says_what_it_is_relative_to() -> None:
    dated = parse_time_window("yesterday", NOW)
    undated = parse_time_window("yesterday")
    assert dated is not None and dated.anchor == "query date"
    assert undated is not None and undated.anchor == "now"


def test_boost_lifts_in_window_candidates_only() -> None:
    w = TimeWindow(_d("2024-06-01"), _d("2024-06-02"), "x")
    ranked = [("a", 1.0), ("b", 0.8), ("c", 0.5)]
    stamps = {"a": _d("2024-05-01"), "b": None, "c": _d("2024-06-01T10:00")}
    assert [d for d, _ in boost_in_window(ranked, stamps, w, 0.6)] == ["c", "a", "b"]
    assert boost_in_window(ranked, stamps, w, 0.0) == ranked
