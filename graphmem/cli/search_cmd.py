"""``graphmem search``, ``graphmem context`` and ``graphmem reindex``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import InvalidInput, quoted
from ..retrieval import ContextConfig, Scope, locale_from_env
from ..retrieval.models import SearchHit, SearchResult
from .common import Progress, absolute, emit_json, open_memory, working_dir

__all__ = ["non_empty", "register", "resolve_scope"]


def register(sub: Any) -> None:
    s = sub.add_parser("search", help="search past turns and summaries (hybrid vector + full-text)")
    s.add_argument("query", help="what to look for")
    s.add_argument("--scope", choices=["session", "directory", "project", "everything"], default="project",
                   help="where to search (default: the project of --cwd)")
    s.add_argument("--session", default=None, help="session id (for --scope session)")
    s.add_argument("--cwd", default=None, help="directory (default: current) for --scope directory/project")
    s.add_argument("--levels", default="0,1,2,3", help="0 = turns, 1+ = summary levels (default 0,1,2,3)")
    s.add_argument("-k", "--k", type=int, default=10, help="number of hits (default 10)")
    s.add_argument("--mode", choices=["hybrid", "semantic", "text"], default="hybrid")
    s.add_argument("--min-score", type=float, default=None, help="minimum cosine of vector hits (BM25 in text mode)")
    s.add_argument("--locale", default=None, help="en or fr for relative times (default: from LANG)")
    s.add_argument("--full", action="store_true", help="do not shorten messages")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(handler=_search, group_parser=s)

    c = sub.add_parser("context", help="the context block an agent gets before answering a message")
    c.add_argument("session_id")
    c.add_argument("message")
    c.add_argument("--scope", choices=["session", "directory", "project", "everything"], default="project")
    c.add_argument("--budget", type=int, default=12_000, help="character budget of the block")
    c.add_argument("--mode", choices=["hybrid", "semantic", "text"], default="hybrid")
    c.add_argument("--locale", default=None)
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(handler=_context, group_parser=c)

    r = sub.add_parser("reindex", help="re-embed every turn and summary with the configured embedder")
    r.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    r.set_defaults(handler=_reindex, group_parser=r)


def resolve_scope(kind: str, session: str | None, cwd: str | None) -> Scope:
    if kind == "everything":
        return Scope.everything()
    if kind == "session":
        if not session:
            raise InvalidInput("--scope session needs --session <id>")
        return Scope.session(session)
    where = absolute(cwd) if cwd else working_dir()
    return Scope.directory(where) if kind == "directory" else Scope.project_of(where)


def _levels(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError as e:
        raise InvalidInput(f"--levels takes comma-separated integers, got {quoted(text)}") from e


def _short(text: str, full: bool, limit: int = 300) -> str:
    text = text.strip()
    return text if full or len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"


def _print_hit(n: int, h: SearchHit, full: bool) -> None:
    ranks = ", ".join(f"{s} #{r}" for s, r in (("vector", h.vector_rank), ("text", h.text_rank)) if r is not None)
    what = f"turn {h.index}" if h.kind == "turn" else f"level-{h.level} summary"
    print(f"{n}. [{what} | score {h.score:.4f} | {ranks or '-'} | {h.relative_time}]")
    print(f"   session {h.session_id}  {h.cwd}")
    if h.kind == "turn":
        print("   User: " + _short(h.user_message or "", full).replace("\n", "\n   "))
        print("   Assistant: " + _short(h.assistant_message or "", full).replace("\n", "\n   "))
        if h.tools:
            print("   Tools: " + ", ".join(h.tools))
    else:
        print("   " + _short(h.text or "", full).replace("\n", "\n   "))
        if h.key_findings:
            print("   Key findings: " + "; ".join(h.key_findings))
        if h.files_mentioned:
            print("   Files: " + ", ".join(h.files_mentioned))
    print()


_ANCHORS = {"query date": "the search's date", "now": "the current time", "last turn": "the scope's last turn",
            "date": "the date written", "event": "the turn that tells the event:"}


def how_found(res: SearchResult) -> list[str]:
    """What shaped the ranking besides the words: the time window the query named, the events it
    compares (each searched on its own), the candidates lifted because they tell a time when the
    query asks when."""
    lines = []
    w = res.time_window
    if w:
        start, end = (str(w[key])[:16].replace("T", " ") for key in ("start", "end"))
        span = (f"from {start} on" if end.startswith("9999") else f"until {end}" if start.startswith("0001")
                else f"{start} to {end}")
        told = f" {w['event_turn']}" if w.get("event_turn") else ""
        lines.append(f"time window: \"{w['phrase']}\", {span} (read from "
                     f"{_ANCHORS.get(str(w['anchor']), w['anchor'])}{told})")
    if res.parts:
        lines.append("events searched apart: " + "; ".join(f'"{p}"' for p in res.parts))
    lifted = (res.strategy.get("rerank") or {}).get("tells_when")
    if lifted is not None:
        lines.append(f"asks when: {lifted} candidate(s) that tell a time lifted" if lifted
                     else "asks when: no candidate tells a time")
    return lines


def non_empty(text: str, what: str) -> str:
    """``text`` when it has something besides spaces, else :class:`InvalidInput` (exit 2)."""
    if not text.strip():
        raise InvalidInput(f"{what} is empty: give some words to look for")
    return text


def _search(args: argparse.Namespace) -> int:
    non_empty(args.query, "the query")
    if args.k < 1:
        raise InvalidInput(f"-k must be at least 1, got {args.k}")
    scope = resolve_scope(args.scope, args.session, args.cwd)
    locale = args.locale or locale_from_env()
    with open_memory() as mem:
        if args.scope == "session":
            mem.get_session(args.session)  # an unknown session is not found (exit 3), not "no results"
        res = mem.search(args.query, scope=scope, levels=_levels(args.levels), k=args.k, mode=args.mode,
                         min_score=args.min_score, locale=locale)
    if args.json:
        emit_json(res)
        return 0
    for w in res.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if not res.hits:
        print(f"no results in {res.scope}", file=sys.stderr)
        return 0
    print(f"{len(res.hits)} results in {res.scope} ({res.effective_mode}, {res.timings_ms.get('total', 0):.0f} ms)")
    print("".join(f"{line}\n" for line in how_found(res)))
    for n, h in enumerate(res.hits, start=1):
        _print_hit(n, h, args.full)
    return 0


def _context(args: argparse.Namespace) -> int:
    non_empty(args.message, "the message")
    if args.budget < 1:
        raise InvalidInput(f"--budget is a number of characters >= 1, got {args.budget}")
    cfg = ContextConfig(scope=args.scope, budget_chars=args.budget, mode=args.mode,
                        locale=args.locale or locale_from_env())
    with open_memory() as mem:
        block = mem.build_context(args.session_id, args.message, config=cfg)
    if args.json:
        emit_json(block)
        return 0
    for w in block.warnings:
        print(f"warning: {w}", file=sys.stderr)
    sys.stdout.write(block.text or "(no context)\n")
    print(f"[{block.chars} chars of {block.budget_chars}; dropped {block.dropped or 'nothing'}]", file=sys.stderr)
    return 0


def _reindex(args: argparse.Namespace) -> int:
    with open_memory(ensure_schema=False) as mem:
        if mem.embedder is None:
            raise InvalidInput("reindex needs an embedder: set GRAPHMEM_EMBEDDER to auto, local, e5, openai or sentence-transformers")
        if not args.yes and sys.stdin.isatty():
            answer = input(f"Re-embed every turn and summary with {mem.embedder.model} ({mem.embedder.dimensions}-d)? [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                print("cancelled", file=sys.stderr)
                return 1
        bar: dict[str, Progress] = {}

        def on_total(n: int) -> None:
            bar["p"] = Progress(n, "embedding")

        def progress(n: int) -> None:
            if "p" in bar:
                bar["p"].advance(n)

        stats = mem.reindex(on_total=on_total, progress=progress)
        if "p" in bar:
            bar["p"].close()
    print(f"re-embedded {stats.turns} turns, {stats.summaries} summaries and {stats.facts} facts with {mem.embedding_model} "
          f"({mem.embedding_dimensions}-d)")
    return 0
