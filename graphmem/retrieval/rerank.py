"""Re-ranking of the fused candidates: lift those inside the time window the query names
(:mod:`.timewindow`), then spread the top k over sessions (:mod:`.diversity`).

Runs only when it has something to do (a window was found, or ``session_decay`` < 1): it reads the
candidates' sessions and timestamps in one extra round trip (``search/candidate_meta``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..db import Database
from .diversity import session_diversify
from .models import RetrievalConfig
from .timewindow import TimeWindow, boost_in_window, parse_time_window

__all__ = ["Fused", "rerank_fused", "reranks"]

Fused = tuple[str, str, float, dict[str, int]]
"""(id, kind, score, ranks per source), as the fusion returns them."""


def _native(value: Any) -> Any:
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def reranks(config: RetrievalConfig, query: str, now: datetime | None) -> bool:
    """Whether the re-ranking will run for this query (it then needs full candidate pages from
    every source): session diversity is on, or the query names a time window."""
    return config.session_decay < 1.0 or (config.time_boost > 0 and parse_time_window(query, now) is not None)


def rerank_fused(
    db: Database,
    fuse: Callable[[int], list[Fused]],
    query: str,
    now: datetime | None,
    config: RetrievalConfig,
    k: int,
    strategy: dict[str, Any],
) -> tuple[list[Fused], TimeWindow | None]:
    """The final top ``k`` (``fuse(n)`` gives the best ``n`` fused candidates) and the time window
    applied, if any. ``strategy["rerank"]`` records what was done."""
    window = parse_time_window(query, now) if config.time_boost > 0 else None
    if window is None and config.session_decay >= 1.0:
        return fuse(k), None
    pool = fuse(max(k, config.rerank_pool))
    if not pool:
        return pool, window
    rows = db.read(
        "search/candidate_meta",
        turnIds=[d for d, kind, _, _ in pool if kind == "turn"],
        summaryIds=[d for d, kind, _, _ in pool if kind != "turn"],
    )
    session_of = {r["id"]: r["sessionId"] for r in rows}
    stamp_of = {r["id"]: _native(r["timestamp"]) for r in rows}
    scored = [(d, s) for d, _, s, _ in pool]
    info: dict[str, Any] = {"pool": len(pool)}
    if window is not None:
        scored = boost_in_window(scored, stamp_of, window, config.time_boost)
        info["in_window"] = sum(1 for d, _ in scored if (ts := stamp_of.get(d)) is not None and window.contains(ts))
    scored = session_diversify(scored, session_of, decay=config.session_decay, k=k, free=config.session_free)
    info["session_decay"] = config.session_decay
    strategy["rerank"] = info
    by_id = {d: (kind, ranks) for d, kind, _, ranks in pool}
    return [(d, by_id[d][0], s, by_id[d][1]) for d, s in scored[:k]], window
