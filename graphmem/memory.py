"""GraphMemory: the synchronous facade over the conversation store.

It holds what the operations need (the database, the embedder, the background writer, the
redaction switch, the foreground mark) and hands it to them: sessions (:mod:`graphmem.sessions`),
turns (:mod:`graphmem.turns`), summaries (:mod:`graphmem.hierarchy`, :mod:`graphmem.worker`),
facts (:mod:`graphmem.facts`), retrieval (:mod:`graphmem.retrieval`) and, through
:class:`~graphmem.memory_chat.ChatMethods`, chat agents (:mod:`graphmem.chat`). Each method is one call.

The write path is short: :meth:`GraphMemory.store_turn` is one write transaction (turn, tool
calls, ``HAS_TURN``, ``NEXT``, session activity) and marks the turn ``embedState: 'pending'`` and
``summaryState: 'pending'`` for the worker; nothing slow happens in it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from . import facts, sessions
from . import turns as _turns
from .activity import ForegroundSignal
from .chat import ChatConfig, Digester
from .check import CheckReport, check_hierarchy
from .config import Settings
from .db import Database, DeferredWrites, apply_schema, open_database, schema_status
from .db.schema import check_embedding
from .embedding import LONG_TURN_CHARS, Embedder, EmbedPassStats, embed_all_pending, make_embedder, reindex
from .embedding.factory import configured_embedding, embedder_settings
from .errors import ConfigError
from .facts import Fact, FactExtractor, FactInjection, ForgetResult, RememberResult
from .facts.corrections import facts_as_of, remember_correcting
from .facts.judge import FactJudge, make_fact_judge
from .facts.model import FactScopeLike
from .files import FileHistory, file_history
from .hierarchy import session_summaries, summaries_not_rolled_up
from .memory_chat import ChatMethods
from .models import Session, SessionDetail, SessionInfo, Summary, ToolCallIn, Turn, TurnIn
from .notes import NoteHit, NotesConfig, NoteSync, context_source, list_notes, search_notes, sync_notes
from .paths import normalize_cwd
from .providers import Summarizer
from .retrieval import ContextBlock, ContextConfig, RetrievalConfig, Scope, Searcher, SearchMode, SearchResult
from .retrieval.context import context_for_session
from .retrieval.warmup import WARM_MS, WarmUp, warm_up
from .sessions import check_id
from .turns import ImportResult
from .worker import SummaryWorker, WorkerConfig

__all__ = ["LOCAL_EMBEDDING_DIMENSIONS", "LOCAL_EMBEDDING_MODEL", "GraphMemory", "ImportResult", "open_memory"]

LOCAL_EMBEDDING_MODEL = "use-multilingual-v3"
LOCAL_EMBEDDING_DIMENSIONS = 512


class GraphMemory(ChatMethods):
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
        chat: ChatConfig | None = None,
        judge: FactJudge | None = None,
        embedder_factory: Callable[[], Embedder | None] | None = None,
        judge_factory: Callable[[], FactJudge | None] | None = None,
        notes: NotesConfig | None = None,
    ) -> None:
        """``embedder`` is used for vector search and inline embedding; without one, search is
        text-only. ``redact`` replaces secrets (API keys, tokens, passwords; see
        :mod:`graphmem.redaction`) with ``[REDACTED:<kind>]`` in everything stored: turns, tool
        calls, facts, retrieval logs. The model name and dimension recorded in the database (and
        used for the vector indexes) are the embedder's, or the explicit values, or the local
        default's. ``embedder_factory`` (instead of ``embedder``) makes the embedder on first use, so
        that work which never embeds (listing sessions or facts, stats) never loads one; likewise
        ``judge_factory`` for the ``judge``. ``notes`` names a Markdown vault whose notes are a
        context source (graphmem.notes)."""
        self.db = db
        self._embedder = embedder
        self._embedder_factory = embedder_factory if embedder is None else None
        self._embedding_model = embedding_model
        self._embedding_dimensions = embedding_dimensions
        self.worktree_as_project = worktree_as_project
        self.embed_inline = embed_inline
        """Embed pending turns in :meth:`store_turn` itself (instead of leaving them to the worker)."""
        self.redact = redact
        """Redact secrets in turns, tool calls, facts and retrieval logs before they are stored."""
        self.foreground = foreground
        """Marked by store_turn, search and build_context so that workers on this machine yield to
        them (:mod:`graphmem.activity`); :meth:`from_settings` uses ``$GRAPHMEM_HOME/run/foreground``."""
        self.chat = chat or ChatConfig()
        """Settings of the chat-agent operations (conversations, live observation, tools)."""
        self._judge = judge
        self._judge_factory = judge_factory if judge is None else None
        self.notes = notes
        """The notes vault (None: no notes in the context)."""
        self._searcher: Searcher | None = None
        self.deferred = DeferredWrites(db)
        """The background writer for writes nobody waits for (the injection logs of
        :meth:`build_context`); :meth:`close` waits for what it has queued (no thread until used)."""

    @property
    def embedder(self) -> Embedder | None:
        """The embedder (made on first use when this memory was given a factory); None: text-only."""
        if self._embedder_factory is not None:
            factory, self._embedder_factory = self._embedder_factory, None
            self._embedder = factory()
        return self._embedder

    @property
    def judge(self) -> FactJudge | None:
        """The LLM deciding add / update / no-op in :meth:`remember` (None: similarity and the rule)."""
        if self._judge_factory is not None:
            factory, self._judge_factory = self._judge_factory, None
            self._judge = factory()
        return self._judge

    @property
    def embedding_model(self) -> str:
        """The model name recorded in the database: the explicit value, else the embedder's, else the local default."""
        if self._embedding_model is None:
            emb = self.embedder
            self._embedding_model = emb.model if emb is not None else LOCAL_EMBEDDING_MODEL
        return self._embedding_model

    @embedding_model.setter
    def embedding_model(self, value: str) -> None:
        self._embedding_model = value

    @property
    def embedding_dimensions(self) -> int:
        """The vector size of the indexes: the explicit value, else the embedder's, else the local default."""
        if self._embedding_dimensions is None:
            emb = self.embedder
            self._embedding_dimensions = emb.dimensions if emb is not None else LOCAL_EMBEDDING_DIMENSIONS
        return self._embedding_dimensions

    @embedding_dimensions.setter
    def embedding_dimensions(self, value: int) -> None:
        self._embedding_dimensions = value

    def _foreground(self) -> None:
        if self.foreground is not None:
            self.foreground.mark()

    @classmethod
    def from_settings(cls, settings: Settings | None = None, *, start: bool = False, db: Database | None = None,
                      embedder_factory: Callable[[], Embedder | None] | None = None) -> GraphMemory:
        """Connect as configured (explicit URI, else the managed server; ``start`` starts it), or use
        ``db``. The embedder is made when first needed (by ``embedder_factory``, default the one the
        settings describe), so a bad embedder setting surfaces there."""
        settings = settings or Settings.load()
        db = db if db is not None else open_database(settings, start=start)
        explicit = settings.embedder == "none"  # otherwise the embedder's own model and size, once made
        return cls(
            db,
            embedder_factory=embedder_factory or (lambda: make_embedder(embedder_settings(settings, db))),
            judge_factory=lambda: make_fact_judge(settings),
            embedding_model=settings.embedding_model if explicit else None,
            embedding_dimensions=settings.embedding_dimensions if explicit else None,
            foreground=ForegroundSignal.for_home(settings.home),
            chat=ChatConfig.from_settings(settings),
            notes=NotesConfig.from_settings(settings),
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
        return apply_schema(self.db, dimensions=self.embedding_dimensions, model=self.embedding_model,
                            long_turn_chars=LONG_TURN_CHARS)

    def await_text_index(self) -> None:
        """Wait until the (eventually consistent) full-text indexes include every committed write.

        They are eventually consistent so that a commit does not pay for a Lucene refresh; the
        lag is normally milliseconds. Call this when a search must see a write just made."""
        self.db.write("meta/await_fulltext_refresh")

    def ensure_schema(self, *, embedding: tuple[str, int] | None = None) -> None:
        """Apply the schema when the database has none (cheap check otherwise). ``embedding``: the
        model and dimension this process will embed with; :class:`EmbeddingMismatch` when the
        database records others (its vectors and indexes are another model's)."""
        status = schema_status(self.db)
        if status["version"] != status["expected"]:
            self.init_schema()
        elif embedding is not None:
            check_embedding(status["embedding_model"], status["embedding_dimensions"],
                            model=embedding[0], dimensions=embedding[1])

    # -- sessions (graphmem/sessions.py) -------------------------------------------------------
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
        return sessions.create_session(self.db, cwd, project_path, agent, session_id=session_id, title=title,
                                       started_at=started_at, worktree_as_project=self.worktree_as_project)

    def get_session(self, session_id: str) -> Session:
        return sessions.get_session(self.db, session_id)

    def sessions_for(self, cwd: str, *, limit: int = 50, preview_chars: int = 120) -> list[SessionInfo]:
        """Sessions of a directory, newest activity first, with turn count and last message preview."""
        return sessions.sessions_for(self.db, cwd, limit=limit, preview_chars=preview_chars)

    def sessions_for_project(self, project_path: str, *, limit: int = 50, preview_chars: int = 120) -> list[SessionInfo]:
        """Sessions of a project (git root), newest activity first."""
        return sessions.sessions_for_project(self.db, project_path, limit=limit, preview_chars=preview_chars)

    def load_session(self, session_id: str) -> SessionDetail:
        """The session with all its turns and their tool calls, in order."""
        return _turns.load_session(self.db, session_id)

    def delete_session(self, session_id: str) -> int:
        """Delete a session and everything under it; returns the number of turns deleted."""
        return sessions.delete_session(self.db, session_id)

    # -- turns (graphmem/turns.py) --------------------------------------------------------------
    def store_turn(
        self,
        session_id: str,
        user_message: str,
        assistant_message: str,
        tool_calls: Sequence[ToolCallIn | dict[str, Any]] = (),
        timestamp: datetime | None = None,
    ) -> Turn:
        """Append a turn in one write transaction and mark it pending for the worker. A malformed
        argument (e.g. a tool call without ``name``) raises :class:`InvalidInput` naming the field."""
        self._foreground()
        turn = _turns.turn_input(user_message, assistant_message, tool_calls, timestamp)
        inline = self.embed_inline and self.embedder is not None
        # inline embedding, when asked: the oldest pending turns, this one among them
        return _turns.store_turn(self.db, session_id, turn, redact=self.redact,
                                after=(lambda: self.embed_pending(limit=64)) if inline else None)

    def import_turns(
        self, session_id: str, turns: Iterable[TurnIn | dict[str, Any]], *, batch_size: int = 500
    ) -> ImportResult:
        """Append many turns in order, in batches; turns whose ``source_id`` is already stored in
        this session are skipped, so importing the same transcript twice adds nothing."""
        return _turns.import_turns(self.db, session_id, turns, redact=self.redact, batch_size=batch_size)

    def get_turn(self, turn_id: str) -> Turn:
        return _turns.get_turn(self.db, turn_id)

    def recent_turns(self, session_id: str, max_chars: int = 5000, limit: int = 3) -> list[Turn]:
        """Up to ``limit`` latest turns whose characters fit in ``max_chars``, oldest first. The
        newest turn is always included (callers truncate)."""
        return _turns.recent_turns(self.db, session_id, max_chars, limit)

    def raw_history_chars(self, session_id: str) -> int:
        """Characters of the session's turns not yet covered by a level-1 summary."""
        return _turns.raw_history_chars(self.db, session_id)

    # -- summary hierarchy and worker (graphmem/hierarchy.py, worker.py, check.py) ----------------
    def level1_summaries_not_summarized(self, session_id: str, limit: int = 10) -> list[Summary]:
        """The latest ``limit`` level-1 summaries no level-2 summary covers yet, oldest first."""
        return summaries_not_rolled_up(self.db, check_id(session_id, "session id"), 1, limit)

    def summaries_not_rolled_up(self, session_id: str, level: int, limit: int = 10) -> list[Summary]:
        """The latest ``limit`` level-``level`` summaries no higher summary covers yet, oldest first."""
        return summaries_not_rolled_up(self.db, check_id(session_id, "session id"), level, limit)

    def summaries(self, session_id: str, level: int | None = None) -> list[Summary]:
        """A session's summaries (one level, or all), by level then turn order."""
        return session_summaries(self.db, check_id(session_id, "session id"), level)

    def worker(self, summarizer: Summarizer | None = None, config: WorkerConfig | None = None, *,
               digester: Digester | None = None, extractor: FactExtractor | None = None) -> SummaryWorker:
        """A summarizer worker on this database with this memory's embedder (extractive summaries
        unless ``summarizer`` is given; ``digester`` runs the chat rooms' digest when due; ``extractor``
        extracts facts from each turn once it is summarized; this memory's notes vault is synced with
        the periodic cleanup); ``.start_thread()`` runs it in the background, ``.run_until_idle()``
        catches up in the caller's thread."""
        return SummaryWorker(self.db, summarizer, self.embedder, config, foreground=self.foreground,
                             digester=digester, extractor=extractor, notes=self.notes)

    def check_hierarchy(self, path: str | None = None, *, complete: bool = False) -> CheckReport:
        """Verify the summary invariants (of the sessions under ``path``, or all); see graphmem.check."""
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
        or ``"fact"``; ``ttl`` is a readable duration (``"1h"``, ``"7d"``, ``"never"``). A fact that
        corrects a current one retires it (``retired``): with a ``judge`` (an LLM) the model decides,
        else a rule on where someone lives, works or is (graphmem.facts.corrections)."""
        return remember_correcting(self.db, content, subjects, judge=self.judge, embedder=self.embedder,
                                   deferred=self.deferred, redact=self.redact, type=type, ttl=ttl, scope=scope,
                                   importance=importance, source=source, turn_id=turn_id)

    def forget(self, topic_or_id: str, *, scopes: Sequence[FactScopeLike] | None = None,
               reason: str | None = None, dry_run: bool = False) -> ForgetResult:
        """Forget a fact by id, or every fact matching a topic; an audit record keeps when and why."""
        return facts.forget(self.db, topic_or_id, embedder=self.embedder, deferred=self.deferred, scopes=scopes,
                            reason=reason, dry_run=dry_run)

    def search_facts(self, query: str, *, scopes: Sequence[FactScopeLike] | None = None,
                     limit: int | None = None, types: Sequence[str] | None = None) -> list[Fact]:
        """Semantic top ``limit`` (default 10, no threshold) of current facts in ``scopes`` (None: all)."""
        return facts.search_facts(self.db, query, embedder=self.embedder, deferred=self.deferred, scopes=scopes,
                                  limit=limit, types=types)

    def facts_about(self, subject: str, *, scopes: Sequence[FactScopeLike] | None = None,
                    limit: int = 50) -> list[Fact]:
        """Every current fact tagged with ``subject`` ("everything about mickael")."""
        return facts.facts_about(self.db, subject, scopes=scopes, limit=limit)

    def list_facts(self, *, scopes: Sequence[FactScopeLike] | None = None, type: str | None = None,
                   min_importance: float | None = None, since: datetime | timedelta | None = None,
                   order: str = "recent", limit: int = 50) -> list[Fact]:
        """Current facts by type / importance / recency (``order``: recent, importance, accessed)."""
        return facts.list_facts(self.db, scopes=scopes, type=type, min_importance=min_importance, since=since,
                                order=order, limit=limit)

    def inject_facts(self, session_id: str, message: str | Sequence[str], *, source: str = "user",
                     vector: list[float] | None = None) -> FactInjection:
        """The facts to add to the context before an LLM call (see graphmem.facts.inject)."""
        return facts.inject_facts(self.db, check_id(session_id, "session id"), message, embedder=self.embedder,
                                  deferred=self.deferred, redact=self.redact, source=source, vector=vector)

    def delete_expired_facts(self) -> int:
        """Delete the facts whose TTL has passed (reads already hide them); returns how many."""
        return facts.delete_expired_facts(self.db)

    # -- file history (graphmem/files.py) ---------------------------------------------------------
    def file_history(self, project: str, path: str, *, cwd: str | None = None, limit: int = 10,
                     actions: Sequence[str] | None = None, failure_limit: int = 5,
                     summary_limit: int = 3) -> FileHistory:
        """What happened to ``path`` in ``project``: the latest tool calls naming it (of ``actions``:
        read, edit, write, search, run; default all) with their turns' requests, the failed ones and
        the summaries mentioning it. A relative ``path`` is taken from ``cwd`` (default the project root)."""
        return file_history(self.db, project, path, cwd=cwd, limit=limit, actions=actions,
                            failure_limit=failure_limit, summary_limit=summary_limit)

    def facts_as_of(self, at: datetime, *, scopes: Sequence[FactScopeLike], subject: str | None = None,
                    limit: int = 50) -> list[Fact]:
        """The facts of ``scopes`` true at ``at``, retired versions included (graphmem.facts.corrections)."""
        return facts_as_of(self.db, at, scopes=scopes, subject=subject, limit=limit)


    # -- retrieval (graphmem/retrieval) ----------------------------------------------------------
    def searcher(self, config: RetrievalConfig | None = None) -> Searcher:
        """The searcher of this memory (created on first use); ``config`` replaces its settings."""
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

        ``mode``: ``hybrid`` (vector + full-text + graph, fused), ``semantic`` or ``text``; without a
        working embedder it runs text-only and says so in ``warnings``. ``min_score`` is a cosine
        threshold for vector candidates (raw cosine, not the index's (1+cos)/2), or a BM25 threshold
        in text mode. ``now`` is the query's own date: relative times and any time window the query
        names ("last weekend", ``SearchResult.time_window``) are computed from it. Without it: from
        the current time, or, when the scope's history ends before that window, from the day after
        its last turn. See :mod:`graphmem.retrieval.search` for the strategies."""
        self._foreground()
        return self.searcher().search(
            query, scope=scope, levels=levels, k=k, mode=mode, min_score=min_score, locale=locale,
            with_embeddings=with_embeddings, now=now,
        )

    def build_context(self, session_id: str, message: str, *, config: ContextConfig | None = None,
                      now: datetime | None = None) -> ContextBlock:
        """The enriched context to pass to the agent before answering ``message``: recent raw
        turns, relevant past turns and summaries, unrolled level-1 summaries; rendered in ``.text``
        within ``config.budget_chars``, ``.to_json()`` for machines. ``now`` as in :meth:`search`."""
        self._foreground()
        notes = context_source(self.db, self.notes, self.embedder, self.embedding_model) if self.notes else None
        return context_for_session(self.db, self.searcher(), session_id, message, config, embedder=self.embedder,
                                   deferred=self.deferred, redact=self.redact, now=now, notes=notes)

    def warm_up(self, session_id: str | None = None, *, rounds: int = 3, warm_ms: float | None = WARM_MS) -> WarmUp:
        """Run the first prompts' searches and context blocks in ``session_id`` (default: the latest
        session), reading only, so that the server has planned them (:mod:`graphmem.retrieval.warmup`)."""
        notes = context_source(self.db, self.notes, self.embedder, self.embedding_model) if self.notes else None
        return warm_up(self.db, self.searcher(), session_id=session_id, embedder=self.embedder, notes=notes,
                       rounds=rounds, warm_ms=warm_ms)

    # -- notes (graphmem/notes) ------------------------------------------------------------------
    def sync_notes(self) -> NoteSync:
        """Bring the notes in the graph in line with the vault (incremental by modification time)."""
        return sync_notes(self.db, self._notes_config())

    def search_notes(self, query: str, *, k: int = 5) -> list[NoteHit]:
        """The notes most relevant to ``query`` (vector and full text fused), of this memory's vault."""
        return search_notes(self.db, query, embedder=self.embedder, vault=self._notes_config().key, k=k)

    def list_notes(self, *, fixed_only: bool = False, limit: int = 100) -> list[NoteHit]:
        """The notes in memory, fixed ones first."""
        return list_notes(self.db, vault=self._notes_config().key, fixed_only=fixed_only, limit=limit)

    def _notes_config(self) -> NotesConfig:
        if self.notes is None:
            raise ConfigError("no notes vault configured (GRAPHMEM_NOTES_VAULT)")
        return self.notes

    def embed_pending(
        self, *, limit: int | None = None, batch: int = 128, expansion_window: int = 2,
        long_turn_chars: int = LONG_TURN_CHARS,
    ) -> EmbedPassStats:
        """Embed pending turns and summaries now, in the caller's thread (the worker does it in the
        background); ``expansion_window`` > 0 also writes turns' ``contextText`` (document expansion);
        turns longer than ``long_turn_chars`` get no neighbour context (0 = every turn does)."""
        if self.embedder is None:
            raise ConfigError("no embedder configured (GRAPHMEM_EMBEDDER=none)")
        return embed_all_pending(self.db, self.embedder, batch=batch, limit=limit, expansion_window=expansion_window,
                                 long_turn_chars=long_turn_chars)

    def reindex(self, *, on_total: Any = None, progress: Any = None) -> EmbedPassStats:
        """Re-embed everything with this memory's embedder (new model or dimension): drop and
        recreate the vector indexes, reset every embedding to pending, embed, record the model."""
        if self.embedder is None:
            raise ConfigError("reindex needs an embedder (GRAPHMEM_EMBEDDER is none)")
        stats = reindex(self.db, self.embedder, on_total=on_total, progress=progress)
        self.embedding_model, self.embedding_dimensions = self.embedder.model, self.embedder.dimensions
        self._searcher = None
        return stats


def open_memory(*, start: bool = False, ensure_schema: bool = True, settings: Settings | None = None,
                embedder_factory: Callable[[Settings], Embedder | None] | None = None) -> GraphMemory:
    """The GraphMemory the environment describes (managed server unless a URI is set; one that does
    not answer fails at once), its schema applied when the database has none; :class:`EmbeddingMismatch`
    when the database records another model than the settings' embedder (known without loading it).
    ``GRAPHMEM_EMBEDDER=auto`` follows the model the database records (:func:`embedder_settings`).
    ``embedder_factory`` makes the embedder from those settings when first needed (default :func:`make_embedder`)."""
    db = open_database(settings := settings or Settings.load(), start=start, check=True)
    try:
        resolved = embedder_settings(settings, db) if ensure_schema else settings
        mem = GraphMemory.from_settings(resolved, db=db, embedder_factory=embedder_factory and (
            lambda: embedder_factory(resolved)))
        if ensure_schema:
            model, dims = configured_embedding(resolved) if resolved.embedder != "none" else (None, None)
            mem.ensure_schema(embedding=(model, dims) if model and dims else None)
    except BaseException:
        db.close()
        raise
    return mem
