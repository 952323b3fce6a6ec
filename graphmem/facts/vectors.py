"""Fact vectors: the nearest facts of some scopes, and the indexing of remembered facts' vectors.

A remembered fact's vector first waits outside the vector index (a pending property the reads
scan); the background writer moves it into the index shortly after, several at once, and the
worker's cleanup indexes what a stopped process left pending.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ..db import Database, DeferredWrites
from ..db.client import Tx
from ..db.params import vector_param
from ..errors import DatabaseError
from ..models import utcnow

__all__ = [
    "EXACT_SCAN_MAX",
    "INDEX_LINGER",
    "MAX_FETCH",
    "VECTORS_KEY",
    "index_pending_vectors",
    "nearest_facts",
    "wait_for_vectors",
]

EXACT_SCAN_MAX = 2000
"""Scopes holding at most this many facts are scanned exactly instead of through the index."""
MAX_FETCH = 4000
"""The largest index over-fetch before the exact scan takes over."""
VECTORS_KEY = "fact-vectors"
"""The background writer's key for indexing remembered facts' vectors (see :func:`wait_for_vectors`)."""
INDEX_LINGER = 0.5
"""Seconds a remembered fact's vector waits for others before they are indexed in one transaction
(a group commit: every transaction that changes the vector index costs the server several
milliseconds, so a burst of remembers is indexed together). :func:`wait_for_vectors` does not
wait for the linger; the pending scans see the vectors meanwhile."""
_VECTOR_INDEX = {False: "facts/vector_index", True: "facts/vector_index@search"}


def _run(db: Database | Tx, name: str, **params: Any) -> list[dict[str, Any]]:
    if isinstance(db, Tx):
        return db.run(name, **params)
    return db.read(name, **params)


def nearest_facts(
    db: Database | Tx,
    vector: list[float],
    scope_keys: list[str] | None,
    *,
    k: int,
    min_cosine: float = -1.0,
    scope_count: int | None = None,
    search: bool | None = None,
) -> list[dict[str, Any]]:
    """Up to ``k`` current, unexpired facts of ``scope_keys`` (None: every scope) nearest to
    ``vector`` with cosine >= ``min_cosine``, best first, as rows (with ``cosine`` and ``embedding``).

    ``scope_count`` (facts in those scopes) picks an exact scan when small; unknown means the index.
    ``search``: the server has the SEARCH clause (asked of ``db`` when it is a Database).
    """
    if scope_keys is not None and not scope_keys:
        return []
    vector = vector_param(vector) or []
    if scope_keys is not None and scope_count is not None and scope_count <= EXACT_SCAN_MAX:
        rows = _run(db, "facts/vector_exact", vector=vector, scopeKeys=scope_keys, k=k, minCosine=min_cosine)
        return list(rows[0]["hits"]) if rows else []
    if search is None:
        search = db.server_info().vector_search_clause if isinstance(db, Database) else False
    fetch = max(k * 2 + 10, 50) if search or scope_keys is None else max(k * 10, 200)
    while True:
        if scope_keys is None:
            rows = _run(db, "facts/vector_all", vector=vector, fetch=fetch, k=k, minCosine=min_cosine)
        else:
            try:
                rows = _run(db, _VECTOR_INDEX[search], vector=vector, scopeKeys=scope_keys, fetch=fetch, k=k,
                            minCosine=min_cosine)
            except DatabaseError as e:
                if not search or not isinstance(db, Database) or not e.server_failure:
                    raise  # in a transaction, the caller retries the whole of it (see remember)
                # 2026.08.1's in-index filter fails when nothing in the index matches it: over-fetch
                search = False
                fetch = max(k * 10, 200)
                continue
        row: dict[str, Any] = rows[0] if rows else {"fetched": 0, "lowestCosine": -1.0, "hits": []}
        hits: list[dict[str, Any]] = list(row["hits"])
        exhausted = row["fetched"] < fetch or row["lowestCosine"] < min_cosine
        if len(hits) >= k or exhausted:
            return hits
        if fetch >= MAX_FETCH:
            if scope_keys is None:
                return hits
            rows = _run(db, "facts/vector_exact", vector=vector, scopeKeys=scope_keys, k=k, minCosine=min_cosine)
            return list(rows[0]["hits"]) if rows else []
        fetch = min(MAX_FETCH, fetch * 4)


def wait_for_vectors(deferred: DeferredWrites | None) -> list[str]:
    """Wait until the facts remembered through ``deferred`` are in the vector index (their indexing
    runs on that background writer shortly after remember() commits, several at once; waiting
    starts it now); returns the errors of indexings that failed (those facts stay pending: found
    by the pending scans, indexed by the worker's cleanup)."""
    return deferred.wait(VECTORS_KEY) if deferred is not None else []


def index_pending_vectors(db: Database, *, older_than: timedelta = timedelta(seconds=60),
                          batch_size: int = 500) -> int:
    """Index the vectors that have waited longer than ``older_than`` (their process stopped before
    its background writer ran); returns how many. For the worker's periodic cleanup."""
    total = 0
    before = utcnow() - older_than
    while True:
        ids = [r["id"] for r in db.read("facts/pending_vectors_batch", before=before, limit=batch_size)]
        if not ids:
            return total
        total += int(db.write("facts/index_vectors", ids=ids)[0]["indexed"])
        if len(ids) < batch_size:
            return total
