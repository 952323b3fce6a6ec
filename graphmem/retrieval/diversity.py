"""Diversity in the top k: a session's repeated hits give way to other sessions' evidence.

One relevant turn pulls its neighbours up with it (shared words, the ``contextText`` field, the
session prior, neighbour-averaged vectors), so a plain top k can be one session's talk while a
question that gathers facts from several sessions needs each of them. :func:`session_diversify`
re-ranks greedily: a candidate's score is multiplied by ``decay`` for every better hit of its
session already placed (1.0 leaves the order unchanged).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

__all__ = ["session_diversify"]

K = TypeVar("K", bound=Hashable)


def session_diversify(
    ranked: Sequence[tuple[K, float]], session_of: Mapping[K, str | None], *, decay: float, k: int,
    free: int = 1,
) -> list[tuple[K, float]]:
    """The best ``k`` of ``ranked`` (best first, with scores) after the per-session decay, with their
    decayed scores: the first ``free`` hits of a session keep their score, each further one is
    multiplied by ``decay`` once more. Items with no known session are never decayed. Ties keep the
    input order."""
    if decay >= 1.0 or len(ranked) <= 1:
        return list(ranked[:k])
    decay = max(decay, 0.0)
    left = list(ranked)
    placed: dict[str, int] = {}
    out: list[tuple[K, float]] = []
    while left and len(out) < k:
        best_i, best_s = 0, float("-inf")
        for i, (item, score) in enumerate(left):
            sess = session_of.get(item)
            n = max(0, placed.get(sess, 0) - free + 1) if sess else 0
            s = score * decay**n if score >= 0 else score / max(decay, 1e-9) ** n
            if s > best_s:
                best_i, best_s = i, s
        item, _ = left.pop(best_i)
        out.append((item, best_s))
        sess = session_of.get(item)
        if sess:
            placed[sess] = placed.get(sess, 0) + 1
    return out
