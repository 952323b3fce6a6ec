"""GraphMemory: the synchronous facade over the conversation store.

The write path is short: :meth:`GraphMemory.store_turn` is one write transaction (turn, tool
calls, ``HAS_TURN``, ``NEXT``, session activity) and marks the turn ``embedState: 'pending'`` and
``summaryState: 'pending'`` for the worker; nothing slow happens in it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from .activity import ForegroundSignal
from .config import Settings
from .db import Database, DeferredWrites, apply_schema, open_database, schema_status
from .errors import InvalidInput, SessionNotFound
from .models import (
    Session,
    SessionDetail,
    SessionInfo,
    ToolCall,
    ToolCallIn,
    Turn,
    TurnIn,
    clean_text,
    utcnow,
)
from .paths import find_project_root, normalize_cwd
from .providers import Embedder, make_embedder

if TYPE_CHECKING:  # the summary hierarchy and worker (imported lazily by the methods using them)
    from .check import CheckReport
    from .facts import Fact, FactInjection, ForgetResult, RememberResult
    from .facts.model import ScopeLike as FactScopeLike
    from .models import Summary
    from .providers import Summarizer
    from .retrieval import (
        ContextBlock,
        ContextConfig,
        EmbedPassStats,
        RetrievalConfig,
        Scope,
        Searcher,
        SearchMode,
        SearchResult,
    )
    from .worker import SummaryWorker, WorkerConfig

__all__ = ["LOCAL_EMBEDDING_DIMENSIONS", "LOCAL_EMBEDDING_MODEL", "GraphMemory", "ImportResult"]

LOCAL_EMBEDDING_MODEL = "use-multilingual-v3"
LOCAL_EMBEDDING_DIMENSIONS = 512
MAX_ID_CHARS = 512


@dataclass(frozen=True)
class ImportResult:
    """What :meth:`GraphMemory.import_turns` did."""

    created: int
    skipped: int


def _native(value: Any) -> Any:
    """neo4j.time values -> datetime; everything else unchanged."""
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def _row_to_dict(row: dict[str, Any] | None) -> dict[str, Any]:
    return {k: _native(v) for k, v in (row or {}).items()}


def _check_id(value: str, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_ID_CHARS:
        raise InvalidInput(f"invalid {what}: must be a non-empty string of at most {MAX_ID_CHARS} characters")
    return clean_text(value)


def _redact_turn(turn: TurnIn) -> TurnIn:
    from .integrations.redaction import redact_turn  # idempotent: hook/importer turns are already redacted

    return redact_turn(turn)


def _when(ts: datetime | None) -> datetime:
    if ts is None:
        return utcnow()
    if ts.tzinfo is None:
        raise InvalidInput("timestamps must be timezone-aware")
    return ts


def _tool_rows(calls: Sequence[ToolCallIn | dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for order, raw in enumerate(calls):
        c = raw if isinstance(raw, ToolCallIn) else ToolCallIn.model_validate(raw)
        rows.append(
            {
                "id": str(uuid.uuid4()),
                "order": order,
                "name": c.name,
                "args": c.args_json(),
                "result": c.result,
                "success": c.success,
                "durationMs": c.duration_ms,
                "timestamp": c.timestamp,
                "sourceId": c.source_id,
            }
        )
    return rows


def _turn_from_row(turn: dict[str, Any], calls: list[dict[str, Any]]) -> Turn:
    t = _row_to_dict(turn)
    return Turn(
        id=t["id"],
        session_id=t["sessionId"],
        index=t["index"],
        user_message=t["userMessage"],
        assistant_message=t["assistantMessage"],
        timestamp=t["timestamp"],
        char_count=t["charCount"],
        source_id=t.get("sourceId"),
        tool_calls=[
            ToolCall(
                id=c["id"],
                name=c["name"],
                args=c.get("args") or "",
                result=c.get("result"),
                success=c.get("success"),
                duration_ms=c.get("durationMs"),
                timestamp=_native(c.get("timestamp")),
                order=c.get("order") or 0,
            )
            for c in calls
        ],
    )


def _session_from_row(row: dict[str, Any]) -> dict[str, Any]:
    s = _row_to_dict(row)
    return {
        "id": s["id"],
        "cwd": s["cwd"],
        "project_path": s["projectPath"],
        "agent": s.get("agent"),
        "title": s.get("title"),
        "started_at": s["startedAt"],
        "last_activity_at": s["lastActivityAt"],
        "turn_count": s.get("turnCount") or 0,
    }


class GraphMemory:
    """Long-term conversational memory on a Neo4j graph.

    Construct it with an open :class:`~graphmem.db.Database` (the caller owns configuration), or
    with :meth:`from_settings` to resolve it from the environment. Use it as a context manager or
    call :meth:`close`.
    """

    def __init__(
        self,
        db: Database,
        *,
        embedder: Embedder | None = None,
        embedding_model: str | None = None,
        embedding_dimensions: int | None = None,
        worktree_as_project: bool = True,
        embed_inline: bool = False,
        redact: bool = True,
        foreground: ForegroundSignal | None = None,
    ) -> None:
        """``embedder`` is used for vector search and inline embedding; without one, search is
        text-only. ``redact`` replaces secrets (API keys, tokens, passwords; see
        :mod:`graphmem.integrations.redaction`) with ``[REDACTED:<kind>]`` in everything stored:
        turns, tool calls, facts, retrieval logs. The model name and dimension recorded in the database (and used for the vector
        indexes) are the embedder's, or the explicit values, or the local default's."""
        self.db = db
        self.embedder = embedder
        self.embedding_model = embedding_model or (embedder.model if embedder else LOCAL_EMBEDDING_MODEL)
        self.embedding_dimensions = embedding_dimensions or (
            embedder.dimensions if embedder else LOCAL_EMBEDDING_DIMENSIONS
        )
        self.worktree_as_project = worktree_as_project
        self.embed_inline = embed_inline
        self.redact = redact
        """Redact secrets in turns, tool calls, facts and retrieval logs before they are stored."""
        """Embed pending turns in :meth:`store_turn` itself (instead of leaving them to the worker)."""
        self.foreground = foreground
        """Marked by store_turn, search and build_context so that workers on this machine yield to
        them (:mod:`graphmem.activity`); :meth:`from_settings` uses ``$GRAPHMEM_HOME/run/foreground``."""
        self._searcher: Searcher | None = None
        self.deferred = DeferredWrites(db)
        """The background writer for writes nobody waits for (the injection logs of
        :meth:`build_context`); :meth:`close` waits for what it has queued (no thread until used)."""

    def _foreground(self) -> None:
        if self.foreground is not None:
            self.foreground.mark()

    @classmethod
    def from_settings(cls, settings: Settings | None = None, *, start: bool = False) -> GraphMemory:
        """Connect as configured (explicit URI, else the managed server; ``start`` starts it)."""
        settings = settings or Settings.load()
        embedder = make_embedder(settings)
        db = open_database(settings, start=start)
        return cls(
            db,
            embedder=embedder,
            embedding_model=settings.embedding_model if embedder is None else None,
            embedding_dimensions=settings.embedding_dimensions if embedder is None else None,
            foreground=ForegroundSignal.for_home(settings.home),
        )

    def close(self) -> None:
        self.deferred.close()
        self.db.close()

    def __enter__(self) -> GraphMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema ----------------------------------------------------------------------------
    def init_schema(self) -> int:
        """Apply the schema (idempotent) and return its version."""
        return apply_schema(self.db, dimensions=self.embedding_dimensions, model=self.embedding_model)

    def await_text_index(self) -> None:
        """Wait until the (eventually consistent) full-text indexes include every committed write.

        They are eventually consistent so that a commit does not pay for a Lucene refresh; the
        lag is normally milliseconds. Call this when a search must see a write just made."""
        self.db.write("meta/await_fulltext_refresh")

    def ensure_schema(self) -> None:
        """Apply the schema when the database has none (cheap check otherwise)."""
        status = schema_status(self.db)
        if status["version"] != status["expected"]:
            self.init_schema()

    # -- sessions --------------------------------------------------------------------------
    def create_session(
        self,
        cwd: str,
        project_path: str | None = None,
        agent: str | None = None,
        *,
        session_id: str | None = None,
        title: str | None = None,
        started_at: datetime | None = None,
    ) -> Session:
        """Create a session for ``cwd`` (normalised); the project defaults to its git root.

        With an existing ``session_id`` (e.g. a coding CLI's own id) that session is returned.
        """
        norm = normalize_cwd(cwd)
        project = normalize_cwd(project_path) if project_path else find_project_root(
            norm, worktree_as_project=self.worktree_as_project
        )
        rows = self.db.write(
            "sessions/create",
            id=_check_id(session_id, "session id") if session_id is not None else str(uuid.uuid4()),
            cwd=norm,
            projectPath=project,
            agent=clean_text(agent) if agent else None,
            title=clean_text(title) if title else None,
            startedAt=_when(started_at),
        )
        return Session(**_session_from_row(rows[0]["session"]))

    def get_session(self, session_id: str) -> Session:
        rows = self.db.read("sessions/get", id=_check_id(session_id, "session id"))
        if not rows:
            raise SessionNotFound(session_id)
        return Session(**_session_from_row(rows[0]["session"]))

    def sessions_for(self, cwd: str, *, limit: int = 50, preview_chars: int = 120) -> list[SessionInfo]:
        """Sessions of a directory, newest activity first, with turn count and last message preview."""
        rows = self.db.read("sessions/for_cwd", cwd=normalize_cwd(cwd), limit=limit, previewChars=preview_chars)
        return [SessionInfo(**_session_from_row(r["session"]), last_message=r["lastMessage"]) for r in rows]

    def sessions_for_project(self, project_path: str, *, limit: int = 50, preview_chars: int = 120) -> list[SessionInfo]:
        """Sessions of a project (git root), newest activity first."""
        rows = self.db.read(
            "sessions/for_project", projectPath=normalize_cwd(project_path), limit=limit, previewChars=preview_chars
        )
        return [SessionInfo(**_session_from_row(r["session"]), last_message=r["lastMessage"]) for r in rows]

    def load_session(self, session_id: str) -> SessionDetail:
        """The session with all its turns and their tool calls, in order."""
        session = self.get_session(session_id)
        rows = self.db.read("sessions/turns", id=session.id)
        turns = [_turn_from_row(r["turn"], r["toolCalls"]) for r in rows]
        return SessionDetail(**session.model_dump(), turns=turns)

    def delete_session(self, session_id: str) -> int:
        """Delete a session and everything under it; returns the number of turns deleted."""
        rows = self.db.write("sessions/delete", id=_check_id(session_id, "session id"))
        if not rows:
            raise SessionNotFound(session_id)
        return int(rows[0]["turnCount"])

    # -- turns -----------------------------------------------------------------------------
    def store_turn(
        self,
        session_id: str,
        user_message: str,
        assistant_message: str,
        tool_calls: Sequence[ToolCallIn | dict[str, Any]] = (),
        timestamp: datetime | None = None,
    ) -> Turn:
        """Append a turn in one write transaction and mark it pending for the worker."""
        self._foreground()
        turn_in = TurnIn(
            user_message=user_message,
            assistant_message=assistant_message,
            tool_calls=[c if isinstance(c, ToolCallIn) else ToolCallIn.model_validate(c) for c in tool_calls],
            timestamp=timestamp,
        )
        if self.redact:
            turn_in = _redact_turn(turn_in)
        ts = _when(turn_in.timestamp)
        calls = _tool_rows(turn_in.tool_calls)
        turn_id = str(uuid.uuid4())
        # One round trip (auto-commit); after a lost connection the turn id tells whether it landed.
        rows = self.db.write_autocommit(
            "turns/store",
            {
                "sessionId": _check_id(session_id, "session id"),
                "turnId": turn_id,
                "userMessage": turn_in.user_message,
                "assistantMessage": turn_in.assistant_message,
                "timestamp": ts,
                "charCount": len(turn_in.user_message) + len(turn_in.assistant_message),
                "toolCalls": calls,
            },
            recover=lambda: self.db.read("turns/stored_index", turnId=turn_id) or None,
        )
        if not rows:
            raise SessionNotFound(session_id)
        if self.embed_inline and self.embedder is not None:
            self.embed_pending(limit=64)  # inline embedding, when asked (oldest pending first)
        return Turn(
            id=turn_id,
            session_id=session_id,
            index=rows[0]["index"],
            user_message=turn_in.user_message,
            assistant_message=turn_in.assistant_message,
            timestamp=ts,
            char_count=len(turn_in.user_message) + len(turn_in.assistant_message),
            tool_calls=[
                ToolCall(
                    id=c["id"], name=c["name"], args=c["args"], result=c["result"], success=c["success"],
                    duration_ms=c["durationMs"], timestamp=c["timestamp"], order=c["order"],
                )
                for c in calls
            ],
        )

    def import_turns(
        self, session_id: str, turns: Iterable[TurnIn | dict[str, Any]], *, batch_size: int = 500
    ) -> ImportResult:
        """Append many turns in order, in UNWIND batches; turns whose ``source_id`` is already stored
        in this session are skipped, so importing the same transcript twice adds nothing."""
        sid = _check_id(session_id, "session id")
        self.get_session(sid)
        created = skipped = 0
        batch: list[dict[str, Any]] = []
        seen: set[str] = set()
        # One batch is written while the next one is built: the sender thread waits on the socket
        # (GIL released) while this thread validates and packs rows. Batches stay in order: at most
        # one is in flight, and each waits for the one before it.
        sender = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-import")
        in_flight: Future[tuple[int, int]] | None = None

        def send(rows: list[dict[str, Any]]) -> tuple[int, int]:
            out = self.db.write("turns/import_batch", sessionId=sid, rows=rows)
            n = int(out[0]["created"]) if out else 0
            return n, len(rows) - n

        def collect() -> None:
            nonlocal created, skipped, in_flight
            if in_flight is not None:
                n, dup = in_flight.result()
                created += n
                skipped += dup
                in_flight = None

        def flush() -> None:
            nonlocal batch, in_flight
            if not batch:
                return
            collect()
            in_flight = sender.submit(send, batch)
            batch = []

        try:
            for raw in turns:
                t = raw if isinstance(raw, TurnIn) else TurnIn.model_validate(raw)
                if self.redact:
                    t = _redact_turn(t)
                key = f"{sid}\x1f{t.source_id}" if t.source_id is not None else None
                if key is not None:
                    if key in seen:
                        skipped += 1
                        continue
                    seen.add(key)
                batch.append(
                    {
                        "id": str(uuid.uuid4()),
                        "userMessage": t.user_message,
                        "assistantMessage": t.assistant_message,
                        "timestamp": _when(t.timestamp),
                        "charCount": len(t.user_message) + len(t.assistant_message),
                        "sourceId": t.source_id,
                        "sourceKey": key,
                        "toolCalls": _tool_rows(t.tool_calls),
                    }
                )
                if len(batch) >= batch_size:
                    flush()
            flush()
            collect()
        finally:
            sender.shutdown(wait=True)
        return ImportResult(created=created, skipped=skipped)

    def get_turn(self, turn_id: str) -> Turn:
        rows = self.db.read("turns/get", id=_check_id(turn_id, "turn id"))
        if not rows:
            raise InvalidInput(f"turn not found: {turn_id!r}")
        return _turn_from_row(rows[0]["turn"], rows[0]["toolCalls"])

    def recent_turns(self, session_id: str, max_chars: int = 5000, limit: int = 3) -> list[Turn]:
        """Seed 004 getRecentTurns: up to ``limit`` latest turns whose characters fit in
        ``max_chars``, oldest first. The newest turn is always included (callers truncate)."""
        sid = _check_id(session_id, "session id")
        rows = self.db.read("turns/recent", sessionId=sid, limit=limit)
        if not rows:
            self.get_session(sid)  # raises SessionNotFound for an unknown id
            return []
        picked: list[Turn] = []
        used = 0
        for r in rows:
            t = _turn_from_row(r["turn"], r["toolCalls"])
            if picked and used + t.char_count > max_chars:
                break
            picked.append(t)
            used += t.char_count
        return list(reversed(picked))

    def raw_history_chars(self, session_id: str) -> int:
        """Seed 004 getRawHistoryCharCount: characters of turns not yet covered by a level-1 summary."""
        sid = _check_id(session_id, "session id")
        rows = self.db.read("turns/raw_history_chars", sessionId=sid)
        if not rows:
            self.get_session(sid)
            return 0
        return int(rows[0]["chars"] or 0)

    # -- summary hierarchy and worker (graphmem/hierarchy.py, worker.py, check.py) ----------------
    def level1_summaries_not_summarized(self, session_id: str, limit: int = 10) -> list[Summary]:
        """Seed 004 getLevel1SummariesNotSummarized: the latest ``limit`` level-1 summaries no
        level-2 summary covers yet, oldest first."""
        return self.summaries_not_rolled_up(session_id, 1, limit)

    def summaries_not_rolled_up(self, session_id: str, level: int, limit: int = 10) -> list[Summary]:
        """The latest ``limit`` level-``level`` summaries no higher summary covers yet, oldest first."""
        from .hierarchy import summaries_not_rolled_up

        return summaries_not_rolled_up(self.db, _check_id(session_id, "session id"), level, limit)

    def summaries(self, session_id: str, level: int | None = None) -> list[Summary]:
        """A session's summaries (one level, or all), by level then turn order."""
        from .hierarchy import session_summaries

        return session_summaries(self.db, _check_id(session_id, "session id"), level)

    def worker(self, summarizer: Summarizer | None = None, config: WorkerConfig | None = None) -> SummaryWorker:
        """A summarizer worker on this database with this memory's embedder (extractive summaries
        unless ``summarizer`` is given); ``.start_thread()`` runs it in the background,
        ``.run_until_idle()`` catches up in the caller's thread."""
        from .worker import SummaryWorker

        return SummaryWorker(self.db, summarizer, self.embedder, config, foreground=self.foreground)

    def check_hierarchy(self, path: str | None = None, *, complete: bool = False) -> CheckReport:
        """Verify the summary invariants (of the sessions under ``path``, or all); see graphmem.check."""
        from .check import check_hierarchy

        return check_hierarchy(self.db, path=normalize_cwd(path) if path else None, complete=complete)

    # -- facts (graphmem/facts) -------------------------------------------------------------------
    def remember(
        self,
        content: str,
        subjects: Sequence[str] = (),
        *,
        type: str | None = None,
        ttl: str | timedelta | None = None,
        scope: FactScopeLike = "global",
        importance: float | None = None,
        source: str | None = "explicit",
        turn_id: str | None = None,
    ) -> RememberResult:
        """Remember a fact in ``scope`` (``"global"``, ``"project:<path>"``, ``"session:<id>"``).

        When a current fact of the same scope has cosine >= 0.85 (setting ``facts.dedup_threshold``),
        or a cosine >= 0.6 and the new text contains all of its words, it is updated: the new text
        wins and the old version stays as history behind ``SUPERSEDES``. An existing fact that
        already says it (same words) is left ``unchanged``. ``type`` defaults to the matched fact's
        or ``"fact"``; ``ttl`` is a readable duration (``"1h"``, ``"7d"``, ``"never"``)."""
        from .facts import remember

        return remember(self, content, subjects, type=type, ttl=ttl, scope=scope, importance=importance,
                        source=source, turn_id=turn_id)

    def forget(self, topic_or_id: str, *, scopes: Sequence[FactScopeLike] | None = None,
               reason: str | None = None, dry_run: bool = False) -> ForgetResult:
        """Forget a fact by id, or every fact matching a topic; an audit record keeps when and why."""
        from .facts import forget

        return forget(self, topic_or_id, scopes=scopes, reason=reason, dry_run=dry_run)

    def search_facts(self, query: str, *, scopes: Sequence[FactScopeLike] | None = None,
                     limit: int | None = None, types: Sequence[str] | None = None) -> list[Fact]:
        """Semantic top ``limit`` (default 10, no threshold) of current facts in ``scopes`` (None: all)."""
        from .facts import search_facts

        return search_facts(self, query, scopes=scopes, limit=limit, types=types)

    def facts_about(self, subject: str, *, scopes: Sequence[FactScopeLike] | None = None,
                    limit: int = 50) -> list[Fact]:
        """Every current fact tagged with ``subject`` ("everything about mickael")."""
        from .facts import facts_about

        return facts_about(self.db, subject, scopes=scopes, limit=limit)

    def list_facts(self, *, scopes: Sequence[FactScopeLike] | None = None, type: str | None = None,
                   min_importance: float | None = None, since: datetime | timedelta | None = None,
                   order: str = "recent", limit: int = 50) -> list[Fact]:
        """Current facts by type / importance / recency (``order``: recent, importance, accessed)."""
        from .facts import list_facts

        return list_facts(self.db, scopes=scopes, type=type, min_importance=min_importance, since=since,
                          order=order, limit=limit)

    def inject_facts(self, session_id: str, message: str | Sequence[str], *, source: str = "user",
                     vector: list[float] | None = None) -> FactInjection:
        """The facts to add to the context before an LLM call (see graphmem.facts.inject)."""
        from .facts import inject_facts

        return inject_facts(self, _check_id(session_id, "session id"), message, source=source, vector=vector)

    def delete_expired_facts(self) -> int:
        """Delete the facts whose TTL has passed (reads already hide them); returns how many."""
        from .facts import delete_expired_facts

        return delete_expired_facts(self.db)

    # -- retrieval (graphmem/retrieval) ----------------------------------------------------------
    def searcher(self, config: RetrievalConfig | None = None) -> Searcher:
        """The searcher of this memory (created on first use); ``config`` replaces its settings."""
        from .retrieval import Searcher

        if self._searcher is None or config is not None:
            self._searcher = Searcher(self.db, self.embedder, config, dimensions=self.embedding_dimensions)
        return self._searcher

    def search(
        self,
        query: str,
        *,
        scope: Scope | str | None = None,
        levels: Sequence[int] = (0, 1, 2, 3),
        k: int = 10,
        mode: SearchMode = "hybrid",
        min_score: float | None = None,
        locale: str = "en",
        with_embeddings: bool = False,
        now: datetime | None = None,
    ) -> SearchResult:
        """Search turns (level 0) and summaries (levels 1+) of ``scope`` (``Scope`` or
        ``"everything"``, ``"session:<id>"``, ``"directory:<path>"``, ``"project:<path>"``).

        ``mode``: ``hybrid`` (vector + full-text fused by RRF), ``semantic`` or ``text``; without a
        working embedder it runs text-only and says so in ``warnings``. ``min_score`` is a cosine
        threshold for vector candidates (raw cosine, not the index's (1+cos)/2), or a BM25 threshold
        in text mode. ``now`` (default: the current time) is the query's own date: relative times
        and any time window the query names ("last weekend", ``SearchResult.time_window``) are
        computed from it. See :mod:`graphmem.retrieval.search` for the strategies."""
        self._foreground()
        return self.searcher().search(
            query, scope=scope, levels=levels, k=k, mode=mode, min_score=min_score, locale=locale,
            with_embeddings=with_embeddings, now=now,
        )

    def build_context(self, session_id: str, message: str, *, config: ContextConfig | None = None,
                      now: datetime | None = None) -> ContextBlock:
        """The enriched context to pass to the agent before answering ``message`` (seed 004 §3):
        recent raw turns, relevant past turns and summaries, unrolled level-1 summaries; rendered
        in ``.text`` within ``config.budget_chars``, ``.to_json()`` for machines. ``now`` as in
        :meth:`search`."""
        from .retrieval.context import context_for_session

        self._foreground()
        return context_for_session(self, session_id, message, config, now=now)

    def embed_pending(self, *, limit: int | None = None, batch: int = 128, expansion_window: int = 2) -> EmbedPassStats:
        """Embed pending turns and summaries now, in the caller's thread (the worker does it in the
        background); ``expansion_window`` > 0 also writes turns' ``contextText`` (document expansion)."""
        from .errors import ConfigError
        from .retrieval import embed_all_pending

        if self.embedder is None:
            raise ConfigError("no embedder configured (GRAPHMEM_EMBEDDER=none)")
        return embed_all_pending(self.db, self.embedder, batch=batch, limit=limit, expansion_window=expansion_window)

    def reindex(self, *, on_total: Any = None, progress: Any = None) -> EmbedPassStats:
        """Re-embed everything with this memory's embedder (new model or dimension): drop and
        recreate the vector indexes, reset every embedding to pending, embed, record the model."""
        from .errors import ConfigError
        from .retrieval import reindex

        if self.embedder is None:
            raise ConfigError("reindex needs an embedder (GRAPHMEM_EMBEDDER is none)")
        stats = reindex(self.db, self.embedder, on_total=on_total, progress=progress)
        self.embedding_model, self.embedding_dimensions = self.embedder.model, self.embedder.dimensions
        self._searcher = None
        return stats
