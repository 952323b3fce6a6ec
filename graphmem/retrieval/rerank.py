"""Re-ranking of the fused candidates: lift those inside the time window the query names
(:mod:`.timewindow`), then spread the top k over sessions (:mod:`.diversity`).

Runs only when it has something to do (a window was found, or ``session_decay`` < 1): it reads the
candidates' sessions and timestamps in one extra round trip (``search/candidate_meta``).

A window is read relative to the search's ``now``. When none is given and the scope's history ends
before the window starts (an imported archive, a memory left idle: "last weekend" would point past
its last turn), the window is read as if the query were asked the day after the scope's last turn.
That takes one more read (``search/last_turn_*``), only for such queries and only when no candidate
is as recent as the window's start.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, time, timedelta
from typing import Any

from ..db import Database
from .diversity import session_diversify
from .models import RetrievalConfig
from .scopes import Scope
from .timewindow import TimeWindow, boost_in_window, parse_time_window

__all__ = ["Fused", "last_turn_at", "rerank_fused", "reranks", "window_for"]

QUERY_FILES = ("search/last_turn_session", "search/last_turn_cwd", "search/last_turn_project", "search/last_turn_all")
"""The per-scope statement files chosen at run time (``search/last_turn_<scope kind>``)."""

Fused = tuple[str, str, float, dict[str, int]]
"""(id, kind, score, ranks per source), as the fusion returns them."""


def _native(value: Any) -> Any:
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def reranks(config: RetrievalConfig, query: str, now: datetime | None) -> bool:
    """Whether the re-ranking will run for this query (it then needs full candidate pages from
    every source): session diversity is on, or the query names a time window."""
    if config.session_decay < 1.0:
        return True
    return config.time_boost > 0 and parse_time_window(query, now, dates=config.calendar_dates) is not None


def last_turn_at(db: Database, scope: Scope) -> datetime | None:
    """When the scope's last turn was written (``None`` for an empty scope), in UTC."""
    params: dict[str, Any] = {} if scope.value is None else {"value": scope.value}
    rows = db.read(f"search/last_turn_{scope.file_kind}", **params)
    return _utc(rows[0]["at"]) if rows else None


def _utc(ts: Any) -> datetime | None:
    ts = _native(ts)
    if not isinstance(ts, datetime):
        return None
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC)


def window_for(
    db: Database, query: str, window: TimeWindow, now: datetime | None, config: RetrievalConfig, scope: Scope,
    newest_candidate: datetime | None = None,
) -> TimeWindow:
    """The window to apply, given the one ``query`` names relative to ``now`` (or, when ``now`` is
    ``None``, to the current time): that one, unless no ``now`` was given and the scope's history
    ends before it starts; then the query read from the day after the scope's last turn (``anchor``
    ``"last turn"``). A ``newest_candidate`` at or after the window's start shows the history does
    not end before it, and spares reading the scope's last turn."""
    if now is not None or not config.anchor_to_last_turn or window.anchor == "date":
        return window
    if newest_candidate is not None and newest_candidate >= window.start:
        return window
    last = last_turn_at(db, scope)
    if last is None or last >= window.start:
        return window
    # read as if asked the day after the last turn: "yesterday" is the last day of the history
    asked = datetime.combine(last.date() + timedelta(days=1), time(0), tzinfo=UTC)
    anchored = parse_time_window(query, asked, dates=config.calendar_dates)
    return replace(anchored, anchor="last turn") if anchored is not None else window


def rerank_fused(
    db: Database,
    fuse: Callable[[int], list[Fused]],
    query: str,
    now: datetime | None,
    config: RetrievalConfig,
    k: int,
    strategy: dict[str, Any],
    scope: Scope,
) -> tuple[list[Fused], TimeWindow | None]:
    """The final top ``k`` (``fuse(n)`` gives the best ``n`` fused candidates, all from ``scope``)
    and the time window applied, if any. ``strategy["rerank"]`` records what was done."""
    window = parse_time_window(query, now, dates=config.calendar_dates) if config.time_boost > 0 else None
    if window is None and config.session_decay >= 1.0:
        return fuse(k), None
    pool = fuse(max(k, config.rerank_pool))
    if not pool:
        return pool, window_for(db, query, window, now, config, scope) if window is not None else None
    rows = db.read(
        "search/candidate_meta",
        turnIds=[d for d, kind, _, _ in pool if kind == "turn"],
        summaryIds=[d for d, kind, _, _ in pool if kind != "turn"],
    )
    session_of = {r["id"]: r["sessionId"] for r in rows}
    stamp_of = {r["id"]: _utc(r["timestamp"]) for r in rows}
    if window is not None:
        newest = max((ts for ts in stamp_of.values() if ts is not None), default=None)
        window = window_for(db, query, window, now, config, scope, newest_candidate=newest)
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
