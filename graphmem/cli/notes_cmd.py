"""``graphmem notes sync|list|search``: notes of a Markdown vault as a context source."""

from __future__ import annotations

import argparse
from typing import Any

from .common import add_json_flag, emit_json, open_memory, print_table

__all__ = ["register"]


def register(sub: Any) -> None:
    notes = sub.add_parser("notes", help="notes of a Markdown vault (GRAPHMEM_NOTES_VAULT) as a context source")
    verbs = notes.add_subparsers(dest="notes_command", required=True)
    s = verbs.add_parser("sync", help="bring the notes in memory in line with the vault (changed files only)",
                         description="Reads GRAPHMEM_NOTES_VAULT: the fixed notes (GRAPHMEM_NOTES_FIXED) and the "
                         "notes tagged GRAPHMEM_NOTES_TAG (default memory) are stored; notes that left the vault "
                         "or lost the tag are removed. The worker embeds them.")
    add_json_flag(s)
    s.set_defaults(handler=_sync)
    ls = verbs.add_parser("list", help="the notes in memory, fixed ones first")
    ls.add_argument("--fixed", action="store_true", help="only the fixed notes")
    ls.add_argument("--limit", type=int, default=100, help="at most this many (default 100)")
    add_json_flag(ls)
    ls.set_defaults(handler=_list)
    q = verbs.add_parser("search", help="the notes most relevant to a query (meaning and words)")
    q.add_argument("query")
    q.add_argument("-k", type=int, default=5, help="how many (default 5)")
    add_json_flag(q)
    q.set_defaults(handler=_search)


def _sync(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        result = mem.sync_notes()
    if args.json:
        emit_json(result.to_dict())
        return 0
    for warning in result.warnings:
        print(f"warning: {warning}")
    print(f"notes: {result.added} added, {result.updated} updated, {result.removed} removed, "
          f"{result.unchanged} unchanged")
    return 0


def _list(args: argparse.Namespace) -> int:
    from ..errors import InvalidInput

    if args.limit < 1:
        raise InvalidInput("--limit must be at least 1")
    with open_memory() as mem:
        notes = mem.list_notes(fixed_only=args.fixed, limit=args.limit)
    if args.json:
        emit_json([n.to_dict() for n in notes])
        return 0
    if not notes:
        print("no notes in memory (graphmem notes sync reads the vault)")
        return 0
    print_table(["path", "title", "tags", "fixed", "excerpt"],
                [(n.path, n.title, ", ".join(n.tags), "yes" if n.fixed else "", " ".join(n.text.split())[:80])
                 for n in notes])
    return 0


def _search(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        hits = mem.search_notes(args.query, k=args.k)
    if args.json:
        emit_json([n.to_dict() for n in hits])
        return 0
    if not hits:
        print("no notes found")
        return 0
    print_table(["score", "path", "title", "excerpt"],
                [(f"{n.score:.4f}" if n.score is not None else "", n.path, n.title, " ".join(n.text.split())[:80])
                 for n in hits])
    return 0
