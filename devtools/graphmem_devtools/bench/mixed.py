"""``graphmem bench mixed``: short chat turns and long coding replies in one memory.

The long-turn rule gives a turn of short chat its neighbours' text and its session's prior, and a
long reply neither. Each of the other haystack benchmarks holds one kind of turn only, so neither
can show whether the two kinds, side by side in one scope, crowd each other out. Here a LoCoMo
haystack (short utterance pairs: the question's conversation among other conversations' sessions)
and a generated coding haystack (1,500-4,000-character replies) are poured into one directory, and
both sets of questions are asked there: turn all@5/10/30 and session all@5 per question group
(``chat: <LoCoMo category>``, ``coding: <kind>``), tune and test halves, beside BM25 and dense-only
baselines run by the same script (:mod:`graphmem_devtools.bench.haystack_core`).

Halves: LoCoMo conversations 0-4 with the even coding haystacks (tune), 5-9 with the odd ones
(test). Each question keeps the date it is asked at in its own benchmark.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from graphmem.memory import GraphMemory

from .coding_data import KINDS, build_coding_haystacks
from .common import BenchResult, add_load_args, bench_command, machine_info, publish, select_runs
from .haystack import GROUPS, build_haystacks, sweep_haystack_runs
from .haystack_core import (
    HALF_NAMES,
    Haystack,
    HaystackRun,
    default_haystack_runs,
    haystack_tables_markdown,
    measure_haystacks,
    summaries_sentence,
)

__all__ = ["MIXED_GROUPS", "build_mixed_haystacks", "mixed_markdown", "register", "run_mixed_bench"]

MIXED_GROUPS = [*(f"chat: {g}" for g in GROUPS), *(f"coding: {k}" for k in KINDS)]


def _tagged(h: Haystack, tag: str) -> Haystack:
    """``h``'s questions grouped under ``tag`` and asked at their own benchmark's date."""
    qs = [replace(q, group=f"{tag}: {q.group}", now=q.now or h.now) for q in h.questions]
    return replace(h, questions=qs)


def build_mixed_haystacks(data: Path, *, chat_sessions: int = 25, coding_sessions: int = 30,
                          needles: int = 10, seed: int = 7) -> list[Haystack]:
    """One LoCoMo haystack per conversation (``chat_sessions`` sessions: its first ``needles`` and
    others' distractors) merged with one coding haystack (``coding_sessions`` sessions), pairing halves."""
    chat = build_haystacks(data, sessions=chat_sessions, needles=needles, per_conv=1, seed=seed)
    halves: dict[str, list[Haystack]] = {h: [x for x in chat if x.half == h] for h in HALF_NAMES}
    coding = build_coding_haystacks(2 * max(len(v) for v in halves.values()), seed=seed + 4,
                                    sessions=coding_sessions)
    out: list[Haystack] = []
    for half in HALF_NAMES:
        codes = [c for c in coding if c.half == half]
        for c, k in zip(halves[half], codes, strict=False):
            a, b = _tagged(c, "chat"), _tagged(k, "coding")
            keys = {s.key for s in a.sessions}
            if any(s.key in keys for s in b.sessions):  # pragma: no cover - the generators' keys differ
                raise ValueError(f"session keys of {a.name} and {b.name} collide")
            sessions = sorted([*a.sessions, *b.sessions], key=lambda s: s.timestamp)
            out.append(Haystack(f"{a.name}+{b.name}", sessions, [*a.questions, *b.questions],
                                max(a.now, b.now), half))
    return out


def run_mixed_bench(
    mem: GraphMemory,
    data: Path,
    *,
    runs: list[HaystackRun] | None = None,
    chat_sessions: int = 25,
    coding_sessions: int = 30,
    needles: int = 10,
    limit: int | None = None,
    seed: int = 7,
    keep: bool = False,
    reuse: str | None = None,
    summarize: bool = False,
    command: str = "graphmem bench mixed",
    log: Callable[[str], None] = print,
) -> BenchResult:
    """Build the mixed haystacks (the first ``limit`` of each half), load them into a fresh
    namespace (or re-score a kept one), run each configuration and the two baselines."""
    hays = build_mixed_haystacks(data, chat_sessions=chat_sessions, coding_sessions=coding_sessions, needles=needles,
                                 seed=seed)
    if limit is not None:
        hays = [h for half in HALF_NAMES for h in [x for x in hays if x.half == half][:limit]]
    result = BenchResult("mixed", command, machine_info(mem.db.server_info().version))
    figures, notes = measure_haystacks(mem, hays, runs=runs if runs is not None else default_haystack_runs(),
                                       groups=MIXED_GROUPS, label="mixed", keep=keep, reuse=reuse,
                                       summarize=summarize, log=log)
    result.figures = {**figures, "chat_sessions": chat_sessions, "coding_sessions": coding_sessions, "seed": seed,
                      "load_average_end": [round(x, 2) for x in os.getloadavg()]}
    result.notes += notes
    return result


def mixed_markdown(result: BenchResult) -> str:
    f: dict[str, Any] = result.figures
    m = result.machine
    lines = [
        "# Benchmark: short chat turns and long coding replies in one memory (graphmem search in Neo4j)", "",
        f"Command: `{result.command}`", "",
        f"Machine: {m.get('cpu')} ({m.get('cores')} cores), Neo4j {m.get('neo4j')}, graphmem {m.get('graphmem')}, "
        f"{m.get('date')}, commit {m.get('commit')}, load average before {m.get('load_before')}, after "
        f"{' '.join(str(x) for x in f.get('load_average_end', []))}. Embedder: {f.get('embedder')}. Haystacks "
        f"{f.get('haystacks')}, each a LoCoMo haystack of {f.get('chat_sessions')} sessions and a generated coding "
        f"haystack of {f.get('coding_sessions')} in one directory; {f.get('turns')} turns ({f.get('long_turns')} long: "
        f"user + assistant over {f.get('long_turn_chars')} characters), questions {f.get('questions')}, seed "
        f"{f.get('seed')}. {summaries_sentence(f)}", "",
        "Share of questions whose gold turns are all in the top k (session all@5: all gold sessions among the first "
        "5 distinct sessions). Tune = LoCoMo conversations 0-4 with even coding haystacks, test = 5-9 with odd ones.",
        "",
        *haystack_tables_markdown(f, "question group"),
    ]
    lines += ["", *[f"- {n}" for n in result.notes]]
    return "\n".join(lines).rstrip() + "\n"


def register(verbs: Any) -> None:
    p = verbs.add_parser("mixed", help="short chat turns and long coding replies in one memory: turn all@5/10/30, "
                                       "session all@5 per question group, tune and test")
    p.add_argument("--data", type=Path, required=True, help="locomo10.json")
    p.add_argument("--chat-sessions", type=int, default=25, help="LoCoMo sessions per haystack (default 25)")
    p.add_argument("--coding-sessions", type=int, default=30, help="coding sessions per haystack (default 30)")
    p.add_argument("--limit", type=int, default=None, help="haystacks per half (default all: 5)")
    p.add_argument("--seed", type=int, default=7)
    add_load_args(p, reuse_help="re-score a namespace kept by an earlier --keep run (same sizes)",
                  sweep_help="also run the variants of `bench haystack --sweep`")
    p.set_defaults(handler=_mixed)


def _mixed(args: argparse.Namespace) -> int:
    from graphmem.cli.common import open_memory

    command = bench_command("graphmem bench mixed")
    if not args.data.is_file():
        print(f"graphmem: error: --data: {args.data} is not a file", file=sys.stderr)
        return 2
    if args.chat_sessions < 10 or args.coding_sessions < 1 or (args.limit is not None and args.limit < 1):
        print("graphmem: error: --chat-sessions must be at least 10 (a conversation's first sessions), "
              "--coding-sessions and --limit at least 1", file=sys.stderr)
        return 2
    try:
        runs = select_runs(default_haystack_runs() + (sweep_haystack_runs() if args.sweep else []), args.only)
        with open_memory(start=True) as mem:
            result = run_mixed_bench(mem, args.data, runs=runs, chat_sessions=args.chat_sessions,
                                     coding_sessions=args.coding_sessions, limit=args.limit, seed=args.seed,
                                     keep=args.keep, reuse=args.reuse, summarize=args.summaries, command=command,
                                     log=lambda m: print(m, file=sys.stderr, flush=True))
    except ValueError as e:
        print(f"graphmem: error: {e}", file=sys.stderr)
        return 2
    publish(result, mixed_markdown(result), args.out)
    return 0
