"""The LoCoMo haystack builder and its metrics, on a small LoCoMo-shaped file (no server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem_devtools.bench.haystack import (
    HaystackQuestion,
    UnknownHaystackError,
    build_haystacks,
    haystack_quality_lines,
    pick_haystacks,
    score_ranking,
)


def _sample(sid: str, a: str, b: str, sessions: int) -> dict[str, object]:
    conv: dict[str, object] = {"speaker_a": a, "speaker_b": b}
    for n in range(1, sessions + 1):
        conv[f"session_{n}"] = [
            {"speaker": a if i % 2 == 0 else b, "dia_id": f"D{n}:{i + 1}", "text": f"{a if i % 2 == 0 else b} says {n}.{i}"}
            for i in range(3)
        ]
        conv[f"session_{n}_date_time"] = f"1:00 pm on {n} May, 2023"
    qa = [{"question": f"What did {a} say?", "evidence": ["D1:3", "D2:1"], "category": 1, "answer": "x"},
          {"question": f"Did {b} lie?", "evidence": ["D1:1"], "category": 5},
          {"question": "Outside?", "evidence": ["D9:1"], "category": 4, "answer": "y"}]
    return {"sample_id": sid, "conversation": conv, "qa": qa}


def test_haystacks_are_reproducible_paired_and_renamed(tmp_path: Path) -> None:
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([_sample("c1", "Ann", "Bob", 4), _sample("c2", "Cid", "Dee", 4),
                                _sample("c3", "Eve", "Fay", 4)]))
    a = build_haystacks(data, sessions=6, needles=2, per_conv=1, seed=3)
    b = build_haystacks(data, sessions=6, needles=2, per_conv=1, seed=3)
    assert [[s.key for s in h.sessions] for h in a] == [[s.key for s in h.sessions] for h in b]
    h = a[0]
    assert h.name == "c1-h0" and len(h.sessions) == 6 and h.half == "tune"
    assert sum(s.key.startswith("c1/") for s in h.sessions) == 2  # the needle sessions, the rest distractors
    stamps = [s.timestamp for s in h.sessions]
    assert stamps == sorted(stamps) and h.now > stamps[-1]
    needle = next(s for s in h.sessions if s.key == "c1/s1")
    assert needle.turns[0].user == "Alex says 1.0" and needle.turns[0].assistant == "Sam says 1.1"
    assert needle.turns[1].assistant == ""  # an odd utterance out has no reply
    # the adversarial question and the one whose evidence is outside the needle are left out
    assert [(q.question, q.gold_turns, q.gold_sessions) for q in h.questions] == [
        ("What did Alex say?", {"c1/s1/t1", "c1/s2/t0"}, {"c1/s1", "c1/s2"})]


def test_a_sample_of_haystacks_is_picked_by_name(tmp_path: Path) -> None:
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([_sample("c1", "Ann", "Bob", 4), _sample("c2", "Cid", "Dee", 4)]))
    hs = build_haystacks(data, sessions=4, needles=2, per_conv=2, seed=3)
    assert [h.name for h in pick_haystacks(hs, ["c2-h0"])] == ["c2-h0"]
    assert pick_haystacks(hs, []) == hs
    with pytest.raises(UnknownHaystackError, match="unknown haystack c9-h0; the haystacks are c1-h0, c2-h0"):
        pick_haystacks(hs, ["c1-h0", "c9-h0"])


def test_assistant_replies_make_each_utterance_a_user_message(tmp_path: Path) -> None:
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([_sample("c1", "Ann", "Bob", 4), _sample("c2", "Cid", "Dee", 4),
                                _sample("c3", "Eve", "Fay", 4)]))
    a = build_haystacks(data, sessions=6, needles=2, per_conv=1, seed=3, replies="assistant")
    b = build_haystacks(data, sessions=6, needles=2, per_conv=1, seed=3, replies="assistant")
    assert [[t.assistant for s in h.sessions for t in s.turns] for h in a] == \
        [[t.assistant for s in h.sessions for t in s.turns] for h in b]
    needle = next(s for s in a[0].sessions if s.key == "c1/s1")
    assert [t.user for t in needle.turns] == ["Alex says 1.0", "Sam says 1.1", "Alex says 1.2"]
    assert all(1500 <= len(t.assistant) <= 6000 for t in needle.turns)
    assert "Ann" not in needle.turns[0].assistant  # replies echo the renamed message, nothing else of the user
    assert [(q.gold_turns, q.gold_sessions) for q in a[0].questions] == [({"c1/s1/u2", "c1/s2/u0"}, {"c1/s1", "c1/s2"})]
    with pytest.raises(ValueError, match="replies must be one of"):
        build_haystacks(data, replies="echo")


def test_scores_need_every_gold_turn_and_session() -> None:
    q = HaystackQuestion("q", 1, {"c/s1/t0", "c/s2/t3"}, {"c/s1", "c/s2"})
    ranked = ["x/s9/t0", "c/s1/t0", "c/s1/t1", "y/s1/t0", "z/s1/t0", "w/s1/t0", "c/s2/t3"]
    m = score_ranking(q, ranked)
    assert m["turn all@5"] == 0.0 and m["turn all@10"] == 1.0 and m["turn all@30"] == 1.0
    assert m["session all@5"] == 0.0  # c/s2 is the sixth distinct session
    assert score_ranking(q, [*ranked[:2], "c/s2/t3"])["session all@5"] == 1.0


def test_quality_lines_list_every_retriever() -> None:
    table = {half: {"overall": {"turn all@5": 0.5, "turn all@10": 0.6, "turn all@30": 0.7, "session all@5": 0.8}}
             for half in ("tune", "test", "all")}
    figs = {"questions": {"tune": 3, "test": 2}, "haystacks": {"tune": 1, "test": 1}, "sessions_per_haystack": 50,
            "turns": 10, "runs": [{"name": "hybrid", "table": table}], "baselines": {"BM25": table}}
    lines = haystack_quality_lines(figs)
    assert lines[0].startswith("tune: 3 questions in 1 haystacks, test: 2 questions in 1 haystacks")
    assert any(line.startswith("| graphmem hybrid | 0.500") for line in lines)
    assert any(line.startswith("| BM25 | ") for line in lines)


def test_a_half_without_questions_shows_dashes_not_zeros() -> None:
    overall = {"turn all@5": 0.5, "turn all@10": 0.6, "turn all@30": 0.7, "session all@5": 0.8}
    table = {"tune": {"overall": overall}, "test": {}, "all": {"overall": overall}}
    figs = {"questions": {"tune": 3, "test": 0}, "haystacks": {"tune": 1, "test": 0}, "sessions_per_haystack": 50,
            "turns": 10, "runs": [{"name": "hybrid", "table": table}], "baselines": {}}
    row = next(line for line in haystack_quality_lines(figs) if line.startswith("| graphmem hybrid |"))
    assert row == "| graphmem hybrid | 0.500 | 0.600 | 0.700 | 0.800 | — | — | — | — |"


def test_sweep_run_names_are_unique_and_selectable_by_only() -> None:
    """``bench locomo --only`` takes comma-separated run names: a name must hold no comma."""
    from graphmem_devtools.bench.haystack import sweep_haystack_runs
    from graphmem_devtools.bench.haystack_core import default_haystack_runs
    from graphmem_devtools.bench.locomo import sweep_runs, tuned_runs

    for names in ([r.name for r in default_haystack_runs() + sweep_haystack_runs()],
                  [r.name for r in tuned_runs()[0] + sweep_runs()]):
        assert len(names) == len(set(names)), names
        assert not [n for n in names if "," in n]


def test_mixed_haystacks_pour_chat_and_coding_into_one_directory(tmp_path: Path) -> None:
    from graphmem_devtools.bench.mixed import MIXED_GROUPS, build_mixed_haystacks

    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([_sample(f"c{i}", "Ann", "Bob", 4) for i in range(10)]))
    hays = build_mixed_haystacks(data, chat_sessions=4, coding_sessions=3, needles=2, seed=3)
    assert [h.half for h in hays] == ["tune"] * 5 + ["test"] * 5
    h = hays[0]
    assert h.name.startswith("c0-h0+") and h.now >= max(s.timestamp for s in h.sessions)
    chat = [q for q in h.questions if q.group.startswith("chat: ")]
    coding = [q for q in h.questions if q.group.startswith("coding: ")]
    assert chat and coding and {q.group for q in h.questions} <= set(MIXED_GROUPS)
    keys = {s.key for s in h.sessions}
    assert all(q.gold_turns and {t.rsplit("/", 1)[0] for t in q.gold_turns} <= keys for q in h.questions)
    assert all(q.now is not None and q.now < h.now for q in chat)  # asked at the LoCoMo haystack's own date
    assert sum(s.key.startswith("c0/") for s in h.sessions) == 2
    assert any(len(t.assistant) > 1000 for s in h.sessions for t in s.turns)  # the coding replies are long
    assert [s.timestamp for s in h.sessions] == sorted(s.timestamp for s in h.sessions)


def test_locomo_observations_are_tied_to_the_first_turn_they_cite(tmp_path: Path) -> None:
    from graphmem_devtools.bench.locomo import LocomoObservation, load_locomo

    sample = _sample("c1", "Ann", "Bob", 2)
    sample["observation"] = {
        "session_2_observation": {"Bob": [["Bob likes tea.", "D2:2"]]},
        "session_1_observation": {"Ann": [["Ann moved.", "D1:1"], ["Ann has two cats.", ["D9:9", "D1:3"]],
                                          ["Nowhere.", "D9:1"], ["  ", "D1:2"]]},
    }
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([sample]))
    conv = load_locomo(data)[0]
    # session by session; an observation citing no turn of the conversation, or empty, is left out
    assert conv.observations == [LocomoObservation("Ann", "Ann moved.", "D1:1"),
                                 LocomoObservation("Ann", "Ann has two cats.", "D1:3"),
                                 LocomoObservation("Bob", "Bob likes tea.", "D2:2")]


def test_two_event_questions_pair_when_questions_of_different_sessions(tmp_path: Path) -> None:
    from graphmem.retrieval.queryparts import parse_query_parts
    from graphmem_devtools.bench.two_events import FORMS, compose_two_event_questions

    samples = [_sample("c1", "Ann", "Bob", 4), _sample("c2", "Cid", "Dee", 4)]
    samples[0]["qa"] = [  # type: ignore[index]
        {"question": f"When did Ann paint a {thing}?", "evidence": [f"D{n}:1"], "category": 2, "answer": "x"}
        for n, thing in ((1, "sunrise"), (2, "lake"), (3, "cat"), (4, "boat"))
    ] + [{"question": "When did Ann and Bob meet?", "evidence": ["D1:1", "D2:1"], "category": 2, "answer": "x"},
         {"question": "What did Ann paint?", "evidence": ["D1:1"], "category": 1, "answer": "x"}]
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps(samples))
    haystacks = build_haystacks(data, sessions=6, needles=4, per_conv=1, seed=3)
    a = compose_two_event_questions(haystacks, rounds=4, seed=5)
    assert [[q.question for q in h.questions] for h in a] == [
        [q.question for q in h.questions] for h in compose_two_event_questions(haystacks, rounds=4, seed=5)]
    (h,) = a  # the other conversation has no "When did" question of one evidence turn
    assert len({frozenset(q.evidence) for q in h.questions}) == len(h.questions)
    assert "how long after" in {q.group for q in h.questions}
    when = {s.key: s.timestamp for s in h.sessions}
    session_of = {"sunrise": 1, "lake": 2, "cat": 3, "boat": 4}
    for n, q in enumerate(h.questions):
        assert q.group == list(FORMS)[n % len(FORMS)] and len(q.gold_turns) == 2 and len(q.gold_sessions) == 2
        assert q.question == FORMS[q.group].format(a=q.evidence[0], b=q.evidence[1])
        parts = parse_query_parts(q.question)
        assert parts is not None and [p.lower() for p in parts.parts] == [e.lower() for e in q.evidence]
        if q.group == "how long after":  # asked in the order the events happened
            first, second = (when[f"c1/s{session_of[e.split()[-1]]}"] for e in q.evidence)
            assert first < second
