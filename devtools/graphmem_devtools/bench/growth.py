"""How cost grows with the memory (``graphmem bench growth``).

One dataset is grown step by step (1k, 10k, 100k, 1M turns + summaries by default) on a **dedicated**
managed Neo4j (its own ``GRAPHMEM_HOME``, so the store size on disk is this data only); after each
step: ``store_turn`` (3 tool calls), hybrid ``search`` (k=10; session, project and everything scopes)
and ``build_context`` latency (p50/p95/p99), the store size on disk after a checkpoint, and the load
time. At one size (the first step >= ``worker_at``): the offline extractive summarizer's speed and
the worker's throughput (turns embedded + summarised by one in-process worker). Peak RSS of this
Python process after every step.

Synthetic data, said plainly: sessions of 90 turns (one tool call each) + 9 level-1 summaries (10
turns each) + 1 level-2 summary = 100 nodes, 25 sessions per project; pseudo-word texts (a Zipf-like
vocabulary) and **synthetic 512-d vectors** (clustered around 200 topic centroids, L2-normalised)
written in the same UNWIND batch as the nodes (``cypher/bench/growth_sessions.cypher``), so loading
1M nodes does not wait for an embedder. ``search`` is timed in the database path (the query vector is
given); ``build_context`` is timed end to end with the memory's embedder (the message is embedded).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from graphmem.memory import GraphMemory

from .growth_data import (
    DEDICATED_HEAP,
    DEDICATED_PAGECACHE,
    FULL_SIZES,
    NODES_PER_SESSION,
    QUICK_SIZES,
    GrowthConfig,
    Log,
)
from .growth_measure import dedicated_memory, run_growth, store_size_bytes
from .growth_report import disk_after_shutdown, part_from_results, part_result, plots, write_growth
from .parts import PartResult

__all__ = [
    "DEDICATED_HEAP",
    "DEDICATED_PAGECACHE",
    "NODES_PER_SESSION",
    "GrowthConfig",
    "dedicated_memory",
    "part_from_results",
    "register",
    "run_growth",
    "run_part",
    "store_size_bytes",
    "write_growth",
]


def run_part(*, out_dir: Path, quick: bool, memory: GraphMemory | None = None, data_dir: Path | None = None,
             config: GrowthConfig | None = None, home: Path | None = None, log: Log | None = None) -> PartResult:
    """The growth part of ``graphmem bench all``.

    Without ``memory``: a dedicated managed server under ``home`` (default: a fresh directory under
    ``$GRAPHMEM_HOME/bench``, deleted afterwards), free ports picked automatically. With ``memory``
    (e.g. the test server): that server, in a namespace; ``data_dir`` for the store size (else not
    measured) and no embedding in the worker pass (it is not scoped)."""
    say = log or (lambda m: print(m, file=sys.stderr, flush=True))
    cfg = config or (GrowthConfig(sizes=QUICK_SIZES, store_samples=30, search_samples=30, context_samples=20,
                                  warmup=5, worker_at=1_000, worker_turns=60, summarizer_turns=100)
                     if quick else GrowthConfig())
    if memory is not None:
        cfg = replace(cfg, worker_embeds=False)
        figures = run_growth(memory, cfg, data_dir=data_dir, log=say)
        return part_result(figures, plots(figures, out_dir), dedicated=False)
    from graphmem.config import Settings

    own = home is None
    base = Settings.load().home.expanduser() / "bench"
    if own:
        base.mkdir(parents=True, exist_ok=True)
    where = Path(tempfile.mkdtemp(prefix="growth-", dir=base)) if own else home
    assert where is not None
    try:
        with dedicated_memory(where, bolt_port=None if own else 27002, http_port=None if own else 27402, log=say) as (mem, dd, pid):
            figures = run_growth(mem, cfg, data_dir=dd, server_pid=pid, log=say)
        disk_after_shutdown(figures, dd)
    finally:
        if own:
            shutil.rmtree(where, ignore_errors=True)
    return part_result(figures, plots(figures, out_dir), dedicated=True)


# ----------------------------------------------------------------------------------------------
# CLI


def register(verbs: Any) -> None:
    """``graphmem bench growth`` (H1's bench_cmd calls this with the ``bench`` sub-parsers)."""
    p = verbs.add_parser("growth", help="store_turn / search / build_context latency and store size, 1k to 1M nodes")
    p.add_argument("--sizes", default=",".join(str(s) for s in FULL_SIZES),
                   help="comma-separated turns + summaries, grown in turn (default 1k,10k,100k,1M)")
    p.add_argument("--quick", action="store_true", help="tiny sizes and few samples (smoke run)")
    p.add_argument("--store-samples", type=int, default=None)
    p.add_argument("--search-samples", type=int, default=None)
    p.add_argument("--context-samples", type=int, default=None)
    p.add_argument("--worker-at", type=int, default=None, help="measure summarizer/worker throughput at this size")
    p.add_argument("--worker-turns", type=int, default=None, help="turns the worker embeds and summarises")
    p.add_argument("--home", type=Path, default=None,
                   help="GRAPHMEM_HOME of the dedicated server (kept; default: a temporary one, deleted)")
    p.add_argument("--bolt-port", type=int, default=27002, help="with --home")
    p.add_argument("--http-port", type=int, default=27402, help="with --home")
    p.add_argument("--heap", default=DEDICATED_HEAP)
    p.add_argument("--pagecache", default=DEDICATED_PAGECACHE)
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    p.set_defaults(handler=_handler)


def _config_from_args(args: argparse.Namespace) -> GrowthConfig:
    cfg = (GrowthConfig(sizes=QUICK_SIZES, store_samples=30, search_samples=30, context_samples=20, warmup=5,
                        worker_at=1_000, worker_turns=60, summarizer_turns=100) if args.quick else GrowthConfig())
    if not args.quick or args.sizes != ",".join(str(s) for s in FULL_SIZES):
        cfg = replace(cfg, sizes=tuple(int(x) for x in args.sizes.split(",") if x.strip()))
    for name in ("store_samples", "search_samples", "context_samples", "worker_at", "worker_turns"):
        if getattr(args, name) is not None:
            cfg = replace(cfg, **{name: getattr(args, name)})
    return cfg


def _handler(args: argparse.Namespace) -> int:
    cfg = _config_from_args(args)
    command = "graphmem " + " ".join(sys.argv[1:]) if sys.argv[1:2] == ["bench"] else (
        f"graphmem bench growth --sizes {','.join(map(str, cfg.sizes))}")
    say: Log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    out: Path = args.out

    def save(fig: dict[str, Any], *, final: bool) -> tuple[Path, Path, PartResult]:
        """The results files (md, json, PNGs) as they stand: rewritten after every step, so that an
        interrupted run leaves the sizes it finished."""
        fig["config"]["heap"], fig["config"]["pagecache"] = args.heap, args.pagecache
        result = part_result(fig, plots(fig, out), dedicated=True)
        done = [s["target"] for s in fig["steps"]]
        if not final:
            result.notes.append(f"Partial results: the run had finished the sizes {done} of {list(cfg.sizes)} when "
                                "these files were written.")
        js, md = write_growth(result, out, command)
        return js, md, result

    from graphmem.config import Settings

    own = args.home is None
    base = Settings.load().home.expanduser() / "bench"
    if own:
        base.mkdir(parents=True, exist_ok=True)
    where: Path = Path(tempfile.mkdtemp(prefix="growth-", dir=base)) if own else args.home
    try:
        with dedicated_memory(where, heap=args.heap, pagecache=args.pagecache,
                              bolt_port=None if own else args.bolt_port, http_port=None if own else args.http_port,
                              log=say) as (mem, dd, pid):
            figures = run_growth(mem, cfg, data_dir=dd, server_pid=pid, log=say, on_step=lambda f: save(f, final=False))
        disk_after_shutdown(figures, dd)
    finally:
        if own:
            shutil.rmtree(where, ignore_errors=True)
    js, md, result = save(figures, final=True)
    print(md.read_text())
    say(f"written: {js} {md} " + " ".join(str(p) for p in result.plots))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m graphmem_devtools.bench.growth ...`` (same options as ``graphmem bench growth``)."""
    parser = argparse.ArgumentParser(prog="graphmem bench")
    register(parser.add_subparsers(dest="verb", required=True))
    args = parser.parse_args(["growth", *(sys.argv[1:] if argv is None else argv)])
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
