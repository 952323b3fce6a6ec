"""The embedding pipeline: pending turns and summaries get vectors, off the write path.

``store_turn`` marks a turn ``embedState: 'pending'``; the worker (or a caller that asks for it
inline) calls :func:`embed_pending_turns`. Identical text is embedded once: each vector is stored
with ``embeddingHash`` (sha256 of model + text) and ``embeddingModel``, and a text whose hash is
already in the database reuses that vector instead of calling the embedder again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .db import Database
from .providers import Embedder, embedding_hash

__all__ = [
    "EMBED_TEXT_MAX_CHARS",
    "EmbedStats",
    "embed_pending_summaries",
    "embed_pending_turns",
    "summary_embedding_text",
    "turn_embedding_text",
]

EMBED_TEXT_MAX_CHARS = 8000
"""Characters of each message sent to the embedder (models truncate far earlier anyway)."""


@dataclass
class EmbedStats:
    embedded: int = 0
    reused: int = 0

    @property
    def total(self) -> int:
        return self.embedded + self.reused


def turn_embedding_text(user_message: str, assistant_message: str, tools: Sequence[str] = ()) -> str:
    """One text per turn (seed 004: user + assistant + tools in a single embedding)."""
    parts = [f"User: {user_message.strip()}", f"Assistant: {assistant_message.strip()}"]
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


def embed_pending_turns(db: Database, embedder: Embedder, *, limit: int = 128) -> EmbedStats:
    """Embed up to ``limit`` pending turns; returns how many were embedded or reused from cache."""
    rows = db.read("embeddings/pending_turns", limit=limit, maxChars=EMBED_TEXT_MAX_CHARS)
    stats = EmbedStats()
    if not rows:
        return stats
    texts = [turn_embedding_text(r["userMessage"] or "", r["assistantMessage"] or "", r["tools"]) for r in rows]
    vecs = _vectors(db, embedder, texts, stats)
    payload: list[dict[str, Any]] = [
        {"id": r["id"], "hash": h, "embedding": v} for r, (h, v) in zip(rows, vecs, strict=True)
    ]
    db.write("embeddings/set_turn_embeddings", rows=payload, model=embedder.model)
    return stats


def embed_pending_summaries(db: Database, embedder: Embedder, *, limit: int = 128) -> EmbedStats:
    """Embed up to ``limit`` pending summaries."""
    rows = db.read("embeddings/pending_summaries", limit=limit, maxChars=EMBED_TEXT_MAX_CHARS)
    stats = EmbedStats()
    if not rows:
        return stats
    texts = [summary_embedding_text(r["text"] or "", r["keyFindings"] or [], r["topics"] or []) for r in rows]
    vecs = _vectors(db, embedder, texts, stats)
    payload = [{"id": r["id"], "hash": h, "embedding": v} for r, (h, v) in zip(rows, vecs, strict=True)]
    db.write("embeddings/set_summary_embeddings", rows=payload, model=embedder.model)
    return stats
