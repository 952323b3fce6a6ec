"""``graphmem facts`` (add, list, search, forget, expire, audits), ``graphmem settings``
(get, set, unset) and ``graphmem retrievals`` (list, show)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import InvalidInput, SessionNotFound, quoted
from ..facts import (
    FACT_TYPES,
    Fact,
    FactScope,
    delete_expired_facts,
    facts_about,
    forget,
    forget_audits,
    get_retrieval,
    get_tuning,
    list_facts,
    list_retrievals,
    search_facts,
    set_tuning,
    tuning_items,
    unset_tuning,
)
from ..facts.tuning import TUNING_HELP
from .common import absolute, add_json_flag, emit_json, open_memory, print_table, relative, working_dir

__all__ = ["register"]


def _scope_arg(p: argparse.ArgumentParser, *, many: bool) -> None:
    help_text = (
        "'global', 'project' (the current directory's git root), 'project:<path>' or 'session:<id>'"
        + ("; repeatable (default: global + the current project)" if many else " (default: global)")
    )
    p.add_argument("--scope", action="append" if many else "store", default=None, help=help_text)
    if many:
        p.add_argument("--all", action="store_true", help="every scope")


def _scope(value: str) -> FactScope:
    if value == "project":
        from ..paths import find_project_root, normalize_cwd

        return FactScope.project(find_project_root(normalize_cwd(working_dir())))
    if value.startswith("project:") and value != "project:":
        return FactScope.project(absolute(value.partition(":")[2]))
    return FactScope.parse(value)


def _scopes(args: argparse.Namespace) -> list[FactScope] | None:
    if getattr(args, "all", False):
        return None
    values = args.scope or ["global", "project"]
    return [_scope(v) for v in values]


def register(sub: Any) -> None:
    p = sub.add_parser("facts", help="typed facts: add, list, search, forget, expire")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")

    add = verbs.add_parser("add", help="remember a fact (updates a similar fact of the same scope)")
    add.add_argument("content")
    add.add_argument("--subject", action="append", default=[], help="a subject tag (repeatable)")
    add.add_argument("--type", choices=list(FACT_TYPES), default=None)
    add.add_argument("--importance", type=float, default=None)
    add.add_argument("--ttl", default=None, help="e.g. 1h, 7d, 30d, never")
    _scope_arg(add, many=False)
    add_json_flag(add)
    add.set_defaults(handler=_add)

    ls = verbs.add_parser("list", help="current facts, newest (or most important) first")
    _scope_arg(ls, many=True)
    ls.add_argument("--type", choices=list(FACT_TYPES), default=None)
    ls.add_argument("--subject", default=None, help="everything about this subject")
    ls.add_argument("--min-importance", type=float, default=None)
    ls.add_argument("--order", choices=["recent", "importance", "accessed"], default="recent")
    ls.add_argument("--limit", type=int, default=50)
    add_json_flag(ls)
    ls.set_defaults(handler=_list)

    se = verbs.add_parser("search", help="semantic search (top 10, no threshold)")
    se.add_argument("query")
    _scope_arg(se, many=True)
    se.add_argument("--limit", type=int, default=None)
    se.add_argument("--type", choices=list(FACT_TYPES), default=None)
    add_json_flag(se)
    se.set_defaults(handler=_search)

    fo = verbs.add_parser("forget", help="forget a fact by id (or a unique id prefix, 6+ characters), or every fact "
                                         "about a topic (audited, with each fact's whole history)")
    fo.add_argument("topic_or_id")
    _scope_arg(fo, many=True)
    fo.add_argument("--reason", default=None)
    fo.add_argument("--min-score", type=float, default=None, help="cosine from which a fact matches (default 0.5)")
    fo.add_argument("--dry-run", action="store_true", help="show what would be forgotten")
    add_json_flag(fo)
    fo.set_defaults(handler=_forget)

    ex = verbs.add_parser("expire", help="delete the facts whose TTL has passed (reads already hide them)")
    ex.set_defaults(handler=_expire)

    au = verbs.add_parser("audits", help="forget audit records (when, why, which ids; never the text)")
    au.add_argument("--limit", type=int, default=20)
    add_json_flag(au)
    au.set_defaults(handler=_audits)

    st = sub.add_parser("settings", help="fact-memory settings stored in the database")
    st.set_defaults(group_parser=st)
    sverbs = st.add_subparsers(dest="verb", metavar="<verb>")
    g = sverbs.add_parser("get", help="every setting (or one) with its value")
    g.add_argument("key", nargs="?", default=None)
    add_json_flag(g)
    g.set_defaults(handler=_settings_get)
    s = sverbs.add_parser("set", help="set a setting: " + ", ".join(TUNING_HELP))
    s.add_argument("key")
    s.add_argument("value")
    s.set_defaults(handler=_settings_set)
    u = sverbs.add_parser("unset", help="back to the default")
    u.add_argument("key")
    u.set_defaults(handler=_settings_unset)

    r = sub.add_parser("retrievals", help="pre-call injection logs")
    r.set_defaults(group_parser=r)
    rverbs = r.add_subparsers(dest="verb", metavar="<verb>")
    rl = rverbs.add_parser("list", help="the latest injections, newest first")
    rl.add_argument("--session", default=None)
    rl.add_argument("--limit", type=int, default=20)
    add_json_flag(rl)
    rl.set_defaults(handler=_retrievals_list)
    rs = rverbs.add_parser("show", help="one injection with its facts and scores")
    rs.add_argument("retrieval_id")
    add_json_flag(rs)
    rs.set_defaults(handler=_retrievals_show)


def _print_facts(facts: list[Fact], *, score: bool = False) -> None:
    if not facts:
        print("no facts", file=sys.stderr)
        return
    headers = ["id", "type", "imp", *(["score"] if score else []), "scope", "subjects", "created", "content"]
    print_table(
        headers,
        [
            (f.id[:8], f.type, f.importance, *([f.score] if score else []), f.scope_key, ",".join(f.subjects),
             relative(f.created_at), f.content)
            for f in facts
        ],
    )


def _add(args: argparse.Namespace) -> int:
    if not args.content.strip():
        raise InvalidInput("the fact is empty")
    scope = _scope(args.scope or "global")
    with open_memory() as mem:
        if scope.kind == "session":
            try:
                mem.get_session(scope.value)
            except SessionNotFound:
                raise InvalidInput(f"--scope {args.scope}: no session with id {quoted(scope.value)}") from None
        res = mem.remember(args.content, args.subject or (), type=args.type, importance=args.importance,
                           ttl=args.ttl, scope=scope, source="cli")
    if args.json:
        emit_json(res.to_dict())
    else:
        print(f"{res.action} fact {res.fact.id} ({res.fact.type}, {res.fact.scope_key})"
              + (f": {res.reason}" if res.previous else ""))
        for old in res.retired:
            print(f"  retired {old.id}: {old.content}")
    return 0


def _list(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        if args.subject and args.order == "recent" and not (args.type or args.min_importance):
            facts = facts_about(mem.db, args.subject, scopes=_scopes(args), limit=args.limit)
        else:
            facts = list_facts(mem.db, scopes=_scopes(args), type=args.type, subject=args.subject,
                               min_importance=args.min_importance, order=args.order, limit=args.limit)
    if args.json:
        emit_json([f.to_dict() for f in facts])
    else:
        _print_facts(facts)
    return 0


def _search(args: argparse.Namespace) -> int:
    if not args.query.strip():
        raise InvalidInput("the query is empty: give some words to look for")
    with open_memory() as mem:
        facts = search_facts(mem.db, args.query, embedder=mem.embedder, deferred=mem.deferred, scopes=_scopes(args), limit=args.limit,
                             types=[args.type] if args.type else None)
    facts = [f for f in facts if f.score is None or f.score > 0]  # a fact that does not match is not a result
    if args.json:
        emit_json([f.to_dict() for f in facts])
    else:
        _print_facts(facts, score=True)
    return 0


def _forget(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        res = forget(mem.db, args.topic_or_id, embedder=mem.embedder, deferred=mem.deferred, scopes=None if args.scope is None and not args.all else _scopes(args),
                     reason=args.reason, min_score=args.min_score, dry_run=args.dry_run)
    if args.json:
        emit_json(res.to_dict())
        return 0
    n = len(res.removed)
    verb = "would forget" if res.dry_run else "forgot"
    older = [v for v in res.versions if not v.get("current")]
    print(f"{verb} {n} fact{'s' if n != 1 else ''}"
          + (f" and {len(older)} earlier version{'s' if len(older) != 1 else ''}" if older else "")
          + (f" (audit {res.audit_id})" if res.audit_id else ""))
    for f in res.removed:
        print(f"  {f.id}  {f.type}  {f.scope_key}  {f.content[:100]}")
    if older:
        print("versions (each fact's whole history goes with it):")
        for v in res.versions:
            print(f"  {v['id']}  {'current' if v.get('current') else 'earlier'}  {str(v.get('content') or '')[:100]}")
    return 0


def _expire(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        n = delete_expired_facts(mem.db)
    print(f"deleted {n} expired fact{'s' if n != 1 else ''}")
    return 0


def _audits(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        rows = forget_audits(mem.db, args.limit)
    if args.json:
        emit_json(rows)
    else:
        print_table(["audit", "when", "method", "count", "reason", "scopes", "versions"],
                    [(a["id"][:8], relative(a.get("at")), a.get("method"), a.get("count"), a.get("reason"),
                      ",".join(sorted(set(a.get("scopeKeys") or []))),
                      ",".join(v[:8] for v in a.get("versionIds") or a.get("factIds") or []))
                     for a in rows], max_width=120)
    return 0


def _settings_get(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        items = tuning_items(get_tuning(mem.db, fresh=True))
    if args.key is not None:
        if args.key not in items:
            from ..errors import InvalidInput

            raise InvalidInput(f"unknown setting {quoted(args.key)}; one of {', '.join(items)}")
        items = {args.key: items[args.key]}
    if args.json:
        emit_json(items)
    else:
        print_table(["key", "value", "meaning"], [(k, v, TUNING_HELP[k]) for k, v in items.items()], max_width=80)
    return 0


def _settings_set(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        value = set_tuning(mem.db, args.key, args.value)
    print(f"{args.key} = {value}")
    return 0


def _settings_unset(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        unset_tuning(mem.db, args.key)
        value = tuning_items(get_tuning(mem.db, fresh=True))[args.key]
    print(f"{args.key} = {value} (default)")
    return 0


def _retrievals_list(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        rows = list_retrievals(mem.db, session_id=args.session, limit=args.limit)
    if args.json:
        emit_json(rows)
        return 0
    if not rows:
        print("no injections logged", file=sys.stderr)
        return 0
    print_table(
        ["retrieval", "when", "session", "turn", "items", "chars", "ms", "message"],
        [(r["id"][:8], relative(r.get("at")), (r.get("sessionId") or "")[:8], r.get("turnIndex"), r.get("itemCount"),
          r.get("chars"), r.get("latencyMs"), r.get("messagePreview")) for r in rows],
    )
    return 0


def _retrievals_show(args: argparse.Namespace) -> int:
    with open_memory() as mem:
        item = get_retrieval(mem.db, args.retrieval_id)
    if item is None:
        from ..errors import NotFound

        raise NotFound(f"retrieval not found: {quoted(args.retrieval_id)}")
    if args.json:
        emit_json(item)
        return 0
    print(f"retrieval {item['id']}  session {item.get('sessionId')}  turn {item.get('turnIndex')}  "
          f"{item.get('itemCount')} items  {item.get('chars')} chars  {item.get('latencyMs')} ms")
    print(f"message: {item.get('messagePreview')}")
    print_table(["rank", "reason", "score", "type", "content"],
                [(i["rank"], i["reason"], i["score"], i["type"], i["content"]) for i in item["items"]])
    return 0
