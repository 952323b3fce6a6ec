"""``graphmem chat``: chat agents' memory from the command line (observe a message, show a room's
live messages and the observed rooms, list an agent's conversations, print the tool schemas, call a
tool)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any

from ..chat import ChatTools
from ..errors import InvalidInput, quoted
from .common import add_json_flag, emit_json, open_memory, print_table, relative

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser("chat", help="chat agents: live messages, conversations, memory tools")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")

    ob = verbs.add_parser("observe", help="store one message of an observed room (embedded later)")
    ob.add_argument("channel")
    ob.add_argument("author")
    ob.add_argument("text")
    ob.add_argument("--at", default=None, help="ISO time with offset (default: now)")
    ob.set_defaults(handler=_observe)

    lv = verbs.add_parser("live", help="a room's latest live messages (or, with --query, the most relevant)")
    lv.add_argument("channel")
    lv.add_argument("--query", default=None, help="rank by relevance to this question, as injected")
    lv.add_argument("--limit", type=int, default=20)
    add_json_flag(lv)
    lv.set_defaults(handler=_live)

    ro = verbs.add_parser("rooms", help="observed rooms with their number of live messages")
    add_json_flag(ro)
    ro.set_defaults(handler=_rooms)

    co = verbs.add_parser("conversations", help="an agent's conversations (channel, user, sessions)")
    co.add_argument("agent")
    co.add_argument("--channel", default=None)
    co.add_argument("--user", default=None)
    add_json_flag(co)
    co.set_defaults(handler=_conversations)

    sc = verbs.add_parser("schemas", help="print the memory tool schemas")
    sc.add_argument("--format", choices=["openai", "anthropic"], default="openai")
    sc.set_defaults(handler=_schemas)

    se = verbs.add_parser("seed-self", help="store what an agent knows about itself from a Markdown or JSON file")
    se.add_argument("agent")
    se.add_argument("file", help="headings = categories (context, capability, ...), one statement per bullet")
    se.set_defaults(handler=_seed_self)

    tl = verbs.add_parser("tool", help="call one memory tool of an agent, e.g. search_memories '{\"query\": \"x\"}'")
    tl.add_argument("agent")
    tl.add_argument("name")
    tl.add_argument("arguments", nargs="?", default="{}", help="JSON object")
    tl.set_defaults(handler=_tool)


def _observe(args: argparse.Namespace) -> int:
    try:
        at = datetime.fromisoformat(args.at) if args.at else None
    except ValueError as e:
        raise InvalidInput(f"--at takes an ISO time with its offset such as 2026-03-14T09:30:00+01:00, "
                           f"not {quoted(args.at)} ({e})") from None
    with open_memory() as mem:
        print(mem.observe(args.channel, args.author, args.text, at))
    return 0


def _live(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        if args.query:
            ctx = mem.live_context(args.query, rooms=[args.channel], limit=min(args.limit, 100))
            if args.json:
                emit_json([m.to_dict() for m in ctx.messages])
            else:
                print(ctx.text or ctx.warning or "no live messages", file=sys.stdout if ctx.text else sys.stderr)
            return 0
        messages = mem.live_messages(args.channel, limit=args.limit)
    if args.json:
        emit_json([m.to_dict() for m in messages])
    elif not messages:
        print("no live messages", file=sys.stderr)
    else:
        print_table(["at", "author", "text"], [(relative(m.at), m.author, m.text) for m in messages])
    return 0


def _rooms(args: argparse.Namespace) -> int:
    from ..chat import live_rooms

    with open_memory() as mem:
        rows = live_rooms(mem.db)
    if args.json:
        emit_json(rows)
    else:
        print_table(["room", "messages", "latest"], [(r["room"], r["messages"], relative(r["latest"])) for r in rows])
    return 0


def _conversations(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        rows = mem.conversations(args.agent, channel=args.channel, user=args.user)
    if args.json:
        emit_json([{"key": c.key, "channel": c.channel, "user": c.user, "sessions": c.sessions,
                    "created_at": c.created_at.isoformat(), "last_opened_at": c.last_opened_at.isoformat()}
                   for c in rows])
    else:
        print_table(["channel", "user", "sessions", "last"],
                    [(c.channel, c.user, c.sessions, relative(c.last_opened_at)) for c in rows])
    return 0


def _schemas(args: argparse.Namespace) -> int:
    print(json.dumps(ChatTools.openai() if args.format == "openai" else ChatTools.anthropic(), indent=2,
                     ensure_ascii=False))
    return 0


def _tool(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        result = mem.chat_tools(args.agent).call(args.name, args.arguments)
    emit_json(result)
    return 0


def _seed_self(args: argparse.Namespace) -> int:
    from ..chat import seed_self

    with open_memory() as mem:
        results = seed_self(mem.chat_tools(args.agent), args.file)
    print(f"{len(results)} self memories seeded for {args.agent}")
    return 0
