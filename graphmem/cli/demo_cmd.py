"""``graphmem demo``: start the managed Neo4j, record a realistic coding session, print it back."""

from __future__ import annotations

import argparse
import hashlib
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from ..config import Settings
from ..demo_data import DEMO_TURNS
from ..errors import SessionNotFound
from ..memory import GraphMemory
from ..models import utcnow
from .common import print_table, relative
from .sessions_cmd import print_session

__all__ = ["demo_session_id", "register"]


def demo_session_id(cwd: str) -> str:
    """The id of the demo session of a directory (the same on every run)."""
    from ..paths import normalize_cwd

    return "graphmem-demo-" + hashlib.sha256(normalize_cwd(cwd).encode()).hexdigest()[:16]


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="start the managed Neo4j, record a coding session with tool calls, print it back")
    p.add_argument("--cwd", default=None, help="directory to file the demo session under (default: $GRAPHMEM_HOME/demo-project)")
    p.set_defaults(handler=_demo)


def _demo(args: argparse.Namespace) -> int:
    settings = Settings.load()
    print("== 1. Neo4j")
    t0 = time.monotonic()
    with GraphMemory.from_settings(settings, start=True) as mem:
        info = mem.db.server_info()
        print(f"connected to Neo4j {info.version} ({info.edition}) at {mem.db.uri} in {time.monotonic() - t0:.1f} s")
        print(f"schema version {mem.init_schema()}")

        cwd = Path(args.cwd) if args.cwd else settings.home / "demo-project"
        cwd.mkdir(parents=True, exist_ok=True)
        print(f"\n== 2. Recording a coding session in {cwd}")
        # one demo session per directory: running the demo again replaces it instead of adding another
        session_id = demo_session_id(str(cwd))
        try:
            mem.get_session(session_id)
        except SessionNotFound:
            pass
        else:
            mem.delete_session(session_id)
            print(f"  replaced the earlier demo session {session_id}")
        session = mem.create_session(str(cwd), agent="demo", session_id=session_id)
        start = utcnow() - timedelta(minutes=len(DEMO_TURNS) * 3)
        latencies = []
        for i, turn in enumerate(DEMO_TURNS):
            t1 = time.perf_counter()
            stored = mem.store_turn(
                session.id,
                turn["user"],
                turn["assistant"],
                tool_calls=turn["tools"],
                timestamp=start + timedelta(minutes=3 * i),
            )
            latencies.append((time.perf_counter() - t1) * 1000)
            print(f"  stored turn {stored.index} with {len(stored.tool_calls)} tool calls ({latencies[-1]:.1f} ms)")

        print("\n== 3. The session, read back from the graph")
        print_session(mem.load_session(session.id))

        print(f"\n== 4. Sessions of {cwd}")
        rows = mem.sessions_for(str(cwd), limit=10)
        print_table(
            ["session", "turns", "last activity", "last message"],
            [(s.id, s.turn_count, relative(s.last_activity_at), s.last_message) for s in rows],
        )
        print(f"\nraw history not yet summarised: {mem.raw_history_chars(session.id)} chars")
        from .embed_waiting import embed_waiting

        embedded = embed_waiting(mem, settings.home)
        if embedded:
            print(f"for semantic search: {embedded}")
        print("\nExplore it in Neo4j Browser: `graphmem db browser`; list it again: "
              f"`graphmem sessions list --cwd {cwd}`")
        print(f"Search it from its directory (README, \"After the demo\"): `cd {cwd} && graphmem search \"timezone default\"`")
    from .warm_daemon import start_warm_daemon

    warm = start_warm_daemon(settings)
    if warm:
        print(warm)
    return 0
