"""What a hook does, given a :class:`~graphmem.memory.GraphMemory` (the daemon's warm one, or one
opened in the hook process when no daemon runs).

* prompt (``UserPromptSubmit``/``BeforeAgent``): the context for this directory and prompt
  (:meth:`GraphMemory.build_context`, scoped to the project = git root: the known facts of the
  fact injection, logged as a ``(:Retrieval)``, then relevant past turns and summaries), rendered as
  ``hookSpecificOutput.additionalContext`` (at most 10,000 characters with its tags). The current
  session's own recent turns are left out: the CLI already has them in its window. A prompt that
  starts with ``remember:``/``#remember``/``retiens :`` stores the rest as a project fact, and
  ``#forget <topic>`` forgets the project's facts on that topic; the context is then the one line
  that says what happened (:mod:`graphmem.runtime.hook_commands`).
* stop (``Stop``/``AfterAgent``): read the transcript's new records since the saved cursor
  (:func:`graphmem.integrations.read_new`, passing the hook's ``last_assistant_message`` so a
  last turn the CLI has not flushed yet is complete), create the session keyed on the CLI's own
  session id (cwd recorded, project = git root or, with ``GRAPHMEM_WORKTREES=main``, the main
  repository of a worktree) and ``import_turns`` (idempotent on source ids). Neo4j unreachable:
  the turns go to the spool. Then the cursor moves. A spool backlog is replayed first, for at most
  ``GRAPHMEM_HOOK_REPLAY_SECONDS`` (default 2 s); when entries are left, the hook's turns are
  spooled behind them (turn order is kept) and the hook returns.
* session end (``SessionEnd``) and compaction (``PreCompact``/``PreCompress``): the same read as
  stop, taking the last turn as finished at the end of a session and before a manual compaction
  (a last turn whose Stop never came, or came without ``last_assistant_message``, is stored);
  at the end of a session the spool is then replayed (for at most 10 s).
* session start: a short brief of the project's latest sessions (``GRAPHMEM_HOOK_BRIEF=0``
  turns it off).
* pre tool (``PreToolUse``): the history of the file the tool is about to use (:mod:`.pre_tool`).

Opt-out: a ``.graphmem-ignore`` file (in the directory or a parent up to the git root) or
``#nomem`` in the prompt. Secrets never reach the store or the spool: the store redacts every
turn it writes (once: the transcripts are read without redaction), and turns that go to the spool
are redacted before they are written there.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..activity import ForegroundSignal
from ..config import DEFAULT_HOOK_REPLAY_SECONDS, Settings
from ..db import Database, managed_server
from ..embedding.factory import configured_embedding
from ..errors import (
    ConfigError,
    DatabaseError,
    DatabaseUnavailable,
    GraphMemError,
    InvalidInput,
    InvalidSettings,
    ServerError,
    SessionNotFound,
)
from ..integrations import (
    MAX_CONTEXT_CHARS,
    HookInput,
    ImportedSession,
    has_nomem_marker,
    is_ignored_dir,
    parse_hook_input,
    parse_prompt_command,
    read_new,
    redact_turn,
    render_context,
)
from ..memory import GraphMemory
from ..models import Session, TurnIn
from ..paths import find_project_root, normalize_cwd
from ..retrieval import ContextConfig
from ..retrieval.context import context_for_session
from ..retrieval.reltime import relative
from .client import home_dir
from .cursors import CursorStore
from .hook_commands import run_prompt_command
from .pre_tool import pre_tool_context
from .spool import ReplayResult, Spool, SpoolError

__all__ = ["HookReply", "HookService", "IngestResult", "open_hook_database", "quiet_driver_logs", "run_direct"]

log = logging.getLogger("graphmem.runtime")

HOOK_CONNECT_TIMEOUT = 3.0
"""Seconds a hook waits for Neo4j (connection and pool) before spooling."""
HOOK_RETRY_TIME = 1.0
"""Seconds the driver retries a transient failure inside a hook (then the turns are spooled)."""
BRIEF_MAX_CHARS = 1500
SESSION_END_REPLAY_SECONDS = 10.0
"""Seconds a SessionEnd hook replays a spool backlog once its own turns are stored."""


@dataclass
class HookReply:
    """What the hook command prints."""

    stdout: str = ""
    stderr: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"stdout": self.stdout, "stderr": self.stderr, "timings_ms": self.timings_ms}


@dataclass
class IngestResult:
    """What a Stop hook stored."""

    session_id: str | None = None
    turns_read: int = 0
    created: int = 0
    skipped: int = 0
    spooled: int = 0
    spool_reason: str | None = None
    """Why the turns were spooled instead of stored (one line, shown by the hook)."""
    ignored: bool = False
    warnings: list[str] = field(default_factory=list)
    replay: ReplayResult | None = None


def open_hook_database(settings: Settings) -> Database:
    """The configured Neo4j with hook-sized timeouts (a managed server is never started here)."""
    timeout = min(settings.connect_timeout, HOOK_CONNECT_TIMEOUT)
    if settings.neo4j_uri:
        if settings.neo4j_password is None:
            raise ConfigError("GRAPHMEM_NEO4J_URI is set but no password (GRAPHMEM_NEO4J_PASSWORD or NEO4J_PASSWORD)")
        return Database(settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password.get_secret_value(),
                        settings.neo4j_database, timeout=timeout, max_retry_time=HOOK_RETRY_TIME)
    server = managed_server(settings)
    state = server.state()
    if state is None:
        raise DatabaseUnavailable(f"the managed Neo4j under {settings.home} is not running: run `graphmem db up`")
    try:
        password = server.password()
    except ServerError as e:
        raise DatabaseUnavailable(str(e)) from e
    return Database(state.uri, "neo4j", password, "neo4j", timeout=timeout, max_retry_time=HOOK_RETRY_TIME)


def quiet_driver_logs() -> None:
    """The driver's retry warnings would reach the hook's stderr (no logging is configured):
    keep only errors; graphmem reports the outcome in one line."""
    logging.getLogger("neo4j").setLevel(logging.ERROR)


def _flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return value.strip().lower() not in ("0", "false", "no", "off")


def _reads_to_the_end(inp: HookInput) -> bool:
    """Whether the hook's transcript read takes its last turn as finished even without an end-of-turn
    record: at the end of a session (``SessionEnd``; Claude Code before 2.1.47 sends no
    ``last_assistant_message`` on Stop, so a last turn whose Stop did not come is only stored here),
    and before a compaction the person asked for (``PreCompact``/``PreCompress`` with trigger
    ``manual``, which runs between turns). An automatic compaction may run in the middle of a turn:
    that turn waits for its Stop."""
    event = inp.event
    if event == "session_end":
        return True
    if event == "pre_compact":
        trigger = getattr(inp, "trigger", None) or (inp.model_extra or {}).get("trigger")
        return str(trigger or "").lower() == "manual"
    return False


def degraded_notice(e: BaseException) -> str:
    """The one line a session starts with while Neo4j cannot be reached."""
    return (f"graphmem memory is degraded: {_short(e)}. Turns are kept in the spool and stored once Neo4j is "
            "back; until then prompts get no memory (start it with `graphmem db up`).")


def _short(e: BaseException) -> str:
    text = str(e).splitlines()[0] if str(e) else type(e).__name__
    return text[:300]


class _WithoutVectors:
    """A searcher that never fetches the hits' vectors (see ``HookService.vector_dedup``)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def search(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["with_embeddings"] = False
        return self._inner.search(*args, **kwargs)


class HookService:
    """Handles hook payloads. Thread-safe: the daemon calls it from one thread per connection.

    ``memory`` returns the GraphMemory to use (raising :class:`DatabaseUnavailable` when Neo4j
    cannot be opened); ``search_memory`` the one used for prompts (the daemon gives a text-only
    one until its embedder is loaded)."""

    def __init__(
        self,
        home: Path,
        memory: Callable[[], GraphMemory],
        *,
        search_memory: Callable[[], GraphMemory] | None = None,
        worktree_as_project: bool | None = None,
        brief: bool | None = None,
        replay_seconds: float = DEFAULT_HOOK_REPLAY_SECONDS,
    ) -> None:
        """``replay_seconds``: how long :meth:`ingest` replays a spool backlog (0 = no limit);
        see ``Settings.hook_replay_seconds``."""
        if not replay_seconds >= 0:
            raise ValueError(f"replay_seconds must be >= 0, not {replay_seconds!r}")
        self.home = home
        self.spool = Spool(home)
        self.cursors = CursorStore(home)
        self._memory = memory
        self._search_memory = search_memory or memory
        self.worktree_as_project = (
            os.environ.get("GRAPHMEM_WORKTREES", "separate").strip().lower() != "main"
            if worktree_as_project is None else worktree_as_project
        )
        self.brief = _flag("GRAPHMEM_HOOK_BRIEF", True) if brief is None else brief
        self.replay_seconds: float | None = replay_seconds if replay_seconds > 0 else None
        self.vector_dedup = _flag("GRAPHMEM_HOOK_VECTOR_DEDUP", False)
        """Collapse near-duplicate hits by their vectors (fetching them costs the prompt hook tens of
        milliseconds); by default hits with the same text collapse."""
        self._schema_ok = False
        self._known_sessions: dict[str, Session] = {}
        self._lock = threading.Lock()
        self._ingest_locks: dict[str, threading.Lock] = {}

    # -- helpers -------------------------------------------------------------------------------
    def ready(self, mem: GraphMemory) -> GraphMemory:
        if not self._schema_ok:
            mem.ensure_schema()
            self._schema_ok = True
        return mem

    def _project(self, cwd: str) -> str:
        return find_project_root(cwd, worktree_as_project=self.worktree_as_project)

    def _ensure_session(self, mem: GraphMemory, session_id: str, cwd: str, agent: str, **extra: Any) -> Session:
        known = self._known_sessions.get(session_id)
        if known is not None:
            return known
        session = mem.create_session(cwd, self._project(cwd), agent, session_id=session_id, **extra)
        with self._lock:
            self._known_sessions[session_id] = session
        return session

    # -- entry point ---------------------------------------------------------------------------
    def handle(self, tool: str, raw: str | bytes) -> HookReply:
        """Handle one hook payload; never raises (errors become a line on stderr)."""
        t0 = time.perf_counter()
        reply = HookReply()
        event: str | None = None
        try:
            inp = parse_hook_input(raw, tool)
            event = inp.event
            if event == "prompt":
                reply.stdout = self.prompt(tool, inp, reply)
            elif event in ("stop", "session_end", "pre_compact"):
                res = self.stop(tool, inp, final=_reads_to_the_end(inp))
                if event == "session_end" and not res.spooled:
                    self.flush_spool()
                if res.spooled:
                    behind = res.replay is not None and (res.replay.busy or res.replay.remaining > 0)
                    where = " behind the older entries" if behind else ""
                    reply.stderr = (f"graphmem: {res.spool_reason or 'Neo4j is unreachable'}; {res.spooled} turn(s) "
                                    f"spooled{where} (replayed in order by the next hook, the daemon, "
                                    f"`graphmem db up` or `graphmem spool replay`)")
            elif event == "session_start":
                reply.stdout = self.session_start(tool, inp)
            elif event == "pre_tool":
                reply.stdout = pre_tool_context(self, tool, inp)
        except SpoolError as e:
            reply.stdout = ""
            reply.stderr = f"graphmem: {e}; the turns stay in the transcript and are read again at the next Stop"
        except DatabaseUnavailable as e:
            # at the start of a session the assistant (and its user) learn in one line that memory is degraded
            reply.stdout = render_context(degraded_notice(e), tool=tool, event="session_start") \
                if event == "session_start" else ""
            reply.stderr = f"graphmem: {_short(e)}"
        except GraphMemError as e:
            reply.stdout = ""
            reply.stderr = f"graphmem: error: {_short(e)}"
        except Exception as e:  # a hook must never fail the CLI
            log.exception("hook failed")
            reply.stdout = ""
            reply.stderr = f"graphmem: internal error: {type(e).__name__}: {_short(e)}"
        reply.timings_ms["total"] = round((time.perf_counter() - t0) * 1000, 3)
        return reply

    # -- UserPromptSubmit / BeforeAgent --------------------------------------------------------
    def prompt(self, tool: str, inp: HookInput, reply: HookReply | None = None) -> str:
        prompt = inp.prompt or ""
        if not inp.session_id or not inp.cwd or not prompt.strip():
            return ""
        if has_nomem_marker(prompt) or is_ignored_dir(inp.cwd):
            return ""
        mem = self.ready(self._search_memory())
        cwd = normalize_cwd(inp.cwd)
        session = self._ensure_session(mem, inp.session_id, cwd, tool)
        command = parse_prompt_command(prompt)
        if command is not None:  # remember: / #forget: the answer is one line, no search
            return render_context(run_prompt_command(mem, session, command), tool=tool, event="prompt")
        # The CLI already holds this session's recent turns and its not-yet-rolled-up summaries in
        # its window: only the search (relevant past turns and summaries of the project) and the
        # fact injection run. The message is embedded once for both (when an embedder is loaded);
        # the injection is logged as a (:Retrieval) in the background, as build_context does.
        config = ContextConfig(recent_limit=0, level1_limit=0, budget_chars=MAX_CONTEXT_CHARS - 200,
                               scope="project")
        searcher: Any = mem.searcher() if self.vector_dedup else _WithoutVectors(mem.searcher())
        block = context_for_session(mem.db, searcher, session.id, prompt, config, embedder=mem.embedder,
                                    deferred=mem.deferred, redact=mem.redact)
        if reply is not None:
            reply.timings_ms.update({f"context_{k}": v for k, v in block.timings_ms.items()})
            reply.timings_ms.update({f"search_{k}": v for k, v in block.search.get("timingsMs", {}).items()})
        if not block.text.strip():
            return ""
        return render_context(block.text, tool=tool, event="prompt")

    # -- SessionStart --------------------------------------------------------------------------
    def session_start(self, tool: str, inp: HookInput) -> str:
        if not self.brief or not inp.cwd or is_ignored_dir(inp.cwd):
            return ""
        mem = self.ready(self._memory())
        cwd = normalize_cwd(inp.cwd)
        sessions = [s for s in mem.sessions_for_project(self._project(cwd), limit=6, preview_chars=100)
                    if s.id != inp.session_id and s.turn_count > 0][:5]
        if not sessions:
            return ""
        lines = ["Earlier sessions in this project (graphmem long-term memory; ask for details if useful):"]
        for s in sessions:
            what = (s.title or s.last_message or "").replace("\n", " ").strip()
            where = "" if s.cwd == cwd else f" in {s.cwd}"
            lines.append(f"- {relative(s.last_activity_at)} ({s.agent or '?'}, {s.turn_count} turns{where}): {what}")
        text = "\n".join(lines)[:BRIEF_MAX_CHARS]
        return render_context(text, tool=tool, event="session_start")

    # -- Stop / AfterAgent ---------------------------------------------------------------------
    def _ingest_lock(self, key: str) -> threading.Lock:
        with self._lock:
            lock = self._ingest_locks.get(key)
            if lock is None:
                lock = self._ingest_locks[key] = threading.Lock()
            return lock

    def stop(self, tool: str, inp: HookInput, *, final: bool = False) -> IngestResult:
        """Ingest what the transcript gained since the last Stop (or spool it)."""
        extra = inp.model_extra or {}
        last = extra.get("last_assistant_message") or getattr(inp, "last_assistant_message", None)
        if tool == "gemini":
            last = last or getattr(inp, "prompt_response", None)
        last = last if isinstance(last, str) and last.strip() else None
        path = inp.transcript_path
        if not path or not os.path.isfile(path):
            if tool == "gemini" and inp.prompt and last:
                return self._ingest_pair(tool, inp, last)
            if inp.event in ("session_end", "pre_compact"):  # a session that wrote no transcript
                return IngestResult(session_id=inp.session_id or None)
            raise InvalidInput(f"no readable transcript_path in the {inp.hook_event_name or 'Stop'} hook input")
        with self._ingest_lock(f"{tool}\x00{os.path.realpath(path)}"), self.cursors.lock(tool, path):
            cursor = self.cursors.get(tool, path)
            # not redacted here: the store redacts what it writes, and the spool what it keeps
            session = read_new(path, cursor, agent=tool, final=final, cwd=inp.cwd or None,
                               session_id=inp.session_id or None, last_assistant_message=last, redact=False)
            cwd = inp.cwd or session.cwd
            if cwd and is_ignored_dir(cwd):
                self.cursors.put(tool, path, session.cursor, session_id=session.session_id)
                return IngestResult(session_id=session.session_id, turns_read=len(session.turns), ignored=True)
            result = self.ingest(session, cwd=cwd, agent=tool)
            self.cursors.put(tool, path, session.cursor, session_id=session.session_id)
            return result

    def _ingest_pair(self, tool: str, inp: HookInput, answer: str) -> IngestResult:
        """Gemini ``AfterAgent`` without a transcript: the prompt and its answer as one turn."""
        import hashlib

        prompt = inp.prompt or ""
        if has_nomem_marker(prompt) or is_ignored_dir(inp.cwd):
            return IngestResult(session_id=inp.session_id, ignored=True)
        ts = str((inp.model_extra or {}).get("timestamp") or getattr(inp, "timestamp", "") or "")
        source_id = "afteragent:" + hashlib.sha1(f"{ts}\x00{prompt}".encode("utf-8", "surrogatepass"),
                                                 usedforsecurity=False).hexdigest()[:20]
        turn = TurnIn(user_message=prompt, assistant_message=answer, source_id=source_id)
        session = ImportedSession(agent=tool, session_id=inp.session_id, cwd=inp.cwd, turns=[turn])
        return self.ingest(session, cwd=inp.cwd, agent=tool)

    def ingest(self, session: ImportedSession, *, cwd: str | None, agent: str) -> IngestResult:
        """Store a session's turns (the store redacts them), replaying the spool first to keep the order (for at
        most ``replay_seconds``). The turns are spooled instead, behind the older entries, when
        Neo4j is unreachable, when spooled entries are left (budget spent, or another process is
        replaying), with the reason in ``spool_reason`` (:class:`SpoolError` if spooling fails)."""
        res = IngestResult(session_id=session.session_id, turns_read=len(session.turns),
                           warnings=list(session.warnings))
        if not session.turns:
            return res
        if not session.session_id:
            raise InvalidInput("the transcript names no session id")
        norm = normalize_cwd(cwd or session.cwd or "/")
        project = self._project(norm)
        entry_args: dict[str, Any] = {
            "agent": agent, "session_id": session.session_id, "cwd": norm, "project_path": project,
            "turns": session.turns, "title": session.title, "started_at": session.started_at,
            "source_path": session.source_path,
        }
        reason: str | None = None  # why the turns are spooled (the hook's stderr)
        detail: str | None = None  # the error behind it (the log)
        try:
            mem = self.ready(self._memory())
            if self.spool.pending():
                res.replay = self.spool.replay(mem, max_seconds=self.replay_seconds)
                reason = self._behind_spool(res.replay)
                detail = res.replay.error
            if reason is None:
                self._ensure_session(mem, session.session_id, norm, agent, title=session.title,
                                     started_at=session.started_at)
                try:
                    r = mem.import_turns(session.session_id, session.turns)
                except SessionNotFound:  # deleted since this process created it: create it again
                    self._known_sessions.pop(session.session_id, None)
                    self._ensure_session(mem, session.session_id, norm, agent, title=session.title,
                                         started_at=session.started_at)
                    r = mem.import_turns(session.session_id, session.turns)
                res.created, res.skipped = r.created, r.skipped
        except DatabaseError as e:
            reason = "Neo4j is unreachable" if isinstance(e, DatabaseUnavailable) else "Neo4j failed a statement"
            detail = _short(e)
        if reason is not None:
            log.info("spooling %d turn(s) of %s: %s", len(session.turns), session.session_id, detail or reason)
            # the spool keeps redacted text only (its replay goes through the store, which finds
            # nothing left to redact)
            entry_args["turns"] = [redact_turn(t) for t in session.turns]
            self.spool.append(Spool.make_entry(**entry_args))
            res.spooled = len(session.turns)
            res.spool_reason = reason
        return res

    def _behind_spool(self, replay: ReplayResult) -> str | None:
        """Why this hook's turns must wait behind spooled entries (None: the spool is empty now)."""
        if replay.busy:
            return "another process is replaying the spool"
        if replay.budget_exhausted:
            return (f"{replay.remaining} older spooled entries are left after this hook's "
                    f"{self.replay_seconds:g} s replay (GRAPHMEM_HOOK_REPLAY_SECONDS)")
        if replay.remaining:
            return "Neo4j failed during the spool replay"
        return None

    def flush_spool(self) -> ReplayResult | None:
        """At the end of a session: replay what is left in the spool, for at most
        :data:`SESSION_END_REPLAY_SECONDS` (None when the spool is empty or Neo4j is unreachable;
        the rest is replayed by the next hook, the daemon or ``graphmem spool replay``)."""
        if not self.spool.pending():
            return None
        try:
            return self.spool.replay(self.ready(self._memory()), max_seconds=SESSION_END_REPLAY_SECONDS)
        except DatabaseError as e:
            log.info("spool not flushed at the end of the session: %s", _short(e))
            return None

    def replay_spool(self) -> ReplayResult:
        """Replay the whole spool now, without a time budget (the daemon's timer and its
        ``replay`` request)."""
        return self.spool.replay(self.ready(self._memory()))


def run_direct(tool: str, raw: bytes | str, *, deadline: float | None = None) -> tuple[str, str]:
    """Handle a hook in the calling process (no daemon): text-only search, hook timeouts.
    Returns (stdout, stderr); never raises."""
    del deadline  # the caller enforces it
    quiet_driver_logs()
    holder: list[GraphMemory] = []
    try:
        settings = Settings.load()
    except InvalidSettings as e:  # a bad GRAPHMEM_* value: one line, nothing stored or spooled
        return "", f"graphmem: {e}"[:1000]

    def memory() -> GraphMemory:
        if not holder:
            model, dims = configured_embedding(settings)
            holder.append(GraphMemory(open_hook_database(settings), embedder=None,
                                      embedding_model=model, embedding_dimensions=dims,
                                      foreground=ForegroundSignal.for_home(settings.home)))
        return holder[0]

    service = HookService(Path(home_dir()), memory, replay_seconds=settings.hook_replay_seconds)
    try:
        reply = service.handle(tool, raw)
    finally:
        for m in holder:
            with contextlib.suppress(Exception):  # closing a broken driver must not hide the reply
                m.close()
    return reply.stdout, reply.stderr
