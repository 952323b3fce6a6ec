"""Search candidates and hits: what each source returns, and the hits read back for the final
ranking (:func:`hydrate`)."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..db import Database
from ..db.rows import native, zoned_time
from ..embedding import Embedder, query_vector
from .fusion import max_rrf_score
from .models import RetrievalConfig, SearchHit, SearchMode
from .reltime import relative_time
from .scopes import Scope

__all__ = ["Candidate", "SearchRun", "hydrate", "ms_since", "pending_warning", "plan_hydrate_shapes", "query_embedding",
           "vector_rows"]

log = logging.getLogger("graphmem.retrieval")


@dataclass
class Candidate:
    """A candidate from one source before fusion."""

    id: str
    kind: str
    score: float
    chars: int | None = None
    """A turn's length (user + assistant characters), where the source reports it."""


@dataclass
class SearchRun:
    """What one search records on its way: the strategies, warnings and timings it reports."""

    strategy: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


def vector_rows(db: Database, name: str, params: dict[str, Any], pending: dict[str, int]) -> list[dict[str, Any]]:
    """The candidates of the vector statement ``name`` (``search/vector_*``, ``search/exact_*``: one
    row, the candidates as its ``rows`` list). ``pending`` keeps, per side (``turns``,
    ``summaries``), how many of the scope's items the statement saw waiting for their embedding:
    the most any statement of the search saw (an over-fetch may run several)."""
    found = db.read(name, **params)
    if not found:
        return []
    row = found[0]
    for side, key in (("turns", "pendingTurns"), ("summaries", "pendingSummaries")):
        pending[side] = max(pending.get(side, 0), int(row.get(key) or 0))
    return list(row["rows"])


def pending_warning(n: int) -> str | None:
    """The warning of a vector search whose scope holds ``n`` items still waiting for an embedding."""
    if n <= 0:
        return None
    return (f"{n} item{'s' if n != 1 else ''} in scope {'are' if n != 1 else 'is'} not embedded yet; run "
            "`graphmem worker` (or wait for it) for semantic search to see them")


def ms_since(t0: float) -> float:
    """Milliseconds since ``t0`` (a ``time.perf_counter()`` value)."""
    return round((time.perf_counter() - t0) * 1000, 3)


def hydrate(
    db: Database,
    cfg: RetrievalConfig,
    ranked: list[tuple[str, str, float, dict[str, int]]],
    lists: dict[str, list[Candidate]],
    scope: Scope,
    mode: SearchMode,
    with_embeddings: bool,
    locale: str,
    now: datetime | None,
    run: SearchRun,
) -> list[SearchHit]:
    if not ranked:
        return []
    t0 = time.perf_counter()
    scores = {s: {c.id: c.score for c in lst} for s, lst in lists.items()}
    (row,) = db.read("search/hydrate", **_hydrate_params(cfg, [(d, kind) for d, kind, _, _ in ranked], with_embeddings))
    items = {it["id"]: it for it in row["items"]}
    now = now or datetime.now(UTC)
    best_text = max(scores.get("text", {}).values(), default=1.0) or 1.0
    graph_weight = cfg.graph_weight if "graph" in lists else 0.0
    top = max_rrf_score({"vector": cfg.vector_weight, "text": cfg.text_weight, "graph": graph_weight}, cfg.rrf_k)
    hits: list[SearchHit] = []
    for d, kind, score, ranks in ranked:
        if d not in items:
            continue  # deleted between the candidate query and now
        it = items[d]
        if not scope.contains(it.get("sessionId"), it.get("cwd"), it.get("projectPath")):
            log.error("dropped a hit outside the scope %s: %s", scope, d)  # never expected
            continue
        vscore = scores.get("vector", {}).get(d)
        tscore = scores.get("text", {}).get(d)
        if mode == "hybrid" and cfg.fusion == "combsum":
            relevance = score / (max(cfg.vector_weight, 0) + max(cfg.text_weight, 0) + max(graph_weight, 0) or 1.0)
        elif mode == "hybrid":
            relevance = score / top
        elif mode == "semantic":
            relevance = max(0.0, min(1.0, score))
        else:
            relevance = score / best_text
        ts = _timestamp(it)
        hit = SearchHit(
            kind="turn" if kind == "turn" else "summary",
            id=d,
            level=0 if kind == "turn" else int(it.get("level") or 0),
            score=round(score, 6),
            relevance=round(relevance, 4),
            vector_score=None if vscore is None else round(vscore, 6),
            text_score=None if tscore is None else round(tscore, 6),
            vector_rank=ranks.get("vector"),
            text_rank=ranks.get("text"),
            graph_rank=ranks.get("graph"),
            session_id=it.get("sessionId") or "",
            cwd=it.get("cwd") or "",
            project_path=it.get("projectPath") or "",
            timestamp=ts,
            relative_time=relative_time(ts, now, locale) if isinstance(ts, datetime) else "",
        )
        if kind == "turn":
            hit.index = it.get("index")
            hit.user_message = it.get("userMessage") or ""
            hit.assistant_message = it.get("assistantMessage") or ""
            hit.tools = list(dict.fromkeys(it.get("tools") or []))
            hit.truncated = (it.get("userChars") or 0) > cfg.max_chars or (it.get("assistantChars") or 0) > cfg.max_chars
        else:
            hit.text = it.get("text") or ""
            hit.key_findings = list(it.get("keyFindings") or [])
            hit.files_mentioned = list(it.get("filesMentioned") or [])
            hit.tools_used = list(it.get("toolsUsed") or [])
            hit.topics = list(it.get("topics") or [])
            hit.truncated = (it.get("textChars") or 0) > cfg.max_chars
        if with_embeddings and it.get("embedding") is not None:
            hit._embedding = [float(x) for x in it["embedding"]]
        hits.append(hit)
    run.timings["hydrate"] = ms_since(t0)
    return hits


def _timestamp(item: dict[str, Any]) -> Any:
    """A hit's time in the zone it was stored with (read as numbers, see ``search/hydrate``)."""
    if item.get("at") is not None:
        return zoned_time(int(item["at"]), int(item.get("nanos") or 0), str(item.get("zone") or "Z"))
    return native(item.get("timestamp"))


def query_embedding(
    embedder: Embedder | None, dimensions: int | None, query: str, vector: Sequence[float] | None, run: SearchRun
) -> tuple[list[float] | None, str | None]:
    """The query's vector (``vector`` when given), or ``None`` and the warning of a search that
    falls back to text: no embedder, an embedder failure, a vector of the wrong size or all zeros."""
    t0 = time.perf_counter()
    try:
        if vector is not None:
            vec = [float(x) for x in vector]
        elif embedder is None:
            return None, "no embedder configured: text-only search"
        else:
            vec = query_vector(embedder, query)
    except Exception as e:  # any embedder failure degrades to text search, never breaks it
        log.warning("query embedding failed: %s", e)
        return None, f"embedder unavailable ({type(e).__name__}: {e}): text-only search"
    finally:
        run.timings["embed"] = ms_since(t0)
    if dimensions is not None and len(vec) != dimensions:
        return None, (
            f"the query vector has {len(vec)} dimensions but the database is indexed with {dimensions}: "
            "text-only search (run `graphmem reindex`)"
        )
    if not all(math.isfinite(x) for x in vec):
        return None, "the query vector holds NaN or infinite values: text-only search"
    if not any(vec):
        return None, "the query has no embedding (all zeros): text-only search"
    return vec, None


def _hydrate_params(cfg: RetrievalConfig, ranked: Sequence[tuple[str, str]], with_embeddings: bool) -> dict[str, Any]:
    return {"turnIds": [d for d, kind in ranked if kind == "turn"],
            "summaryIds": [d for d, kind in ranked if kind == "summary"],
            "maxChars": cfg.max_chars, "withEmbedding": with_embeddings}


def plan_hydrate_shapes(db: Database, cfg: RetrievalConfig) -> int:
    """Run the hydration statement once per shape of its id lists (turns, summaries or both), with
    ids that match nothing, so that the server plans each now. The number of statements run."""
    shapes: list[list[tuple[str, str]]] = [[("", "turn")], [("", "summary")], [("", "turn"), ("", "summary")]]
    for ranked in shapes:
        db.read("search/hydrate", **_hydrate_params(cfg, ranked, False))
    return len(shapes)
