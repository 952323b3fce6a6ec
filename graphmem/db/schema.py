"""Schema migrations: ``cypher/schema/NNNN_name.cypher``, applied in order, recorded in the database.

Every file is one idempotent ``... IF NOT EXISTS`` statement, so applying the whole list again is
harmless; the highest number applied is stored on ``(:GraphMemMeta {key: 'schema'})``. A database
whose recorded version is higher than this code knows is refused (it was built by a newer graphmem).

Feature detection: ``NNNN_name@search.cypher`` replaces ``NNNN_name.cypher`` on servers with the
Cypher 25 ``SEARCH`` clause (2026.01+), where vector indexes declare filter properties so scoped
searches filter inside the index.

The vector indexes take their dimension from the configured embedder; the model and dimension
are recorded on ``(:GraphMemMeta {key: 'embedding'})`` and a different one is an
:class:`EmbeddingMismatch` until ``graphmem reindex`` re-embeds everything.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from .. import cypher
from ..errors import EmbeddingMismatch, SchemaError
from .client import Database

log = logging.getLogger(__name__)

__all__ = [
    "SCHEMA_VERSION", "Migration", "apply_schema", "join_turns", "migrations", "recorded_embedding", "schema_status",
]


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    """The query name, e.g. ``schema/0023_turn_embedding@search``."""


def _all_schema_files() -> dict[int, dict[str, str]]:
    by_number: dict[int, dict[str, str]] = {}
    for name in cypher.all_names():
        if not name.startswith("schema/"):
            continue
        m = re.fullmatch(r"schema/(\d{4})_[a-z0-9_]+(?:@([a-z0-9]+))?", name)
        if m is None:
            raise SchemaError(f"badly named schema file: cypher/{name}.cypher")
        by_number.setdefault(int(m.group(1)), {})[m.group(2) or ""] = name
    return by_number


SCHEMA_VERSION = max(_all_schema_files())
"""The schema version this code creates."""


def migrations(features: set[str]) -> list[Migration]:
    """The migrations to run on a server with ``features`` (e.g. ``{"search"}``), in order."""
    out: list[Migration] = []
    for number, variants in sorted(_all_schema_files().items()):
        chosen = next((variants[f] for f in sorted(features) if f in variants), variants.get(""))
        if chosen is None:
            raise SchemaError(f"schema step {number:04d} has no variant for this server")
        out.append(Migration(number, chosen))
    return out


def _features(db: Database) -> set[str]:
    return {"search"} if db.server_info().vector_search_clause else set()


def _quantized(options: dict[str, Any] | None) -> bool:
    """Whether a vector index's options say it is quantized (``vector.quantization.type`` on
    2026.x, ``vector.quantization.enabled`` on 5.x; both default to quantized)."""
    cfg = (options or {}).get("indexConfig") or {}
    kind = cfg.get("vector.quantization.type")
    if kind is not None:
        return str(kind).upper() != "NONE"
    return bool(cfg.get("vector.quantization.enabled", True))


def _drop_quantized_fact_index(db: Database) -> None:
    """Schema 0089: the fact vector index is unquantized. A database built before it has the
    default (quantized) one: drop it, so the migrations build it again from the stored vectors
    (apply_schema waits for that; a one-time rebuild, about a minute per 100k facts here, during which
    other processes' fact vector searches fail and are reported as such)."""
    for index in db.read("meta/show_indexes"):
        if index["name"] == "fact_embedding" and index["type"] == "VECTOR" and _quantized(index["options"]):
            log.info("rebuilding the fact vector index without quantization (schema 0089)")
            db.write("facts/reindex_drop_index")
            return


def schema_status(db: Database) -> dict[str, Any]:
    """The recorded schema version and embedding, plus what this code expects."""
    schema = db.read("meta/get", key="schema")[0]["meta"] or {}
    model, dimensions = recorded_embedding(db)
    indexes = db.read("meta/show_indexes")
    not_online = sorted(f"{i['name']} ({i['state']})" for i in indexes if i["state"] != "ONLINE")
    return {
        "indexes": len(indexes),
        "indexes_not_online": not_online,
        "version": schema.get("version"),
        "expected": SCHEMA_VERSION,
        "server": db.server_info().version,
        "embedding_model": model,
        "embedding_dimensions": dimensions,
    }


def recorded_embedding(db: Database) -> tuple[str | None, int | None]:
    """The embedding model and dimension the database records (``None``s before any)."""
    emb = db.read("meta/get", key="embedding")[0]["meta"] or {}
    return emb.get("model"), emb.get("dimensions")


def check_embedding(recorded_model: str | None, recorded_dimensions: int | None, *, model: str,
                    dimensions: int) -> None:
    """:class:`EmbeddingMismatch` when the database records another embedding model or dimension than
    ``model`` / ``dimensions`` (nothing recorded yet: fine)."""
    if not recorded_model and not recorded_dimensions:
        return
    if recorded_model != model or int(recorded_dimensions or 0) != dimensions:
        raise EmbeddingMismatch(
            f"the database is indexed with {recorded_model} ({recorded_dimensions}-d) but the configured "
            f"embedder is {model} ({dimensions}-d): run `graphmem reindex` to re-embed everything, or "
            "configure the original embedder"
        )


def apply_schema(db: Database, *, dimensions: int, model: str, long_turn_chars: int, await_seconds: int = 300) -> int:
    """Create every constraint and index (idempotent) and record the version; return it. Embedded
    turns that have no joined document yet (written before ``turn_search`` existed) get it
    (:func:`join_turns`; ``long_turn_chars`` tells the long ones, 0 = none is).

    Raises :class:`EmbeddingMismatch` when the database was indexed with another model or
    dimension, and :class:`SchemaError` when it was built by a newer graphmem.
    """
    if dimensions <= 0:
        raise SchemaError(f"invalid embedding dimension {dimensions}")
    # The first migration creates the meta constraint; reading meta before it exists is fine.
    current = db.read("meta/get", key="schema")[0]["meta"] or {}
    if int(current.get("version") or 0) > SCHEMA_VERSION:
        raise SchemaError(
            f"the database schema is version {current['version']}, newer than this graphmem ({SCHEMA_VERSION}); "
            "upgrade graphmem"
        )
    emb = db.read("meta/get", key="embedding")[0]["meta"] or {}
    check_embedding(emb.get("model"), emb.get("dimensions"), model=model, dimensions=dimensions)
    if int(current.get("version") or 0) > 0:
        _drop_quantized_fact_index(db)
    for m in migrations(_features(db)):
        needed = cypher.params(m.name)
        args: dict[str, Any] = {"dimensions": dimensions} if "dimensions" in needed else {}
        db.write(m.name, **args)
    join_turns(db, long_turn_chars)
    db.write("meta/set", key="schema", props={"version": SCHEMA_VERSION})
    if not emb:
        db.write("meta/set", key="embedding", props={"model": model, "dimensions": dimensions})
    db.write("meta/await_indexes", timeoutSeconds=await_seconds)
    return SCHEMA_VERSION


def join_turns(db: Database, long_turn_chars: int, *, batch: int = 5000) -> int:
    """Give the embedded turns that have no joined document (request and reply as one, index
    ``turn_search``: ``turnText`` for a turn longer than ``long_turn_chars``, 0 = none is,
    ``shortTurnText`` for any other; stores embedded before it existed) one, in batches, without
    embedding anything again; returns how many. The embedding pass writes it for every turn it
    embeds."""
    done = 0
    while True:
        n = int(db.write("embeddings/join_turns", longTurnChars=long_turn_chars, batch=batch)[0]["joined"])
        done += n
        if n < batch:
            return done
