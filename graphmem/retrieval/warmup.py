"""Warming the server for the first searches: their statements planned, their code compiled.

Right after Neo4j starts, a search pays for planning every statement it runs (once per statement
and per parameter shape: a list left empty is planned apart from a filled one) and for the server's
code paths still running interpreted: seconds for the first search and context block, then
hundreds of milliseconds for the next ones, against tens once warm (`graphmem bench warm-up` has
the figures). A coding assistant's first prompt after the server started would pay that inside its
hook's time budget.

:func:`warm_up` runs, ``rounds`` times over, the searches and context blocks those first prompts
run: in the latest session (or the one given) and its directory and project, with the kinds of
question that take their own paths (a plain one, one that asks when, a relative time, a calendar
date, two events compared), in hybrid and text mode. The statements whose list parameters may come
empty or not (the graph expansion, the hydration) also run once per shape with ids that match
nothing, since the server plans each shape apart. It writes nothing: the facts each context chooses
are not logged, and the log statement itself is planned in a transaction rolled back. The warm
daemon and the memory service run it once they are up.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from ..db import Database
from ..db.rows import native
from ..embedding import Embedder
from ..errors import GraphMemError, SessionNotFound
from ..facts.inject import plan_injection_log
from ..sessions import check_id
from .context import NotesSource, context_for_session
from .graph import plan_graph_shapes
from .hits import plan_hydrate_shapes
from .models import ContextConfig, SearchMode
from .scopes import parse_scope
from .search import Searcher

__all__ = ["WARM_MS", "WARM_QUESTIONS", "WarmUp", "warm_up", "warm_up_in_background"]

WARM_QUESTIONS = (
    "{words}",
    "When did we talk about {words}?",
    "What did we do last week about {words}?",
    "What happened on {date} about {words}?",
    "How many days passed between the day we {a} and the day we {b}?",
)
"""The questions of one round, filled with words of the session's last message and its last date."""

_SEARCHES: tuple[tuple[SearchMode, tuple[int, ...]], ...] = (
    ("hybrid", (0, 1, 2, 3)), ("hybrid", (0,)), ("text", (0, 1, 2, 3)))
"""Each question's searches: turns and summaries or turns alone take statements of their own."""

WARM_MS = 20.0
"""When the server takes at most this many milliseconds to the first row of the session lookup, it
had the lookup planned, so a warm-up already ran since it started (planning it takes far longer)."""

_WORD = re.compile(r"[^\W\d_]{4,}")


@dataclass
class WarmUp:
    """What :func:`warm_up` ran."""

    session_id: str | None
    """The session whose directory and project were searched (None: the memory holds no session)."""
    searches: int = 0
    contexts: int = 0
    shapes: int = 0
    """Statements run once per parameter shape with ids that match nothing (see :func:`warm_up`)."""
    seconds: float = 0.0
    already_warm: bool = False
    """The server had the session lookup planned (a warm-up ran since it started): nothing more ran."""
    round_ms: list[float] = field(default_factory=list)
    """Each round's wall time: the first pays the plans, the last shows the warm cost."""
    errors: list[str] = field(default_factory=list)
    """The first line of each error met (the warm-up goes on past them)."""

    def to_dict(self) -> dict[str, object]:
        return {"session_id": self.session_id, "already_warm": self.already_warm, "searches": self.searches,
                "contexts": self.contexts, "shapes": self.shapes,
                "seconds": round(self.seconds, 3), "round_ms": [round(x, 1) for x in self.round_ms],
                "errors": self.errors}

    def summary(self) -> str:
        """What ran, in one line (``graphmem daemon status``, ``graphmem serve``)."""
        if self.session_id is None:
            return "no session yet"
        if self.already_warm:
            return "the server was warm"
        return (f"{self.searches} searches and {self.contexts} contexts in {self.seconds:.1f} s"
                + (f" ({len(self.errors)} errors, the first: {self.errors[0]})" if self.errors else ""))


def _first_line(e: Exception) -> str:
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def warm_up_in_background(run: Callable[[], WarmUp], say: Callable[[str], None]) -> threading.Thread:
    """Start ``run`` (a memory's ``warm_up``) in a daemon thread, as a service starts: ``say`` gets
    one line when it did something (its summary) or stopped on an error (a memory that cannot
    connect yet, say); a server already warm or a memory without sessions says nothing. The service
    answers meanwhile: a warm-up only spares its first calls the planning."""

    def work() -> None:
        try:
            report = run()
        except Exception as e:  # the service answers without it
            say(f"search warm-up stopped: {_first_line(e)}")
            return
        if report.session_id is not None and not report.already_warm:
            say(f"search warm-up: {report.summary()}")

    thread = threading.Thread(target=work, name="graphmem-search-warm-up", daemon=True)
    thread.start()
    return thread


def _questions(last_message: str, at: datetime | None) -> list[str]:
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(last_message)))[:6] or ["the plan", "the tests"]
    a, b = " ".join(words[: max(1, len(words) // 2)]), " ".join(words[len(words) // 2:]) or words[0]
    date = f"{at:%B} {at.day}, {at.year}" if at is not None else "May 7, 2023"
    fill = {"words": " ".join(words[:4]), "a": a, "b": b, "date": date}
    return [q.format_map(fill) for q in WARM_QUESTIONS]


def warm_up(db: Database, searcher: Searcher, *, session_id: str | None = None, embedder: Embedder | None = None,
            notes: NotesSource | None = None, rounds: int = 3, warm_ms: float | None = WARM_MS) -> WarmUp:
    """Run the first prompts' searches and context blocks ``rounds`` times in ``session_id`` (default:
    the most recently active session), reading only. A server that had the session lookup planned
    (its first row within ``warm_ms``, by the server's own clock) has been warmed since it started:
    nothing more runs (None: the rounds run regardless). Errors are collected, never raised, except
    an unknown ``session_id`` (:class:`SessionNotFound`)."""
    sid = check_id(session_id, "session id") if session_id is not None else None
    rows, lookup_ms = (db.read_timed("search/warm_up_session") if sid is None
                       else db.read_timed("search/warm_up_session_by_id", id=sid))
    if not rows:
        if sid is not None:
            raise SessionNotFound(sid)
        return WarmUp(None)
    s, last = rows[0]["session"], rows[0]["lastMessage"] or ""
    found = str(s["id"])
    report = WarmUp(found)
    if warm_ms is not None and lookup_ms <= warm_ms:
        # the server had this lookup planned: a warm-up ran since it started, the rest is planned too
        report.already_warm = True
        return report
    at = native(s.get("lastActivityAt"))
    scopes = ([f"directory:{s['cwd']}"] if s.get("cwd") else []) + (
        [f"project:{s['projectPath']}"] if s.get("projectPath") else []) or [f"session:{found}"]
    questions = _questions(str(last), at if isinstance(at, datetime) else None)
    t0 = time.perf_counter()

    def search(q: str, scope: str, mode: SearchMode, levels: tuple[int, ...]) -> None:
        report.searches += 1
        try:
            searcher.search(q, scope=scope, levels=levels, k=10, mode=mode)
        except GraphMemError as e:
            report.errors.append(_first_line(e))

    try:  # the one write of a context block, the injection's log, planned without writing; the
        # statements whose list parameters come empty or not, planned in every shape
        report.shapes = plan_injection_log(db, found) + plan_hydrate_shapes(db, searcher.config)
        for scope in scopes:
            report.shapes += plan_graph_shapes(db, searcher.config, parse_scope(scope))
    except GraphMemError as e:
        report.errors.append(_first_line(e))
    for _ in range(max(1, rounds)):
        t1 = time.perf_counter()
        for q in questions:
            for scope in scopes:
                for mode, levels in _SEARCHES:
                    search(q, scope, mode, levels)
            report.contexts += 1
            try:
                context_for_session(db, searcher, found, q, ContextConfig(), embedder=embedder,
                                    notes=notes, log_facts=False)
            except GraphMemError as e:
                report.errors.append(_first_line(e))
        report.round_ms.append((time.perf_counter() - t1) * 1000)
    report.seconds = time.perf_counter() - t0
    return report
