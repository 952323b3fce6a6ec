"""The background warm-up a service starts: one line for what it did or why it stopped, silence otherwise."""

from __future__ import annotations

from collections.abc import Callable

from graphmem.errors import DatabaseUnavailable
from graphmem.retrieval.warmup import WarmUp, warm_up_in_background


def _lines(run: Callable[[], WarmUp]) -> list[str]:
    said: list[str] = []
    warm_up_in_background(run, said.append).join()
    return said


def test_a_warm_up_that_ran_says_what_it_ran() -> None:
    done = WarmUp("s1", searches=90, contexts=15, seconds=48.2)
    assert _lines(lambda: done) == ["search warm-up: 90 searches and 15 contexts in 48.2 s"]


def test_a_warm_server_or_an_empty_memory_says_nothing() -> None:
    assert _lines(lambda: WarmUp("s1", already_warm=True)) == []
    assert _lines(lambda: WarmUp(None)) == []


def test_a_memory_that_cannot_connect_says_so_in_one_line() -> None:
    def fail() -> WarmUp:
        raise DatabaseUnavailable("Neo4j is not reachable at bolt://127.0.0.1:1\nsecond line")

    assert _lines(fail) == ["search warm-up stopped: Neo4j is not reachable at bolt://127.0.0.1:1"]
