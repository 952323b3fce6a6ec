"""The embedding pipeline: pending turns and summaries get vectors, off the write path.

``store_turn`` marks a turn ``embedState: 'pending'``; the worker (or a caller that asks for it
inline) calls :func:`embed_pending_turns`. That pass also keeps two retrieval aids current, off
the write path: each turn's ``ctxEmbedding`` (its raw vector averaged with its +-2 same-session
neighbours', weight 0.3, re-normalised; the turn vector index searches it, the raw ``embedding``
stays for dedup and the cache) and its session's whole-session BM25 document (``sessionText``). A
long turn (user message + assistant reply over :data:`LONG_TURN_CHARS`) stands on its own: its
``ctxEmbedding`` is its own vector, since its neighbours' talk would blur what it already says at
length (it still lends its vector to its short neighbours); with an embedder that reads short texts
best (e5) its vector reads its request and only the head of its reply
(:func:`~graphmem.embedding.base.long_reply_head`). Identical text is embedded once: each
vector is stored with ``embeddingHash`` (sha256 of model + text) and ``embeddingModel``, and a text
whose hash is already in the database reuses that vector instead of calling the embedder again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..db import Database
from .base import Embedder, embedding_hash, long_reply_head

__all__ = [
    "EMBED_TEXT_MAX_CHARS",
    "LONG_TURN_CHARS",
    "NEIGHBOUR_WEIGHT",
    "NEIGHBOUR_WINDOW",
    "SESSION_DOC_MAX_TURNS",
    "SESSION_DOC_TURN_CHARS",
    "EmbedStats",
    "context_vectors",
    "embed_pending_summaries",
    "embed_pending_turns",
    "refresh_context_vectors",
    "refresh_session_docs",
    "scope_params",
    "summary_embedding_text",
    "turn_embedding_text",
]

EMBED_TEXT_MAX_CHARS = 8000
"""Characters of each message sent to the embedder (models truncate far earlier anyway)."""
NEIGHBOUR_WINDOW = 2
"""A turn's ``ctxEmbedding`` averages in the raw vectors of the turns this close in its session."""
NEIGHBOUR_WEIGHT = 0.3
"""Weight of each neighbour in ``ctxEmbedding``."""
LONG_TURN_CHARS = 1000
"""A turn whose user message and assistant reply together exceed this many characters is a long
turn: it is retrieved on its own words only (no neighbour context in ``contextText`` or
``ctxEmbedding``, no whole-session prior). Chat turns are short (LoCoMo's longest is 487 characters);
coding-assistant replies run to thousands, and there the neighbours' words crowd the top of the list
with one session's turns (``benchmarks/long_turns/FINDINGS.md``). 0 = every turn gets its neighbours."""
SESSION_DOC_MAX_TURNS = 200
"""The whole-session document holds the latest turns of the session, at most this many."""
SESSION_DOC_TURN_CHARS = 1000
"""Characters of each message that go into the whole-session document."""


@dataclass
class EmbedStats:
    embedded: int = 0
    reused: int = 0
    ids: list[str] = field(default_factory=list)  # the turns or summaries given a vector

    @property
    def total(self) -> int:
        return self.embedded + self.reused


def turn_embedding_text(user_message: str, assistant_message: str, tools: Sequence[str] = (), *,
                        long_turn_chars: int = LONG_TURN_CHARS, reply_head_chars: int = 0) -> str:
    """One text per turn, embedded as one vector: the user message, the assistant message and the
    tools used. With ``reply_head_chars``, a long turn (user message + assistant reply over
    ``long_turn_chars``) gives only that many characters of the head of its reply (0 = all of it;
    the embedder's own figure is :func:`~graphmem.embedding.base.long_reply_head`)."""
    long = long_turn_chars > 0 and len(user_message) + len(assistant_message) > long_turn_chars
    reply = assistant_message.strip()
    if long and reply_head_chars > 0:
        reply = reply[:reply_head_chars]
    parts = [f"User: {user_message.strip()}", f"Assistant: {reply}"]
    if tools:
        parts.append("Tools: " + ", ".join(dict.fromkeys(tools)))
    return "\n".join(parts)[: 2 * EMBED_TEXT_MAX_CHARS]


def summary_embedding_text(text: str, key_findings: Sequence[str] = (), topics: Sequence[str] = ()) -> str:
    parts = [text.strip()]
    if key_findings:
        parts.append("Key findings: " + "; ".join(key_findings))
    if topics:
        parts.append("Topics: " + ", ".join(topics))
    return "\n".join(parts)[: 2 * EMBED_TEXT_MAX_CHARS]


def _vectors(db: Database, embedder: Embedder, texts: list[str], stats: EmbedStats) -> list[tuple[str, list[float]]]:
    hashes = [embedding_hash(t, embedder.model) for t in texts]
    known: dict[str, list[float]] = {
        r["hash"]: list(r["embedding"])
        for r in db.read("embeddings/vectors_by_hash", hashes=sorted(set(hashes)), model=embedder.model)
    }
    todo = [i for i, h in enumerate(hashes) if h not in known]
    # texts repeated inside this batch are embedded once too
    unique: dict[str, int] = {}
    for i in todo:
        unique.setdefault(hashes[i], i)
    if unique:
        fresh = embedder.embed([texts[i] for i in unique.values()])
        for h, vec in zip(unique, fresh, strict=True):
            known[h] = vec
    stats.embedded += len(unique)
    stats.reused += len(texts) - len(unique)
    return [(h, known[h]) for h in hashes]


def scope_params(path: str | None) -> dict[str, str | None]:
    """The ``$path`` / ``$prefix`` parameters of a directory scope (both None: everything)."""
    if path is None:
        return {"path": None, "prefix": None}
    return {"path": path, "prefix": path.rstrip("/") + "/"}


def embed_pending_turns(
    db: Database, embedder: Embedder, *, limit: int = 128, path: str | None = None,
    long_turn_chars: int = LONG_TURN_CHARS, reply_head_chars: int | None = None,
) -> EmbedStats:
    """Embed up to ``limit`` pending turns (only those of directory ``path`` and below when given);
    returns how many were embedded or reused from cache. A long turn's vector reads the first
    ``reply_head_chars`` characters of its reply (None = the embedder's own figure,
    :func:`~graphmem.embedding.base.long_reply_head`; 0 = the whole reply)."""
    rows = db.read("embeddings/pending_turns", limit=limit, maxChars=EMBED_TEXT_MAX_CHARS, **scope_params(path))
    stats = EmbedStats()
    if not rows:
        return stats
    head = long_reply_head(embedder) if reply_head_chars is None else reply_head_chars
    texts = [turn_embedding_text(r["userMessage"] or "", r["assistantMessage"] or "", r["tools"],
                                 long_turn_chars=long_turn_chars, reply_head_chars=head) for r in rows]
    vecs = _vectors(db, embedder, texts, stats)
    payload: list[dict[str, Any]] = [
        {"id": r["id"], "hash": h, "embedding": v} for r, (h, v) in zip(rows, vecs, strict=True)
    ]
    db.write("embeddings/set_turn_embeddings", rows=payload, model=embedder.model, longTurnChars=long_turn_chars)
    ids = [r["id"] for r in rows]
    stats.ids = ids
    refresh_context_vectors(db, ids, long_turn_chars=long_turn_chars)
    refresh_session_docs(db, sorted({r["sessionId"] for r in rows if r.get("sessionId")}))
    return stats


def context_vectors(
    turns: Sequence[tuple[int, Sequence[float]]], *, window: int = NEIGHBOUR_WINDOW, weight: float = NEIGHBOUR_WEIGHT,
    own: Sequence[bool] | None = None,
) -> list[list[float]]:
    """Neighbour-averaged vectors of one session's turns ``(index, raw vector)``:
    ``normalise(e_i + weight * sum of e_j for the turns j with 0 < |index_j - index_i| <= window)``.
    Turns missing from the list (not embedded yet) simply do not contribute. The turns flagged in
    ``own`` (long turns) keep their own normalised vector; they still count in their neighbours'."""
    if not turns:
        return []
    idx = np.array([i for i, _ in turns], dtype=np.int64)
    mat = np.asarray([list(v) for _, v in turns], dtype=np.float64)
    out = mat.copy()
    if weight and window > 0:
        dist = np.abs(idx[:, None] - idx[None, :])
        near = ((dist > 0) & (dist <= window)).astype(np.float64)
        if own is not None:
            near[np.asarray(own, dtype=bool)] = 0.0
        out += weight * (near @ mat)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (out / norms).tolist()  # type: ignore[no-any-return]


def refresh_context_vectors(
    db: Database, ids: Sequence[str], *, window: int = NEIGHBOUR_WINDOW, weight: float = NEIGHBOUR_WEIGHT,
    long_turn_chars: int = LONG_TURN_CHARS,
) -> int:
    """Recompute ``ctxEmbedding`` of the given (just embedded) turns and of their embedded neighbours
    within ``window`` in the same session (whose averages include the new vectors); a turn longer
    than ``long_turn_chars`` (0 = none is) gets its own vector. Returns how many."""
    if not ids:
        return 0
    rows = db.read("embeddings/window_vectors", ids=list(ids), window=window)
    by_session: dict[str, dict[str, tuple[int, list[float]]]] = {}
    long_ids: set[str] = set()
    for r in rows:
        by_session.setdefault(r["sessionId"], {})[r["id"]] = (int(r["index"]), list(r["embedding"]))
        if long_turn_chars > 0 and int(r["chars"] or 0) > long_turn_chars:
            long_ids.add(r["id"])
    wanted = set(ids)
    payload: list[dict[str, Any]] = []
    for turns in by_session.values():
        order = sorted(turns.items(), key=lambda kv: kv[1][0])
        new_idx = [i for tid, (i, _) in order if tid in wanted]
        vecs = context_vectors([t for _, t in order], window=window, weight=weight,
                               own=[tid in long_ids for tid, _ in order])
        for (tid, (i, _)), vec in zip(order, vecs, strict=True):
            # only the given turns and their neighbours change; the wider rows were read as inputs
            if tid in wanted or any(abs(i - j) <= window for j in new_idx):
                payload.append({"id": tid, "embedding": vec})
    for start in range(0, len(payload), 1000):
        db.write("embeddings/set_context_vectors", rows=payload[start:start + 1000])
    return len(payload)


def refresh_session_docs(
    db: Database, session_ids: Sequence[str], *, max_turns: int = SESSION_DOC_MAX_TURNS,
    max_chars: int = SESSION_DOC_TURN_CHARS,
) -> int:
    """Rebuild the whole-session BM25 documents (``Session.sessionText``) of these sessions."""
    if not session_ids:
        return 0
    row = db.write("embeddings/refresh_session_docs", sessionIds=list(session_ids), maxTurns=max_turns,
                   maxChars=max_chars)
    return int(row[0]["updated"]) if row else 0


def embed_pending_summaries(
    db: Database, embedder: Embedder, *, limit: int = 128, path: str | None = None
) -> EmbedStats:
    """Embed up to ``limit`` pending summaries (only those of directory ``path`` and below when given)."""
    rows = db.read("embeddings/pending_summaries", limit=limit, maxChars=EMBED_TEXT_MAX_CHARS, **scope_params(path))
    stats = EmbedStats()
    if not rows:
        return stats
    texts = [summary_embedding_text(r["text"] or "", r["keyFindings"] or [], r["topics"] or []) for r in rows]
    vecs = _vectors(db, embedder, texts, stats)
    payload = [{"id": r["id"], "hash": h, "embedding": v} for r, (h, v) in zip(rows, vecs, strict=True)]
    db.write("embeddings/set_summary_embeddings", rows=payload, model=embedder.model)
    return stats
