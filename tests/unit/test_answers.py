"""The question test of the answer lift (which turn ends on a question about the query's words)."""

from __future__ import annotations

from graphmem.retrieval.answers import asks_about
from graphmem.retrieval.eventwindow import stem


def _words(*ws: str) -> set[str]:
    return {stem(w) for w in ws}


def test_a_question_with_two_of_the_words_asks_about_them() -> None:
    words = _words("kind", "books", "library")
    assert asks_about("Nice! What kind of books do you keep in your library?", words)
    assert asks_about("Which book did you borrow from the library? I loved it.", words)  # stems: book, books


def test_a_statement_or_a_question_about_other_things_does_not() -> None:
    words = _words("kind", "books", "library")
    assert not asks_about("I keep all kinds of books in my library.", words)  # no question
    assert not asks_about("Books are great. How was the weather?", words)  # the question holds none
    assert not asks_about("What about the library?", words)  # one word of three
    assert not asks_about("", words)
    assert not asks_about("What kind of books?", set())


def test_a_one_word_query_needs_that_word() -> None:
    assert asks_about("Did you go to the marathon?", _words("marathon"))
    assert not asks_about("Did you go running?", _words("marathon"))
