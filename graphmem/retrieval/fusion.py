"""Reciprocal Rank Fusion with per-source weights and depths, and the lift the re-ranking gives chosen
candidates."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

__all__ = ["combsum", "lift", "max_rrf_score", "rrf"]

K = TypeVar("K", bound=Hashable)


def rrf(
    rankings: Mapping[str, Sequence[K]],
    *,
    k: int = 60,
    weights: Mapping[str, float] | None = None,
    depths: Mapping[str, int] | None = None,
) -> list[tuple[K, float, dict[str, int]]]:
    """Fuse ranked lists (best first): ``score(d) = sum_s w_s / (k + rank_s(d))`` with 1-based ranks.

    Only the first ``depths[s]`` items of source ``s`` take part. Returns ``(item, score, ranks)``
    best first, ``ranks`` mapping each source that returned the item to its 1-based rank. Ties keep
    the order in which items were first seen (sources in the mapping's order).
    """
    if k < 0:
        raise ValueError("k must be >= 0")
    scores: dict[K, float] = {}
    ranks: dict[K, dict[str, int]] = {}
    for source, items in rankings.items():
        w = 1.0 if weights is None else float(weights.get(source, 1.0))
        depth = None if depths is None else depths.get(source)
        for r, item in enumerate(items[:depth] if depth is not None else items, start=1):
            if item in ranks and source in ranks[item]:
                continue  # a duplicate within one list counts once, at its best rank
            scores[item] = scores.get(item, 0.0) + w / (k + r)
            ranks.setdefault(item, {})[source] = r
    order = sorted(scores, key=lambda d: -scores[d])  # stable: first-seen order breaks ties
    return [(d, scores[d], ranks[d]) for d in order]


def max_rrf_score(weights: Mapping[str, float], k: int = 60) -> float:
    """The score of an item ranked first by every source (to express fused scores as 0..1)."""
    return sum(w / (k + 1) for w in weights.values() if w > 0) or 1.0


def combsum(
    scored: Mapping[str, Sequence[tuple[K, float]]],
    *,
    weights: Mapping[str, float] | None = None,
    min_spans: Mapping[str, float] | None = None,
    item_weights: Mapping[str, Mapping[K, float]] | None = None,
) -> list[tuple[K, float, dict[str, int]]]:
    """Weighted CombSUM of min-max normalised scores: each source's candidates (best first, with
    raw scores) are scaled to 0..1 within that source, multiplied by its weight and summed.
    ``min_spans[s]`` floors the span source ``s`` is divided by: candidates whose scores lie in a
    narrower band (a source that hardly tells them apart) then reach less than 1.
    ``item_weights[s][item]`` further multiplies one item's share from source ``s`` (default 1).
    Returns ``(item, score, ranks)`` best first, like :func:`rrf`."""
    scores: dict[K, float] = {}
    ranks: dict[K, dict[str, int]] = {}
    for source, items in scored.items():
        if not items:
            continue
        w = 1.0 if weights is None else float(weights.get(source, 1.0))
        values = [v for _, v in items]
        lo, hi = min(values), max(values)
        span = max(hi - lo, 0.0 if min_spans is None else float(min_spans.get(source, 0.0)))
        per_item = (item_weights or {}).get(source, {})
        for r, (item, v) in enumerate(items, start=1):
            if item in ranks and source in ranks[item]:
                continue
            norm = (v - lo) / span if hi > lo else 1.0
            scores[item] = scores.get(item, 0.0) + w * per_item.get(item, 1.0) * norm
            ranks.setdefault(item, {})[source] = r
    order = sorted(scores, key=lambda d: -scores[d])
    return [(d, scores[d], ranks[d]) for d in order]


def lift(ranked: Sequence[tuple[K, float]], chosen: Callable[[K], bool], boost: float) -> tuple[list[tuple[K, float]], int]:
    """Add ``boost`` x the best score (by magnitude; 1 when all are 0) to each candidate ``chosen``
    picks; best first (stable), and how many were lifted. ``boost`` <= 0 leaves the order as it is."""
    if not ranked or boost <= 0:
        return list(ranked), 0
    top = max(abs(s) for _, s in ranked) or 1.0
    out, lifted = [], 0
    for item, score in ranked:
        if chosen(item):
            out.append((item, score + boost * top))
            lifted += 1
        else:
            out.append((item, score))
    out.sort(key=lambda x: -x[1])
    return out, lifted
