"""``graphmem bench coding``: retrieval on generated coding-assistant histories with long replies.

The haystacks come from :mod:`graphmem_devtools.bench.coding_data` (seeded, ~50 sessions each, user
requests with 1,500-4,000-character assistant replies, questions of six kinds with gold turn ids).
They are loaded, searched and scored exactly as the LoCoMo haystacks are
(:mod:`graphmem_devtools.bench.haystack_core`): turn all@5/10/30 and session all@5 per question
kind, on the tuning half (even haystacks) and the test half (odd ones), for graphmem's hybrid, text
and semantic modes beside BM25 and dense-only baselines run on the same turn texts.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphmem.memory import GraphMemory

from .coding_data import EVIDENCE_IN, KINDS, PER_KIND, EvidenceIn, build_coding_haystacks, dump_haystacks
from .common import ONLY_HELP, BenchResult, bench_command, machine_info, publish, select_runs
from .haystack import sweep_haystack_runs
from .haystack_core import (
    HaystackRun,
    default_haystack_runs,
    haystack_tables_markdown,
    measure_haystacks,
    summaries_sentence,
)

__all__ = ["FULL_HAYSTACKS", "coding_markdown", "register", "run_coding_bench"]

FULL_HAYSTACKS = 20
"""The benchmark's size (10 tuning + 10 test haystacks); fewer is a smoke run."""


def run_coding_bench(
    mem: GraphMemory,
    *,
    haystacks: int = FULL_HAYSTACKS,
    seed: int = 11,
    sessions: int = 50,
    turns: tuple[int, int] = (4, 20),
    runs: list[HaystackRun] | None = None,
    expansion_window: int = 2,
    keep: bool = False,
    reuse: str | None = None,
    summarize: bool = False,
    tool_calls: bool = False,
    evidence_in: EvidenceIn = "reply",
    dump: Path | None = None,
    command: str = "graphmem bench coding",
    log: Callable[[str], None] = print,
) -> BenchResult:
    """Generate ``haystacks`` haystacks, load them into a fresh namespace (or re-score a kept one), run
    each configuration and the two baselines; tables per half and per question kind."""
    if haystacks < 1 or sessions < 1:
        raise ValueError("bench coding needs --haystacks and --sessions of at least 1")
    hays = build_coding_haystacks(haystacks, seed=seed, sessions=sessions, turns=turns, evidence_in=evidence_in)
    if dump is not None:
        dump_haystacks(hays, dump)
        log(f"generated data written to {dump}")
    result = BenchResult("coding", command, machine_info(mem.db.server_info().version))
    figures, notes = measure_haystacks(mem, hays, runs=runs if runs is not None else default_haystack_runs(),
                                       groups=KINDS, label="coding", expansion_window=expansion_window, keep=keep,
                                       reuse=reuse, summarize=summarize, tool_calls=tool_calls, log=log)
    replies = sorted(len(t.assistant) for h in hays for s in h.sessions for t in s.turns)
    result.figures = {**figures, "sessions_per_haystack": sessions, "seed": seed, "turns_per_session": list(turns),
                      "evidence_in": evidence_in,
                      "haystacks_total": haystacks, "full_size": haystacks >= FULL_HAYSTACKS,
                      "reply_chars": {"tenth percentile": replies[len(replies) // 10],
                                      "median": replies[len(replies) // 2],
                                      "ninetieth percentile": replies[len(replies) * 9 // 10]}}
    result.figures["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    if haystacks < FULL_HAYSTACKS:
        notes.insert(0, f"SMALL RUN: {haystacks} haystacks (the benchmark's size is {FULL_HAYSTACKS}); a smoke "
                        "figure with a few questions per kind, not a result to compare configurations by.")
    result.notes += notes
    return result


def coding_markdown(result: BenchResult) -> str:
    f: dict[str, Any] = result.figures
    m = result.machine
    rc = f.get("reply_chars", {})
    size = "" if f.get("full_size") else (f"**Small run: {f.get('haystacks_total')} haystacks of the "
                                          f"benchmark's {FULL_HAYSTACKS}; figures are a smoke test.** ")
    lines = [
        "# Benchmark: coding-assistant histories (generated, long replies, graphmem search in Neo4j)", "",
        f"Command: `{result.command}`", "",
        f"{size}Machine: {m.get('cpu')} ({m.get('cores')} cores), Neo4j {m.get('neo4j')}, graphmem "
        f"{m.get('graphmem')}, {m.get('date')}, commit {m.get('commit')}, load average before {m.get('load_before')}, after "
        f"{' '.join(str(x) for x in f.get('load_average_end', [])) or '(not recorded)'}. "
        f"Embedder: {f.get('embedder')}, expansion window {f.get('expansion_window')}, long turns (user + assistant "
        f"over {f.get('long_turn_chars')} characters) {f.get('long_turns')}. Haystacks {f.get('haystacks')} "
        f"of {f.get('sessions_per_haystack')} sessions, {f.get('turns')} turns (assistant reply characters p10 / p50 "
        f"/ p90: {rc.get('tenth percentile')} / {rc.get('median')} / {rc.get('ninetieth percentile')}), "
        f"questions {f.get('questions')} "
        f"({', '.join(f'{k} {v}' for k, v in PER_KIND.items())} per haystack), seed {f.get('seed')}. "
        f"{summaries_sentence(f)} "
        f"{'Each turn stores its edited file as an Edit tool call.' if f.get('tool_calls') else 'No tool calls.'}", "",
        "Data: `graphmem_devtools.bench.coding_data` (five projects per haystack over ~3 months; decoy sessions of "
        "the same topic in other projects or at other times; evidence in the "
        f"{'user request' if f.get('evidence_in') == 'request' else 'assistant reply, preferences in the request'} "
        "of a long turn). Tune = even haystacks, test = odd ones. Share of "
        "questions whose gold turns are all in the top k (session all@5: all gold sessions among the first 5 "
        "distinct sessions). BM25 = `rank_bm25.BM25Okapi` defaults over user + assistant text; dense only = cosine "
        "over each turn's raw stored vector.", "",
        *haystack_tables_markdown(f, "question kind"),
    ]
    lines += ["", *[f"- {n}" for n in result.notes]]
    return "\n".join(lines).rstrip() + "\n"


def register(verbs: Any) -> None:
    p = verbs.add_parser("coding", help="generated coding-assistant histories (long replies): turn all@5/10/30, "
                                        "session all@5 per question kind, tune and test")
    p.add_argument("--haystacks", type=int, default=FULL_HAYSTACKS,
                   help=f"haystacks to generate (default {FULL_HAYSTACKS}: 10 tune + 10 test; fewer is a smoke run)")
    p.add_argument("--sessions", type=int, default=50, help="sessions per haystack (default 50; at least the ~30 that hold the questions' evidence and decoys)")
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--dump", type=Path, default=None, help="also write the generated data to this JSON file")
    p.add_argument("--keep", action="store_true", help="keep the loaded data (namespace printed)")
    p.add_argument("--reuse", default=None, help="re-score a namespace kept by an earlier --keep run (same "
                                                 "--haystacks/--sessions/--seed; it is kept again)")
    p.add_argument("--sweep", action="store_true",
                   help="also run the variants of `bench haystack --sweep` (time window, session diversity, context "
                        "field, session prior)")
    p.add_argument("--tool-calls", action="store_true",
                   help="store each turn's edited file as an Edit tool call (what a coding assistant's hooks record)")
    p.add_argument("--evidence-in", choices=EVIDENCE_IN, default="reply",
                   help="where the generated evidence sits: in the long replies (default) or in the user's requests")
    p.add_argument("--only", default=None, help=ONLY_HELP)
    p.add_argument("--summaries", action="store_true",
                   help="run the summary worker (extractive summarizer) to idle before scoring, as a deployment would")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    p.set_defaults(handler=_coding)


def _coding(args: argparse.Namespace) -> int:
    from graphmem.cli.common import open_memory

    command = bench_command(f"graphmem bench coding --haystacks {args.haystacks}")
    try:
        runs = select_runs(default_haystack_runs() + (sweep_haystack_runs() if args.sweep else []), args.only)
        with open_memory(start=True) as mem:
            result = run_coding_bench(mem, haystacks=args.haystacks, seed=args.seed, sessions=args.sessions,
                                      runs=runs, keep=args.keep, reuse=args.reuse, summarize=args.summaries,
                                      tool_calls=args.tool_calls, evidence_in=args.evidence_in,
                                      dump=args.dump, command=command,
                                      log=lambda m: print(m, file=sys.stderr, flush=True))
    except ValueError as e:
        print(f"graphmem: error: {e}", file=sys.stderr)
        return 2
    publish(result, coding_markdown(result), args.out)
    return 0
