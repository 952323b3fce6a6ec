from __future__ import annotations

import pytest

from graphmem_devtools.bench.paired import differing_questions, paired_cells, paired_markdown, sign_test


def test_sign_test_matches_the_binomial_tails() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(1, 0) == 1.0
    assert sign_test(5, 0) == pytest.approx(2 / 32)
    assert sign_test(0, 5) == pytest.approx(2 / 32)
    assert sign_test(8, 2) == pytest.approx(2 * (1 + 10 + 45) / 1024)
    assert sign_test(3, 3) == 1.0


def test_paired_cells_count_wins_and_losses_per_half() -> None:
    base = {"a#0": {"turn all@5": 1.0, "turn all@10": 1.0}, "a#1": {"turn all@5": 0.0, "turn all@10": 1.0},
            "b#0": {"turn all@5": 0.0, "turn all@10": 0.0}, "b#1": {"turn all@5": 1.0, "turn all@10": 1.0}}
    other = {"a#0": {"turn all@5": 0.0, "turn all@10": 1.0}, "a#1": {"turn all@5": 1.0, "turn all@10": 1.0},
             "b#0": {"turn all@5": 1.0, "turn all@10": 1.0}}
    cells = paired_cells(base, other, {"a#0": "tune", "a#1": "tune", "b#0": "test", "b#1": "test"})
    assert cells["tune"]["turn all@5"] == {"gained": 1, "lost": 1, "p": 1.0}
    assert cells["test"]["turn all@5"] == {"gained": 1, "lost": 0, "p": 1.0}
    assert cells["all"]["turn all@5"]["gained"] == 2 and cells["all"]["turn all@5"]["lost"] == 1
    assert cells["all"]["turn all@10"] == {"gained": 1, "lost": 0, "p": 1.0}  # b#1 is missing from other


def test_differing_questions_name_each_win_and_loss() -> None:
    base = {"a#0": {"turn all@5": 1.0, "turn all@10": 1.0}, "a#1": {"turn all@5": 0.0, "turn all@10": 1.0},
            "b#1": {"turn all@5": 1.0, "turn all@10": 1.0}}
    other = {"a#0": {"turn all@5": 1.0, "turn all@10": 1.0}, "a#1": {"turn all@5": 1.0, "turn all@10": 1.0}}
    assert differing_questions(base, other, {"a#1": "which came first?"}) == [
        {"key": "a#1", "question": "which came first?", "default": {"turn all@5": 0.0, "turn all@10": 1.0},
         "this": {"turn all@5": 1.0, "turn all@10": 1.0}}]


def test_paired_markdown_lists_runs_with_cells_only() -> None:
    cells = paired_cells({"a#0": {"turn all@5": 0.0}}, {"a#0": {"turn all@5": 1.0}}, {"a#0": "tune"},
                         metrics=("turn all@5",))
    lines = paired_markdown([{"name": "hybrid", "paired": {}}, {"name": "variant", "paired": cells}],
                            ("tune",), metrics=("turn all@5",))
    assert lines[0] == "## Paired against graphmem hybrid"
    assert any(line.startswith("| graphmem variant | +1 / −0 (p 1.00)") for line in lines)
    assert paired_markdown([{"name": "hybrid", "paired": {}}], ("tune",)) == []


def test_only_selects_runs_by_exact_name_and_names_unknown_ones() -> None:
    from graphmem_devtools.bench.common import select_runs
    from graphmem_devtools.bench.haystack import sweep_haystack_runs
    from graphmem_devtools.bench.haystack_core import default_haystack_runs

    runs = default_haystack_runs() + sweep_haystack_runs()
    assert select_runs(runs, None) == runs
    picked = select_runs(runs, "hybrid: vector span floor 0.1, hybrid")
    assert [r.name for r in picked] == ["hybrid", "hybrid: vector span floor 0.1"]
    with pytest.raises(ValueError, match="no run named 'hybrid: nope'"):
        select_runs(default_haystack_runs(), "hybrid,hybrid: nope")
