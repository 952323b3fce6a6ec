"""Notes from a Markdown vault (Obsidian's layout) as a context source: :mod:`.vault` reads the
folder, :mod:`.store` keeps the graph in line with it and searches it."""

from .store import (
    NOTE_EXCERPT_CHARS,
    NoteHit,
    NotesConfig,
    NoteSync,
    context_source,
    embed_pending_notes,
    list_notes,
    notes_for_context,
    search_notes,
    sync_notes,
    vault_key,
)
from .vault import VaultNote, parse_note, scan_vault

__all__ = [
    "NOTE_EXCERPT_CHARS",
    "NoteHit",
    "NoteSync",
    "NotesConfig",
    "VaultNote",
    "context_source",
    "embed_pending_notes",
    "list_notes",
    "notes_for_context",
    "parse_note",
    "scan_vault",
    "search_notes",
    "sync_notes",
    "vault_key",
]
