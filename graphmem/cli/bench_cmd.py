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
    _register_retrieval_verbs(verbs)
    fa = verbs.add_parser("facts", help="remember (dedup check) at 100k facts and pre-call injection latency")
    fa.add_argument("--facts", type=int, default=100_000)
    fa.add_argument("--samples", type=int, default=300)
    fa.add_argument("--warmup", type=int, default=30)
    fa.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    fa.set_defaults(handler=_facts)
    hk = verbs.add_parser("hooks", help="hook latency: UserPromptSubmit process start to output, Stop ingest")
    hk.add_argument("--prompts", type=int, default=200)
    hk.add_argument("--warmup", type=int, default=20)
    hk.add_argument("--stop-records", type=int, default=50, help="new transcript records per Stop hook")
    hk.add_argument("--stop-runs", type=int, default=20)
    hk.add_argument("--past-turns", type=int, default=200, help="earlier turns of the project (the memory)")
    hk.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    hk.set_defaults(handler=_hooks)
    wk = verbs.add_parser("worker", help="summarizer speed, worker throughput, store/read latency with a busy worker")
    wk.add_argument("--summarizer-turns", type=int, default=500)
    wk.add_argument("--worker-turns", type=int, default=600)
    wk.add_argument("--ops", type=int, default=40, help="(store_turn, build_context) pairs per block")
    wk.add_argument("--blocks", type=int, default=24, help="blocks: off, busy, off, busy+session, ...")
    wk.add_argument("--duty-cycle", type=float, default=None, help="the busy workers' duty cycle (default 1)")
    wk.add_argument("--backlog", type=int, default=2000, help="turns the busy worker works through")
    wk.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    wk.set_defaults(handler=_worker)


def _register_retrieval_verbs(verbs: Any) -> None:
    """``bench retrieval`` and ``bench locomo`` (graphmem/bench/retrieval.py, locomo.py)."""
    rt = verbs.add_parser("retrieval", help="hybrid search and build_context latency at 1k/10k/100k nodes")
    rt.add_argument("--sizes", default="1000,10000,100000", help="comma-separated node counts (grown in turn)")
    rt.add_argument("--queries", type=int, default=300)
    rt.add_argument("--context-calls", type=int, default=100)
    rt.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    rt.set_defaults(handler=_retrieval)
    lc = verbs.add_parser("locomo", help="LoCoMo evidence recall@5/10/25 (hybrid, BM25-only, vector-only)")
    lc.add_argument("--data", type=Path, default=Path("../shared/benchmarks/locomo/locomo10.json"))
    lc.add_argument("--convs", type=int, default=None, help="only the first N conversations (smoke runs)")
    lc.add_argument("--expansion-window", type=int, default=None,
                    help="document expansion: neighbours per side in contextText (default: the tuned value)")
    lc.add_argument("--sweep", action="store_true", help="also run the fusion/field-weight variants explored")
    lc.add_argument("--keep", action="store_true", help="keep the loaded data (namespace printed)")
    lc.add_argument("--reuse", default=None, help="re-score a namespace kept by an earlier --keep run (deleted after)")
    lc.add_argument("--only", default=None, help="comma-separated run names to evaluate (default: all)")
    lc.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    lc.set_defaults(handler=_locomo)


def _command(default: str) -> str:
    return "graphmem " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["bench"] else default


def _retrieval(args: argparse.Namespace) -> int:
    from ..bench.retrieval import run_retrieval_bench

    sizes = tuple(int(x) for x in args.sizes.split(",") if x.strip())
    with open_memory(start=True) as mem:
        result = run_retrieval_bench(mem, sizes=sizes, queries=args.queries, context_calls=args.context_calls,
                                     command=_command("graphmem bench retrieval"),
                                     log=lambda m: print(m, file=sys.stderr))
    print(result.markdown())
    js, mdp = write_results(result, args.out)
    print(f"written: {js} {mdp}", file=sys.stderr)
    return 0


def _locomo(args: argparse.Namespace) -> int:
    import json

    from ..bench.locomo import locomo_markdown, run_locomo_bench, sweep_runs, tuned_runs

    with open_memory(start=True) as mem:
        runs, window = tuned_runs()
        if args.sweep:
            runs += sweep_runs()
        if args.only:
            wanted = {x.strip() for x in args.only.split(",")}
            runs = [r for r in runs if r.name in wanted or r.mode in wanted]
        result = run_locomo_bench(
            mem, args.data, runs=runs, limit_convs=args.convs, keep=args.keep, reuse=args.reuse,
            expansion_window=window if args.expansion_window is None else args.expansion_window,
            command=_command("graphmem bench locomo"), log=lambda m: print(m, file=sys.stderr),
        )
    md = locomo_markdown(result)
    print(md)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "locomo.json").write_text(json.dumps(
        {"name": result.name, "command": result.command, "machine": result.machine, "figures": result.figures,
         "notes": result.notes}, indent=2) + "\n")
    (args.out / "locomo.md").write_text(md)
    print(f"written: {args.out / 'locomo.json'} {args.out / 'locomo.md'}", file=sys.stderr)
    return 0


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


def _facts(args: argparse.Namespace) -> int:
    from ..bench.facts import run_facts_bench

    command = f"graphmem bench facts --facts {args.facts} --samples {args.samples} --warmup {args.warmup}"
    with open_memory(start=True) as mem:
        result = run_facts_bench(mem, facts=args.facts, samples=args.samples, warmup=args.warmup, command=command)
    print(result.markdown())
    js, mdp = write_results(result, args.out)
    print(f"written: {js} {mdp}", file=sys.stderr)
    return 0


def _worker(args: argparse.Namespace) -> int:
    from ..bench.worker import run_worker_bench

    with open_memory(start=True) as mem:
        result = run_worker_bench(
            mem, summarizer_turns=args.summarizer_turns, worker_turns=args.worker_turns, ops_per_block=args.ops,
            blocks=args.blocks, backlog=args.backlog, duty_cycle=args.duty_cycle,
            command=_command("graphmem bench worker"),
            progress=lambda m: print(m, file=sys.stderr, flush=True),
        )
    print(result.markdown())
    js, mdp = write_results(result, args.out)
    print(f"written: {js} {mdp}", file=sys.stderr)
    return 0


def _hooks(args: argparse.Namespace) -> int:
    from ..bench.hooks import run_hooks_bench

    with open_memory(start=True) as mem:
        result = run_hooks_bench(mem, prompts=args.prompts, warmup=args.warmup, stop_records=args.stop_records,
                                 stop_runs=args.stop_runs, past_turns=args.past_turns,
                                 command=_command("graphmem bench hooks"), log=lambda m: print(m, file=sys.stderr))
    print(result.markdown())
    js, mdp = write_results(result, args.out)
    print(f"written: {js} {mdp}", file=sys.stderr)
    return 0
