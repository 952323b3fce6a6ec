"""Notes of a Markdown vault as a context source, in the graph.

``(:Note {key, vault, path, name, title, text, tags, links, fixed, mtime, createdAt, updatedAt,
embedState, embedding})``, ``(:Note)-[:LINKS_TO]->(:Note)`` for the ``[[wiki links]]`` between notes
in memory. :func:`sync_notes` brings the graph in line with the vault incrementally: a note whose
file's modification time is unchanged is not written again, a note that left the vault (or lost
its tag) is removed. The worker embeds new and changed notes (:func:`embed_pending_notes`), off
the sync. :func:`search_notes` fuses the vector and full-text rankings (RRF); :func:`notes_for_context`
gives ``build_context`` the fixed notes and the notes most relevant to the message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..arguments import count
from ..config import Settings
from ..db import Database
from ..db.params import vector_param
from ..db.rows import native_row
from ..embedding.base import Embedder, query_vector
from ..embedding.calibration import cosine_for
from ..errors import ConfigError, InvalidInput
from ..models import utcnow
from ..retrieval.fusion import rrf
from ..retrieval.lucene import build_query
from .rest import RestVault, scan_rest
from .vault import VaultNote, scan_vault

__all__ = ["NOTE_EXCERPT_CHARS", "NOTE_MIN_COSINE", "NoteHit", "NoteSync", "NotesConfig", "context_source",
           "embed_pending_notes", "list_notes", "notes_for_context", "search_notes", "sync_notes", "vault_key"]

NOTE_EXCERPT_CHARS = 500
"""Characters of each note that go into the context block."""
_EMBED_CHARS = 4000
_BATCH = 200


@dataclass(frozen=True)
class NotesConfig:
    """Where the notes come from: the vault folder (or ``api``, the vault served by Obsidian's Local
    REST API plugin), the tag that puts a note into memory, and the fixed notes (paths in the vault)
    that every context carries."""

    vault: Path
    tag: str = "memory"
    api: RestVault | None = None
    """Read the vault through the plugin instead of the folder (``vault`` is then only shown)."""
    fixed: tuple[str, ...] = ()
    context_hits: int = 3
    """Notes most relevant to the message added to the context (besides the fixed ones)."""

    @property
    def key(self) -> str:
        return vault_key(self.api.url if self.api is not None else self.vault)

    def scan(self) -> list[VaultNote]:
        """The vault's notes that go into memory; :class:`OSError` when the vault cannot be read."""
        if self.api is not None:
            return scan_rest(self.api, tag=self.tag, fixed=self.fixed)
        return scan_vault(self.vault, tag=self.tag, fixed=self.fixed)

    def unavailable(self) -> str | None:
        """Why the vault cannot be read now (None: it can): the folder is gone or the API does not answer."""
        if self.api is not None:
            try:
                self.api.check()
            except OSError as e:
                return str(e)
            return None
        return None if self.vault.is_dir() else f"notes vault not found: {self.vault}"

    @classmethod
    def from_settings(cls, settings: Settings) -> NotesConfig | None:
        """From ``GRAPHMEM_NOTES_VAULT`` (or ``GRAPHMEM_NOTES_API_URL`` with ``_API_KEY`` and
        ``_API_CA``), ``_TAG`` and ``_FIXED``; None when neither is set."""
        if not settings.notes_vault and not settings.notes_api_url:
            return None
        fixed = tuple(p.strip() for p in settings.notes_fixed.split(",") if p.strip())
        api = None
        if settings.notes_api_url:
            if settings.notes_api_key is None or not settings.notes_api_key.get_secret_value().strip():
                raise ConfigError("GRAPHMEM_NOTES_API_URL needs GRAPHMEM_NOTES_API_KEY (the plugin's API key)")
            api = RestVault(settings.notes_api_url, settings.notes_api_key,
                            Path(settings.notes_api_ca).expanduser() if settings.notes_api_ca else None)
        vault = Path(settings.notes_vault or settings.notes_api_url or "").expanduser()
        return cls(vault, tag=settings.notes_tag.strip() or "memory", fixed=fixed, api=api)


def vault_key(vault: Path | str) -> str:
    """The vault's identity in the graph: its absolute path, or the URL of the API serving it."""
    if isinstance(vault, str) and vault.startswith(("https://", "http://")):
        return vault.rstrip("/")
    return str(Path(vault).expanduser().resolve())


@dataclass
class NoteSync:
    """What :func:`sync_notes` did."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"added": self.added, "updated": self.updated, "removed": self.removed,
                "unchanged": self.unchanged, "warnings": self.warnings}


@dataclass(frozen=True)
class NoteHit:
    key: str
    path: str
    title: str
    text: str
    tags: tuple[str, ...] = ()
    fixed: bool = False
    score: float | None = None
    updated_at: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any], score: float | None = None) -> NoteHit:
        r = native_row(row)
        return cls(key=r["key"], path=r["path"], title=r["title"], text=r.get("text") or "",
                   tags=tuple(r.get("tags") or ()), fixed=bool(r.get("fixed")), score=score,
                   updated_at=r.get("updatedAt"))

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "path": self.path, "title": self.title, "text": self.text, "tags": list(self.tags),
                "fixed": self.fixed, "score": self.score, "updated_at": self.updated_at}


def _row(key: str, note: VaultNote) -> dict[str, Any]:
    return {"key": f"{key}\n{note.path}", "path": note.path, "name": note.name, "title": note.title,
            "text": note.text, "tags": list(note.tags), "tagText": " ".join(note.tags), "links": list(note.links),
            "fixed": note.fixed, "mtime": note.mtime}


def sync_notes(db: Database, config: NotesConfig, *, now: datetime | None = None) -> NoteSync:
    """Bring the notes of ``config.vault`` in the graph in line with the folder (module docstring).
    A missing vault changes nothing and says so in ``warnings``."""
    result = NoteSync()
    try:
        notes = config.scan()
    except OSError as e:
        result.warnings.append(f"{e}: the notes in memory are kept as they are")
        return result
    key = config.key
    stored = {r["path"]: r["mtime"] for r in db.read("notes/stored", vault=key)}
    changed = [n for n in notes if stored.get(n.path) != n.mtime]
    result.added = sum(1 for n in changed if n.path not in stored)
    result.updated = len(changed) - result.added
    result.unchanged = len(notes) - len(changed)
    gone = sorted(set(stored) - {n.path for n in notes})
    stamp = now or utcnow()
    for i in range(0, len(changed), _BATCH):
        db.write("notes/upsert", vault=key, now=stamp, rows=[_row(key, n) for n in changed[i:i + _BATCH]])
    for i in range(0, len(gone), _BATCH):
        result.removed += int(db.write("notes/remove", vault=key, paths=gone[i:i + _BATCH])[0]["removed"])
    if changed or gone:
        db.write("notes/relink", vault=key)
    return result


def embed_pending_notes(db: Database, embedder: Embedder, *, limit: int | None = None, batch: int = 64) -> int:
    """Embed new and changed notes (title and text), ``batch`` at a time; returns how many."""
    done = 0
    while limit is None or done < limit:
        size = batch if limit is None else min(batch, limit - done)
        rows = db.read("notes/pending", limit=size, maxChars=_EMBED_CHARS)
        if not rows:
            break
        vectors = embedder.embed([f"{r['title']}\n{r['text']}" for r in rows])
        db.write("notes/set_embeddings",
                 rows=[{"key": r["key"], "embedding": vector_param(v)} for r, v in zip(rows, vectors, strict=True)])
        done += len(rows)
        if len(rows) < size:
            break
    return done


def list_notes(db: Database, *, vault: Path | str | None = None, fixed_only: bool = False, limit: int = 100,
               max_chars: int = NOTE_EXCERPT_CHARS) -> list[NoteHit]:
    """The notes in memory, fixed ones first, then the latest updated."""
    limit = count(limit, "limit", maximum=10_000)
    if not isinstance(fixed_only, bool):
        raise InvalidInput(f"fixed_only must be True or False, not {type(fixed_only).__name__}")
    rows = db.read("notes/list", vault=vault_key(vault) if vault is not None else None, fixedOnly=fixed_only,
                   limit=limit, maxChars=max_chars)
    return [NoteHit.from_row(r["note"]) for r in rows]


NOTE_MIN_COSINE = 0.2
"""A note found by meaning alone (no word of the message in it) reaches the context block when its
cosine to the message is at least this, on the reference (USE) scale, mapped to the embedder in use
(:func:`~graphmem.embedding.calibration.cosine_for`). With USE, 0.2 keeps 93% of LoCoMo's question
and evidence pairs and 4% of small talk ("thanks!", "see you tomorrow") against the same turns
(``benchmarks/embedder/note-floor.json``). Without it, every message carried the nearest notes,
however far."""


@dataclass
class _Ranked:
    """The notes a query found: their rows, each side's ranking (``text``: the notes holding a word
    of the query) and the vector side's cosines."""

    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    rankings: dict[str, list[str]] = field(default_factory=dict)
    cosines: dict[str, float] = field(default_factory=dict)

    def fused(self, k: int) -> list[tuple[str, float]]:
        return [(key, score) for key, score, _ in rrf(self.rankings)[:k]]


def _rank_notes(db: Database, query: str, *, embedder: Embedder | None, key: str | None, k: int,
                vector: Sequence[float] | None, max_chars: int) -> _Ranked:
    """Both rankings of the notes for ``query`` (question words dropped from the full-text query,
    as for turns; the vector side only with an embedder or a ``vector``)."""
    fetch = max(k * 4, 20)
    found = _Ranked()
    lucene = build_query(query, fields={"title": 2.0, "text": 1.0, "tagText": 1.0}, drop_stopwords=True)
    if lucene is not None:
        rows = db.read("notes/search_text", query=lucene, vault=key, fetch=fetch, limit=fetch, maxChars=max_chars)
        found.rankings["text"] = [r["note"]["key"] for r in rows]
        found.rows.update({r["note"]["key"]: r["note"] for r in rows})
    qvec = list(vector) if vector is not None else (query_vector(embedder, query) if embedder is not None else None)
    if qvec is not None:
        rows = db.read("notes/search_vector", vector=vector_param(qvec), vault=key, fetch=fetch, limit=fetch,
                       maxChars=max_chars)
        found.rankings["vector"] = [r["note"]["key"] for r in rows]
        found.rows.update({r["note"]["key"]: r["note"] for r in rows})
        found.cosines = {r["note"]["key"]: float(r["score"]) for r in rows}
    return found


def search_notes(db: Database, query: str, *, embedder: Embedder | None = None, vault: Path | str | None = None,
                 k: int = 5, vector: Sequence[float] | None = None,
                 max_chars: int = NOTE_EXCERPT_CHARS) -> list[NoteHit]:
    """The ``k`` notes most relevant to ``query``: vector and full-text rankings fused by RRF (text
    only without an embedder); ``vector`` is the query's embedding when the caller has it."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query must be a non-empty string")
    k = count(k, "k", maximum=100)
    key = vault_key(vault) if vault is not None else None
    found = _rank_notes(db, query, embedder=embedder, key=key, k=k, vector=vector, max_chars=max_chars)
    return [NoteHit.from_row(found.rows[key_], round(score, 4)) for key_, score in found.fused(k)]


def notes_for_context(db: Database, config: NotesConfig, message: str, *, embedder: Embedder | None = None,
                      vector: Sequence[float] | None = None, model: str | None = None) -> tuple[list[NoteHit], list[str]]:
    """The notes a context block carries: the fixed notes of the vault, then up to
    ``config.context_hits`` of the notes most relevant to ``message`` that hold one of its words or
    come within :data:`NOTE_MIN_COSINE` of it (``model``: the embedder's, for that threshold's scale);
    and the warnings. When the vault cannot be read (the folder is gone, the API is down) there are
    no notes and a warning says why."""
    why = config.unavailable()
    if why is not None:
        return [], [f"{why}: the context has no notes"]
    fixed = list_notes(db, vault=config.key, fixed_only=True, limit=20)
    hits: list[NoteHit] = []
    if message.strip() and config.context_hits > 0:
        seen = {n.key for n in fixed}
        found = _rank_notes(db, message, embedder=embedder, key=config.key, k=config.context_hits + len(seen),
                            vector=vector, max_chars=NOTE_EXCERPT_CHARS)
        matched = set(found.rankings.get("text", ()))
        floor = cosine_for(model or (embedder.model if embedder is not None else None), NOTE_MIN_COSINE, "query")
        hits = [NoteHit.from_row(found.rows[key_], round(score, 4))
                for key_, score in found.fused(config.context_hits + len(seen))
                if key_ not in seen and (key_ in matched or found.cosines.get(key_, -1.0) >= floor)]
    return fixed + hits[: config.context_hits], []


def context_source(db: Database, config: NotesConfig, embedder: Embedder | None, model: str | None = None,
                   ) -> Callable[[str, Sequence[float] | None], tuple[list[dict[str, Any]], list[str]]]:
    """The notes of ``config`` for ``build_context``: called with the message and its vector
    (``model``: the embedder's name, for the cosine threshold's scale)."""
    def source(message: str, vector: Sequence[float] | None) -> tuple[list[dict[str, Any]], list[str]]:
        notes, warnings = notes_for_context(db, config, message, embedder=embedder if vector is None else None,
                                            vector=vector, model=model)
        return [n.to_dict() for n in notes], warnings
    return source
