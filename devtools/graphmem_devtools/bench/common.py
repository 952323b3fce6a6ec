"""Shared benchmark helpers: percentiles, machine description, results files."""

from __future__ import annotations

import json
import os
import platform
import random
import resource
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

__all__ = [
    "ONLY_HELP",
    "BenchResult",
    "interleaved",
    "machine_info",
    "managed_server_pid",
    "peak_rss_mb",
    "percentiles",
    "read_part_results",
    "results_source_note",
    "select_runs",
    "source_commit",
    "timed_ms",
    "wait_for_idle_server",
    "write_results",
    "write_script_results",
]


def managed_server_pid() -> int | None:
    """The pid of the managed Neo4j the environment points at (None with an explicit URI or when it
    is not running)."""
    from graphmem.config import Settings
    from graphmem.db.connect import managed_server

    settings = Settings.load()
    if not settings.managed:
        return None
    st = managed_server(settings).state()
    return st.pid if st is not None else None


def _cpu_seconds(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def wait_for_idle_server(pid: int | None, *, max_seconds: float = 900.0, window: float = 5.0,
                         busy_fraction: float = 0.05) -> tuple[float, float | None]:
    """After a bulk load Neo4j keeps merging index segments and applying eventually consistent
    full-text updates for minutes; timings taken meanwhile measure that, not the query. Wait until
    the server process used under ``busy_fraction`` of one core over ``window`` seconds (Linux
    ``/proc``; a remote server cannot be watched: returns at once). Returns (seconds waited, the last
    window's CPU fraction)."""
    if pid is None or _cpu_seconds(pid) is None:
        return 0.0, None
    t0 = time.monotonic()
    frac: float | None = None
    while time.monotonic() - t0 < max_seconds:
        c0 = _cpu_seconds(pid)
        time.sleep(window)
        c1 = _cpu_seconds(pid)
        if c0 is None or c1 is None:
            break
        frac = (c1 - c0) / window
        if frac < busy_fraction:
            break
    return time.monotonic() - t0, frac


def timed_ms(fn: Callable[[], object]) -> float:
    """How long one call of ``fn`` took, in milliseconds."""
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def interleaved(
    sides: Mapping[str, Callable[[], object]],
    rounds: int,
    *,
    warmup: int = 0,
    rng: random.Random | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, list[float]]:
    """Time several operations one call each in turn, ``rounds`` times, so that all of them see the
    same machine load (the figures compare them, and the machine is shared). ``rng`` shuffles the
    order within each round; ``warmup`` untimed rounds first; ``progress(done_rounds)`` every 250."""
    for _ in range(warmup):
        for fn in sides.values():
            fn()
    samples: dict[str, list[float]] = {name: [] for name in sides}
    for r in range(rounds):
        order = list(sides)
        if rng is not None:
            rng.shuffle(order)
        for name in order:
            samples[name].append(timed_ms(sides[name]))
        if progress is not None and (r + 1) % 250 == 0:
            progress(r + 1)
    return samples


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    """p50/p95/p99/mean/max of latencies in milliseconds (nearest-rank)."""
    if not samples_ms:
        return {"n": 0}
    s = sorted(samples_ms)

    def rank(p: float) -> float:
        k = max(0, min(len(s) - 1, round(p / 100 * len(s) + 0.5) - 1))
        return round(s[k], 3)

    return {
        "n": len(s),
        "p50": rank(50),
        "p95": rank(95),
        "p99": rank(99),
        "mean": round(sum(s) / len(s), 3),
        "max": round(s[-1], 3),
    }


def peak_rss_mb() -> float:
    """Peak resident memory of this Python process, in MiB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def machine_info(server_version: str | None = None) -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = None
    try:
        kb = next(int(x.split()[1]) for x in Path("/proc/meminfo").read_text().splitlines() if x.startswith("MemTotal"))
        mem_gb = round(kb / 1024 / 1024, 1)
    except (OSError, StopIteration, ValueError):
        pass
    from graphmem import __version__

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": mem_gb,
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "graphmem": __version__,
        "neo4j": server_version,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": source_commit(),
        "load_before": _load(),
    }


def _load() -> str | None:
    """The 1, 5 and 15-minute load averages now (the machine is shared: every result says its load)."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return None


def source_commit() -> str | None:
    """The git commit of the checkout this code runs from (``+dirty`` when it has uncommitted
    changes to tracked files), or None outside a git checkout."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=30)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


@dataclass
class BenchResult:
    name: str
    command: str
    machine: dict[str, Any]
    figures: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def markdown(self) -> str:
        lines = [f"# Benchmark: {self.name}", "", f"Command: `{self.command}`", ""]
        m = self.machine
        lines.append(
            f"Machine: {m.get('cpu')} ({m.get('cores')} cores, {m.get('memory_gb')} GB), {m.get('os')}, "
            f"Python {m.get('python')}, Neo4j {m.get('neo4j')}, graphmem {m.get('graphmem')}, {m.get('date')}"
            + (f", commit {m['commit']}" if m.get("commit") else "")
        )
        lines.append("")
        lines.append("| measure | n | p50 ms | p95 ms | p99 ms | mean ms | max ms | other |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---|")
        for key, val in self.figures.items():
            if isinstance(val, dict) and "p50" in val:
                other = ", ".join(f"{k} {v}" for k, v in val.items() if k not in {"n", "p50", "p95", "p99", "mean", "max"})
                lines.append(
                    f"| {key} | {val['n']} | {val['p50']} | {val['p95']} | {val['p99']} | {val['mean']} | "
                    f"{val['max']} | {other} |"
                )
            else:
                lines.append(f"| {key} | | | | | | | {val} |")
        notes = list(self.notes)
        if m.get("load_before") and not any("load average" in n for n in notes):
            notes.append(f"load average (1, 5, 15 min) at the start {m['load_before']}, at the end {_load()}")
        if notes:
            lines += ["", *[f"- {n}" for n in notes]]
        return "\n".join(lines) + "\n"


def write_results(result: BenchResult, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    base = out_dir / result.name
    js = base.with_suffix(".json")
    md = base.with_suffix(".md")
    js.write_text(json.dumps(
        {"name": result.name, "command": result.command, "machine": result.machine,
         "figures": result.figures, "notes": result.notes}, indent=2) + "\n")
    md.write_text(result.markdown())
    return js, md


def write_script_results(out: Path, script: str, load_before: Sequence[float], **figures: Any) -> None:
    """Write a benchmark script's JSON results file: the command that ran it (``python <script>`` and
    its arguments), the commit (:func:`source_commit`), the date, the load average before and now,
    then ``figures``; say where on stderr."""
    doc = {"command": " ".join(["python", script, *(shlex.quote(a) for a in sys.argv[1:])]),
           "commit": source_commit(), "date": datetime.now(UTC).isoformat(timespec="seconds"),
           "load_before": [round(x, 2) for x in load_before],
           "load_after": [round(x, 2) for x in os.getloadavg()], **figures}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {out}", file=sys.stderr)


def bench_command(default: str) -> str:
    """The command line as typed when it was ``graphmem bench ...``, else ``default``."""
    return "graphmem " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["bench"] else default


def publish(result: BenchResult, md: str, out: Path) -> None:
    """Print a verb's markdown, write its results files into ``out`` (the markdown as printed) and
    say where on stderr."""
    print(md)
    js, mdp = write_results(result, out)
    mdp.write_text(md, encoding="utf-8")
    print(f"written: {js} {mdp}", file=sys.stderr)


def read_part_results(path: Path, name: str) -> dict[str, Any]:
    """A results JSON written by ``graphmem bench <name>`` (``{"name", "command", "figures", ...}``),
    checked to be that benchmark's; a clear ``ValueError`` otherwise (wrong file, not JSON)."""
    try:
        loaded = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(f"cannot read the {name} results {path}: {e.strerror or e}") from e
    except ValueError as e:
        raise ValueError(f"{path} is not a results JSON: {e}") from e
    if not isinstance(loaded, dict) or not isinstance(loaded.get("figures"), dict):
        raise ValueError(f"{path} is not a results file of `graphmem bench {name}` (no figures)")
    if loaded.get("name") != name:
        raise ValueError(f"{path} holds the results of `graphmem bench {loaded.get('name')}`, not of "
                         f"`graphmem bench {name}`")
    return loaded


def results_source_note(path: Path, loaded: Mapping[str, Any]) -> str:
    """The note a report section carries when its figures come from a committed results file."""
    when = (loaded.get("figures", {}).get("machine") or {}).get("date")
    return (f"Figures read from `{path}`, not measured in this run"
            + (f" (measured {when})" if when else "")
            + f"; command there: `{loaded.get('command')}`.")


ONLY_HELP = "comma-separated run names to evaluate (exact names; default: all)"


def add_load_args(parser: Any, *, reuse_help: str, sweep_help: str) -> None:
    """The options every haystack-shaped benchmark verb shares: keep or reuse its load, the sweep
    and ``--only``, the summary worker, where the results go."""
    parser.add_argument("--keep", action="store_true", help="keep the loaded data (namespace printed)")
    parser.add_argument("--reuse", default=None, help=reuse_help)
    parser.add_argument("--sweep", action="store_true", help=sweep_help)
    parser.add_argument("--only", default=None, help=ONLY_HELP)
    parser.add_argument("--summaries", action="store_true", help="run the summary worker (extractive summarizer) to "
                        "idle before scoring, as a deployment would")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results"))


class _Named(Protocol):
    name: str


RunT = TypeVar("RunT", bound=_Named)


def select_runs(runs: list[RunT], only: str | None) -> list[RunT]:
    """The runs ``--only`` names (comma-separated exact names), in their order; all when ``only`` is
    empty. Raises ``ValueError`` naming the unknown ones and the runs there are."""
    if not only:
        return runs
    wanted = [x.strip() for x in only.split(",") if x.strip()]
    unknown = [w for w in wanted if w not in {r.name for r in runs}]
    if unknown:
        raise ValueError(f"--only: no run named {', '.join(map(repr, unknown))} (runs: "
                         f"{', '.join(r.name for r in runs)}; the sweep's need --sweep)")
    return [r for r in runs if r.name in wanted]
