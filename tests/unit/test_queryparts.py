"""Splitting a question that compares two events into one search per event (no server)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graphmem.cli.search_cmd import how_found
from graphmem.retrieval import RetrievalConfig
from graphmem.retrieval.models import SearchHit, SearchResult
from graphmem.retrieval.queryparts import (
    MAX_QUERY_CHARS,
    QueryParts,
    interleave,
    merge_parts,
    parse_query_parts,
    parts_apply,
    split_parts,
)


@pytest.mark.parametrize(("query", "parts"), [
    ("How many days passed between the day I adopted the kitten and the day I ran the marathon?",
     ("I adopted the kitten", "I ran the marathon")),
    ("How many days passed between the day Sam met his friends, family, and mentors and the day he moved?",
     ("Sam met his friends, family, and mentors", "he moved")),
    ("How much time was there between when we shipped v2 and when the login bug came back?",
     ("we shipped v2", "the login bug came back")),
    ("What's the gap between the migration and the outage", ("the migration", "the outage")),
    ("Which happened first, the marathon or the wedding?", ("the marathon", "the wedding")),
    ("Which event did I attend first, the jazz night or the pottery fair?", ("the jazz night", "the pottery fair")),
    ("Which came first: the migration to Postgres or the retry policy change?",
     ("the migration to Postgres", "the retry policy change")),
    # a part of one word borrows: the other part's words, or the question's
    ("Which pet did Jolene adopt more recently - Susie or Seraphim?",
     ("Susie pet jolene adopt", "Seraphim pet jolene adopt")),
    ("How many months passed between Andrew adopting Toby and Buddy?", ("Andrew adopting Toby", "Andrew adopting Buddy")),
    ("How many months lapsed between Sam's first and second doctor's appointment?",
     ("Sam's first doctor's appointment", "Sam's second doctor's appointment")),
    ("How long after the launch did we fix the login bug?", ("the launch", "we fix the login bug")),
    ("How long after I had lunch with Sam did I fall asleep?", ("I had lunch with Sam", "I fall asleep")),
    ("How many days before the team meeting was I preparing the slides?", ("the team meeting", "I preparing the slides")),
    ("How many days before I bought the iPhone did I get the case?", ("I bought the iPhone", "I get the case")),
    ("How many days had passed since I bought the bike when I fixed the flat tire?",
     ("I bought the bike", "I fixed the flat tire")),
    ("Did we fix the flaky test before the release?", ("we fix the flaky test", "the release")),
    ("Combien de jours se sont écoulés entre le jour où j'ai adopté le chat et mon déménagement ?",
     ("j'ai adopté le chat", "mon déménagement")),
    ("Qu'est-ce qui est arrivé en premier, le marathon ou le mariage ?", ("le marathon", "le mariage")),
])
def test_two_events_are_found(query: str, parts: tuple[str, str]) -> None:
    found = parse_query_parts(query)
    assert found is not None and found.parts == parts
    assert found.phrase in query


@pytest.mark.parametrize("query", [
    "What did we decide about the retry policy?",
    "How many times between 3 and 5 did I run?",  # a part without a word of its own
    "Did I mention the cost before?",  # "before" ends the question: one event
    "Which one is better?",
    "how long between May 3 and 5?",
    "What did I do after the wedding?",  # one event: a time window, not two searches
    "Which happened first, the marathon or the marathon?",
    "",
])
def test_other_questions_are_not_split(query: str) -> None:
    assert parse_query_parts(query) is None


def test_a_long_prompt_is_not_split() -> None:
    query = "How long between the day I adopted the kitten and the day I ran the marathon? " + "x " * MAX_QUERY_CHARS
    assert parse_query_parts(query) is None


def test_interleave_takes_each_ranking_in_turn_once_per_item() -> None:
    assert interleave([["w1", "a1", "w2"], ["a1", "a2"], ["b1", "w1", "b2"]], 10) == ["w1", "a1", "b1", "a2", "w2", "b2"]
    assert interleave([["w1", "w2"], ["a1"], ["b1"]], 3) == ["w1", "a1", "b1"]
    assert interleave([[], []], 5) == []
    # a limited number of rounds, then the rest of the first ranking, then the others'
    assert interleave([["w1", "w2", "w3"], ["a1", "a2"], ["b1", "b2"]], 10, rounds=1) == ["w1", "a1", "b1", "w2", "w3",
                                                                                         "a2", "b2"]
    assert interleave([["w1", "w2"], ["a1", "a2"]], 10, rounds=5) == ["w1", "a1", "w2", "a2"]


def _hit(hid: str, score: float) -> SearchHit:
    return SearchHit(kind="turn", id=hid, level=0, score=score, relevance=score, session_id="s", cwd="/c",
                     project_path="/c", timestamp=datetime(2024, 1, 1, tzinfo=UTC) + timedelta(hours=len(hid)))


def _result(query: str, ids: list[str], **kw: Any) -> SearchResult:
    return SearchResult(query=query, mode="hybrid", effective_mode="hybrid", scope="directory:/c", levels=[0],
                        hits=[_hit(i, 1.0 - n / 10) for n, i in enumerate(ids)], timings_ms={"total": 10.0}, **kw)


def test_split_parts_follows_the_knob_the_hits_and_the_time_window() -> None:
    q = "Which happened first, the marathon or the wedding?"
    assert split_parts(RetrievalConfig(), q) == parse_query_parts(q)
    assert split_parts(RetrievalConfig(query_parts=False), q) is None
    assert split_parts(RetrievalConfig(), 42) is None  # type: ignore[arg-type]  # the search says what is wrong
    assert parts_apply(_result(q, ["t1"]))
    assert not parts_apply(_result(q, []))
    assert not parts_apply(_result(q, ["t1"], time_window={"phrase": "last May", "anchor": "query date"}))
    assert parts_apply(_result(q, ["t1"], time_window={"phrase": "after the launch", "anchor": "event"}))


def test_merge_parts_interleaves_hits_and_says_what_it_did() -> None:
    whole = _result("q", ["w1", "w2", "w3"], warnings=["one"])
    a = _result("a", ["w1", "a2", "a3"], warnings=["one", "two"])
    b = _result("b", ["b1", "b2", "b3"])
    merged = merge_parts(whole, QueryParts(("the marathon", "the wedding"), "phrase"), [a, b], 3)
    assert [h.id for h in merged.hits] == ["w1", "b1", "w2"]
    assert merged.hits[0] is whole.hits[0]  # a hit keeps the scores of the search that found it first
    assert merged.parts == ["the marathon", "the wedding"]
    assert merged.strategy["parts"] == {"phrase": "phrase", "parts": ["the marathon", "the wedding"], "hits": [3, 3]}
    assert merged.warnings == ["one", "two"]
    assert merged.timings_ms["parts"] == 20.0 and merged.timings_ms["total"] == 30.0
    side_by_side = merge_parts(whole, QueryParts(("a", "b"), "p"), [a, b], 3, total_ms=14.5)
    assert side_by_side.timings_ms["total"] == 14.5  # the searches ran beside each other
    assert whole.parts is None and [h.id for h in whole.hits] == ["w1", "w2", "w3"]


def test_the_command_line_says_what_shaped_the_ranking() -> None:
    res = _result("q", ["t1"], time_window={"phrase": "after the launch", "start": "2024-03-01T09:00:00+00:00",
                                            "end": "9999-12-31T00:00:00+00:00", "anchor": "event", "event_turn": "t9"},
                  parts=["the launch", "we fix the login bug"])
    assert how_found(res) == [
        'time window: "after the launch", from 2024-03-01 09:00 on (read from the turn that tells the event: t9)',
        'events searched apart: "the launch"; "we fix the login bug"',
    ]
    assert how_found(_result("q", ["t1"])) == []
    week = _result("q", ["t1"], time_window={"phrase": "last weekend", "start": "2024-06-07T18:00:00+00:00",
                                             "end": "2024-06-10T00:00:00+00:00", "anchor": "query date"})
    assert how_found(week) == ['time window: "last weekend", 2024-06-07 18:00 to 2024-06-10 00:00 (read from the '
                               "search's date)"]
    asked = _result("when did we ship?", ["t1"], strategy={"rerank": {"pool": 3, "tells_when": 2}})
    assert how_found(asked) == ["asks when: 2 candidate(s) that tell a time lifted"]
    untold = _result("when did we ship?", ["t1"], strategy={"rerank": {"pool": 3, "tells_when": 0}})
    assert how_found(untold) == ["asks when: no candidate tells a time"]
