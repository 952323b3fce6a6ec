"""Re-ranking of the fused candidates: lift those inside the time window the query names
(:mod:`.timewindow`; or, failing that, on the side of an event it names: :mod:`.eventwindow`), lift
those that tell a time when the query asks when (:mod:`.tellswhen`), then spread the top k over
sessions (:mod:`.diversity`).

Runs only when it has something to do (a window or an event was found, the query asks when, or
``session_decay`` < 1): it reads the candidates' sessions and timestamps (and, for a question that
asks when, their texts) in one extra round trip (``search/candidate_meta``). An
event costs one small full-text search of its clause and one read of the turns it ranks best
(``search/event_turns``).

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
from .eventwindow import EventReference, covers, event_window, parse_event_reference
from .models import RetrievalConfig
from .scopes import Scope
from .tellswhen import asks_when, lift_told
from .timewindow import TimeWindow, boost_in_window, parse_time_window

__all__ = ["EventSearch", "Fused", "event_turn", "last_turn_at", "rerank_fused", "reranks", "window_for"]

QUERY_FILES = ("search/last_turn_session", "search/last_turn_cwd", "search/last_turn_project", "search/last_turn_all")
"""The per-scope statement files chosen at run time (``search/last_turn_<scope kind>``)."""

Fused = tuple[str, str, float, dict[str, int]]
"""(id, kind, score, ranks per source), as the fusion returns them."""

EventSearch = Callable[[str], list[str]]
"""The ids of the turns a full-text search of an event clause ranks best, best first."""


def _native(value: Any) -> Any:
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def _named_window(config: RetrievalConfig, query: str, now: datetime | None) -> TimeWindow | None:
    return parse_time_window(query, now, dates=config.calendar_dates, periods=config.calendar_periods)


def reranks(config: RetrievalConfig, query: str, now: datetime | None) -> bool:
    """Whether the re-ranking will run for this query (it then needs full candidate pages from
    every source): session diversity is on, the query asks when, or it names a time window or an
    event."""
    if config.session_decay < 1.0 or (config.when_boost > 0 and asks_when(query)):
        return True
    if config.time_boost > 0 and _named_window(config, query, now) is not None:
        return True
    return config.event_boost > 0 and parse_event_reference(query) is not None


def event_turn(db: Database, search: EventSearch, ref: EventReference) -> tuple[str, datetime, datetime] | None:
    """The turn that tells the event ``ref`` names (the first of the best full-text hits of its clause
    that holds at least half of the clause's words), with the first and last times of its session."""
    ids = search(ref.event)
    if not ids:
        return None
    rows = {r["id"]: r for r in db.read("search/event_turns", ids=ids)}
    for turn_id in ids:
        row = rows.get(turn_id)
        if row is None or not covers(str(row["text"] or ""), ref.event):
            continue
        start, end = _utc(row["sessionStart"]), _utc(row["sessionEnd"])
        if start is not None and end is not None:
            return turn_id, start, end
    return None


def last_turn_at(db: Database, scope: Scope) -> datetime | None:
    """When the scope's last turn was written (``None`` for an empty scope), in UTC."""
    params: dict[str, Any] = {} if scope.value is None else {"value": scope.value}
    rows = db.read(f"search/last_turn_{scope.file_kind}", **params)
    return _utc(rows[0]["at"]) if rows else None


def _from_millis(ms: Any) -> datetime | None:
    """A time read as epoch milliseconds (cheaper to read than the driver's zoned DateTime), in UTC."""
    return datetime.fromtimestamp(ms / 1000, UTC) if isinstance(ms, int | float) else None


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
    anchored = _named_window(config, query, asked)
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
    find_event: EventSearch | None = None,
) -> tuple[list[Fused], TimeWindow | None]:
    """The final top ``k`` (``fuse(n)`` gives the best ``n`` fused candidates, all from ``scope``)
    and the time window applied, if any (``find_event`` looks up an event the query names when it
    names no time). ``strategy["rerank"]`` records what was done."""
    window = _named_window(config, query, now) if config.time_boost > 0 else None
    event = parse_event_reference(query) if window is None and config.event_boost > 0 and find_event else None
    when = config.when_boost > 0 and asks_when(query)
    if window is None and event is None and not when and config.session_decay >= 1.0:
        return fuse(k), None
    pool = fuse(max(k, config.rerank_pool))
    if not pool:
        return pool, window_for(db, query, window, now, config, scope) if window is not None else None
    (meta,) = db.read(
        "search/candidate_meta",
        turnIds=[d for d, kind, _, _ in pool if kind == "turn"],
        summaryIds=[d for d, kind, _, _ in pool if kind != "turn"],
        withText=when, textChars=config.max_chars,
    )
    rows = meta["candidates"]
    session_of = {r["id"]: r["sessionId"] for r in rows}
    stamp_of = {r["id"]: _from_millis(r["at"]) for r in rows}
    if window is not None:
        newest = max((ts for ts in stamp_of.values() if ts is not None), default=None)
        window = window_for(db, query, window, now, config, scope, newest_candidate=newest)
    scored = [(d, s) for d, _, s, _ in pool]
    info: dict[str, Any] = {"pool": len(pool)}
    boost = config.time_boost
    if event is not None and find_event is not None:
        told = event_turn(db, find_event, event)
        info["event"] = {"phrase": event.phrase, "turn": told[0] if told else None}
        if told is not None:
            start, end = event_window(event, told[1], told[2])
            window, boost = TimeWindow(start, end, event.phrase, "event", told[0]), config.event_boost
    if window is not None:
        scored = boost_in_window(scored, stamp_of, window, boost)
        info["in_window"] = sum(1 for d, _ in scored if (ts := stamp_of.get(d)) is not None and window.contains(ts))
    if when:
        scored, info["tells_when"] = lift_told(scored, {r["id"]: r["text"] for r in rows}, config.when_boost)
    scored = session_diversify(scored, session_of, decay=config.session_decay, k=k, free=config.session_free)
    info["session_decay"] = config.session_decay
    strategy["rerank"] = info
    by_id = {d: (kind, ranks) for d, kind, _, ranks in pool}
    return [(d, by_id[d][0], s, by_id[d][1]) for d, s in scored[:k]], window
