"""``graphmem sessions`` (list, show, delete) and ``graphmem turns`` (list, add)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..errors import InvalidInput, quoted
from ..models import SessionDetail, Turn
from .common import absolute, add_json_flag, emit_json, open_memory, print_table, relative, working_dir

PATH_MAX = 4096
"""A directory longer than any the system allows is cut when echoed back."""

__all__ = ["print_session", "register"]


def register(sub: Any) -> None:
    p = sub.add_parser("sessions", help="sessions of a directory (default: the current one)")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")

    ls = verbs.add_parser("list", help="sessions of a directory, newest first")
    ls.add_argument("--cwd", default=None, help="directory (default: current)")
    ls.add_argument("--project", action="store_true", help="all sessions of the directory's project (git root)")
    ls.add_argument("--limit", type=int, default=50)
    ls.add_argument("--ids", action="store_true", help="print only the session ids, newest first, one per line")
    add_json_flag(ls)
    ls.set_defaults(handler=_list)

    show = verbs.add_parser("show", help="one session's turns and tool calls")
    show.add_argument("session_id")
    show.add_argument("--full", action="store_true", help="do not shorten long messages")
    add_json_flag(show)
    show.set_defaults(handler=_show)

    delete = verbs.add_parser("delete", help="delete a session and everything under it")
    delete.add_argument("session_id")
    delete.set_defaults(handler=_delete)

    t = sub.add_parser("turns", help="turns of a session")
    t.set_defaults(group_parser=t)
    tverbs = t.add_subparsers(dest="verb", metavar="<verb>")
    tl = tverbs.add_parser("list", help="the latest turns of a session")
    tl.add_argument("session_id")
    tl.add_argument("--limit", type=int, default=20)
    add_json_flag(tl)
    tl.set_defaults(handler=_turns_list)
    ta = tverbs.add_parser("add", help="append a turn to a session (creating the session for --cwd if needed)")
    ta.add_argument("--session", default=None, help="session id (default: a new session)")
    ta.add_argument("--cwd", default=None)
    ta.add_argument("--user", required=True, help="the user message")
    ta.add_argument("--assistant", required=True, help="the assistant message")
    add_json_flag(ta)
    ta.set_defaults(handler=_turns_add)


def _list(args: argparse.Namespace) -> int:
    cwd = args.cwd or working_dir()
    where = absolute(cwd)
    with open_memory() as mem:
        if args.project:
            from ..paths import find_project_root, normalize_cwd

            rows = mem.sessions_for_project(find_project_root(normalize_cwd(where)), limit=args.limit)
        else:
            rows = mem.sessions_for(where, limit=args.limit)
    if args.json:
        emit_json(rows)
        return 0
    if args.ids:
        for s in rows:
            print(s.id)
        return 0
    if not rows:
        print(f"no sessions for {cwd if len(cwd) <= PATH_MAX else quoted(cwd)}", file=sys.stderr)
        return 0
    print_table(
        ["session", "agent", "turns", "last activity", "last message"],
        [(s.id, s.agent, s.turn_count, relative(s.last_activity_at), s.last_message) for s in rows],
    )
    return 0


def _short(text: str, full: bool, limit: int = 400) -> str:
    return text if full or len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"


def print_turn(t: Turn, *, full: bool = False) -> None:
    print(f"--- turn {t.index}  {t.timestamp:%Y-%m-%d %H:%M:%S}  ({t.char_count} chars)")
    print(f"User: {_short(t.user_message, full)}")
    for c in t.tool_calls:
        ok = {True: "ok", False: "FAILED", None: "?"}[c.success]
        dur = f" {c.duration_ms} ms" if c.duration_ms is not None else ""
        print(f"  tool {c.order}: {c.name} {_short(c.args, full, 120)} -> {ok}{dur}")
    print(f"Assistant: {_short(t.assistant_message, full)}")


def print_session(detail: SessionDetail, *, full: bool = False) -> None:
    print(f"session {detail.id}  agent={detail.agent or '-'}  turns={detail.turn_count}")
    print(f"cwd {detail.cwd}  project {detail.project_path}")
    for t in detail.turns:
        print_turn(t, full=full)


def _show(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        detail = mem.load_session(args.session_id)
    if args.json:
        emit_json(detail)
    else:
        print_session(detail, full=args.full)
    return 0


def _delete(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        n = mem.delete_session(args.session_id)
    print(f"deleted session {args.session_id} ({n} turns)")
    return 0


def _turns_list(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        turns = mem.recent_turns(args.session_id, max_chars=10**12, limit=args.limit)
    if args.json:
        emit_json(turns)
    else:
        for t in turns:
            print_turn(t)
    return 0


def _turns_add(args: argparse.Namespace) -> int:
    if not args.user.strip() and not args.assistant.strip():
        raise InvalidInput("--user and --assistant are both empty: a turn needs at least one message")
    with open_memory() as mem:
        sid = args.session or mem.create_session(args.cwd or os.getcwd(), agent="cli").id
        turn = mem.store_turn(sid, args.user, args.assistant)
    if args.json:
        emit_json(turn)
    else:
        print(f"stored turn {turn.index} in session {sid}")
    return 0
