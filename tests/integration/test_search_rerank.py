"""Time-aware search, session diversity and questions comparing two events, on a real Neo4j."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from graphmem import Database, GraphMemory
from graphmem.embedding import LocalEmbedder
from graphmem.retrieval import RetrievalConfig, Scope
from graphmem.retrieval.models import SearchMode
from graphmem.retrieval.rerank import last_turn_at

pytestmark = pytest.mark.integration

NOW = datetime(2024, 6, 12, 15, 0, tzinfo=UTC)  # a Wednesday; "last weekend" = 8-9 June


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    e = LocalEmbedder()
    e.load()
    return e


@pytest.fixture
def mem(database: Database, embedder: LocalEmbedder) -> Iterator[GraphMemory]:
    yield GraphMemory(database, embedder=embedder)


def _turn(mem: GraphMemory, cwd: str, when: datetime, user: str, assistant: str) -> str:
    s = mem.create_session(cwd, project_path=cwd, started_at=when)
    return mem.store_turn(s.id, user, assistant, timestamp=when).id


def test_a_named_time_window_lifts_the_turns_inside_it(mem: GraphMemory, namespace: str) -> None:
    cwd = namespace + "/life"
    may = _turn(mem, cwd, datetime(2024, 5, 2, 10, 0, tzinfo=UTC), "We went hiking, hiking all day on the ridge trail.",
                "Hiking the ridge trail sounds great, hiking boots help.")
    weekend = _turn(mem, cwd, datetime(2024, 6, 8, 11, 0, tzinfo=UTC), "Went hiking near the lake.",
                    "Nice, the lake is lovely.")
    mem.embed_pending()
    mem.await_text_index()
    mem.searcher(replace(RetrievalConfig(), time_boost=1.0))
    scope = Scope.directory(cwd)
    plain = mem.search("where did I go hiking", scope=scope, levels=(0,), k=2, mode="text", now=NOW)
    assert [h.id for h in plain.hits] == [may, weekend] and plain.time_window is None
    timed = mem.search("where did I go hiking last weekend", scope=scope, levels=(0,), k=2, mode="text", now=NOW)
    assert [h.id for h in timed.hits] == [weekend, may]
    assert timed.time_window == {"phrase": "last weekend", "start": "2024-06-07T18:00:00+00:00",
                                 "end": "2024-06-10T00:00:00+00:00", "anchor": "query date"}
    assert timed.strategy["rerank"]["in_window"] == 1
    # the same query a month later names another window: the weekend turn is no longer lifted
    later = mem.search("where did I go hiking last weekend", scope=scope, levels=(0,), k=2, mode="text",
                       now=NOW + timedelta(days=30))
    assert [h.id for h in later.hits] == [may, weekend] and later.time_window is not None
    mem.searcher(replace(RetrievalConfig(), time_boost=2.0))
    hybrid = mem.search("where did I go hiking last weekend", scope=scope, levels=(0,), k=2, now=NOW)
    assert hybrid.hits[0].id == weekend and hybrid.time_window is not None


def test_an_undated_query_on_an_idle_history_reads_its_window_from_the_last_turn(
    mem: GraphMemory, namespace: str,
) -> None:
    cwd = namespace + "/archive"
    may = _turn(mem, cwd, datetime(2024, 5, 2, 10, 0, tzinfo=UTC), "We went hiking, hiking all day on the ridge trail.",
                "Hiking the ridge trail sounds great, hiking boots help.")
    weekend = _turn(mem, cwd, datetime(2024, 6, 8, 11, 0, tzinfo=UTC), "Went hiking near the lake.",
                    "Nice, the lake is lovely.")
    s = mem.create_session(cwd, project_path=cwd, started_at=datetime(2024, 6, 11, 9, 0, tzinfo=UTC))
    mem.store_turn(s.id, "Remind me to buy bread.", "Noted: bread.", timestamp=datetime(2024, 6, 11, 9, 0, tzinfo=UTC))
    mem.embed_pending()
    mem.await_text_index()
    scope = Scope.directory(cwd)
    assert last_turn_at(mem.db, scope) == datetime(2024, 6, 11, 9, 0, tzinfo=UTC)
    assert last_turn_at(mem.db, Scope.session(s.id)) == datetime(2024, 6, 11, 9, 0, tzinfo=UTC)
    assert last_turn_at(mem.db, Scope.project(cwd)) == datetime(2024, 6, 11, 9, 0, tzinfo=UTC)
    assert last_turn_at(mem.db, Scope.directory(namespace + "/nothing here")) is None
    assert last_turn_at(mem.db, Scope.everything()) is not None
    # no date given: today's "last weekend" is after the history's end, so the query is read as if
    # asked the day after the last turn (Wednesday 12 June: the weekend of 8-9 June)
    mem.searcher(replace(RetrievalConfig(), time_boost=1.0))
    res = mem.search("where did I go hiking last weekend", scope=scope, levels=(0,), k=2, mode="text")
    assert [h.id for h in res.hits] == [weekend, may]
    assert res.time_window == {"phrase": "last weekend", "start": "2024-06-07T18:00:00+00:00",
                               "end": "2024-06-10T00:00:00+00:00", "anchor": "last turn"}
    # the same in a session scope (whose only turn is the last one)
    in_session = mem.search("hiking last weekend", scope=Scope.session(s.id), levels=(0,), k=2, mode="text")
    assert in_session.time_window is not None and in_session.time_window["anchor"] == "last turn"
    # a given date is taken as it is, even when nothing falls in its window
    dated = mem.search("where did I go hiking last weekend", scope=scope, levels=(0,), k=2, mode="text",
                       now=datetime(2025, 1, 15, tzinfo=UTC))
    assert [h.id for h in dated.hits] == [may, weekend]
    assert dated.time_window is not None and dated.time_window["anchor"] == "query date"
    # switched off: the window stays relative to today and lifts nothing here
    mem.searcher(replace(RetrievalConfig(), time_boost=1.0, anchor_to_last_turn=False))
    today = mem.search("where did I go hiking last weekend", scope=scope, levels=(0,), k=2, mode="text")
    assert [h.id for h in today.hits] == [may, weekend]
    assert today.time_window is not None and today.time_window["anchor"] == "now"


def test_an_undated_query_on_a_live_history_keeps_today_s_window(mem: GraphMemory, namespace: str) -> None:
    cwd = namespace + "/live"
    _turn(mem, cwd, datetime(2024, 6, 8, 11, 0, tzinfo=UTC), "Went hiking near the lake.", "Nice, the lake is lovely.")
    # the recent turn does not match the query: the scope's last turn is read to know the history is live
    _turn(mem, cwd, datetime.now(UTC), "Remind me to buy bread.", "Noted: bread.")
    mem.await_text_index()
    mem.searcher(replace(RetrievalConfig(), time_boost=1.0))
    res = mem.search("hiking last weekend", scope=Scope.directory(cwd), levels=(0,), k=2, mode="text")
    assert res.time_window is not None and res.time_window["anchor"] == "now"
    # a recent candidate shows it without that read
    _turn(mem, cwd, datetime.now(UTC), "Any plans for hiking?", "Not yet.")
    mem.await_text_index()
    res = mem.search("hiking last weekend", scope=Scope.directory(cwd), levels=(0,), k=2, mode="text")
    assert res.time_window is not None and res.time_window["anchor"] == "now"


def test_a_calendar_date_lifts_that_day_whatever_the_query_date(mem: GraphMemory, namespace: str) -> None:
    cwd = namespace + "/dated"
    may = _turn(mem, cwd, datetime(2023, 5, 2, 10, 0, tzinfo=UTC), "We went hiking, hiking all day on the ridge trail.",
                "Hiking the ridge trail sounds great, hiking boots help.")
    october = _turn(mem, cwd, datetime(2023, 10, 13, 11, 0, tzinfo=UTC), "Went hiking near the lake.",
                    "Nice, the lake is lovely.")
    mem.await_text_index()
    mem.searcher(replace(RetrievalConfig(), time_boost=1.0))
    scope = Scope.directory(cwd)
    res = mem.search("where did I go hiking on October 13, 2023?", scope=scope, levels=(0,), k=2, mode="text")
    assert [h.id for h in res.hits] == [october, may]
    assert res.time_window == {"phrase": "October 13, 2023", "start": "2023-10-13T00:00:00+00:00",
                               "end": "2023-10-14T00:00:00+00:00", "anchor": "date"}
    week = mem.search("where did I go hiking the week before 4 May 2023", scope=scope, levels=(0,), k=2, mode="text",
                      now=NOW)
    assert [h.id for h in week.hits] == [may, october]
    assert week.time_window is not None and week.time_window["start"] == "2023-04-27T00:00:00+00:00"
    mem.searcher(replace(RetrievalConfig(), time_boost=1.0, calendar_dates=False))
    off = mem.search("where did I go hiking on October 13, 2023?", scope=scope, levels=(0,), k=2, mode="text")
    assert [h.id for h in off.hits] == [may, october] and off.time_window is None


def test_a_season_lifts_the_turns_of_that_season_and_the_next(mem: GraphMemory, namespace: str) -> None:
    cwd = namespace + "/season"
    spring = _turn(mem, cwd, datetime(2023, 4, 2, 10, 0, tzinfo=UTC), "We went hiking, hiking all day on the ridge.",
                   "Hiking the ridge sounds great, hiking boots help.")
    autumn = _turn(mem, cwd, datetime(2023, 10, 3, 11, 0, tzinfo=UTC), "In August we went hiking near the lake.",
                   "Nice, the lake is lovely.")
    mem.await_text_index()
    mem.searcher(replace(RetrievalConfig(), time_boost=1.0))
    scope = Scope.directory(cwd)
    asked = datetime(2024, 1, 15, tzinfo=UTC)
    res = mem.search("where did I go hiking last summer?", scope=scope, levels=(0,), k=2, mode="text", now=asked)
    assert [h.id for h in res.hits] == [autumn, spring]  # told in October: a season is told of afterwards
    assert res.time_window is not None and res.time_window["phrase"] == "last summer"
    assert res.time_window["start"] == "2023-06-01T00:00:00+00:00"
    mem.searcher(replace(RetrievalConfig(), time_boost=1.0, calendar_periods=False))
    off = mem.search("where did I go hiking last summer?", scope=scope, levels=(0,), k=2, mode="text", now=asked)
    assert [h.id for h in off.hits] == [spring, autumn] and off.time_window is None


def test_an_event_the_query_names_splits_the_history_at_the_turn_that_tells_it(
    mem: GraphMemory, namespace: str,
) -> None:
    cwd = namespace + "/moved"
    t0 = datetime(2024, 1, 10, 9, 0, tzinfo=UTC)
    old = _turn(mem, cwd, t0, "The gym near my flat in Lyon, gym every morning, gym gym.", "A gym routine is good.")
    moved = _turn(mem, cwd, t0 + timedelta(days=30), "We finally moved to Paris last week!", "Congratulations on the move.")
    new = _turn(mem, cwd, t0 + timedelta(days=60), "I joined a new gym in Paris.", "Nice gym.")
    mem.await_text_index()
    mem.searcher(replace(RetrievalConfig(), event_boost=1.0))
    scope = Scope.directory(cwd)
    plain = mem.search("which gym did I go to", scope=scope, levels=(0,), k=2, mode="text")
    assert [h.id for h in plain.hits] == [old, new] and plain.time_window is None
    after = mem.search("which gym did I go to after I moved", scope=scope, levels=(0,), k=2, mode="text")
    # the event's own turn is on both sides: it tells when, and "how long after I moved" needs it
    assert sorted(h.id for h in after.hits) == sorted([new, moved])
    assert after.time_window is not None and after.time_window["anchor"] == "event"
    assert after.time_window["event_turn"] == moved and after.time_window["phrase"] == "after I moved"
    assert after.strategy["rerank"]["event"] == {"phrase": "after I moved", "turn": moved}
    before = mem.search("which gym did I go to before I moved", scope=scope, levels=(0,), k=3, mode="text")
    assert [h.id for h in before.hits][:2] in ([old, moved], [moved, old])
    assert before.time_window is not None and before.time_window["end"] == "2024-02-09T09:00:01+00:00"
    # an event no turn tells lifts nothing
    unknown = mem.search("which gym did I go to after the marathon", scope=scope, levels=(0,), k=2, mode="text")
    assert unknown.time_window is None and unknown.strategy["rerank"]["event"]["turn"] is None
    mem.searcher(replace(RetrievalConfig(), event_boost=0.0))
    off = mem.search("which gym did I go to after I moved", scope=scope, levels=(0,), k=2, mode="text")
    assert off.time_window is None


def test_session_decay_spreads_the_top_k_over_sessions(mem: GraphMemory, namespace: str) -> None:
    cwd = namespace + "/diverse"
    base = datetime(2024, 6, 1, tzinfo=UTC)
    s1 = mem.create_session(cwd, project_path=cwd, started_at=base)
    crowd = [mem.store_turn(s1.id, f"the garden tomatoes and the garden beans, note {i}",
                            "garden tomatoes garden beans", timestamp=base + timedelta(minutes=i)).id
             for i in range(3)]
    other = _turn(mem, cwd, base + timedelta(days=3), "my garden had tomatoes and beans", "good")
    mem.embed_pending()
    mem.await_text_index()
    scope = Scope.directory(cwd)
    mem.searcher(replace(RetrievalConfig(), session_weight=0.0, time_boost=0.0))
    plain = [h.id for h in mem.search("garden tomatoes beans", scope=scope, levels=(0,), k=2, mode="text").hits]
    assert set(plain) <= set(crowd)
    # the other session's turn scores ~0.1-0.2 of the crowd's (Lucene statistics vary with what else the
    # index holds); a decay of 0.01 puts a second crowd turn far below it
    mem.searcher(replace(RetrievalConfig(), session_weight=0.0, session_decay=0.01))
    res = mem.search("garden tomatoes beans", scope=scope, levels=(0,), k=2, mode="text")
    assert res.hits[0].id in crowd and res.hits[1].id == other
    assert res.strategy["rerank"]["session_decay"] == 0.01


PARTS_QUESTION = "How many days passed between the day I adopted the kitten and the day I ran the marathon?"


def _session(mem: GraphMemory, cwd: str, when: datetime, turns: list[tuple[str, str]]) -> list[str]:
    s = mem.create_session(cwd, project_path=cwd, started_at=when)
    return [mem.store_turn(s.id, u, a, timestamp=when + timedelta(minutes=i)).id for i, (u, a) in enumerate(turns)]


def _two_events(mem: GraphMemory, cwd: str) -> tuple[str, str]:
    """A history where the kitten comes up often and the marathon once: the turns that tell the
    adoption and the marathon."""
    t0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
    kitten = _session(mem, cwd, t0, [("I adopted the kitten today from the shelter.", "Congratulations on the kitten!")])[0]
    _session(mem, cwd, t0 + timedelta(days=3), [
        ("The kitten keeps me up all day, what can I do?", "A kitten needs play during the day."),
        ("Which toys suit a kitten on a long day alone?", "A kitten this young likes wand toys all day."),
        ("The kitten passed her first vet check today.", "Good news, the kitten passed."),
        ("How many days until the kitten can go outside?", "Keep the kitten in for some days."),
    ])
    _session(mem, cwd, t0 + timedelta(days=20), [("Some weather today.", "Indeed.")])
    marathon = _session(mem, cwd, t0 + timedelta(days=40),
                        [("Finished the city marathon in four hours!", "Well done, that is a great time.")])[0]
    mem.embed_pending()
    mem.await_text_index()
    return kitten, marathon


@pytest.mark.parametrize("mode", ["text", "hybrid"])
def test_each_event_reaches_the_top(mem: GraphMemory, namespace: str, mode: SearchMode) -> None:
    cwd = f"{namespace}/life-{mode}"
    kitten, marathon = _two_events(mem, cwd)
    scope = Scope.directory(cwd)
    mem.searcher(RetrievalConfig(query_parts=False))
    whole = mem.search(PARTS_QUESTION, scope=scope, levels=(0,), k=3, mode=mode)
    assert marathon not in [h.id for h in whole.hits] and whole.parts is None
    mem.searcher(RetrievalConfig())
    split = mem.search(PARTS_QUESTION, scope=scope, levels=(0,), k=3, mode=mode)
    ids = [h.id for h in split.hits]
    assert marathon in ids and kitten in ids and len(ids) == len(set(ids)) == 3
    assert split.parts == ["I adopted the kitten", "I ran the marathon"]
    assert split.strategy["parts"]["parts"] == split.parts and "parts" in split.timings_ms
    # a question about one event is searched once
    one = mem.search("when did I run the marathon?", scope=scope, levels=(0,), k=3, mode=mode)
    assert one.parts is None and "parts" not in one.strategy


@pytest.mark.parametrize("mode", ["text", "hybrid"])
def test_a_question_that_asks_when_lifts_the_turn_that_tells_a_time(
    mem: GraphMemory, namespace: str, mode: SearchMode,
) -> None:
    cwd = f"{namespace}/gym-{mode}"
    at = datetime(2024, 6, 1, 10, 0, tzinfo=UTC)
    talk = _turn(mem, cwd, at, "The climbing gym, the climbing gym! I love going to the climbing gym.",
                 "The climbing gym is a good place to go.")
    went = _turn(mem, cwd, at + timedelta(days=3), "I went to the climbing gym yesterday with Ana.", "Nice.")
    mem.embed_pending()
    mem.await_text_index()
    scope = Scope.directory(cwd)
    question = "When did I go to the climbing gym?"
    mem.searcher(RetrievalConfig(when_boost=0.0))
    plain = mem.search(question, scope=scope, levels=(0,), k=2, mode=mode)
    assert [h.id for h in plain.hits] == [talk, went] and "rerank" not in plain.strategy
    mem.searcher(RetrievalConfig(when_boost=2.0))  # two hits: the worse one scores 0 after min-max
    lifted = mem.search(question, scope=scope, levels=(0,), k=2, mode=mode)
    assert [h.id for h in lifted.hits] == [went, talk]
    assert lifted.strategy["rerank"]["tells_when"] == 1
    # a question that does not ask when keeps the words' order
    other = mem.search("what do I love about the climbing gym?", scope=scope, levels=(0,), k=2, mode=mode)
    assert other.hits[0].id == talk and "rerank" not in other.strategy
    mem.searcher(RetrievalConfig())


def test_the_turn_after_a_question_about_the_query_answers_it(mem: GraphMemory, namespace: str) -> None:
    cwd = namespace + "/chat"
    t0 = datetime(2024, 5, 1, 18, 0, tzinfo=UTC)
    s = mem.create_session(cwd, project_path=cwd, started_at=t0)
    said = [
        "Hey Sam, how was your weekend?",
        "Great! I finally finished the shelves for the kids' room.",
        "Nice! What kind of books do you keep in your library?",
        "Lots of classics, stories from different cultures and educational stuff.",
        "I love that. Reading to them every night is the best.",
    ]
    ids = [mem.store_turn(s.id, u, "", timestamp=t0 + timedelta(minutes=i)).id for i, u in enumerate(said)]
    # a request answered in its own reply: the turn after it is not the answer
    told = _session(mem, cwd, t0 + timedelta(days=2), [
        ("Which books on library science should I read?", "Start with the classics of cataloguing."),
        ("Thanks, and the weather tomorrow?", "Sunny."),
    ])
    mem.embed_pending()
    mem.await_text_index()
    scope = Scope.directory(cwd)
    question = "What kind of books does Sam have in the library?"
    mem.searcher(replace(RetrievalConfig(), answer_lift=0.0))
    plain = [h.id for h in mem.search(question, scope=scope, levels=(0,), k=4, mode="text").hits]
    assert ids[2] in plain and ids[3] not in plain  # the answer shares none of the question's words
    mem.searcher(RetrievalConfig())
    res = mem.search(question, scope=scope, levels=(0,), k=4, mode="text")
    found = [h.id for h in res.hits]
    assert found[found.index(ids[2]) + 1] == ids[3]
    assert told[1] not in found
    assert res.strategy["answers"]["lifted"] == 1
    # hybrid reads the asking turns beside its graph statement
    hy = mem.search(question, scope=scope, levels=(0,), k=4)
    found = [h.id for h in hy.hits]
    assert found[found.index(ids[2]) + 1] == ids[3] and hy.strategy["answers"]["lifted"] == 1
