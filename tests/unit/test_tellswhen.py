"""Questions that ask when, memories that tell when, and the lift between them."""

from __future__ import annotations

import pytest

from graphmem.retrieval.tellswhen import asks_when, lift_told, tells_when


@pytest.mark.parametrize("query", [
    "When did Caroline go to the LGBTQ support group?",
    "when is the release?",
    "So when did we switch to Postgres?",
    "Since when do we pin the driver?",
    "How long ago was the wedding?",
    "What year did Melanie start painting?",
    "In which month did I move?",
    "which day did we deploy the fix",
    "Quand ai-je changé de travail ?",
    "Depuis quand utilisons-nous Neo4j ?",
    "En quelle année sommes-nous allés à Lyon ?",
    "À quelle date part le train ?",
    "Il y a combien de temps que j'ai vu Ana ?",
])
def test_questions_that_ask_when(query: str) -> None:
    assert asks_when(query)


@pytest.mark.parametrize("query", [
    "What did I eat yesterday?",
    "Do you remember when I moved?",
    "where did we go hiking",
    "whenever the build fails, what do we do?",
    "how long did the migration take?",
    "Qu'est-ce que j'ai mangé hier ?",
    "",
])
def test_questions_that_do_not(query: str) -> None:
    assert not asks_when(query)


@pytest.mark.parametrize("text", [
    "I went to a support group yesterday.",
    "We met on Friday at the cafe.",
    "It was back in March, I think.",
    "Moved here three years ago",
    "last summer we drove to the coast",
    "the past week was hectic",
    "in May we painted the fence",
    "on May 3 the shop opened",
    "the 2019 trip to Rome",
    "deploy on 12/05 after the freeze",
    "released 2024-06-08",
    "the weekend was fun",
    "J'y suis allé hier soir.",
    "il y a deux jours, on a migré",
    "la semaine dernière",
])
def test_texts_that_tell_a_time(text: str) -> None:
    assert tells_when(text)


@pytest.mark.parametrize("text", [
    "I may go to the gym",
    "My dog loves long walks by the lake.",
    "il y a un chat dans le jardin",
    "Use the retry policy with backoff.",
    "mar 5 is not a date alone",
    "",
])
def test_texts_that_do_not(text: str) -> None:
    assert not tells_when(text)


def test_the_lift_adds_a_share_of_the_best_score_to_the_texts_that_tell_a_time() -> None:
    ranked = [("a", 1.0), ("b", 0.9), ("c", 0.5), ("d", 0.4)]
    texts = {"a": "I love the climbing gym", "b": "the gym", "c": "went climbing yesterday", "d": None}
    out, lifted = lift_told(ranked, texts, 0.6)
    assert [d for d, _ in out] == ["c", "a", "b", "d"] and lifted == 1
    assert out[0][1] == pytest.approx(1.1)
    assert lift_told(ranked, texts, 0.0) == (ranked, 0)
    assert lift_told([], texts, 0.6) == ([], 0)


def test_ties_keep_the_fused_order() -> None:
    ranked = [("a", 1.0), ("b", 1.0)]
    out, lifted = lift_told(ranked, {"a": "yesterday", "b": "today"}, 0.2)
    assert [d for d, _ in out] == ["a", "b"] and lifted == 2


@pytest.mark.parametrize("text", ["moved the export to 03:00 UTC", "at 7 pm", "à 14h30", "around noon"])
def test_a_time_of_day_tells_a_time(text: str) -> None:
    assert tells_when(text)
    assert asks_when("At what time does the nightly export run now?")


@pytest.mark.parametrize("text", ["yesterday's game was long", "Monday's standup", "on se voit aujourd'hui",
                                  "avant-hier", "un bon week-end", "at 7 a.m. sharp"])
def test_words_joined_to_others_still_tell_a_time(text: str) -> None:
    assert tells_when(text)
