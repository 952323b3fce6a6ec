"""Windows relative to an event the query names: the clause, the turn that tells it, the side."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graphmem.retrieval.datewindow import OPEN_END, OPEN_START
from graphmem.retrieval.eventwindow import EventReference, covers, event_window, parse_event_reference


@pytest.mark.parametrize(
    ("query", "relation", "event"),
    [
        ("what did I do before I moved", "before", "I moved"),
        ("How many days before I bought the iPhone did I attend the Apple event?", "before", "I bought the iPhone"),
        ("How did Melanie feel after the accident?", "after", "the accident"),
        ("what did we change since we switched to Postgres", "after", "we switched to Postgres"),
        ("How many weeks had passed since I recovered from the flu when I went on my 10th jog?", "after",
         "I recovered from the flu"),
        ("Combien de jours depuis mon déménagement quand j'ai repeint la cuisine ?", "after", "mon déménagement"),
        ("Which city was John in before traveling to Chicago?", "before", "traveling to Chicago"),
        ("qu'ai-je fait avant mon déménagement ?", "before", "mon déménagement"),
        ("depuis que j'ai changé de travail, combien de fois suis-je allé à Lyon ?", "after",
         "que j'ai changé de travail"),
    ],
)
def test_event_clauses(query: str, relation: str, event: str) -> None:
    ref = parse_event_reference(query)
    assert ref is not None and (ref.relation, ref.event) == (relation, event)
    assert ref.phrase.endswith(event)


@pytest.mark.parametrize("query", [
    "can you look after my dog", "what did we do before that", "what happened after lunch", "named after her grandmother",
    "Since I like cats, what should I adopt?", "After how many weeks did Tim call back?", "tournaments organized till date",
    "what did I do after a long day", "what is my favourite colour", "",
    # instructions are not questions about the past
    "run the linter before committing", "insert the import after the docstring",
])
def test_no_event(query: str) -> None:
    assert parse_event_reference(query) is None


def test_covers_needs_half_of_the_clause_words_with_a_crude_stem() -> None:
    assert covers("We finally moved into the new flat last week!", "I moved")
    assert covers("Packing everything, moving is exhausting", "I moved")
    assert covers("the weddings were lovely", "the wedding")
    assert not covers("I bought a phone case", "I bought the iPhone at the Apple store")
    assert not covers("anything", "the")


def test_the_window_is_the_named_side_of_the_event_its_session_included() -> None:
    start, end = datetime(2024, 3, 5, 10, 0, tzinfo=UTC), datetime(2024, 3, 5, 11, 30, tzinfo=UTC)
    before = EventReference("before", "I moved", "before I moved")
    assert event_window(before, start, end) == (OPEN_START, end + timedelta(seconds=1))
    assert event_window(EventReference("after", "the wedding", "after the wedding"), start, end) == (start, OPEN_END)
