"""Embedding passes run on demand (``GraphMemory.embed_pending``), ``graphmem reindex``, and the
optional document expansion (``contextText`` on turns).

Document expansion: a turn's ``contextText`` holds the text of the turns within ``window`` places
of it in the same session. The ``memory_search`` full-text index covers it, so with a positive
``contextText`` field weight a question can find the turn whose neighbours share its words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..db import Database
from ..db.schema import migrations
from .base import Embedder
from .pending import (
    EMBED_TEXT_MAX_CHARS,
    LONG_TURN_CHARS,
    NEIGHBOUR_WINDOW,
    EmbedStats,
    embed_pending_summaries,
    embed_pending_turns,
)

__all__ = ["EmbedPassStats", "embed_all_pending", "expand_context", "pending_counts", "reindex"]

Progress = Callable[[int], None]


@dataclass
class EmbedPassStats:
    turns: int = 0
    summaries: int = 0
    reused: int = 0
    expanded: int = 0
    facts: int = 0
    """Facts given a new vector by :func:`reindex` (not in :attr:`total`, which counts the pass's turns
    and summaries)."""

    @property
    def total(self) -> int:
        return self.turns + self.summaries


def pending_counts(db: Database) -> dict[str, int]:
    row = db.read("embeddings/counts")[0]
    return {k: int(v or 0) for k, v in row.items()}


def expand_context(
    db: Database, window: int, *, batch: int = 500, max_chars: int = 2000, ids: Sequence[str] | None = None,
    long_turn_chars: int = LONG_TURN_CHARS,
) -> int:
    """Compute ``contextText`` for turns that have none (and refresh their ``window`` predecessors);
    with ``ids``, for those turns only (the worker passes the turns it just embedded: no scan). Turns
    longer than ``long_turn_chars`` (0 = none is) get an empty one."""
    if window <= 0:
        return 0
    done = 0
    given = list(ids) if ids is not None else None
    while True:
        if given is not None:
            ids, given = given[:batch], given[batch:]
        else:
            ids = [r["id"] for r in db.read("search/pending_context_turns", limit=batch)]
        if not ids:
            return done
        rows = db.read("search/neighbour_ids", ids=ids, window=window)
        todo = rows[0]["ids"] if rows else ids
        db.write("search/set_context_text", ids=todo, window=window, maxChars=max_chars,
                 longTurnChars=long_turn_chars)
        done += len(ids)


def embed_all_pending(
    db: Database,
    embedder: Embedder,
    *,
    batch: int = 128,
    limit: int | None = None,
    expansion_window: int = 0,
    progress: Progress | None = None,
    long_turn_chars: int = LONG_TURN_CHARS,
) -> EmbedPassStats:
    """Embed pending turns then pending summaries until none is left (or ``limit`` were done);
    turns longer than ``long_turn_chars`` keep their own vector and get no neighbour context."""
    stats = EmbedPassStats()

    def turns(n: int) -> EmbedStats:
        return embed_pending_turns(db, embedder, limit=n, long_turn_chars=long_turn_chars)

    def summaries(n: int) -> EmbedStats:
        return embed_pending_summaries(db, embedder, limit=n)

    for kind, fn in (("turns", turns), ("summaries", summaries)):
        while limit is None or stats.total < limit:
            n = batch if limit is None else min(batch, limit - stats.total)
            s = fn(n)
            if s.total == 0:
                break
            setattr(stats, kind, getattr(stats, kind) + s.total)
            stats.reused += s.reused
            if progress is not None:
                progress(s.total)
            if s.total < n:
                break
    if expansion_window > 0:
        stats.expanded = expand_context(db, expansion_window, max_chars=min(EMBED_TEXT_MAX_CHARS, 2000),
                                        long_turn_chars=long_turn_chars)
    return stats


def reindex(
    db: Database,
    embedder: Embedder,
    *,
    batch: int = 128,
    reset_batch: int = 5000,
    on_total: Callable[[int], None] | None = None,
    progress: Progress | None = None,
    await_seconds: int = 600,
) -> EmbedPassStats:
    """Re-embed everything with ``embedder``: drop the vector indexes, forget every vector, recreate
    the indexes with the embedder's dimension, embed all turns (writing their neighbour context
    again, by the current long-turn rule), summaries and current facts, then record the model. Notes
    are reset to pending: the worker embeds them."""
    db.write("search/reindex_drop_turn_index")
    db.write("search/reindex_drop_summary_index")
    db.write("search/reindex_drop_context_index")
    db.write("facts/reindex_drop_index")
    db.write("notes/reindex_drop_index")
    db.write("notes/reindex_reset")  # notes are embedded again by the worker
    for name in ("search/reindex_reset_turns", "search/reindex_reset_summaries"):
        while int(db.write(name, batch=reset_batch)[0]["reset"]) > 0:
            pass
    features = {"search"} if db.server_info().vector_search_clause else set()
    for m in migrations(features):
        if m.name.startswith(("schema/0023_", "schema/0024_", "schema/0086_", "schema/0078_", "schema/0113_")):
            db.write(m.name, dimensions=embedder.dimensions)
    db.write("meta/await_indexes", timeoutSeconds=await_seconds)
    counts = pending_counts(db)
    if on_total is not None:
        on_total(counts["pendingTurns"] + counts["pendingSummaries"])
    stats = embed_all_pending(db, embedder, batch=batch, progress=progress, expansion_window=NEIGHBOUR_WINDOW)
    stats.facts = _reembed_facts(db, embedder, batch=batch)
    db.write("meta/set", key="embedding", props={"model": embedder.model, "dimensions": embedder.dimensions})
    return stats


def _reembed_facts(db: Database, embedder: Embedder, *, batch: int) -> int:
    """Give every current fact a vector of ``embedder`` (retired ones lose theirs); returns how many."""
    from ..db.params import vector_param

    after, done = "", 0
    while True:
        page = db.read("facts/reindex_page", after=after, limit=batch)
        if not page:
            return done
        current = [r for r in page if r["current"]]
        vectors = embedder.embed([r["content"] for r in current]) if current else []
        by_id = {r["id"]: vector_param(v) for r, v in zip(current, vectors, strict=True)}
        db.write("facts/reindex_set", rows=[{"id": r["id"], "embedding": by_id.get(r["id"])} for r in page])
        done += len(current)
        after = page[-1]["id"]
