"""``graphmem bench startup``: how long each command group of the CLI takes from process start to
exit, against the configured server (the environment's ``GRAPHMEM_*``).

Each command runs ``--runs`` times as its own process (``python -m graphmem.cli`` equivalent: the
installed entry point's interpreter), interleaved round by round so that load changes hit every
command alike; the figure is the median wall time. ``python -c pass`` is the floor. ``search``
embeds its query (it loads the embedding model) and is there for contrast: every other command
never embeds and must not pay for it. ``--compare-src DIR`` also runs every command with another
checkout's ``graphmem`` package first on ``PYTHONPATH`` (e.g. the code before a change, exported with
``git archive``), interleaved with this one, so both sets of figures share the same machine load.

The read commands the warm daemon answers (:data:`ROUTED`) are measured twice, interleaved: once
with a daemon serving this ``$GRAPHMEM_HOME`` and these settings (``[daemon]``; the bench starts one
unless one already answers, and stops the one it started), once with ``GRAPHMEM_CLI_DAEMON=0``
(``[direct]``: the path without a daemon). ``context`` needs a session: the bench adds one turn
in a session of its temporary directory first and deletes that session at the end.
"""

from __future__ import annotations

import argparse
import json
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
    ("search --mode text", ["search", "startup bench query", "--scope", "everything", "--mode", "text"]),
    ("facts search (embeds the query)", ["facts", "search", "startup bench query", "--all"]),
    ("context (embeds the message)", ["context", "{session}", "startup bench query"]),
]
ROUTED = {"stats", "sessions list", "facts list", "search (embeds the query)", "search --mode text",
          "facts search (embeds the query)", "context (embeds the message)"}
"""The commands a warm daemon answers: each is measured with and without one."""


def _argv(args: list[str]) -> list[str]:
    if not args:
        return [sys.executable, "-c", "pass"]
    return [sys.executable, "-c", "import sys; from graphmem.cli import main; sys.exit(main())", *args]


def _run_once(args: list[str], env: dict[str, str], cwd: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    done = subprocess.run(_argv(args), env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, timeout=600, check=False)
    return (time.perf_counter() - t0) * 1000, done.returncode


def _cli(args: list[str], env: dict[str, str], cwd: str) -> str:
    done = subprocess.run(_argv(args), env=env, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"graphmem {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def _served(home: Path) -> dict[str, int]:
    from graphmem.runtime.client import PROTOCOL, daemon_request

    try:
        counts: dict[str, int] = daemon_request({"v": PROTOCOL, "op": "ping"}, home=str(home), timeout=10)["cli"] or {}
    except (OSError, ValueError, KeyError):
        return {}
    return counts


def _measure(jobs: list[tuple[str, list[str], dict[str, str]]], runs: int, cwd: str,
             log: Any) -> tuple[tuple[float, float, float], dict[str, list[float]], dict[str, set[int]]]:
    """One untimed run of each job, then ``runs`` rounds: (load before, samples, exit codes)."""
    samples: dict[str, list[float]] = {name: [] for name, _, _ in jobs}
    codes: dict[str, set[int]] = {name: set() for name, _, _ in jobs}
    for _name, args, e in jobs:  # one untimed run each: the OS file cache, the server's first query
        _run_once(args, e, cwd)
    load_before = os.getloadavg()
    for r in range(runs):
        for name, args, e in jobs:
            ms, code = _run_once(args, e, cwd)
            samples[name].append(ms)
            codes[name].add(code)
        log(f"round {r + 1}/{runs} done")
    return load_before, samples, codes


def run_startup_bench(runs: int, *, compare_src: Path | None = None, compare_label: str | None = None,
                      daemon: bool = True, log: Any = print) -> BenchResult:
    env = dict(os.environ)
    variants: list[tuple[str, dict[str, str]]] = [("", env)]
    if compare_src is not None:
        other = dict(env)
        other["PYTHONPATH"] = os.pathsep.join(p for p in (str(compare_src.resolve()), env.get("PYTHONPATH")) if p)
        variants.append((f" [{compare_label or compare_src}]", other))
    direct = {**env, "GRAPHMEM_CLI_DAEMON": "0"}
    jobs: list[tuple[str, list[str], dict[str, str]]] = []
    for name, args in COMMANDS:
        for suffix, e in variants:
            if not args and suffix:
                continue  # the floor once
            if name in ROUTED and daemon:
                jobs.append((f"{name} [daemon]{suffix}", args, e))
                jobs.append((f"{name} [direct]{suffix}", args, {**e, "GRAPHMEM_CLI_DAEMON": "0"}))
            else:
                jobs.append((name + suffix, args, e))
    from graphmem.runtime.client import home_dir
    from graphmem.runtime.daemon import daemon_status, start_daemon, stop_daemon

    home = Path(home_dir(env))
    with tempfile.TemporaryDirectory(prefix="graphmem-startup-") as cwd:
        env.setdefault("HOME", cwd)
        started = False
        if daemon and not daemon_status(home).running:
            start_daemon(home, wait=300)
            started = True
        session = _cli(["turns", "add", "--cwd", cwd, "--user", "startup bench query",
                        "--assistant", "a turn for the context command", "--json"], direct, cwd)
        sid = str(json.loads(session)["sessionId"])
        jobs = [(n, [sid if a == "{session}" else a for a in args], e) for n, args, e in jobs]
        try:
            served_before = _served(home)
            load_before, samples, codes = _measure(jobs, runs, cwd, log)
            load_after = os.getloadavg()
            served_after = _served(home)
        finally:
            _cli(["sessions", "delete", sid], direct, cwd)
            if started:
                stop_daemon(home)
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
            "`search`, `facts search` and `context` embed their query, so without a daemon they load the "
            "embedding model; the other commands never embed and import no embedder code",
            *([
                "[daemon]: a warm `graphmem daemon` of the same home and settings answers the command "
                "(the client imports neither the driver nor pydantic); [direct]: GRAPHMEM_CLI_DAEMON=0, "
                "the command runs in its own process as without a daemon",
                f"[daemon] runs the daemon answered: {served_after.get('served', 0) - served_before.get('served', 0)} "
                f"of {(runs + 1) * sum(1 for n, _, _ in jobs if '[daemon]' in n)} (the untimed first runs included); "
                f"sent back to the client: {served_after.get('fallbacks', 0) - served_before.get('fallbacks', 0)}",
            ] if daemon else []),
        ],
    )


def register(verbs: Any) -> None:
    p = verbs.add_parser("startup", help="wall time of each CLI command group, process start to exit (median)")
    p.add_argument("--runs", type=int, default=9, help="timed runs of each command (default 9)")
    p.add_argument("--compare-src", type=Path, default=None,
                   help="a directory holding another graphmem package (e.g. `git archive main graphmem cypher`): "
                        "its figures are measured too, interleaved")
    p.add_argument("--compare-label", default=None, help="what --compare-src holds, for the results (e.g. 'main ff2b3c5')")
    p.add_argument("--no-daemon", action="store_true",
                   help="measure the daemon's read commands without a daemon only (no [daemon] figures)")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    p.set_defaults(handler=_startup)


def _startup(args: argparse.Namespace) -> int:
    if args.runs < 1:
        print("graphmem: error: --runs must be at least 1", file=sys.stderr)
        return 2
    result = run_startup_bench(args.runs, compare_src=args.compare_src, compare_label=args.compare_label,
                               daemon=not args.no_daemon, log=lambda m: print(m, file=sys.stderr))
    _, md = write_results(result, args.out)
    print(result.markdown())
    print(f"wrote {md}", file=sys.stderr)
    return 0
