"""Pre-call injection: facts that join the context before
each LLM call, without an LLM call of its own.

Candidates, from the scopes the session may see (global + its project + its session, never
another project's or session's): identity facts, important facts (importance >= 0.8), recent facts
(default 6 h) and the vector top 20 for the message. They are deduplicated by id and by meaning
(cosine >= 0.85) among themselves and against what this session was already given within the last
N turns, capped at 20, rendered as text, and logged as a ``(:Retrieval)``.

Injection state is kept in the graph: ``(:Session)-[:INJECTED {at, turnIndex}]->(:Fact)``, one
edge per fact, moved forward on each injection (``turnIndex`` is the turn the message will become:
the session's turn count + 1). Being in the graph, it survives restarts and is shared by every
process serving the session; it goes away with the session or the fact.
"""

from __future__ import annotations

import logging
import math
import threading
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from datetime import datetime, timedelta, tzinfo
from typing import Any, Literal

import numpy as np

from ..arguments import count, text_list
from ..db import Database, DeferredWrites
from ..db.concurrency import LazyPool, pool_for
from ..db.params import vector_param
from ..db.rows import native
from ..embedding import Embedder, query_vector
from ..errors import DatabaseError, InvalidInput, SessionNotFound
from ..models import clean_text, utcnow
from ..redaction import redact as redact_text
from ..sessions import check_id
from .model import Fact, FactInjection, FactScope, InjectedItem
from .tuning import FactTuning, get_tuning
from .vectors import EXACT_SCAN_MAX, nearest_facts, wait_for_vectors

__all__ = ["get_retrieval", "inject_facts", "list_retrievals", "plan_injection_log", "render_facts", "session_scopes"]

PREVIEW_CHARS = 200

log = logging.getLogger("graphmem.facts")


class _SessionVectors:
    """Fact vectors a process already received, per session (the injection's read leaves them out:
    up to ``injection_dedup_turns`` x 20 injected facts plus the candidates would otherwise travel
    with every call and make the read slower). A fact's vector never
    changes under its id (an update makes a new fact), so a cached vector is never stale; keyed by
    embedding model too. A row whose vector was evicted meanwhile only loses the meaning check.
    Vectors are kept (and put back into rows) as float32 arrays, converted once."""

    MAX_SESSIONS = 64
    MAX_PER_SESSION = 500

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by: OrderedDict[tuple[str, str], OrderedDict[str, np.ndarray[Any, Any]]] = OrderedDict()

    def known(self, key: tuple[str, str]) -> list[str]:
        with self._lock:
            cache = self._by.get(key)
            return list(cache) if cache else []

    def fill(self, key: tuple[str, str], rows: Sequence[dict[str, Any] | None]) -> None:
        """Put the vectors of ``rows`` in the cache, and the cached ones back into rows without one."""
        with self._lock:
            cache = self._by.get(key)
            if cache is None:
                cache = self._by[key] = OrderedDict()
                while len(self._by) > self.MAX_SESSIONS:
                    self._by.popitem(last=False)
            self._by.move_to_end(key)
            for row in rows:
                if not row:
                    continue
                fid = row.get("id")
                if not isinstance(fid, str):
                    continue
                emb = row.get("embedding")
                if emb is not None and len(emb) > 0:
                    vec = row["embedding"] = np.asarray(emb, dtype=np.float32)
                    cache[fid] = vec
                    cache.move_to_end(fid)
                elif fid in cache:
                    row["embedding"] = cache[fid]
                    cache.move_to_end(fid)
            while len(cache) > self.MAX_PER_SESSION:
                cache.popitem(last=False)


_VECTORS: weakref.WeakKeyDictionary[Any, _SessionVectors] = weakref.WeakKeyDictionary()
_VECTORS_LOCK = threading.Lock()


def _session_vectors(db: Database) -> _SessionVectors:
    with _VECTORS_LOCK:
        sv = _VECTORS.get(db)
        if sv is None:
            sv = _VECTORS[db] = _SessionVectors()
        return sv


def session_scopes(db: Database, session_id: str) -> list[str]:
    """The scope keys a session may see: global, its project, itself."""
    rows = db.read("sessions/get", id=session_id)
    if not rows:
        raise SessionNotFound(session_id)
    project = rows[0]["session"]["projectPath"]
    return [FactScope.global_().key, FactScope("project", project).key, FactScope.session(session_id).key]


def render_facts(items: Sequence[InjectedItem], *, now: datetime | None = None, locale: str | None = None,
                 tz: tzinfo | None = None) -> str:
    """The injected block: one line per fact, type first, then when it was last stated, absolute (in
    ``tz``, UTC by default) and relative to ``now`` in ``locale`` (default: the environment's)::

        - (fact) David lives in Toulouse (14/01/2026 10:23, 3 days ago)
    """
    # imported here: importing graphmem.retrieval runs its package, which imports this module
    from ..retrieval.reltime import locale_from_env, memory_time

    if not items:
        return ""
    now = now or utcnow()
    loc = locale or locale_from_env()
    lines = ["[Memory - facts you know about the user and this project]"]
    for it in items:
        ts = it.fact.updated_at or it.fact.created_at
        when = f" ({memory_time(ts, now, loc, tz)})" if ts is not None else ""
        lines.append(f"- ({it.fact.type}) {it.fact.content}{when}")
    return "\n".join(lines)


def _coalesce(message: str | Sequence[str]) -> str:
    if isinstance(message, str):
        return clean_text(message).strip()
    if message is None:
        raise InvalidInput("message must be a string or a list of strings, not None")
    return " ".join(m.strip() for m in text_list(message, "message") if m.strip())


_inject_pool = LazyPool(4, "graphmem-inject")


VectorSource = list[float] | Callable[[], list[float] | None] | None
"""A message vector, or a callable that returns it once ready (``build_context`` embeds the message
while the injection's candidates are read), or None (embedded here when an embedder is set)."""


def _vector_part(db: Database, embedder: Embedder | None, deferred: DeferredWrites | None, text: str,
                 vector: VectorSource, cfg: FactTuning,
                 base: dict[str, Any]) -> tuple[list[dict[str, Any]], list[float] | None]:
    """The vector top k of the injection (facts/inject_vector) and the message vector it used."""
    vec = vector() if callable(vector) else vector
    if vec is None and embedder is not None and not callable(vector):
        vec = query_vector(embedder, text)
    if vec is not None and not all(math.isfinite(x) for x in vec):
        return [], None  # NaN or infinity: no neighbours (the candidates still come by text)
    vparam = vector_param(vec)
    if vparam is None:
        return [], None
    k = cfg.injection_vector_k
    # the facts this process remembered are in the vector index (else still found by the
    # statement's scan of pending vectors; a failed indexing is logged and left to the worker)
    wait_for_vectors(deferred)
    search = db.server_info().vector_search_clause
    params = dict(sessionId=base["sessionId"], knownIds=base["knownIds"], vector=vparam, k=k,
                  minCosine=cfg.injection_min_score, fetch=k if search else max(k * 10, 200),
                  exactMax=EXACT_SCAN_MAX)
    if search:
        try:
            rows = db.read("facts/inject_vector@search", **params)
        except DatabaseError as e:
            if not e.server_failure:
                raise
            # Neo4j 2026.08.1's in-index filter fails ("Index ... out of bounds") when nothing in the
            # index matches it (a scope whose vectors all wait for the index): over-fetch instead
            log.warning("filtered vector index search of facts failed (%s): over-fetch instead", e)
            search = False
            params["fetch"] = max(k * 10, 200)
    if not search:
        rows = db.read("facts/inject_vector", **params)
    if not rows:
        return [], vparam  # an unknown session: the candidates' read reports it
    row = rows[0]
    hits: list[dict[str, Any]] = list(row["vector"] or [])
    if not row["vectorComplete"] and len(hits) < k:
        # an index search may have missed a fact above the minimum score: widen (rare)
        scope_keys = session_scopes(db, base["sessionId"])
        hits = nearest_facts(db, vparam, scope_keys, k=k, min_cosine=cfg.injection_min_score,
                             scope_count=int(row["scopeCount"]))
    return hits, vparam


def inject_facts(
    db: Database,
    session_id: str,
    message: str | Sequence[str],
    *,
    embedder: Embedder | None = None,
    deferred: DeferredWrites | None = None,
    redact: bool = True,
    source: str = "user",
    vector: VectorSource = None,
    tuning: FactTuning | None = None,
    log: bool | Literal["deferred"] = True,
) -> FactInjection:
    """The facts to add to the context before the LLM answers ``message`` in ``session_id``.

    ``message`` may be several quick messages: they are coalesced into one query.
    ``source="system"`` skips the injection. ``vector`` reuses the message's
    embedding when the caller (``build_context``) already has it, or is a callable that returns it
    once ready (the candidates are read meanwhile: see :data:`VectorSource`); without either, the
    message is embedded with ``embedder``. ``tuning`` overrides the stored tuning. ``redact``
    removes secrets from the logged message. Raises :class:`SessionNotFound` for an unknown session.

    ``log``: write the ``(:Retrieval)`` log (True), not at all (False), or on ``deferred``, the
    background writer (``"deferred"``: ``build_context`` does not wait for that commit). Either way
    the injection first waits for this session's deferred logs, so its dedup window sees them; a
    deferred log that failed is reported in ``warnings``.
    """
    t0 = time.perf_counter()
    cfg = tuning or get_tuning(db, embedder=embedder)
    text = _coalesce(message)

    def skipped(why: str) -> FactInjection:
        return FactInjection([], "", 0, None, round((time.perf_counter() - t0) * 1000, 3), skipped=why)

    if source == "system":
        return skipped("system message")
    if not cfg.injection_enabled:
        return skipped("disabled")
    if not text:
        return skipped("empty message")
    limit = max(1, cfg.injection_max_results)
    k = cfg.injection_vector_k
    warnings = [f"an earlier injection log was not written ({e})" for e in deferred.wait(session_id)] if deferred else []
    params: dict[str, Any] = dict(
        sessionId=session_id, dedupTurns=cfg.injection_dedup_turns, importantMin=cfg.injection_important_min,
        since=utcnow() - timedelta(hours=cfg.injection_recent_hours), limit=limit,
    )
    # the vectors this process already has for this session's facts are not sent again
    vectors = _session_vectors(db)
    vkey = (embedder.model if embedder is not None else "", session_id)
    params["knownIds"] = vectors.known(vkey)
    # two reads at once: the candidates (no vector needed: they run while the message is embedded)
    # and the vector top k (once the vector is there)
    vector_job: Future[tuple[list[dict[str, Any]], list[float] | None]] | None = None
    if k > 0 and (vector is not None or embedder is not None):
        vector_job = pool_for(db, _inject_pool).submit(_vector_part, db, embedder, deferred, text, vector, cfg, params)
    try:
        rows = db.read("facts/inject_candidates", **params)
    except BaseException:
        if vector_job is not None:  # not left running behind a failed call
            vector_job.exception()
        raise
    hits: list[dict[str, Any]] = []
    qvec_list: list[float] | None = None
    if vector_job is not None:
        hits, qvec_list = vector_job.result()
    elif vector is not None:  # k = 0: the vector still scores the candidates
        qvec_list = vector() if callable(vector) else vector
    if not rows:
        raise SessionNotFound(session_id)
    state = rows[0]
    turn_index = int(state["turnIndex"])
    injected = [r for r in state["injected"] if r is not None]
    vectors.fill(vkey, [*injected, *state["identity"], *state["important"], *state["recent"], *hits])
    seen_ids = {r["id"] for r in injected}
    seen_vecs = [r["embedding"] for r in injected if r.get("embedding") is not None]  # float32 arrays (fill)
    ordered: list[tuple[str, dict[str, Any]]] = (
        [("identity", r) for r in state["identity"]]
        + [("important", r) for r in state["important"]]
        + [("vector", r) for r in hits]
        + [("recent", r) for r in state["recent"]]
    )
    chosen: list[InjectedItem] = []
    chosen_ids: set[str] = set()
    candidates = len({r["id"] for _, r in ordered})
    skipped_seen = 0
    threshold = cfg.injection_dedup_threshold
    qvec = np.asarray(qvec_list, dtype=np.float32) if qvec_list is not None else None
    # the window's vectors, then each chosen one's, in one preallocated matrix (not grown by a copy
    # per chosen fact)
    dim = len(qvec) if qvec is not None else next((len(v) for v in seen_vecs), None)
    if dim is None:
        dim = next((len(r["embedding"]) for _, r in ordered if r.get("embedding") is not None
                    and len(r["embedding"]) > 0), 0)
    seen_vecs = [v for v in seen_vecs if len(v) == dim]  # (another model's: a reindex under way)
    seen_buf = np.empty((len(seen_vecs) + limit, dim), dtype=np.float32)
    n_seen = len(seen_vecs)
    if n_seen:
        seen_buf[:n_seen] = seen_vecs
    for reason, row in ordered:
        if len(chosen) >= limit:
            break
        fid = row["id"]
        if fid in chosen_ids:
            continue
        if fid in seen_ids:
            skipped_seen += 1
            chosen_ids.add(fid)
            continue
        emb = row.get("embedding")
        vec = np.asarray(emb, dtype=np.float32) if emb is not None and len(emb) > 0 else None  # once
        if vec is not None and vec.shape[0] != dim:
            vec = None  # another model's vector (a reindex under way): no meaning check for it
        if vec is not None and n_seen and float(np.max(seen_buf[:n_seen] @ vec)) >= threshold:
            skipped_seen += 1
            chosen_ids.add(fid)
            continue
        fact = Fact.from_row(row)
        if reason == "vector":
            score = fact.score
        elif vec is not None and qvec is not None:
            score = round(float(np.dot(vec, qvec)), 4)
        else:
            score = None
        chosen.append(InjectedItem(fact, reason, score))  # type: ignore[arg-type]
        chosen_ids.add(fid)
        if vec is not None:
            seen_buf[n_seen] = vec
            n_seen += 1
    rendered = render_facts(chosen)
    latency = round((time.perf_counter() - t0) * 1000, 3)
    log_id: str | None = None
    if log:
        log_id = str(uuid.uuid4())
        if redact:  # redact the whole message first: a cut could hide a secret's end
            text = redact_text(text)[0]
        log_params = _log_params(session_id, log_id, turn_index, text, [
            {"id": i.fact.id, "score": -1.0 if i.score is None else i.score, "reason": i.reason} for i in chosen],
            len(rendered), latency, candidates, skipped_seen)
        if log == "deferred" and deferred is not None:
            deferred.submit(session_id, "retrievals/log", **log_params)
        else:
            db.write("retrievals/log", **log_params)
    return FactInjection(chosen, rendered, len(rendered), log_id, latency, None, turn_index, warnings)


def _log_params(session_id: str, log_id: str, turn_index: int, text: str, items: list[dict[str, Any]], chars: int,
                latency: float, candidates: int, skipped_seen: int) -> dict[str, Any]:
    return dict(sessionId=session_id, id=log_id, now=utcnow(), turnIndex=turn_index, preview=text[:PREVIEW_CHARS],
                query=text[:PREVIEW_CHARS], items=items, chars=chars, latencyMs=latency, candidates=candidates,
                skippedSeen=skipped_seen)


def plan_injection_log(db: Database, session_id: str) -> int:
    """Have the server plan the injection log (with facts and without: two plans) in transactions
    rolled back, so that the first injection after the server starts does not pay for it; nothing
    stays written. The number of statements run."""
    shapes: list[list[dict[str, Any]]] = [[{"id": "", "score": 0.0, "reason": "warm-up"}], []]
    for items in shapes:
        db.rolled_back("retrievals/log", **_log_params(session_id, str(uuid.uuid4()), 0, "", items, 0, 0.0, 0, 0))
    return len(shapes)


def list_retrievals(db: Database, *, session_id: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
    """The latest injection logs (newest first), optionally of one session."""
    out = []
    sid = check_id(session_id, "session id") if session_id is not None else None
    for r in db.read("retrievals/list", sessionId=sid, limit=count(limit, "limit")):
        item = dict(r["retrieval"])
        item["at"] = native(item.get("at"))
        out.append(item)
    return out


def get_retrieval(db: Database, retrieval_id: str) -> dict[str, Any] | None:
    """One injection log with the facts it injected (those still stored)."""
    rows = db.read("retrievals/get", id=check_id(retrieval_id, "retrieval id"))
    if not rows:
        return None
    item = dict(rows[0]["retrieval"])
    item["at"] = native(item.get("at"))
    item["items"] = sorted(rows[0]["items"], key=lambda i: i["rank"])
    return item
