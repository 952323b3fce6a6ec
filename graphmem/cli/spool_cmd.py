"""``graphmem spool status|replay``: turns kept on disk while Neo4j was unreachable."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .common import Progress, add_json_flag, emit_json, open_memory

__all__ = ["register", "replay_spool_quietly"]


def register(sub: Any) -> None:
    p = sub.add_parser("spool", help="turns kept on disk while Neo4j was unreachable")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")
    st = verbs.add_parser("status", help="how many entries and turns wait, and for which sessions")
    add_json_flag(st)
    st.set_defaults(handler=_spool_status)
    rp = verbs.add_parser("replay", help="store the spooled turns now (exactly once), then empty the spool")
    add_json_flag(rp)
    rp.set_defaults(handler=_spool_replay)


def _spool_status(args: argparse.Namespace) -> int:
    from ..runtime.client import home_dir
    from ..runtime.spool import Spool

    st = Spool(Path(home_dir())).status()
    if args.json:
        emit_json(st.as_dict())
    else:
        print(f"{st.entries} entries, {st.turns} turns ({st.bytes} bytes) in {st.path}"
              + (f"; oldest {st.oldest}" if st.oldest else "")
              + (f"; {st.rejected} rejected in rejected.jsonl" if st.rejected else ""))
        for s in st.sessions:
            print(f"  session {s}")
    return 0


def _spool_replay(args: argparse.Namespace) -> int:
    from ..runtime.client import home_dir
    from ..runtime.spool import Spool

    spool = Spool(Path(home_dir()))
    total = spool.status().entries
    progress = Progress(total, "replaying") if total and not args.json else None
    with open_memory() as mem:
        result = spool.replay(mem, progress=progress.advance if progress else None)
    if progress is not None:
        progress.close()
    if args.json:
        emit_json(result.as_dict())
    elif result.busy:
        print("another process is replaying the spool", file=sys.stderr)
    else:
        print(f"replayed {result.entries} entries: {result.turns_created} turns stored, {result.turns_skipped} "
              f"already stored" + (f", {result.remaining} entries left ({result.error})" if result.remaining else "")
              + (f", {result.rejected} rejected" if result.rejected else ""))
    if result.remaining:
        from ..errors import DatabaseUnavailable

        raise DatabaseUnavailable(result.error or "the spool could not be replayed completely")
    return 0


def replay_spool_quietly(mem: Any) -> str | None:
    """Replay the spool after ``graphmem db up``; a one-line report, or None when it was empty."""
    from ..runtime.client import home_dir
    from ..runtime.spool import Spool

    spool = Spool(Path(home_dir()))
    if not spool.pending():
        return None
    r = spool.replay(mem)
    return (f"spool: {r.entries} entries replayed ({r.turns_created} turns stored)"
            + (f", {r.remaining} left: {r.error}" if r.remaining else ""))
