"""``graphmem bench``: benchmarks that print figures and write a results file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from graphmem.cli.common import open_memory

from ..bench import run_store_bench, write_results
from ..bench.common import ONLY_HELP, add_load_args, bench_command, publish, select_runs

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser("bench", help="benchmarks (print figures, write results files)")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")
    st = verbs.add_parser("store", help="store_turn latency, the write floor and bulk import throughput")
    st.add_argument("--turns", type=int, default=2000)
    st.add_argument("--warmup", type=int, default=200)
    st.add_argument("--bulk", type=int, default=20000)
    st.add_argument("--warmup-seconds", type=float, default=60.0,
                    help="untimed warm-up lasts at least this long (a fresh server's JVM is still compiling)")
    st.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    st.set_defaults(handler=_store)
    _register_retrieval_verbs(verbs)
    fa = verbs.add_parser("facts", help="remember (dedup check) at 100k facts and pre-call injection latency")
    fa.add_argument("--facts", type=int, default=100_000)
    fa.add_argument("--samples", type=int, default=300)
    fa.add_argument("--warmup", type=int, default=30)
    fa.add_argument("--warmup-seconds", type=float, default=60.0,
                    help="untimed remember() warm-up lasts at least this long (a fresh server's JVM is still compiling)")
    fa.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    fa.set_defaults(handler=_facts)
    ob = verbs.add_parser("observe", help="observe() latency at 100k live messages, and the live block's search")
    ob.add_argument("--messages", type=int, default=100_000)
    ob.add_argument("--samples", type=int, default=1000)
    ob.add_argument("--warmup", type=int, default=300)
    ob.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    ob.set_defaults(handler=_observe)
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
    asy = verbs.add_parser("async", help="concurrent build_context: AsyncGraphMemory in one loop vs GraphMemory")
    asy.add_argument("--concurrency", type=int, default=50)
    asy.add_argument("--rounds", type=int, default=5)
    asy.add_argument("--turns", type=int, default=200)
    asy.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    asy.set_defaults(handler=_async)
    sv = verbs.add_parser("service", help="the memory service's search and facts endpoints beside the library calls")
    sv.add_argument("--facts", type=int, default=100_000)
    sv.add_argument("--turns", type=int, default=200)
    sv.add_argument("--samples", type=int, default=200)
    sv.add_argument("--warmup", type=int, default=20)
    sv.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    sv.set_defaults(handler=_service)
    _register_report_verbs(verbs)
    from ..bench import first_hour as first_hour_bench
    from ..bench import redaction as redaction_bench
    from ..bench import startup as startup_bench
    from ..bench import warmup as warm_up_bench

    redaction_bench.register(verbs)
    startup_bench.register(verbs)
    warm_up_bench.register(verbs)
    first_hour_bench.register(verbs)
    from ..bench import coding as coding_bench
    from ..bench import quality_compare

    coding_bench.register(verbs)
    from ..bench import mixed as mixed_bench

    mixed_bench.register(verbs)
    quality_compare.register(verbs)


def _service(args: argparse.Namespace) -> int:
    from ..bench.service import run_service_bench

    command = (f"graphmem bench service --facts {args.facts} --turns {args.turns} --samples {args.samples}"
               f" --warmup {args.warmup}")
    with open_memory(start=True) as mem:
        result = run_service_bench(mem, facts=args.facts, turns=args.turns, samples=args.samples,
                                   warmup=args.warmup, command=command)
    print(result.markdown())
    js, mdp = write_results(result, args.out)
    print(f"written: {js} {mdp}", file=sys.stderr)
    return 0


def _add_report_args(p: Any, *, parts: bool, sub: str = "") -> None:
    from ..bench.report import DEFAULT_OUT

    out = DEFAULT_OUT / sub if sub else DEFAULT_OUT
    p.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run; figures not meaningful)")
    p.add_argument("--out", type=Path, default=out, help=f"report directory (default {out})")
    if parts:
        p.add_argument("--parts", default=None,
                       help="comma-separated parts (default all): writes,retrieval,quality,growth,import")
        p.add_argument("--locomo-data", type=Path, default=Path("../shared/benchmarks/locomo/locomo10.json"))
        p.add_argument("--locomo-convs", type=int, default=None,
                       help="quality: only the first N LoCoMo conversations (default all; 1 with --quick)")
        p.add_argument("--locomo-results", type=Path, default=None,
                       help="quality: read graphmem's figures from this locomo.json instead of measuring them")
        p.add_argument("--haystack-results", type=Path, default=None,
                       help="quality: read the haystack figures from this haystack.json instead of measuring them")
        p.add_argument("--coding-results", type=Path, default=None,
                       help="quality: read the coding-assistant figures from this coding.json instead of measuring them")
        p.add_argument("--growth-results", type=Path, default=None,
                       help="growth: read the figures from this growth.json (`graphmem bench growth`) instead of "
                            "measuring them")
        p.add_argument("--import-results", type=Path, default=None,
                       help="import: read the figures from this import.json (`graphmem bench import`) instead of "
                            "measuring them")


def _register_report_verbs(verbs: Any) -> None:
    """``bench all`` (the report), ``bench writes``, ``bench strategies`` and the external parts' verbs."""
    from ..bench.report import external_part

    al = verbs.add_parser("all", help="every part side by side -> <out>/report.md, report.json and PNG plots")
    _add_report_args(al, parts=True)
    al.add_argument("--rounds", type=int, default=None, help="writes: interleaved rounds (default 1000; 100 quick)")
    al.add_argument("--sizes", default=None, help="retrieval: scope sizes (default 100,1000,5000,20000)")
    al.add_argument("--queries", type=int, default=None, help="retrieval: queries per size (default 200; 30 quick)")
    al.set_defaults(handler=_all)
    wr = verbs.add_parser("writes", help="store_turn vs langchain-neo4j add_messages vs an empty write tx (report)")
    _add_report_args(wr, parts=False, sub="writes")
    wr.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 1000, 100 with --quick)")
    wr.set_defaults(handler=_writes)
    sg = verbs.add_parser("strategies",
                          help="exact cosine scan vs vector index vs adaptive, hybrid vs vector vs text (report)")
    _add_report_args(sg, parts=False, sub="strategies")
    sg.add_argument("--sizes", default=None, help="comma-separated scope sizes (default 100,1000,5000,20000)")
    sg.add_argument("--queries", type=int, default=None, help="queries per size (default 200, 30 with --quick)")
    sg.set_defaults(handler=_strategies)
    for name in ("growth", "import"):
        mod = external_part(name)
        if mod is not None:
            mod.register(verbs)


def _options(args: argparse.Namespace) -> Any:
    from ..bench.report import PartOptions

    opts = PartOptions.for_quick() if args.quick else PartOptions()
    if getattr(args, "locomo_data", None) is not None:
        opts.locomo_data = args.locomo_data
    if getattr(args, "locomo_convs", None) is not None:
        opts.locomo_convs = args.locomo_convs
    if getattr(args, "locomo_results", None) is not None:
        opts.locomo_results = args.locomo_results
    if getattr(args, "haystack_results", None) is not None:
        opts.haystack_results = args.haystack_results
    if getattr(args, "coding_results", None) is not None:
        opts.coding_results = args.coding_results
    for name in ("growth_results", "import_results"):
        if getattr(args, name, None) is not None:
            setattr(opts, name, getattr(args, name))
    if getattr(args, "rounds", None) is not None:
        opts.writes_rounds = args.rounds
    if getattr(args, "sizes", None):
        opts.retrieval_sizes = tuple(int(x) for x in args.sizes.split(",") if x.strip())
    if getattr(args, "queries", None) is not None:
        opts.retrieval_queries = args.queries
    return opts


def _report(args: argparse.Namespace, names: list[str]) -> int:
    from datetime import UTC, datetime

    from ..bench.report import ALL_PARTS, SkippedPart, command_line, run_parts, write_report

    started = datetime.now(UTC)
    opts = _options(args)
    with open_memory(start=True) as mem:
        results, skipped, info = run_parts(mem, names, out_dir=args.out, options=opts,
                                           log=lambda m: print(m, file=sys.stderr, flush=True))
        if getattr(args, "parts", None):
            skipped += [SkippedPart(n, "not requested in this run (--parts)") for n in ALL_PARTS if n not in names]
        md, js = write_report(results, out_dir=args.out, command=command_line(), mem=mem, skipped=skipped,
                              run_info=info, started=started, quick=args.quick)
    print(md.read_text(encoding="utf-8"))
    print(f"written: {md} {js}", file=sys.stderr)
    return 0 if results else 1


def _all(args: argparse.Namespace) -> int:
    from ..bench.report import ALL_PARTS

    names = list(ALL_PARTS) if not args.parts else [x.strip() for x in args.parts.split(",") if x.strip()]
    unknown = [x for x in names if x not in ALL_PARTS]
    if unknown:
        print(f"unknown part(s): {', '.join(unknown)} (known: {', '.join(ALL_PARTS)})", file=sys.stderr)
        return 2
    return _report(args, names)


def _writes(args: argparse.Namespace) -> int:
    return _report(args, ["writes"])


def _strategies(args: argparse.Namespace) -> int:
    return _report(args, ["retrieval"])


def _register_retrieval_verbs(verbs: Any) -> None:
    """``bench retrieval`` and ``bench locomo`` (devtools/graphmem_devtools/bench/retrieval.py, locomo.py)."""
    rt = verbs.add_parser("retrieval", help="hybrid search and build_context latency at 1k/10k/100k nodes")
    rt.add_argument("--sizes", default="1000,10000,100000", help="comma-separated node counts (grown in turn)")
    rt.add_argument("--queries", type=int, default=300)
    rt.add_argument("--context-calls", type=int, default=300)
    rt.add_argument("--context-warmup", type=int, default=30, help="untimed build_context calls first")
    rt.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    rt.set_defaults(handler=_retrieval)
    lc = verbs.add_parser("locomo", help="LoCoMo evidence recall@5/10/25 (hybrid, BM25-only, vector-only)")
    lc.add_argument("--data", type=Path, default=Path("../shared/benchmarks/locomo/locomo10.json"))
    lc.add_argument("--convs", type=int, default=None, help="only the first N conversations (smoke runs)")
    lc.add_argument("--expansion-window", type=int, default=None,
                    help="document expansion: neighbours per side in contextText (default: the tuned value)")
    lc.add_argument("--sweep", action="store_true", help="also run the fusion/field-weight variants explored")
    lc.add_argument("--keep", action="store_true", help="keep the loaded data (namespace printed)")
    lc.add_argument("--reuse", default=None, help="re-score a namespace kept by an earlier --keep run (it is kept again)")
    lc.add_argument("--only", default=None, help=ONLY_HELP)
    lc.add_argument("--facts", action="store_true",
                    help="also remember the dataset's observations as facts, each extracted from the turn it cites "
                         "(added to a reused load that has none)")
    lc.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    lc.set_defaults(handler=_locomo)
    hs = verbs.add_parser("haystack", help="LoCoMo sessions in 50-session haystacks: turn all@5/10/30, session all@5")
    hs.add_argument("--data", type=Path, default=Path("../shared/benchmarks/locomo/locomo10.json"))
    hs.add_argument("--per-conv", type=int, default=2, help="haystacks per LoCoMo conversation")
    hs.add_argument("--replies", choices=("locomo", "assistant"), default="locomo",
                    help="locomo: utterances paired into turns; assistant: each utterance a user message answered "
                         "by a long generated assistant reply (results named haystack-assistant)")
    hs.add_argument("--haystacks", default="",
                    help="comma-separated haystack names to keep (e.g. conv-26-h0,conv-48-h0; default: all)")
    add_load_args(hs, reuse_help="re-score a namespace kept by an earlier --keep run (it is kept again)",
                  sweep_help="also run the diversity / weighting variants")
    hs.set_defaults(handler=_haystack)
    te = verbs.add_parser("two-events", help="questions comparing two events, composed in the LoCoMo haystacks: "
                                             "both evidence turns in the top 5/10/30")
    te.add_argument("--data", type=Path, default=Path("../shared/benchmarks/locomo/locomo10.json"))
    add_load_args(te, reuse_help="re-score a namespace kept by an earlier --keep run of this or `bench haystack`",
                  sweep_help="also run fewer of each event's hits in turn, the graph source and time windows off")
    te.set_defaults(handler=_two_events)


def _retrieval(args: argparse.Namespace) -> int:
    from ..bench.retrieval import run_retrieval_bench

    sizes = tuple(int(x) for x in args.sizes.split(",") if x.strip())
    with open_memory(start=True) as mem:
        result = run_retrieval_bench(mem, sizes=sizes, queries=args.queries, context_calls=args.context_calls,
                                     context_warmup=args.context_warmup, command=bench_command("graphmem bench retrieval"),
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
        try:
            runs = select_runs(runs, args.only)
        except ValueError as e:
            print(f"graphmem: error: {e}", file=sys.stderr)
            return 2
        result = run_locomo_bench(
            mem, args.data, runs=runs, limit_convs=args.convs, keep=args.keep, reuse=args.reuse, facts=args.facts,
            expansion_window=window if args.expansion_window is None else args.expansion_window,
            command=bench_command("graphmem bench locomo"), log=lambda m: print(m, file=sys.stderr),
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


def _haystack(args: argparse.Namespace) -> int:
    from ..bench.haystack import (
        UnknownHaystackError,
        build_haystacks,
        default_haystack_runs,
        haystack_markdown,
        pick_haystacks,
        run_haystack_bench,
        sweep_haystack_runs,
    )

    try:
        runs = select_runs(default_haystack_runs() + (sweep_haystack_runs() if args.sweep else []), args.only)
    except ValueError as e:
        print(f"graphmem: error: {e}", file=sys.stderr)
        return 2
    only = [n.strip() for n in args.haystacks.split(",") if n.strip()]
    try:  # a name that is not there fails before the server starts
        haystacks = pick_haystacks(build_haystacks(args.data, per_conv=args.per_conv, replies=args.replies), only)
    except UnknownHaystackError as e:
        print(f"graphmem: error: {e}", file=sys.stderr)
        return 2
    with open_memory(start=True) as mem:
        result = run_haystack_bench(mem, args.data, runs=runs, per_conv=args.per_conv, keep=args.keep,
                                    reuse=args.reuse, summarize=args.summaries, replies=args.replies,
                                    haystacks=haystacks,
                                    command=bench_command("graphmem bench haystack"),
                                    log=lambda m: print(m, file=sys.stderr))
    md = haystack_markdown(result)
    print(md)
    js, mdp = write_results(result, args.out)
    mdp.write_text(md)
    print(f"written: {js} {mdp}", file=sys.stderr)
    return 0


def _two_events(args: argparse.Namespace) -> int:
    from ..bench.two_events import run_two_events_bench, two_events_markdown, two_events_runs

    try:
        runs = select_runs(two_events_runs(args.sweep), args.only)
    except ValueError as e:
        print(f"graphmem: error: {e}", file=sys.stderr)
        return 2
    with open_memory(start=True) as mem:
        result = run_two_events_bench(mem, args.data, runs=runs, keep=args.keep, reuse=args.reuse,
                                      summarize=args.summaries, command=bench_command("graphmem bench two-events"),
                                      log=lambda m: print(m, file=sys.stderr))
    publish(result, two_events_markdown(result), args.out)
    return 0


def _store(args: argparse.Namespace) -> int:
    command = bench_command(
        f"graphmem bench store --turns {args.turns} --warmup {args.warmup} --bulk {args.bulk}"
        f" --warmup-seconds {args.warmup_seconds:g}"
    )
    with open_memory(start=True) as mem:
        result = run_store_bench(mem, turns=args.turns, warmup=args.warmup, bulk=args.bulk,
                                 warmup_seconds=args.warmup_seconds, command=command)
    md = result.markdown()
    print(md)
    js, mdp = write_results(result, args.out)
    print(f"written: {js} {mdp}", file=sys.stderr)
    return 0


def _facts(args: argparse.Namespace) -> int:
    from ..bench.facts import run_facts_bench

    command = (f"graphmem bench facts --facts {args.facts} --samples {args.samples} --warmup {args.warmup}"
               f" --warmup-seconds {args.warmup_seconds:g}")
    with open_memory(start=True) as mem:
        result = run_facts_bench(mem, facts=args.facts, samples=args.samples, warmup=args.warmup,
                                 warmup_seconds=args.warmup_seconds, command=command)
    print(result.markdown())
    js, mdp = write_results(result, args.out)
    print(f"written: {js} {mdp}", file=sys.stderr)
    return 0


def _observe(args: argparse.Namespace) -> int:
    from ..bench.observe import run_observe_bench

    command = f"graphmem bench observe --messages {args.messages} --samples {args.samples} --warmup {args.warmup}"
    with open_memory(start=True) as mem:
        result = run_observe_bench(mem, messages=args.messages, samples=args.samples, warmup=args.warmup,
                                   command=command)
    print(result.markdown())
    js, mdp = write_results(result, args.out)
    print(f"written: {js} {mdp}", file=sys.stderr)
    return 0


def _async(args: argparse.Namespace) -> int:
    from graphmem import Settings

    from ..bench.aio import run_async_bench

    command = f"graphmem bench async --concurrency {args.concurrency} --rounds {args.rounds} --turns {args.turns}"
    settings = Settings.load()
    with open_memory(start=True, settings=settings) as mem:
        result = run_async_bench(mem, settings, concurrency=args.concurrency, rounds=args.rounds, turns=args.turns,
                                 command=command, progress=lambda m: print(m, file=sys.stderr, flush=True))
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
            command=bench_command("graphmem bench worker"),
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
                                 command=bench_command("graphmem bench hooks"), log=lambda m: print(m, file=sys.stderr))
    print(result.markdown())
    js, mdp = write_results(result, args.out)
    print(f"written: {js} {mdp}", file=sys.stderr)
    return 0
