"""The pre-call context block: recent raw turns, relevant past turns, relevant
summaries, and level-1 summaries not yet rolled into level 2.

Rules: no item appears twice (a summary found by search and also unrolled is shown once, in the
search section); search hits that are one of the recent turns, or repeat one (same text or cosine
above ``dedup_threshold``), are dropped; near-duplicate hits collapse to the best one; the whole
rendered block stays within ``budget_chars`` (recent turns first, then turns, summaries, level 1).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager, nullcontext, suppress
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from ..db import Database, DeferredWrites
from ..db.concurrency import LazyPool, pool_for
from ..db.params import vector_param
from ..db.rows import native
from ..embedding import Embedder, query_vector
from ..embedding.calibration import cosine_for
from ..errors import GraphMemError, InvalidInput, SessionNotFound
from ..facts.inject import inject_facts
from ..models import Session, Turn, reference_time
from ..sessions import check_id, session_from_row
from ..turns import turn_from_row
from .models import ContextBlock, ContextConfig, ContextTurn, SearchHit
from .reltime import memory_time, relative_time
from .scopes import Scope
from .search import Searcher

__all__ = ["build_context", "context_for_session", "cosine", "render_context"]

TRUNC = " [...]"


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    num = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return num / (na * nb) if na and nb else 0.0


def _unit(vector: Sequence[float] | None) -> np.ndarray[Any, Any] | None:
    """``vector`` L2-normalised as a numpy array (None when absent or all zeros): the dedup of
    build_context compares each hit with the recent turns and the hits kept, with numpy dot products
    (a pure-Python cosine over 512 floats costs ~0.1 ms, and a block needs hundreds)."""
    if vector is None:
        return None
    v = np.asarray(vector, dtype=np.float64)
    n = float(np.linalg.norm(v))
    return v / n if n else None


def _unit_rows(vectors: Sequence[Sequence[float]]) -> np.ndarray[Any, Any] | None:
    rows = [u for u in (_unit(v) for v in vectors) if u is not None]
    return np.vstack(rows) if rows else None


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[: max(0, n - len(TRUNC))] + TRUNC


def _scope_for(session: Session, kind: str) -> Scope:
    if kind == "session":
        return Scope.session(session.id)
    if kind == "directory":
        return Scope("directory", session.cwd)
    if kind == "project":
        return Scope("project", session.project_path)
    return Scope.everything()


def build_context(
    searcher: Searcher,
    session: Session,
    recent: list[Turn],
    level1: list[dict[str, Any]],
    message: str,
    config: ContextConfig,
    *,
    recent_vectors: dict[str, list[float]] | None = None,
    now: datetime | None = None,
    timings: dict[str, float] | None = None,
    facts: list[dict[str, Any]] | None = None,
    query_vector: Sequence[float] | None = None,
    pending_facts: Callable[[], list[dict[str, Any]]] | None = None,
    pending_notes: Callable[[], tuple[list[dict[str, Any]], list[str]]] | None = None,
    embedding_model: str | None = None,
) -> ContextBlock:
    """Assemble the block from what the facade fetched (recent turns, level-1 summaries) plus a search.

    ``pending_facts`` (instead of ``facts``) is called after the search: the fact injection can run
    concurrently with it (see :func:`context_for_session`). ``embedding_model``: the embedder's, in
    whose cosines ``dedup_threshold`` is read (:func:`~graphmem.embedding.calibration.cosine_for`)."""
    asked = reference_time(now)
    now = asked or datetime.now(UTC)  # the search reads an undated message's time window itself
    block = ContextBlock(session_id=session.id, message=message, budget_chars=config.budget_chars,
                         facts=list(facts or []))
    dropped: dict[str, int] = {}

    def drop(reason: str) -> None:
        dropped[reason] = dropped.get(reason, 0) + 1

    block.recent_turns = [
        ContextTurn(
            id=t.id, index=t.index, user_message=t.user_message, assistant_message=t.assistant_message,
            tools=list(dict.fromkeys(c.name for c in t.tool_calls)), timestamp=t.timestamp,
            relative_time=relative_time(t.timestamp, now, config.locale),
        )
        for t in recent
    ]
    recent_ids = {t.id for t in recent}
    recent_texts = {_norm(f"User: {t.user_message}\nAssistant: {t.assistant_message}") for t in recent}
    rmat = _unit_rows(list((recent_vectors or {}).values()))

    hits: list[SearchHit] = []
    if message.strip() and (config.turn_hits > 0 or config.summary_hits > 0):
        t0 = time.perf_counter()
        k = config.turn_hits + config.summary_hits + len(recent) + 5
        res = searcher.search(
            message, scope=_scope_for(session, config.scope), levels=config.levels, k=k, mode=config.mode,
            min_score=config.min_score, locale=config.locale, with_embeddings=True, now=asked,
            vector=query_vector,
        )
        block.warnings.extend(res.warnings)
        block.search = {"effectiveMode": res.effective_mode, "scope": res.scope, "strategy": res.strategy,
                        "timingsMs": res.timings_ms, "timeWindow": res.time_window}
        if timings is not None:
            timings["search"] = round((time.perf_counter() - t0) * 1000, 3)
        hits = res.hits

    kept: list[SearchHit] = []
    kept_vecs: list[np.ndarray[Any, Any] | None] = []
    seen: set[str] = set()
    threshold = cosine_for(embedding_model, config.dedup_threshold)
    for h in hits:
        if h.id in seen:
            drop("duplicate")
            continue
        seen.add(h.id)
        if round(h.relevance * 100) <= 0:  # it would show as "Relevance: 0%": not relevant
            drop("no-relevance")
            continue
        if h.id in recent_ids:
            drop("recent-repeat")
            continue
        if h.kind == "turn" and _norm(h.body()) in recent_texts:
            drop("recent-repeat")
            continue
        emb = _unit(h.embedding)
        if emb is not None and rmat is not None and float((rmat @ emb).max()) > threshold:
            drop("recent-repeat")
            continue
        dup = False
        for other, ovec in zip(kept, kept_vecs, strict=True):
            if ovec is not None and emb is not None:
                dup = float(ovec @ emb) > threshold
            else:
                dup = other.kind == h.kind and _norm(other.body()) == _norm(h.body())
            if dup:
                break
        if dup:
            drop("near-duplicate")
            continue
        kept.append(h)
        kept_vecs.append(emb)
    turns = [h for h in kept if h.kind == "turn"]
    summaries = [h for h in kept if h.kind == "summary"]
    block.relevant_turns = turns[: config.turn_hits]
    block.relevant_summaries = summaries[: config.summary_hits]

    shown = {h.id for h in block.relevant_summaries}
    l1: list[SearchHit] = []
    for it in level1:
        if it["id"] in shown:
            drop("duplicate")
            continue
        ts = native(it.get("timestamp"))
        l1.append(SearchHit(
            kind="summary", id=it["id"], level=int(it.get("level") or 1), score=0.0, relevance=0.0,
            session_id=it.get("sessionId") or "", cwd=it.get("cwd") or "", project_path=it.get("projectPath") or "",
            timestamp=ts, relative_time=relative_time(ts, now, config.locale) if isinstance(ts, datetime) else "",
            text=it.get("text") or "", key_findings=list(it.get("keyFindings") or []),
            files_mentioned=list(it.get("filesMentioned") or []), tools_used=list(it.get("toolsUsed") or []),
            topics=list(it.get("topics") or []),
        ))
    block.level1_summaries = list(reversed(l1))  # oldest first, like the recent turns
    if pending_facts is not None:
        block.facts = list(pending_facts())
    if pending_notes is not None:
        block.notes, notes_warnings = pending_notes()
        block.warnings.extend(notes_warnings)
    render_context(block, config, dropped)
    block.dropped = dropped
    return block


def _found_by(hits: list[SearchHit]) -> str:
    """How a section's hits were found: "Semantic Search" only when a vector found one of them."""
    return "Semantic Search" if any(h.vector_rank is not None for h in hits) else "Text Search"


def _turn_text(user: str, assistant: str, tools: list[str], limit: int) -> str:
    half = max(200, limit // 2)
    lines = [f"User: {_cut(user, half)}", f"Assistant: {_cut(assistant, max(200, limit - min(len(user), half)))}"]
    if tools:
        lines.append("Tools: " + ", ".join(tools))
    return "\n".join(lines)


def _summary_text(h: SearchHit, limit: int, *, tools: bool) -> str:
    lines = [_cut(h.text or "", limit)]
    if h.key_findings:
        lines.append("Key findings: " + ", ".join(h.key_findings))
    if h.files_mentioned:
        lines.append("Files mentioned: " + ", ".join(h.files_mentioned))
    if tools and h.tools_used:
        lines.append("Tools used: " + ", ".join(h.tools_used))
    return "\n".join(lines)


def _fact_time(fact: dict[str, Any], now: datetime, config: ContextConfig) -> str:
    """`` (14/01/2026 10:23, 3 days ago)``: when the fact was last stated, or nothing if unknown."""
    raw = fact.get("updated_at") or fact.get("created_at")
    try:
        ts = raw if isinstance(raw, datetime) else datetime.fromisoformat(str(raw)) if raw else None
    except ValueError:
        ts = None
    if ts is None:
        return ""
    return f" ({memory_time(ts, now, config.locale, ZoneInfo(config.timezone))})"


def render_context(block: ContextBlock, config: ContextConfig, dropped: dict[str, int]) -> str:
    """Render the sections within the budget; items that do not fit are removed from
    the block too, so the JSON and the text always agree."""
    budget = config.budget_chars
    out: list[str] = []
    used = 0

    def fits(piece: str) -> bool:
        nonlocal used
        if used + len(piece) + 1 > budget:
            return False
        out.append(piece)
        used += len(piece) + 1
        return True

    def section(title: str, pieces: list[tuple[Any, str]], keep: list[Any]) -> None:
        if not pieces:
            return
        header = f"## {title}\n"
        if used + len(header) + len(pieces[0][1]) + 2 > budget:
            dropped["budget"] = dropped.get("budget", 0) + len(pieces)
            keep.clear()
            return
        fits(("\n" if out else "") + header.rstrip("\n"))
        kept_items = []
        for item, text in pieces:
            if fits(text.rstrip("\n") + "\n"):
                kept_items.append(item)
            else:
                dropped["budget"] = dropped.get("budget", 0) + 1
        keep[:] = kept_items

    now = datetime.now(UTC)
    fact_pieces = [
        (f, f"- [{f.get('type', 'fact')}] {_cut(str(f.get('content', '')), config.item_max_chars)}"
            f"{_fact_time(f, now, config)}")
        for f in block.facts
    ]
    section("Known Facts (Long-Term Memory)", fact_pieces, block.facts)

    note_pieces = [(n, f"[{n.get('title')} - {n.get('path')}{' - fixed' if n.get('fixed') else ''}]\n"
                       + _cut(str(n.get("text") or ""), NOTE_CHARS)) for n in block.notes]
    section("Notes (From The Vault)", note_pieces, block.notes)

    # recent turns: newest are the most important; cut each so all fit in recent_max_chars
    recent_pieces: list[tuple[Any, str]] = []
    per = max(300, config.recent_max_chars // max(1, len(block.recent_turns)))
    for t in block.recent_turns:
        recent_pieces.append((t, _turn_text(t.user_message, t.assistant_message, t.tools, per)))
    section("Recent Conversation (Raw)", recent_pieces, block.recent_turns)

    turn_pieces = []
    for h in block.relevant_turns:
        head = (f"[Turn {h.index} - Relevance: {h.relevance * 100:.0f}% - {h.relative_time} - "
                f"session {h.session_id[:8]}]")
        turn_pieces.append((h, head + "\n" + _turn_text(h.user_message or "", h.assistant_message or "", h.tools,
                                                        config.item_max_chars)))
    section(f"Relevant Past Context ({_found_by(block.relevant_turns)} - Turns)", turn_pieces, block.relevant_turns)

    sum_pieces = []
    for h in block.relevant_summaries:
        head = f"[Level {h.level} Summary - Relevance: {h.relevance * 100:.0f}% - {h.relative_time}]"
        sum_pieces.append((h, head + "\n" + _summary_text(h, config.item_max_chars, tools=False)))
    section(f"Relevant Past Context ({_found_by(block.relevant_summaries)} - Summaries)", sum_pieces,
            block.relevant_summaries)

    l1_pieces = []
    for h in block.level1_summaries:
        l1_pieces.append((h, f"[Level 1 Summary - {h.relative_time}]\n" + _summary_text(h, config.item_max_chars, tools=True)))
    section("Recent Level 1 Summaries (Not Yet Summarized to Level 2)", l1_pieces, block.level1_summaries)

    text = "\n".join(out).rstrip() + ("\n" if out else "")
    if len(text) > budget:  # cannot happen (each piece was checked); keep the promise anyway
        text = text[:budget]
    block.text = text
    block.chars = len(text)
    return text


_executor = LazyPool(4, "graphmem-context")
"""A small shared pool for the concurrent parts of :func:`context_for_session` (the driver is
thread-safe; each statement takes its own session)."""


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)


NotesSource = Callable[[str, Sequence[float] | None], tuple[list[dict[str, Any]], list[str]]]
"""Gives the notes for a message (and its vector, when embedded) as dicts, and warnings."""
NOTE_CHARS = 500
"""Characters of each note in the rendered block."""


def _timed(notes: NotesSource, message: str, vector: Sequence[float] | None,
           ) -> tuple[list[dict[str, Any]], list[str], float]:
    t1 = time.perf_counter()
    items, warnings = notes(message, vector)
    return items, warnings, _ms(t1)


def context_for_session(
    db: Database,
    searcher: Searcher,
    session_id: str,
    message: str,
    config: ContextConfig | None = None,
    *,
    embedder: Embedder | None = None,
    deferred: DeferredWrites | None = None,
    redact: bool = True,
    now: datetime | None = None,
    notes: NotesSource | None = None,
    log_facts: bool = True,
) -> ContextBlock:
    """:meth:`GraphMemory.build_context`: read the session state, embed the message once (with
    ``embedder``), inject facts and search (with ``searcher``) concurrently, then assemble. The
    injection's log goes to ``deferred`` when given (redacted when ``redact``); ``log_facts=False``
    writes none (the context then only reads). ``now`` is the
    message's own date (default: the current time), for time-aware search and relative dates.
    ``notes`` gives the vault's notes for the message (with its vector), fetched beside the search.

    Critical path: max(state read, message embedding) + max(search, fact injection) + assembly;
    the injection's candidates are read while the message is embedded.
    ``timings_ms`` has each stage: ``state`` (session, recent turns with their vectors and tool
    calls, unrolled level-1 summaries: one round trip), ``embed``, ``search``, ``facts`` (the
    injection, in its own thread), ``facts_wait`` (what the injection added after the search
    finished), ``notes`` (when a vault is configured, beside the search), ``assemble`` and ``total``."""
    t0 = time.perf_counter()
    cfg = config or ContextConfig()
    sid = check_id(session_id, "session id")
    if not isinstance(message, str):
        raise InvalidInput("message must be a string")
    timings: dict[str, float] = {}
    # the injection's Retrieval log (a commit of its own) is queued once the context is built, not
    # as soon as the facts are chosen, where it competed with the search for the CPU
    holding: AbstractContextManager[None] = nullcontext()
    if cfg.facts and message.strip() and deferred is not None and log_facts:
        holding = deferred.held(sid)
    with holding:
        return _context_for_session(db, searcher, embedder, deferred, redact, sid, message, cfg, timings, t0, now,
                                    notes, log_facts)


def _context_for_session(db: Database, searcher: Searcher, embedder: Embedder | None,
                         deferred: DeferredWrites | None, redact: bool, sid: str, message: str,
                         cfg: ContextConfig, timings: dict[str, float], t0: float,
                         now: datetime | None, notes: NotesSource | None, log_facts: bool) -> ContextBlock:
    pool = pool_for(db, _executor)

    def read_state() -> tuple[list[dict[str, Any]], float]:
        t1 = time.perf_counter()
        rows = db.read("context/state", sessionId=sid, recentLimit=max(0, cfg.recent_limit),
                           level1Limit=max(0, cfg.level1_limit), maxChars=cfg.item_max_chars)
        return rows, _ms(t1)

    state_future = pool.submit(read_state)
    # the message is embedded once, for the fact injection and the search alike; the injection
    # starts first: it reads its candidates while the message is embedded, then waits for the vector
    qvec_ready: Future[list[float] | None] = Future()
    facts_future: Future[tuple[list[dict[str, Any]], str | None, str | None, float]] | None = None
    if cfg.facts and message.strip():
        def inject() -> tuple[list[dict[str, Any]], str | None, str | None, float]:
            t1 = time.perf_counter()
            try:
                # the Retrieval log is written in the background: the context does not wait for its commit
                inj = inject_facts(db, sid, message, embedder=embedder, deferred=deferred, redact=redact,
                                   vector=qvec_ready.result, log="deferred" if log_facts else False)
            except GraphMemError as e:  # facts are a bonus: never lose the rest of the context
                return [], None, f"fact injection failed: {e}", _ms(t1)
            items = [{**i.fact.to_dict(), "reason": i.reason, "score": i.score} for i in inj.items]
            return items, inj.log_id, "; ".join(inj.warnings) or None, _ms(t1)

        facts_future = pool.submit(inject)

    qvec: list[float] | None = None
    try:
        if embedder is not None and message.strip() and (cfg.mode != "text" or cfg.facts):
            t1 = time.perf_counter()
            try:
                qvec = vector_param(query_vector(embedder, message))
            except Exception:  # the search retries and reports it as a text-only warning
                qvec = None
            timings["embed"] = _ms(t1)
    finally:
        qvec_ready.set_result(qvec)  # always: the injection's vector part waits for it

    notes_future = pool.submit(_timed, notes, message, qvec) if notes is not None and message.strip() else None
    rows, timings["state"] = state_future.result()
    if not rows:
        # the injection and the notes may already be running on the driver: let them finish, so
        # that a caller closing the driver on this error does not close it under their queries
        for pending in (facts_future, notes_future):
            if pending is not None and not pending.cancel():
                with suppress(Exception):
                    pending.result()
        raise SessionNotFound(sid)
    row = rows[0]
    session = session_from_row(row["session"])
    recent: list[Turn] = []
    recent_vectors: dict[str, list[float]] = {}
    used = 0
    for r in row["recent"]:  # newest first: keep what fits in recent_max_chars (the newest always)
        t = turn_from_row(r, r.get("toolCalls") or [])
        if recent and used + t.char_count > cfg.recent_max_chars:
            break
        recent.append(t)
        used += t.char_count
        if r.get("embedding"):
            recent_vectors[t.id] = list(r["embedding"])
    recent.reverse()

    facts_log: str | None = None
    fact_warning: str | None = None

    def pending_facts() -> list[dict[str, Any]]:
        nonlocal facts_log, fact_warning
        if facts_future is None:
            return []
        t1 = time.perf_counter()
        items, facts_log, fact_warning, timings["facts"] = facts_future.result()
        timings["facts_wait"] = _ms(t1)
        return items

    def pending_notes() -> tuple[list[dict[str, Any]], list[str]]:
        assert notes_future is not None
        try:
            items, warnings, timings["notes"] = notes_future.result()
        except GraphMemError as e:  # notes are a bonus too
            return [], [f"notes unavailable: {e}"]
        return items, warnings

    t1 = time.perf_counter()
    block = build_context(searcher, session, recent, list(row["level1"]), message, cfg,
                          recent_vectors=recent_vectors, timings=timings, query_vector=qvec,
                          pending_facts=pending_facts, now=now,
                          pending_notes=pending_notes if notes_future is not None else None,
                          embedding_model=embedder.model if embedder is not None else None)
    timings["assemble"] = round(_ms(t1) - timings.get("search", 0.0) - timings.get("facts_wait", 0.0), 3)
    block.facts_log_id = facts_log
    if fact_warning:
        block.warnings.append(fact_warning)
    timings["total"] = _ms(t0)
    block.timings_ms = timings
    return block
