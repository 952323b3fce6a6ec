"""Facts in the graph: remember (with the similarity update), search, list, forget, expire.

Every read filters ``expiresAt IS NULL OR expiresAt > datetime()`` and ``supersededAt IS NULL``,
so an expired fact disappears at once and :func:`delete_expired_facts` only reclaims space.

The similarity check of :func:`remember` runs in the same write transaction as the write, after
locking the scope's ``(:FactScope)`` node, so two processes remembering near-identical facts in one
scope cannot both insert. Its strategy depends on the scope's size (kept on that node): an exact
cosine scan for small scopes, else the vector index (the ``SEARCH`` clause filtered on
``scopeKey`` on 2026.x; on 5.26 an over-fetch, post-filtered, widened when needed, with the exact
scan as the last resort).

Usually :func:`remember` is one auto-commit statement (``facts/remember``): it checks, applies the
decision rules (same text; the stored fact already says it; cosine >= the dedup threshold; the new
text refines the stored one) and writes, in one round trip. When it cannot decide (a fact it found
predates the stored ``words`` that the rules compare, or the index search needs widening), it runs
again in a managed transaction after giving those facts their words or with a larger search.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Literal

from ..arguments import count, optional_text, required_text, score, text_list
from ..db import Database, DeferredWrites
from ..db.client import Tx
from ..db.params import vector_param
from ..db.rows import native
from ..embedding import Embedder, query_vector
from ..errors import DatabaseError, InvalidInput, NotFound, quoted
from ..models import clean_text, reference_time, utcnow
from ..redaction import redact as redact_text
from .model import (
    FACT_TYPES,
    Fact,
    FactScope,
    FactScopeLike,
    ForgetResult,
    RememberResult,
    check_fact_type,
    content_key,
    parse_ttl,
    words,
)
from .tuning import get_tuning
from .vectors import EXACT_SCAN_MAX, INDEX_LINGER, MAX_FETCH, VECTORS_KEY, nearest_facts, wait_for_vectors

__all__ = [
    "delete_expired_facts",
    "delete_facts",
    "delete_facts_under_path",
    "facts_about",
    "forget",
    "forget_audits",
    "get_fact",
    "list_facts",
    "remember",
    "retire_fact",
    "search_facts",
]

MAX_CONTENT_CHARS = 10_000
_REMEMBER = {False: "facts/remember", True: "facts/remember@search"}
_REMEMBER_FETCH = {False: 200, True: 10}
"""Nearest facts remember() asks the index for (k=5): over-fetch for the post-filter of 5.26, 2 x k
where the SEARCH clause filters on the scope inside the index (HNSW cost grows with the limit; an
incomplete answer is widened)."""


def _scopes(scopes: Sequence[FactScopeLike] | FactScopeLike | None) -> list[str] | None:
    if scopes is None:
        return None
    if isinstance(scopes, FactScope | str):
        scopes = [scopes]
    return sorted({FactScope.parse(s).key for s in scopes})


def _subjects(subjects: Sequence[str] | None) -> list[str]:
    out: list[str] = []
    for s in text_list(subjects, "subjects"):
        name = " ".join(s.casefold().split())
        if name and name not in out:
            out.append(name[:200])
    return out


def _expiry(ttl: str | timedelta | None, expires_at: datetime | None, now: datetime) -> tuple[bool, datetime | None]:
    """(an expiry was given, the expiry or None for permanent)."""
    if expires_at is not None:
        if expires_at.tzinfo is None:
            raise InvalidInput("expires_at must be timezone-aware")
        return True, expires_at
    delta = parse_ttl(ttl)
    if delta is None:
        return False, None
    if delta == timedelta.max:
        return True, None
    return True, now + delta


def _outcome(row: dict[str, Any], dedup: float) -> RememberResult | None:
    """The result of a remember statement that decided (its ``rule``), else None (see remember)."""
    rule = row["rule"]
    if rule is None:
        return None
    fact = Fact.from_row(row["fact"])
    matched = Fact.from_row(row["matched"]) if row["matched"] else None
    if rule == "landed":  # facts/remember_landed: the write of a call whose connection was lost
        return RememberResult("updated" if matched else "inserted", fact, matched, None,
                              "written before the connection was lost")
    if rule == "same":
        return RememberResult("unchanged", fact, Fact.from_row(row["same"]), 1.0, "same text")
    if rule == "insert":
        return RememberResult("inserted", fact, None, None, "no similar fact in the scope")
    cos = float(row["matched"]["cosine"])
    action: Literal["updated", "unchanged"] = "unchanged" if rule == "contained" else "updated"
    reason = {
        "contained": "the stored fact already says it",
        "similar": f"cosine {cos:.3f} >= {dedup}",
        "refines": f"the new text refines the stored one (cosine {cos:.3f})",
    }[rule]
    return RememberResult(action, fact, matched, round(cos, 4), reason)


def remember(
    db: Database,
    content: str,
    subjects: Sequence[str] = (),
    *,
    embedder: Embedder | None = None,
    deferred: DeferredWrites | None = None,
    redact: bool = True,
    type: str | None = None,
    importance: float | None = None,
    ttl: str | timedelta | None = None,
    expires_at: datetime | None = None,
    scope: FactScopeLike = "global",
    source: str | None = "explicit",
    turn_id: str | None = None,
    threshold: float | None = None,
) -> RememberResult:
    """Store a fact, or update the similar fact of the same scope (see :meth:`GraphMemory.remember`).

    ``embedder`` gives the fact its vector (without one only the same text is recognised);
    ``deferred`` indexes that vector in the background (else at once); ``redact`` removes secrets
    from the text and subjects first."""
    text = clean_text(content).strip() if isinstance(content, str) else ""
    if not text:
        raise InvalidInput("a fact needs some content")
    subjects = text_list(subjects, "subjects")
    if redact:
        text = redact_text(text)[0]
        subjects = [redact_text(s)[0] for s in subjects]
    if len(text) > MAX_CONTENT_CHARS:
        raise InvalidInput(f"a fact is at most {MAX_CONTENT_CHARS} characters (store a summary, not a transcript)")
    check_fact_type(type)
    if importance is not None:
        importance = score(importance, "importance", low=0.0, high=1.0)
    source = optional_text(source, "source")
    turn_id = optional_text(turn_id, "turn_id")
    if threshold is not None:
        threshold = score(threshold, "threshold", low=-1.0, high=1.0)
    sc = FactScope.parse(scope)
    names = _subjects(subjects)
    tuning = get_tuning(db, embedder=embedder)
    dedup = tuning.dedup_threshold if threshold is None else threshold
    refine_min = min(tuning.refine_min_similarity, dedup)
    now = utcnow()
    set_expiry, expiry = _expiry(ttl, expires_at, now)
    vector = embedder.embed_one(text) if embedder is not None else None
    key = content_key(text)
    search = db.server_info().vector_search_clause

    vparam = vector_param(vector)
    params: dict[str, Any] = dict(
        scopeKey=sc.key, scopeKind=sc.kind, contentKey=key, words=words(text), vector=vparam, k=5,
        minCosine=refine_min, dedup=dedup, id=str(uuid.uuid4()), content=text, type=type,
        importance=None if importance is None else float(importance), defaultImportance=FACT_TYPES, now=now,
        setExpiry=set_expiry, expiresAt=expiry, source=source, subjects=names, turnId=turn_id,
    )

    def work(tx: Tx, search: bool) -> RememberResult:
        # the statement writes nothing when it cannot decide: the facts it found get their words
        # (stored by an older graphmem), or an incomplete index search is widened (rare); then again
        fetch, exact_max = _REMEMBER_FETCH[search], EXACT_SCAN_MAX
        while True:
            row = tx.run(_REMEMBER[search], **params, fetch=fetch, exactMax=exact_max)[0]
            done = _outcome(row, dedup)
            if done is not None:
                return done
            legacy = [{"id": h["id"], "words": words(h["content"])} for h in row["hits"] if h.get("words") is None]
            if legacy:
                tx.run("facts/set_words", rows=legacy)
            elif fetch < MAX_FETCH:
                fetch = min(MAX_FETCH, fetch * 4)
            else:
                exact_max = int(row["count"])  # the exact scan, which is complete

    def recover() -> list[dict[str, Any]] | None:
        # the connection was lost mid-statement: its new fact tells whether the write landed (a call
        # that kept a fact writes nothing new; running it again does the same)
        return db.read_leader("facts/remember_landed", id=params["id"]) or None

    def first(search: bool) -> RememberResult | None:
        # the usual case in one round trip: one auto-commit statement that decides and writes
        rows = db.write_autocommit(_REMEMBER[search], {**params, "fetch": _REMEMBER_FETCH[search],
                                                       "exactMax": EXACT_SCAN_MAX}, recover=recover)
        return _outcome(rows[0], dedup)

    try:
        result = first(search) or db.transaction(lambda tx: work(tx, search))
    except DatabaseError as e:
        if not search or not e.server_failure:
            raise
        # Neo4j 2026.08.1's in-index filter fails ("Index ... out of bounds") when nothing in the index
        # matches it (a scope whose vectors all wait for the index): the over-fetch statements instead
        result = first(False) or db.transaction(lambda tx: work(tx, False))
    if vparam is not None and result.action != "unchanged":
        # the vector waits outside the index (see facts/remember); the reads that must see it scan
        # pending vectors, and this process's vector searches wait for this write (wait_for_vectors);
        # the vectors of a burst of remembers are indexed together (INDEX_LINGER)
        if deferred is not None:
            deferred.submit_grouped(VECTORS_KEY, "facts/index_vectors", "ids", [result.fact.id], linger=INDEX_LINGER)
        else:
            db.write("facts/index_vectors", ids=[result.fact.id])
    return result


def get_fact(db: Database, fact_id: str) -> dict[str, Any]:
    """A fact by id (a superseded version too): ``{"fact", "superseded_at", "current_id", "history"}``."""
    rows = db.read("facts/get", id=fact_id)
    if not rows:
        raise NotFound(f"fact not found: {quoted(fact_id)}")
    r = rows[0]
    at = r["supersededAt"]
    return {
        "fact": Fact.from_row(r["fact"]),
        "superseded_at": native(at),
        "current_id": r["currentId"] or (None if at else r["fact"]["id"]),
        "history": list(r["history"]),
    }


def _touch(db: Database, facts: Sequence[Fact]) -> None:
    if facts:
        db.write("facts/touch", ids=[f.id for f in facts], now=utcnow())


def search_facts(
    db: Database,
    query: str,
    *,
    embedder: Embedder | None = None,
    deferred: DeferredWrites | None = None,
    scopes: Sequence[FactScopeLike] | FactScopeLike | None = None,
    limit: int | None = None,
    min_score: float | None = None,
    types: Sequence[str] | None = None,
    touch: bool = True,
) -> list[Fact]:
    """Semantic top ``limit`` (default 10, no threshold) in ``scopes`` (None: all).

    Without an embedder: a case-insensitive substring search. Counts a use of each result. The
    facts remembered through ``deferred`` are in the vector index first."""
    query = optional_text(query, "query") or ""
    k = get_tuning(db).search_limit if limit is None else count(limit, "limit")
    if min_score is not None:
        min_score = score(min_score, "min_score", low=-1.0, high=1.0)
    wanted: set[str] | None = None
    if types is not None:
        wanted = set(text_list(types, "types"))
        for t in wanted:
            check_fact_type(t)
    keys = _scopes(scopes)
    if not query.strip():
        return []  # nothing to search for
    if embedder is None:
        facts = list_text(db, query, keys, limit=k)
    else:
        vector = query_vector(embedder, query)
        wait_for_vectors(deferred)  # a failed indexing is logged; the pending scans still see it
        in_scopes = None
        if keys is not None:
            in_scopes = int(db.read("facts/scope_counts", scopeKeys=keys)[0]["count"])
        fetch_k = k * 4 if wanted else k
        rows = nearest_facts(db, vector, keys, k=fetch_k, min_cosine=-1.0 if min_score is None else min_score,
                             scope_count=in_scopes)
        facts = [Fact.from_row(r) for r in rows]
    if wanted:
        facts = [f for f in facts if f.type in wanted]
    facts = facts[:k]
    if touch:
        _touch(db, facts)
    return facts


def list_text(db: Database, text: str, keys: list[str] | None, *, limit: int) -> list[Fact]:
    needle = " ".join(clean_text(text).casefold().split())
    rows = db.read("facts/text_search", scopeKeys=keys, needle=needle, subject=needle, limit=limit)
    return [Fact.from_row(r["fact"]) for r in rows]


_LIST_IN_SCOPES = {"recent": "facts/list_recent", "importance": "facts/list_important"}


def list_facts(
    db: Database,
    *,
    scopes: Sequence[FactScopeLike] | FactScopeLike | None = None,
    type: str | None = None,
    subject: str | None = None,
    min_importance: float | None = None,
    since: datetime | timedelta | None = None,
    order: str = "recent",
    limit: int = 50,
) -> list[Fact]:
    """Current facts, filtered; ``order`` is ``recent``, ``importance`` or ``accessed``."""
    if order not in ("recent", "importance", "accessed"):
        raise InvalidInput("order must be 'recent', 'importance' or 'accessed'")
    check_fact_type(type)
    if min_importance is not None:
        min_importance = score(min_importance, "min_importance", low=0.0, high=1.0)
    limit = count(limit, "limit")
    since = utcnow() - since if isinstance(since, timedelta) else reference_time(since, "since")
    if subject is not None and not isinstance(subject, str):
        raise InvalidInput(f"subject must be a string, not {subject.__class__.__name__}")
    names = _subjects([subject]) if subject else []
    keys = _scopes(scopes)
    if keys is not None and not names and order in _LIST_IN_SCOPES:
        # within scopes, each scope's index is read in order and stops at the limit
        rows = db.read(_LIST_IN_SCOPES[order], scopeKeys=keys, type=type, minImportance=min_importance,
                       since=since, limit=limit)
    else:
        rows = db.read("facts/list", scopeKeys=keys, type=type, subject=names[0] if names else None,
                       minImportance=min_importance, since=since, order=order, limit=limit)
    return [Fact.from_row(r["fact"]) for r in rows]


def retire_fact(db: Database, new_id: str, old_id: str, *, rule: str, now: datetime | None = None) -> bool:
    """Retire the current fact ``old_id``, corrected by the newer fact ``new_id`` of its scope (kept as
    history behind SUPERSEDES); False when either is not current. Applied once: after a commit whose
    reply was lost, the SUPERSEDES edge tells whether it landed."""
    params = {"newId": new_id, "oldId": old_id, "now": now or utcnow(), "rule": rule}
    rows = db.write_checked("corrections/retire", params,
                            landed=lambda: db.read_leader("corrections/retired", newId=new_id, oldId=old_id) or None)
    return bool(rows)


def facts_about(db: Database, subject: str, *, scopes: Sequence[FactScopeLike] | FactScopeLike | None = None,
                limit: int = 50) -> list[Fact]:
    """Every current fact tagged with ``subject`` ("everything about mickael"), most important first."""
    subject = required_text(subject, "subject")
    return list_facts(db, scopes=scopes, subject=subject, order="importance", limit=limit)


def delete_facts(db: Database, ids: Sequence[str]) -> list[dict[str, Any]]:
    """Delete facts (with their history) by id, without an audit record; returns id/type/scopeKey rows."""
    out: list[dict[str, Any]] = []
    items = list(ids)
    for start in range(0, len(items), 500):
        out.extend(db.write("facts/delete", ids=items[start : start + 500]))
    return out


def forget(
    db: Database,
    topic_or_id: str,
    *,
    embedder: Embedder | None = None,
    deferred: DeferredWrites | None = None,
    scopes: Sequence[FactScopeLike] | FactScopeLike | None = None,
    min_score: float | None = None,
    reason: str | None = None,
    dry_run: bool = False,
    limit: int = 200,
) -> ForgetResult:
    """Forget one fact by id (or by a unique id prefix of 6+ characters, as listings show ids; an
    ambiguous prefix is :class:`InvalidInput` listing the candidates, an id-like value matching
    nothing is :class:`NotFound` when ``scopes`` is None; with ``scopes``, a prefix only finds the
    facts of those scopes), or every fact matching a topic: cosine >= ``min_score``
    (default 0.5), tagged with the topic as a subject, or containing it (3+ characters).

    Removes each match with its whole history and writes a ``(:ForgetAudit)`` record (when, why,
    which ids/types/scopes and the ids of every version removed, a hash of the topic; never the
    facts' text); ``ForgetResult.versions`` lists those versions. ``scopes`` limits a topic forget
    (None: every scope)."""
    if not isinstance(topic_or_id, str) or not clean_text(topic_or_id).strip():
        raise InvalidInput("forget needs a topic or a fact id (a non-empty string)")
    value = clean_text(topic_or_id).strip()
    reason = optional_text(reason, "reason")
    limit = count(limit, "limit")
    if min_score is not None:
        min_score = score(min_score, "min_score", low=-1.0, high=1.0)
    keys = _scopes(scopes)
    matched: dict[str, Fact] = {}
    method = "topic"
    value = _full_id(db, value, keys)
    rows = db.read("facts/get", id=value) if len(value) <= 64 else []
    if rows:
        method = "id"
        fact = Fact.from_row(rows[0]["fact"])
        matched[fact.id] = fact
    else:
        threshold = get_tuning(db, embedder=embedder).forget_min_score if min_score is None else min_score
        if embedder is not None:
            for f in search_facts(db, value, embedder=embedder, deferred=deferred, scopes=keys, limit=limit, min_score=threshold, touch=False):
                matched.setdefault(f.id, f)
        needle = " ".join(value.casefold().split())
        if len(needle) >= 3:
            for f in list_text(db, needle, keys, limit=limit):
                matched.setdefault(f.id, f)
    removed = list(matched.values())
    if not removed and keys is None and _looks_like_id(value):
        raise NotFound(f"no fact with id or id prefix {quoted(value)} (and no fact about it)")
    versions = [dict(r) for r in db.read("facts/versions", ids=list(matched))] if removed else []
    if dry_run or not removed:
        return ForgetResult(removed, None, dry_run, versions)
    deleted = {r["id"] for r in delete_facts(db, list(matched))}
    versions = [v for v in versions if v["currentId"] in deleted]  # the current versions deleted, with their history
    if method == "id":
        deleted = {value} if deleted else set()
        removed = [f for f in removed if f.id == value] if deleted else []
    else:
        removed = [f for f in removed if f.id in deleted]
    audit_id = str(uuid.uuid4())
    db.write(
        "facts/audit_forget", id=audit_id, now=utcnow(), reason=reason or None,
        method=method, topicHash=hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest(),
        factIds=[f.id for f in removed], types=[f.type for f in removed], scopeKeys=[f.scope_key for f in removed],
        versionIds=[v["id"] for v in versions],
    )
    return ForgetResult(removed, audit_id, False, versions)


_ID_PREFIX = re.compile(r"[0-9a-f][0-9a-f-]{5,63}")
"""What a fact id or a shortened one (as listings show it, 8 characters) looks like: 6+ of uuid4's
characters, one of them a digit (so that a topic such as "facade" stays a topic)."""


def _looks_like_id(value: str) -> bool:
    return _ID_PREFIX.fullmatch(value) is not None and any(c.isdigit() for c in value)


def _full_id(db: Database, value: str, keys: list[str] | None) -> str:
    """The full id of the one fact (of the scopes ``keys``; None: any) whose id starts with ``value``
    (6+ characters), else ``value`` itself (an exact id, or a topic). :class:`InvalidInput` listing
    the candidates when several facts share the prefix."""
    if not _looks_like_id(value) or len(value) >= 36:
        return value
    rows = db.read("facts/by_id_prefix", prefix=value, scopeKeys=keys, limit=11)
    if len(rows) <= 1:
        return rows[0]["id"] if rows else value
    shown = "; ".join(f"{r['id']} ({r['content']})" for r in rows[:10])
    more = " and more" if len(rows) > 10 else ""
    raise InvalidInput(f"the id prefix {quoted(value)} matches {len(rows)} facts{more}: {shown}; give more characters")


def forget_audits(db: Database, limit: int = 50) -> list[dict[str, Any]]:
    """The latest forget audit records (no fact text), newest first."""
    out = []
    for r in db.read("facts/audits", limit=count(limit, "limit")):
        a = dict(r["audit"])
        a["at"] = native(a.get("at"))
        out.append(a)
    return out


def delete_expired_facts(db: Database, *, batch_size: int = 1000) -> int:
    """Delete every fact whose expiry has passed (with its history); returns how many.

    For the worker's periodic cleanup and ``graphmem facts expire``. Reads
    already hide expired facts; this reclaims the space."""
    total = 0
    while True:
        ids = [r["id"] for r in db.read("facts/expired_batch", limit=batch_size)]
        if not ids:
            return total
        total += len(delete_facts(db, ids))
        if len(ids) < batch_size:
            return total


def delete_facts_under_path(db: Database, path: str) -> int:
    """Delete the facts, scope nodes and forget audits of projects at or under ``path`` (clean-up)."""
    path = path.rstrip("/") or "/"
    prefix = path if path.endswith("/") else path + "/"
    ids = [r["id"] for r in db.read("facts/under_path", path=path, prefix=prefix)]
    n = len(delete_facts(db, ids))
    db.write("facts/drop_scopes_under_path", path=path, prefix=prefix)
    return n
