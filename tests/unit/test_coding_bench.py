"""The generated coding-assistant histories and the side-by-side quality table (no server)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from graphmem.retrieval.timewindow import parse_time_window
from graphmem_devtools.bench.coding_data import KINDS, PER_KIND, build_coding_haystacks, coding_haystack, dump_haystacks
from graphmem_devtools.bench.haystack_core import BASELINE_NAMES, bm25_rankings, score_ranking, table
from graphmem_devtools.bench.quality_compare import BEGIN, END, haystack_cells, side_by_side, update_section


@pytest.fixture(scope="module")
def haystacks() -> list:  # type: ignore[type-arg]
    return build_coding_haystacks(4, seed=5)


def _flat(h):  # type: ignore[no-untyped-def]
    return [(s, t) for s in h.sessions for t in s.turns]


def test_same_seed_same_data_other_seed_other_data(tmp_path: Path) -> None:
    a, b = coding_haystack(5, 0), coding_haystack(5, 0)
    dump_haystacks([a], tmp_path / "a.json")
    dump_haystacks([b], tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    c = coding_haystack(6, 0)
    assert [t.assistant for _, t in _flat(c)] != [t.assistant for _, t in _flat(a)]
    dumped = json.loads((tmp_path / "a.json").read_text())
    assert dumped[0]["name"] == a.name and len(dumped[0]["questions"]) == len(a.questions)
    assert dumped[0]["sessions"][0]["turns"][0]["id"] == a.sessions[0].turns[0].source_id


def test_every_kind_with_gold_turns_that_exist(haystacks: list) -> None:  # type: ignore[type-arg]
    for h in haystacks:
        ids = {t.source_id: s.key for s, t in _flat(h)}
        assert len(ids) == sum(len(s.turns) for s in h.sessions)  # source ids are unique
        assert len(h.sessions) == 50 and all(4 <= len(s.turns) <= 20 for s in h.sessions)
        kinds = [q.group for q in h.questions]
        assert {k: kinds.count(k) for k in KINDS} == PER_KIND
        for q in h.questions:
            assert q.gold_turns and q.gold_turns <= set(ids), q
            assert q.gold_sessions == {ids[g] for g in q.gold_turns}
            assert q.now == h.now
        agg = [q for q in h.questions if q.group == "aggregation"]
        assert all(len(q.gold_sessions) >= 2 for q in agg)
        stamps = [s.timestamp for s in h.sessions]
        assert stamps == sorted(stamps) and h.now > stamps[-1]
        assert (h.now - stamps[0]).days >= 60  # about three months of history


def test_temporal_gold_lies_in_the_named_window(haystacks: list) -> None:  # type: ignore[type-arg]
    for h in haystacks:
        by_key = {s.key: s for s in h.sessions}
        for q in (q for q in h.questions if q.group == "temporal"):
            window = parse_time_window(q.question, q.now)
            assert window is not None, q.question
            (key,) = q.gold_sessions
            assert window.contains(by_key[key].timestamp), (q.question, by_key[key].timestamp, window)


def test_replies_are_long_and_evidence_mostly_inside(haystacks: list) -> None:  # type: ignore[type-arg]
    replies = [len(t.assistant) for h in haystacks for _, t in _flat(h)]
    assert min(replies) >= 1200 and 1500 <= statistics.median(replies) <= 4000
    turns = {t.source_id: t for h in haystacks for _, t in _flat(h)}
    middle = total = 0
    for h in haystacks:
        for q in h.questions:
            gold = sorted(q.gold_turns)
            assert len(q.evidence) == len(gold)
            for text in q.evidence:
                t = next(turns[g] for g in gold if text in turns[g].user or text in turns[g].assistant)
                if q.group == "preference":
                    assert text in t.user  # said by the user, in passing
                    continue
                paras = t.assistant.split("\n\n")
                total += 1
                middle += 0 < paras.index(text) < len(paras) - 1
    assert middle >= 0.6 * total  # usually neither the first nor the last paragraph of a long reply


def test_halves_alternate_and_share_nothing(haystacks: list) -> None:  # type: ignore[type-arg]
    assert [h.half for h in haystacks] == ["tune", "test", "tune", "test"]
    tune = {t.source_id for h in haystacks if h.half == "tune" for _, t in _flat(h)}
    test = {t.source_id for h in haystacks if h.half == "test" for _, t in _flat(h)}
    assert tune and test and not tune & test
    assert len({h.name for h in haystacks}) == len(haystacks)


def test_bm25_is_not_trivially_perfect(haystacks: list) -> None:  # type: ignore[type-arg]
    rows = [(h, q, score_ranking(q, r)) for h, q, r in bm25_rankings(haystacks)]
    t = table(rows, KINDS)
    assert set(t["all"]) == {"overall", *KINDS}
    assert t["all"]["overall"]["n"] == 4 * sum(PER_KIND.values())
    assert t["all"]["overall"]["turn all@5"] < 0.9


def test_turn_range_is_checked() -> None:
    with pytest.raises(ValueError, match="turns per session"):
        coding_haystack(1, 0, turns=(2, 2))


def _table(v: float) -> dict[str, dict[str, dict[str, float]]]:
    return {h: {"overall": {"turn all@5": v, "turn all@10": v + 0.1}} for h in ("tune", "test", "all")}


def test_side_by_side_rows_and_columns() -> None:
    figs = {"runs": [{"name": "hybrid", "mode": "hybrid", "table": _table(0.5)},
                     {"name": "hybrid: variant", "mode": "hybrid", "table": _table(0.1)},
                     {"name": "text (BM25 only)", "mode": "text", "table": _table(0.4)}],
            "baselines": {BASELINE_NAMES[0]: _table(0.3)}}
    lines = side_by_side([("coding", haystack_cells(figs))])
    assert lines[0] == "| retriever | coding tune @5 | coding tune @10 | coding test @5 | coding test @10 |"
    assert lines[2] == "| graphmem hybrid | 50.0 | 60.0 | 50.0 | 60.0 |"  # the first run of a mode: the default
    assert lines[4] == "| graphmem semantic (vector only) |  |  |  |  |"
    assert lines[5].startswith("| BM25 (rank_bm25 defaults, same turns) | 30.0 | 40.0")


def test_update_section_keeps_the_rest_of_the_file(tmp_path: Path) -> None:
    p = tmp_path / "quality.md"
    p.write_text("# Retrieval quality\n\nHistory of decisions.\n\n## Tables\n\nold\n")
    update_section(p, "## Side by side\n\nfirst\n")
    text = p.read_text()
    assert text.index(BEGIN) < text.index("first") < text.index(END) < text.index("History of decisions.")
    update_section(p, "## Side by side\n\nsecond\n")
    text = p.read_text()
    assert "first" not in text and "second" in text and text.count(BEGIN) == 1
    assert text.startswith("# Retrieval quality\n") and text.endswith("## Tables\n\nold\n")


def test_evidence_can_sit_in_the_requests() -> None:
    """``evidence_in="request"``: the same questions, every needle in the user's request of its gold turn and
    none in a reply; the default keeps it in the reply (preferences apart, said by the user)."""
    replies, requests = coding_haystack(5, 1), coding_haystack(5, 1, evidence_in="request")
    assert [q.question for q in requests.questions] == [q.question for q in replies.questions]
    for h, in_request in ((requests, True), (replies, False)):
        turns = {t.source_id: t for _, t in _flat(h)}
        for q in h.questions:
            said_by_user = in_request or q.group == "preference"
            for gold in q.gold_turns:
                t = turns[gold]
                assert len(t.assistant) > 1000
                assert any(e in (t.user if said_by_user else t.assistant) for e in q.evidence), (q, gold)
                assert not any(e in (t.assistant if said_by_user else t.user) for e in q.evidence), (q, gold)
    with pytest.raises(ValueError, match="evidence_in"):
        coding_haystack(5, 1, evidence_in="chat")  # type: ignore[arg-type]
