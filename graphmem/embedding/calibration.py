"""Cosine thresholds across embedders: every cosine threshold graphmem ships (the fact settings, the
context block's near-duplicate collapse) was chosen on the local USE model's cosines, the reference
scale. Another bundled model spreads its cosines differently: multilingual-e5-small gives two
unrelated sentences about 0.75-0.8, where USE gives about 0.05. :func:`cosine_for` turns a reference
threshold into the cosine that means the same for the embedder in use, so a threshold keeps its
meaning (e.g. "the same fact, reworded") whichever model is configured.

The tables match quantiles: for a reference threshold t, the model's cosine above which the same
share of pairs lies, over the same pairs (2,541 facts about the speakers of 10 long conversations,
the 331,378 pairs within a conversation, and the 513,962 pairs of a question and a fact of its
conversation; ``benchmarks/embedder/FINDINGS.md``). Between knots the mapping is linear; a model
without a table (USE itself, OpenAI, sentence-transformers) keeps the reference values.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Literal

__all__ = ["CosineKind", "cosine_for"]

CosineKind = Literal["passages", "query"]
"""``passages``: two stored texts (a fact and a fact, a hit and a hit); ``query``: a query or message
embedded on the model's query side against a stored text."""

_KNOTS: dict[str, dict[CosineKind, tuple[tuple[float, float], ...]]] = {
    "multilingual-e5-small-q4": {
        "passages": ((0.2, 0.804), (0.3, 0.832), (0.4, 0.858), (0.5, 0.884), (0.6, 0.907), (0.7, 0.933),
                     (0.75, 0.946), (0.8, 0.957), (0.85, 0.969), (0.9, 0.983), (0.95, 0.992), (1.0, 1.0)),
        "query": ((0.2, 0.775), (0.3, 0.806), (0.4, 0.833), (0.5, 0.859), (0.6, 0.887), (0.7, 0.915),
                  (0.75, 0.928), (0.8, 0.937), (1.0, 1.0)),
    },
}


def cosine_for(model: str | None, reference: float, kind: CosineKind = "passages") -> float:
    """The cosine of ``model`` that means what ``reference`` means on the USE scale (``reference``
    itself for a model without a table). Below the first knot the first segment is extended, within
    [-1, 1]."""
    knots = _KNOTS.get(model, {}).get(kind) if model else None
    if not knots:
        return reference
    if reference >= 1.0:
        return 1.0
    for (x0, y0), (x1, y1) in pairwise(knots):
        if reference <= x1:
            return max(-1.0, y0 + (reference - x0) * (y1 - y0) / (x1 - x0))
    return knots[-1][1]

