"""``graphmem bench startup``: how long each command group of the CLI takes from process start to
exit, against the configured server (the environment's ``GRAPHMEM_*``).

Each command runs ``--runs`` times as its own process (``python -m graphmem.cli`` equivalent: the
installed entry point's interpreter), interleaved round by round so that load changes hit every
command alike; the figure is the median wall time. ``python -c pass`` is the floor. ``search``
embeds its query (it loads the embedding model) and is there for contrast: every other command
never embeds and must not pay for it. ``--compare-src DIR`` also runs every command with another
checkout's ``graphmem`` package first on ``PYTHONPATH`` (e.g. the code before a change, exported with
``git archive``), interleaved with this one, so both sets of figures share the same machine load.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import BenchResult, machine_info, write_results

__all__ = ["COMMANDS", "register", "run_startup_bench"]

COMMANDS: list[tuple[str, list[str]]] = [
    ("python -c pass (floor)", []),
    ("--help", ["--help"]),
    ("hooks status", ["hooks", "status"]),
    ("spool status", ["spool", "status"]),
    ("db status", ["db", "status"]),
    ("stats", ["stats"]),
    ("sessions list", ["sessions", "list"]),
    ("facts list", ["facts", "list"]),
    ("search (embeds the query)", ["search", "startup bench query", "--scope", "everything"]),
]


def _argv(args: list[str]) -> list[str]:
    if not args:
        return [sys.executable, "-c", "pass"]
    return [sys.executable, "-c", "import sys; from graphmem.cli import main; sys.exit(main())", *args]


def _run_once(args: list[str], env: dict[str, str], cwd: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    done = subprocess.run(_argv(args), env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, timeout=600, check=False)
    return (time.perf_counter() - t0) * 1000, done.returncode


def run_startup_bench(runs: int, *, compare_src: Path | None = None, compare_label: str | None = None,
                      log: Any = print) -> BenchResult:
    env = dict(os.environ)
    variants: list[tuple[str, dict[str, str]]] = [("", env)]
    if compare_src is not None:
        other = dict(env)
        other["PYTHONPATH"] = os.pathsep.join(p for p in (str(compare_src.resolve()), env.get("PYTHONPATH")) if p)
        variants.append((f" [{compare_label or compare_src}]", other))
    jobs = [(name + suffix, args, e) for name, args in COMMANDS for suffix, e in variants
            if args or not suffix]  # the floor once
    with tempfile.TemporaryDirectory(prefix="graphmem-startup-") as cwd:
        env.setdefault("HOME", cwd)
        load_before = os.getloadavg()
        samples: dict[str, list[float]] = {name: [] for name, _, _ in jobs}
        codes: dict[str, set[int]] = {name: set() for name, _, _ in jobs}
        for _name, args, e in jobs:  # one untimed run each: the OS file cache, the server's first query
            _run_once(args, e, cwd)
        for r in range(runs):
            for name, args, e in jobs:
                ms, code = _run_once(args, e, cwd)
                samples[name].append(ms)
                codes[name].add(code)
            log(f"round {r + 1}/{runs} done")
        load_after = os.getloadavg()
    figures: dict[str, Any] = {}
    for name, _, _ in jobs:
        s = samples[name]
        figures[name] = (f"median {statistics.median(s):.0f} ms (min {min(s):.0f}, max {max(s):.0f}; "
                         f"n {len(s)}; exit {','.join(map(str, sorted(codes[name])))})")
        log(f"{name}: {figures[name]}")
    command = "graphmem bench startup " + shlex.join(sys.argv[3:]) if sys.argv[1:3] == ["bench", "startup"] \
        else f"graphmem bench startup --runs {runs}"
    return BenchResult(
        name="startup",
        command=command.strip(),
        machine=machine_info(),
        figures=figures,
        notes=[
            f"load average (1, 5, 15 min) before {' '.join(f'{x:.2f}' for x in load_before)}, "
            f"after {' '.join(f'{x:.2f}' for x in load_after)}",
            "each figure: the median wall time of a whole process (interpreter start, imports, the "
            "command, exit), the commands interleaved round by round after one untimed run each",
            "`search` embeds its query, so it loads the embedding model; the other commands never embed "
            "and import no embedder code",
        ],
    )


def register(verbs: Any) -> None:
    p = verbs.add_parser("startup", help="wall time of each CLI command group, process start to exit (median)")
    p.add_argument("--runs", type=int, default=9, help="timed runs of each command (default 9)")
    p.add_argument("--compare-src", type=Path, default=None,
                   help="a directory holding another graphmem package (e.g. `git archive main graphmem cypher`): "
                        "its figures are measured too, interleaved")
    p.add_argument("--compare-label", default=None, help="what --compare-src holds, for the results (e.g. 'main ff2b3c5')")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    p.set_defaults(handler=_startup)


def _startup(args: argparse.Namespace) -> int:
    if args.runs < 1:
        print("graphmem: error: --runs must be at least 1", file=sys.stderr)
        return 2
    result = run_startup_bench(args.runs, compare_src=args.compare_src, compare_label=args.compare_label, log=lambda m: print(m, file=sys.stderr))
    _, md = write_results(result, args.out)
    print(result.markdown())
    print(f"wrote {md}", file=sys.stderr)
    return 0
