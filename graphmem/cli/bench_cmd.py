"""``graphmem bench``: benchmarks that print figures and write a results file."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from ..bench import run_store_bench, write_results
from .common import open_memory

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser("bench", help="benchmarks (print figures, write results files)")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")
    st = verbs.add_parser("store", help="store_turn latency, the write floor and bulk import throughput")
    st.add_argument("--turns", type=int, default=2000)
    st.add_argument("--warmup", type=int, default=200)
    st.add_argument("--bulk", type=int, default=20000)
    st.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    st.set_defaults(handler=_store)


def _store(args: argparse.Namespace) -> int:
    command = "graphmem " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["bench"] else (
        f"graphmem bench store --turns {args.turns} --warmup {args.warmup} --bulk {args.bulk}"
    )
    with open_memory(start=True) as mem:
        result = run_store_bench(mem, turns=args.turns, warmup=args.warmup, bulk=args.bulk, command=command)
    md = result.markdown()
    print(md)
    js, mdp = write_results(result, args.out)
    print(f"written: {js} {mdp}", file=sys.stderr)
    return 0
