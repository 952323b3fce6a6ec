"""AsyncGraphMemory: the asynchronous pair of :class:`graphmem.GraphMemory`.

Same methods (as coroutines), same arguments, models and errors, same Cypher statements: each
method runs the very operation :class:`~graphmem.GraphMemory` runs (:mod:`graphmem.sessions`,
:mod:`graphmem.turns`, :mod:`graphmem.facts`, :mod:`graphmem.retrieval`), in
:func:`~graphmem.aio.bridge.run_sync` on an :class:`~graphmem.aio.AsyncDatabase`: its statements
go over the neo4j async driver and its embedding runs off the loop, so the event loop is never
blocked and many calls progress at once.

Differences with the synchronous facade: the fact injection log of :meth:`build_context` and the
indexing of a remembered fact's vector are written within the call (there is no background writer
thread); :meth:`build_context` runs its pieces in turn (the concurrency is between calls).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import Executor
from datetime import datetime, timedelta
from typing import Any

from .. import facts, sessions
from .. import turns as _turns
from ..activity import ForegroundSignal
from ..config import Settings
from ..db import Database, apply_schema, schema_status
from ..db.connect import resolve_connection
from ..embedding import LONG_TURN_CHARS, Embedder, make_embedder
from ..embedding.factory import embedder_settings
from ..facts import Fact, FactInjection, ForgetResult, RememberResult
from ..facts.model import FactScopeLike
from ..files import FileHistory, file_history
from ..memory import LOCAL_EMBEDDING_DIMENSIONS, LOCAL_EMBEDDING_MODEL
from ..models import Session, SessionDetail, SessionInfo, ToolCallIn, Turn, TurnIn
from ..retrieval import ContextBlock, ContextConfig, RetrievalConfig, Scope, Searcher, SearchMode, SearchResult
from ..retrieval.context import context_for_session
from ..retrieval.warmup import WARM_MS, WarmUp, warm_up
from ..sessions import check_id
from ..turns import ImportResult
from .bridge import run_sync
from .database import AsyncDatabase
from .embedding import OffLoopEmbedder

__all__ = ["AsyncGraphMemory", "open_async_memory"]


class AsyncGraphMemory:
    """Long-term conversational memory on a Neo4j graph, for asyncio code.

    Construct it with an :class:`AsyncDatabase` (or :meth:`from_settings`); use it as an async
    context manager or await :meth:`aclose`. ``embed_executor`` runs the embedder's calls (None:
    the loop's default executor)."""

    def __init__(
        self,
        db: AsyncDatabase,
        *,
        embedder: Embedder | None = None,
        embedding_model: str | None = None,
        embedding_dimensions: int | None = None,
        worktree_as_project: bool = True,
        redact: bool = True,
        foreground: ForegroundSignal | None = None,
        embed_executor: Executor | None = None,
    ) -> None:
        self.db = db
        self.embedder: Embedder | None = OffLoopEmbedder(embedder, embed_executor) if embedder is not None else None
        self.embedding_model = embedding_model or (embedder.model if embedder else LOCAL_EMBEDDING_MODEL)
        self.embedding_dimensions = embedding_dimensions or (
            embedder.dimensions if embedder else LOCAL_EMBEDDING_DIMENSIONS
        )
        self.worktree_as_project = worktree_as_project
        self.redact = redact
        self.foreground = foreground
        self._searcher: Searcher | None = None

    def _foreground(self) -> None:
        if self.foreground is not None:
            self.foreground.mark()

    @classmethod
    def from_settings(cls, settings: Settings | None = None, *, start: bool = False) -> AsyncGraphMemory:
        """Connect as configured (explicit URI, else the managed server; ``start`` starts it).
        ``GRAPHMEM_EMBEDDER=auto`` follows the model the database records (one short read here)."""
        settings = settings or Settings.load()
        c = resolve_connection(settings, start=start)
        if settings.embedder == "auto":
            recorded = Database(c.uri, c.user, c.password, c.database, timeout=c.timeout)
            try:
                recorded.ping()  # a server that is not there fails at once, not after the read's retries
                settings = embedder_settings(settings, recorded)
            finally:
                recorded.close()
        embedder = make_embedder(settings)
        db = AsyncDatabase(c.uri, c.user, c.password, c.database, timeout=c.timeout)
        return cls(
            db,
            embedder=embedder,
            embedding_model=settings.embedding_model if embedder is None else None,
            embedding_dimensions=settings.embedding_dimensions if embedder is None else None,
            foreground=ForegroundSignal.for_home(settings.home),
        )

    async def aclose(self) -> None:
        await self.db.aclose()

    async def __aenter__(self) -> AsyncGraphMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- schema ----------------------------------------------------------------------------
    async def init_schema(self) -> int:
        """Apply the schema (idempotent) and return its version."""
        return await run_sync(apply_schema, self.db, dimensions=self.embedding_dimensions,
                              model=self.embedding_model, long_turn_chars=LONG_TURN_CHARS)

    async def ensure_schema(self) -> None:
        """Apply the schema when the database has none (cheap check otherwise)."""
        status = await run_sync(schema_status, self.db)
        if status["version"] != status["expected"]:
            await self.init_schema()

    async def await_text_index(self) -> None:
        """Wait until the full-text indexes include every committed write (see GraphMemory)."""
        await run_sync(self.db.write, "meta/await_fulltext_refresh")

    # -- sessions --------------------------------------------------------------------------
    async def create_session(
        self,
        cwd: str,
        project_path: str | None = None,
        agent: str | None = None,
        *,
        session_id: str | None = None,
        title: str | None = None,
        started_at: datetime | None = None,
    ) -> Session:
        """Create a session for ``cwd`` (normalised); the project defaults to its git root."""
        return await run_sync(sessions.create_session, self.db, cwd, project_path, agent, session_id=session_id,
                              title=title, started_at=started_at, worktree_as_project=self.worktree_as_project)

    async def get_session(self, session_id: str) -> Session:
        return await run_sync(sessions.get_session, self.db, session_id)

    async def sessions_for(self, cwd: str, *, limit: int = 50, preview_chars: int = 120) -> list[SessionInfo]:
        return await run_sync(sessions.sessions_for, self.db, cwd, limit=limit, preview_chars=preview_chars)

    async def sessions_for_project(self, project_path: str, *, limit: int = 50,
                                   preview_chars: int = 120) -> list[SessionInfo]:
        return await run_sync(sessions.sessions_for_project, self.db, project_path, limit=limit,
                              preview_chars=preview_chars)

    async def load_session(self, session_id: str) -> SessionDetail:
        return await run_sync(_turns.load_session, self.db, session_id)

    async def delete_session(self, session_id: str) -> int:
        return await run_sync(sessions.delete_session, self.db, session_id)

    # -- turns -----------------------------------------------------------------------------
    async def store_turn(
        self,
        session_id: str,
        user_message: str,
        assistant_message: str,
        tool_calls: Sequence[ToolCallIn | dict[str, Any]] = (),
        timestamp: datetime | None = None,
    ) -> Turn:
        """Append a turn in one write transaction and mark it pending for the worker."""
        self._foreground()
        turn = _turns.turn_input(user_message, assistant_message, tool_calls, timestamp)
        return await run_sync(_turns.store_turn, self.db, session_id, turn, redact=self.redact)

    async def import_turns(self, session_id: str, turns: Iterable[TurnIn | dict[str, Any]], *,
                           batch_size: int = 500) -> ImportResult:
        """Append many turns in order, in batches (a ``source_id`` already stored is skipped)."""
        return await run_sync(_turns.import_turns, self.db, session_id, turns, redact=self.redact,
                              batch_size=batch_size)

    async def get_turn(self, turn_id: str) -> Turn:
        return await run_sync(_turns.get_turn, self.db, turn_id)

    async def recent_turns(self, session_id: str, max_chars: int = 5000, limit: int = 3) -> list[Turn]:
        return await run_sync(_turns.recent_turns, self.db, session_id, max_chars, limit)

    async def raw_history_chars(self, session_id: str) -> int:
        return await run_sync(_turns.raw_history_chars, self.db, session_id)

    async def file_history(self, project: str, path: str, *, cwd: str | None = None, limit: int = 10,
                           actions: Sequence[str] | None = None, failure_limit: int = 5,
                           summary_limit: int = 3) -> FileHistory:
        """What happened to ``path`` in ``project`` (see :meth:`GraphMemory.file_history`)."""
        return await run_sync(file_history, self.db, project, path, cwd=cwd, limit=limit, actions=actions,
                              failure_limit=failure_limit, summary_limit=summary_limit)

    # -- facts -----------------------------------------------------------------------------
    async def remember(
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
        """Remember a fact in ``scope`` (see :meth:`graphmem.GraphMemory.remember`)."""
        return await run_sync(facts.remember, self.db, content, subjects, embedder=self.embedder, redact=self.redact,
                              type=type, ttl=ttl, scope=scope, importance=importance, source=source,
                              turn_id=turn_id)

    async def forget(self, topic_or_id: str, *, scopes: Sequence[FactScopeLike] | None = None,
                     reason: str | None = None, dry_run: bool = False) -> ForgetResult:
        return await run_sync(facts.forget, self.db, topic_or_id, embedder=self.embedder, scopes=scopes,
                              reason=reason, dry_run=dry_run)

    async def search_facts(self, query: str, *, scopes: Sequence[FactScopeLike] | None = None,
                           limit: int | None = None, types: Sequence[str] | None = None) -> list[Fact]:
        return await run_sync(facts.search_facts, self.db, query, embedder=self.embedder, scopes=scopes,
                              limit=limit, types=types)

    async def facts_about(self, subject: str, *, scopes: Sequence[FactScopeLike] | None = None,
                          limit: int = 50) -> list[Fact]:
        return await run_sync(facts.facts_about, self.db, subject, scopes=scopes, limit=limit)

    async def list_facts(self, *, scopes: Sequence[FactScopeLike] | None = None, type: str | None = None,
                         min_importance: float | None = None, since: datetime | timedelta | None = None,
                         order: str = "recent", limit: int = 50) -> list[Fact]:
        return await run_sync(facts.list_facts, self.db, scopes=scopes, type=type, min_importance=min_importance,
                              since=since, order=order, limit=limit)

    async def inject_facts(self, session_id: str, message: str | Sequence[str], *, source: str = "user",
                           vector: list[float] | None = None) -> FactInjection:
        return await run_sync(facts.inject_facts, self.db, check_id(session_id, "session id"), message,
                              embedder=self.embedder, redact=self.redact, source=source, vector=vector)

    async def delete_expired_facts(self) -> int:
        return await run_sync(facts.delete_expired_facts, self.db)

    # -- retrieval -------------------------------------------------------------------------
    def searcher(self, config: RetrievalConfig | None = None) -> Searcher:
        """The searcher of this memory (created on first use); ``config`` replaces its settings."""
        if self._searcher is None or config is not None:
            self._searcher = Searcher(self.db, self.embedder, config, dimensions=self.embedding_dimensions)
        return self._searcher

    async def search(
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
    ) -> SearchResult:
        """Search turns and summaries of ``scope`` (see :meth:`graphmem.GraphMemory.search`)."""
        self._foreground()
        return await run_sync(self.searcher().search, query, scope=scope, levels=levels, k=k, mode=mode,
                              min_score=min_score, locale=locale, with_embeddings=with_embeddings)

    async def build_context(self, session_id: str, message: str, *,
                            config: ContextConfig | None = None) -> ContextBlock:
        """The enriched context for ``message`` (see :meth:`graphmem.GraphMemory.build_context`)."""
        self._foreground()
        return await run_sync(context_for_session, self.db, self.searcher(), session_id, message, config,
                              embedder=self.embedder, redact=self.redact)

    async def warm_up(self, session_id: str | None = None, *, rounds: int = 3,
                      warm_ms: float | None = WARM_MS) -> WarmUp:
        """Run the first prompts' searches and context blocks in ``session_id`` (default: the latest
        session), reading only, so that the server has planned them (see
        :meth:`graphmem.GraphMemory.warm_up`). Call it once after connecting, beside other work."""
        return await run_sync(warm_up, self.db, self.searcher(), session_id=session_id, embedder=self.embedder,
                              rounds=rounds, warm_ms=warm_ms)


async def open_async_memory(*, start: bool = False, ensure_schema: bool = True,
                            settings: Settings | None = None) -> AsyncGraphMemory:
    """The AsyncGraphMemory the environment describes, with its schema applied when missing; a
    server that does not answer fails at once, as :func:`graphmem.memory.open_memory` does."""
    settings = settings or Settings.load()
    mem = AsyncGraphMemory.from_settings(settings, start=start)
    try:
        if settings.embedder != "auto":  # under auto, from_settings has reached the server already
            await mem.db.aping()
        if ensure_schema:
            await mem.ensure_schema()
    except BaseException:
        await mem.aclose()
        raise
    return mem
