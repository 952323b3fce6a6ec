"""``graphmem digest``: the periodic digest of the observed rooms' live messages into facts (status,
run now, the latest digests with what each stored)."""

from __future__ import annotations

import argparse
from typing import Any

from ..chat import DigestConfig, recent_digests
from ..config import Settings
from ..errors import InvalidInput
from ..facts import make_fact_extractor
from .common import add_json_flag, emit_json, open_memory, print_table, relative

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser("digest", help="chat rooms' live messages digested into facts by an LLM, at fixed hours")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")

    st = verbs.add_parser("status", help="the last digest, the live messages waiting, whether one is due and why")
    st.add_argument("--room", default=None, help="one room (default: every room)")
    add_json_flag(st)
    st.set_defaults(handler=_status)

    run = verbs.add_parser("run", help="digest now (every room with waiting messages, or --room)")
    run.add_argument("--room", action="append", default=None, help="only this room (repeatable)")
    add_json_flag(run)
    run.set_defaults(handler=_run)

    ls = verbs.add_parser("list", help="the latest digests and the facts each stored")
    ls.add_argument("--room", default=None)
    ls.add_argument("--limit", type=int, default=20)
    add_json_flag(ls)
    ls.set_defaults(handler=_list)


def _digester(mem: Any) -> Any:
    settings = Settings.load()
    return mem.digester(make_fact_extractor(settings), DigestConfig.from_settings(settings))


def _status(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        st = _digester(mem).status(args.room)
    if args.json:
        emit_json(st.to_dict())
        return 0
    print(st.reason)
    print_table(["last digest", "digests", "messages waiting", "unfinished", "next digest hour"],
                [(relative(st.last) if st.last else "never", st.digests, st.waiting, st.unfinished,
                  st.next_at.isoformat(timespec="minutes"))])
    return 0


def _run(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        done = _digester(mem).run(args.room)
    rows = [{k: v for k, v in d.items() if k != "results"} for d in done.digests]
    if args.json:
        emit_json({"digests": rows, "facts": done.facts, "cleared": done.cleared})
        return 0
    if not rows:
        print("nothing to digest: no live message waits")
        return 0
    for d in rows:
        print(f"{d['room']}: {d['messages']} messages read, {len(d['facts'])} facts stored, {d['cleared']} cleared")
        for fact in d["facts"]:
            print(f"  - {fact}")
    return 0


def _list(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= 500:
        raise InvalidInput("--limit must be between 1 and 500")
    with open_memory() as mem:
        rows = recent_digests(mem.db, room=args.room, limit=args.limit)
    if args.json:
        emit_json(rows)
        return 0
    print_table(["started", "room", "state", "messages", "facts"],
                [(relative(r["startedAt"]), r["room"], r["state"], r["messages"], len(r["facts"])) for r in rows])
    return 0
