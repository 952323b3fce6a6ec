"""``graphmem stats``: what the store holds and what is pending."""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path
from typing import Any

from .common import add_json_flag, emit_json, open_memory, print_table

__all__ = ["register"]


def register(sub: Any) -> None:
    st = sub.add_parser("stats", help="counts of sessions, turns, tool calls, summaries, facts; pending work")
    add_json_flag(st)
    st.set_defaults(handler=_stats)


def _dir_size(path: Path) -> int | None:
    if not path.is_dir():
        return None
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, f)).st_size
    return total


def _stats(args: argparse.Namespace) -> int:
    from ..config import Settings
    from ..db import managed_server
    from ..runtime.client import home_dir
    from ..runtime.spool import Spool
    from ..stats import CHARS_PER_TOKEN, injection_overhead, llm_usage

    settings = Settings.load()
    with open_memory() as mem:
        counts = mem.db.read("stats/counts")[0]
        levels = {int(r["level"]): int(r["count"]) for r in mem.db.read("stats/summaries_by_level")
                  if r["level"] is not None}
        agents = mem.db.read("stats/agents")
        overhead = injection_overhead(mem.db)
        llm = llm_usage(mem.db)
        info = mem.db.server_info()
    store: dict[str, Any] = {"neo4j": f"{info.version} ({info.edition})"}
    if settings.managed:
        server = managed_server(settings)
        data = server.server_dir / "data"
        store["data_dir"] = str(data)
        store["bytes"] = _dir_size(data)
    else:
        store["uri"] = settings.neo4j_uri
        store["bytes"] = None
    spool = Spool(Path(home_dir())).status()
    out = {**{k: int(v) for k, v in counts.items()}, "summaries_by_level": levels,
           "agents": agents, "store": store, "spool": {"entries": spool.entries, "turns": spool.turns},
           "auto_retrieval": overhead, "llm": llm}
    if args.json:
        emit_json(out)
        return 0
    rows = [
        ("directories", out["directories"]), ("sessions", out["sessions"]), ("turns", out["turns"]),
        ("tool calls", out["toolCalls"]), ("summaries", out["summaries"]),
        *[(f"  level {lvl}", n) for lvl, n in sorted(levels.items())],
        ("facts (current)", out["facts"]), ("fact versions", out["factVersions"]),
        ("pending turn embeddings", out["pendingTurnEmbeddings"]),
        ("pending summary embeddings", out["pendingSummaryEmbeddings"]),
        ("turns awaiting a summary", out["pendingTurnSummaries"]), ("summary jobs", out["summaryJobs"]),
        ("spooled turns", spool.turns),
        ("store size", _human(store["bytes"]) if store.get("bytes") is not None else "n/a (not the managed server)"),
        ("neo4j", store["neo4j"]),
    ]
    print_table(["what", "count"], rows)
    if agents:
        print()
        print_table(["agent", "sessions", "turns"], [(a["agent"], a["sessions"], a["turns"]) for a in agents])
    print()
    print(f"auto-retrieval: {overhead['injections']} injections added {overhead['chars']} characters "
          f"(about {overhead['estimated_tokens']} tokens at {CHARS_PER_TOKEN} characters a token; "
          f"{overhead['chars_mean']} per injection), {overhead['latency_ms_mean']} ms on average")
    print()
    print_table(["LLM calls", "calls", "prompt tokens", "completion tokens", "cost (USD, estimated)"],
                [(p["purpose"], p["calls"], p["prompt_tokens"], p["completion_tokens"], f"{p['cost_usd']:.4f}")
                 for p in [*llm["purposes"], {"purpose": "total", **llm["total"]}]])
    return 0


def _human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{int(size)} B"
        size /= 1024
    return f"{n} B"


# ----------------------------------------------------------------------------------------------
# mcp
