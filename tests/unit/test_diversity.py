"""Session diversity of the top k (pure re-ranking)."""

from __future__ import annotations

from graphmem.retrieval.diversity import session_diversify


def test_decay_makes_room_for_other_sessions() -> None:
    ranked = [("a1", 1.0), ("a2", 0.9), ("a3", 0.85), ("b1", 0.6), ("c1", 0.5)]
    sessions = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "c1": "C"}
    out = session_diversify(ranked, sessions, decay=0.5, k=4)
    assert [d for d, _ in out] == ["a1", "b1", "c1", "a2"]
    assert out[3][1] == 0.45  # a2 after one better hit of its session


def test_decay_one_keeps_the_order_and_cuts_to_k() -> None:
    ranked = [("a1", 1.0), ("a2", 0.9), ("b1", 0.6)]
    assert session_diversify(ranked, {"a1": "A", "a2": "A", "b1": "B"}, decay=1.0, k=2) == ranked[:2]


def test_unknown_sessions_are_not_decayed_and_ties_keep_input_order() -> None:
    ranked = [("x", 1.0), ("y", 1.0), ("z", 0.2)]
    out = session_diversify(ranked, {}, decay=0.1, k=3)
    assert [d for d, _ in out] == ["x", "y", "z"]


def test_negative_scores_still_sink() -> None:
    ranked = [("a1", 0.5), ("a2", -0.1), ("b1", -0.15)]
    out = session_diversify(ranked, {"a1": "A", "a2": "A", "b1": "B"}, decay=0.5, k=3)
    assert [d for d, _ in out] == ["a1", "b1", "a2"]


def test_free_hits_per_session_before_the_decay() -> None:
    ranked = [("a1", 1.0), ("a2", 0.9), ("a3", 0.85), ("b1", 0.6)]
    sessions = {"a1": "A", "a2": "A", "a3": "A", "b1": "B"}
    out = session_diversify(ranked, sessions, decay=0.5, k=4, free=2)
    assert [d for d, _ in out] == ["a1", "a2", "b1", "a3"]
