"""Paired comparison of two retrievers over the same questions: how many questions one wins and
loses against the other, and whether that split could be chance (exact two-sided sign test).

A benchmark cell that moves by one question is not evidence. Counting, question by question, the
wins and losses of a variant against the default, and asking how likely that split is if neither
retriever were better (each differing question a fair coin), tells a real loss from noise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb

__all__ = ["PAIRED_METRICS", "differing_questions", "paired_cells", "paired_markdown", "sign_test"]

PAIRED_METRICS = ("turn all@5", "turn all@10")


def sign_test(gained: int, lost: int) -> float:
    """Exact two-sided sign-test p-value of ``gained`` wins against ``lost`` losses (ties dropped)."""
    n = gained + lost
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(gained, lost) + 1)) / 2 ** n
    return float(min(1.0, 2 * tail))


def paired_cells(base: Mapping[str, Mapping[str, float]], other: Mapping[str, Mapping[str, float]],
                 halves: Mapping[str, str], metrics: Sequence[str] = PAIRED_METRICS,
                 ) -> dict[str, dict[str, dict[str, float]]]:
    """Per half (and ``all``) and metric: questions ``other`` scores higher (``gained``) and lower
    (``lost``) than ``base``, and the sign test's ``p``. ``base`` and ``other`` map a question key to
    its metrics; ``halves`` maps the key to its half. Questions missing from either side are skipped."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for half in (*sorted(set(halves.values())), "all"):
        cells: dict[str, dict[str, float]] = {}
        for m in metrics:
            gained = lost = 0
            for key, scores in base.items():
                if key not in other or (half != "all" and halves.get(key) != half):
                    continue
                d = other[key].get(m, 0.0) - scores.get(m, 0.0)
                gained += d > 0
                lost += d < 0
            cells[m] = {"gained": gained, "lost": lost, "p": round(sign_test(gained, lost), 3)}
        out[half] = cells
    return out


def differing_questions(base: Mapping[str, Mapping[str, float]], other: Mapping[str, Mapping[str, float]],
                        texts: Mapping[str, str], metrics: Sequence[str] = PAIRED_METRICS,
                        ) -> list[dict[str, object]]:
    """The questions ``other`` scores differently from ``base`` on any of ``metrics``, so a paired
    win or loss can be named: key, question text (``texts``), and each side's scores on them."""
    out: list[dict[str, object]] = []
    for key, scores in base.items():
        mine = other.get(key)
        if mine is None or all(mine.get(m, 0.0) == scores.get(m, 0.0) for m in metrics):
            continue
        out.append({"key": key, "question": texts.get(key, ""), "default": {m: scores.get(m, 0.0) for m in metrics},
                    "this": {m: mine.get(m, 0.0) for m in metrics}})
    return out


def _cell(c: Mapping[str, float] | None) -> str:
    if not c:
        return ""
    return f"+{c['gained']:.0f} / −{c['lost']:.0f} (p {c['p']:.2f})"


def paired_markdown(runs: Sequence[Mapping[str, object]], halves: Sequence[str],
                    metrics: Sequence[str] = PAIRED_METRICS) -> list[str]:
    """A table of every run that carries ``paired`` cells: questions won / lost against the first
    run, per half and metric, with the sign test's p. Empty when no run has them."""
    rows = [r for r in runs if r.get("paired")]
    if not rows:
        return []
    base = str(runs[0].get("name"))
    cols = [(half, m) for half in halves for m in metrics]
    lines = [f"## Paired against graphmem {base}", "",
             "Questions a configuration wins (+) and loses (−) against the default, question by question, and the "
             "exact two-sided sign test's p (the chance of a split at least this uneven if neither were better). A "
             "loss with a large p is within noise.", "",
             "| retriever | " + " | ".join(f"{h} {m}" for h, m in cols) + " |", "|---|" + "---:|" * len(cols)]
    for r in rows:
        cells = r["paired"]
        assert isinstance(cells, Mapping)
        lines.append(f"| graphmem {r['name']} | "
                     + " | ".join(_cell(cells.get(h, {}).get(m)) for h, m in cols) + " |")
    return [*lines, ""]
