"""``graphmem files history PATH``: what earlier sessions did to a file of a project."""

from __future__ import annotations

import argparse
import os
from typing import Any

from .common import add_json_flag, emit_json, open_memory, print_table

__all__ = ["register"]


def register(sub: Any) -> None:
    files = sub.add_parser("files", help="files the coding agents' tool calls touched")
    verbs = files.add_subparsers(dest="files_command", required=True)
    h = verbs.add_parser(
        "history",
        help="the tool calls that read, edited, wrote, searched or ran a file, newest first",
        description="Lists the tool calls of earlier sessions that named PATH (relative to the current "
        "directory, or absolute), with the request of their turn; then the failed calls on it and the "
        "summaries that mention it.",
    )
    h.add_argument("path", help="the file (relative to the current directory, or absolute)")
    h.add_argument("--project", default=None,
                   help="the project root (default: the git root of the current directory)")
    h.add_argument("--limit", type=int, default=20, help="at most this many tool calls (default 20)")
    add_json_flag(h)
    h.set_defaults(handler=_history)


def _history(args: argparse.Namespace) -> int:
    from ..errors import InvalidInput
    from ..paths import find_project_root, normalize_cwd

    if args.limit < 1:
        raise InvalidInput("--limit must be at least 1")
    cwd = normalize_cwd(os.getcwd())
    with open_memory() as mem:
        project = normalize_cwd(args.project) if args.project else find_project_root(
            cwd, worktree_as_project=mem.worktree_as_project)
        history = mem.file_history(project, args.path, cwd=cwd, limit=args.limit)
    if args.json:
        emit_json(history.model_dump(mode="json"))
        return 0
    print(f"{history.path} in {history.project}")
    if history.empty:
        print("no tool call of a stored session touched this file")
        return 0

    def ok(success: bool | None) -> str:
        return "failed" if success is False else ("ok" if success else "?")

    def when(t: Any) -> str:
        return t.at.isoformat(timespec="seconds") if t.at else "-"

    print_table(["when", "action", "tool", "result", "session", "turn", "request"],
                [(when(t), t.action, t.tool, ok(t.success), t.session_id, t.turn_index,
                  " ".join(t.request.split())) for t in history.touches])
    if history.failures:
        print("\nfailed calls:")
        print_table(["when", "tool", "session", "turn", "error"],
                    [(when(t), t.tool, t.session_id, t.turn_index, " ".join((t.result or "").split()))
                     for t in history.failures])
    if history.summaries:
        print("\nsummaries mentioning it:")
        print_table(["when", "level", "session", "summary"],
                    [(when(m), m.level, m.session_id, " ".join(m.text.split())) for m in history.summaries])
    return 0
