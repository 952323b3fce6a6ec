"""The time-window parser (injected ``now``: deterministic) and the in-window boost."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.retrieval.datewindow import OPEN_END, OPEN_START
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
        ("the week before last", "the week before last", "2024-05-27", "2024-06-03"),
        ("what did I cook the weekend before last", "the weekend before last", "2024-05-31T18:00", "2024-06-03"),
        ("a fortnight ago", "a fortnight ago", "2024-05-22", "2024-06-06"),
        ("il y a quinze jours", "il y a quinze jours", "2024-05-24T06:00", "2024-06-01T18:00"),
        ("twenty days ago", "twenty days ago", "2024-05-18", "2024-05-29"),
        ("the budget last month", "last month", "2024-05-01", "2024-06-01"),
        ("goals set last year", "last year", "2023-01-01", "2024-01-01"),
        ("where was I during the last week of August 2023", "during the last week of August 2023", "2023-08-25",
         "2023-09-01"),
        ("the first two weeks of March", "the first two weeks of March", "2024-03-01", "2024-03-15"),
        # calendar dates, and the spans built on them
        ("What did we decide on October 13, 2023?", "October 13, 2023", "2023-10-13", "2023-10-14"),
        ("notes of 8th December, 2023", "8th December, 2023", "2023-12-08", "2023-12-09"),
        ("the plan of 2023-10-13", "2023-10-13", "2023-10-13", "2023-10-14"),
        ("le compte rendu du 13/10/2023", "13/10/2023", "2023-10-13", "2023-10-14"),
        ("the bug of 10/13/2023", "10/13/2023", "2023-10-13", "2023-10-14"),
        ("la réunion du 1er mai", "1er mai", "2024-05-01", "2024-05-02"),
        ("what did we ship on June 20", "June 20", "2023-06-20", "2023-06-21"),
        ("what did I do the week before August 3, 2023", "the week before August 3, 2023", "2023-07-27",
         "2023-08-04"),
        ("the puppy I got two weeks before August 11, 2023", "two weeks before August 11, 2023",
         "2023-07-24T12:00", "2023-08-12"),
        ("deux semaines avant le 11 août 2023", "deux semaines avant le 11 août 2023", "2023-07-24T12:00",
         "2023-08-12"),
        ("what did we do on the Sunday before October 25, 2022", "Sunday before October 25, 2022", "2022-10-23",
         "2022-10-26"),
        ("plans for the Saturday after October 28, 2023", "Saturday after October 28, 2023", "2023-10-28",
         "2023-11-05"),
        ("the weekend before 4th October, 2023", "the weekend before 4th October, 2023", "2023-09-29T18:00",
         "2023-10-05"),
        ("where was John between August 11 and August 15 2023", "between August 11 and August 15 2023",
         "2023-08-11", "2023-08-16"),
        ("what did I finish last Friday, on 23 January 2022?", "last Friday, on 23 January 2022", "2022-01-21",
         "2022-01-24"),
        ("the day after 3 March 2023", "the day after 3 March 2023", "2023-03-03", "2023-03-05"),
        ("where was I between the 3rd and 5th of May?", "between the 3rd and 5th of May", "2024-05-03", "2024-05-06"),
        ("between May 3 and 5", "between May 3 and 5", "2024-05-03", "2024-05-06"),
        ("du 11 au 15 août 2023", "du 11 au 15 août 2023", "2023-08-11", "2023-08-16"),
        # seasons: a season's window runs on for one more season (it is told of afterwards)
        ("What did we do last summer?", "last summer", "2023-06-01", "2023-12-02"),
        ("what did I do this past winter", "this past winter", "2023-12-01", "2024-05-31"),
        ("during the summer", "during the summer", "2024-06-01", "2024-12-02"),
        ("in the fall", "in the fall", "2023-09-01", "2024-03-01"),
        ("trips in summer 2021", "in summer 2021", "2021-06-01", "2021-12-02"),
        ("winter 2022", "winter 2022", "2021-12-01", "2022-05-30"),
        ("l'été dernier", "l'été dernier", "2023-06-01", "2023-12-02"),
        ("au printemps 2023", "au printemps 2023", "2023-03-01", "2023-09-01"),
        # parts of a period: its third, with a tenth as slack, on to the end of the period
        ("towards the end of summer 2023", "towards the end of summer 2023", "2023-07-23T03:12", "2023-09-10T04:48"),
        ("in the beginning of November 2022", "in the beginning of November 2022", "2022-10-29", "2022-12-04"),
        ("in early March", "in early March", "2024-02-26T21:36", "2024-04-04T02:24"),
        ("was the first half of September 2022 good?", "the first half of September 2022", "2022-08-29",
         "2022-10-04"),
        ("the second half of March", "the second half of March", "2024-03-13T09:36", "2024-04-04T02:24"),
        ("what did I do in late June", "in late June", "2023-06-18", "2023-07-04"),  # to come: last year's
        ("mi-août", "mi-août", "2023-08-08T05:36", "2023-09-04T02:24"),
        ("fin mars", "fin mars", "2024-03-18T13:36", "2024-04-04T02:24"),
        ("between August and November 2023", "between August and November 2023", "2023-08-01", "2023-12-01"),
        ("entre mars et mai", "entre mars et mai", "2024-03-01", "2024-06-01"),
    ],
)
def test_windows(query: str, phrase: str, start: str, end: str) -> None:
    w = parse_time_window(query, NOW)
    assert w is not None
    assert (w.phrase, w.start, w.end) == (phrase, _d(start), _d(end))


@pytest.mark.parametrize("query", [
    "what did I do before I moved", "how many days before the wedding did I buy shoes",
    "I may 5 things", "the meeting of 03/04/2023", "what did I buy on Feb 30 2023", "version 2.3.2023",
    "I may go to Paris", "what is my favourite colour", "",
    "did his son fall off his bike", "plans for the summer", "next summer", "the hot spring", "cold winter days",
])
def test_no_window(query: str) -> None:
    assert parse_time_window(query, NOW) is None


def test_open_windows_and_explicit_years() -> None:
    upto = parse_time_window("what was I working on as of 1 February, 2023?", NOW)
    assert upto is not None and (upto.start, upto.end) == (OPEN_START, _d("2023-02-02"))
    assert upto.anchor == "date"  # the year is written: the window does not depend on the query's date
    since = parse_time_window("bugs fixed since 1 May", NOW)
    assert since is not None and (since.start, since.end, since.phrase) == (_d("2024-05-01"), OPEN_END, "since 1 May")
    assert since.anchor == "query date"  # its year comes from the query's date
    assert parse_time_window("what did we decide on October 13, 2023?", NOW, dates=False) is None


@pytest.mark.parametrize(
    ("query", "phrase", "start", "end"),
    [
        ("what changed since March?", "since March", "2024-03-01", None),
        ("bugs fixed after March", "after March", "2024-04-01", None),
        ("since the end of March", "since the end of March", "2024-03-18T13:36", None),
        ("since the start of the year", "since the start of the year", "2024-01-01", None),
        ("depuis le début de l'année", "depuis le début de l'année", "2024-01-01", None),
        ("depuis mars", "depuis mars", "2024-03-01", None),
        ("what did we use before May 2023", "before May 2023", None, "2023-05-01"),
        ("until April", "until April", None, "2024-05-01"),
        ("jusqu'en avril 2023", "jusqu'en avril 2023", None, "2023-05-01"),
    ],
)
def test_spans_open_on_one_side_of_a_month(query: str, phrase: str, start: str | None, end: str | None) -> None:
    w = parse_time_window(query, NOW)
    assert w is not None and w.phrase == phrase
    assert w.start == (_d(start) if start else OPEN_START) and w.end == (_d(end) if end else OPEN_END)


def test_periods_knob_keeps_the_whole_month() -> None:
    w = parse_time_window("what happened in early March", NOW, periods=False)
    assert w is not None and (w.start, w.end) == (_d("2024-03-01"), _d("2024-04-01"))
    assert parse_time_window("what did we do last summer", NOW, periods=False) is None


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
