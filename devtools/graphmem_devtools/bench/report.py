"""``graphmem bench all``: run the benchmark parts and assemble ``report.md`` + ``report.json``.

Each part (see :mod:`graphmem_devtools.bench.parts`) measures, writes its PNG plots into the output
directory and returns a :class:`PartResult`. This module runs the selected parts in order, records
the machine, the versions, the exact command and the load average around each part, and writes:

* ``<out>/report.md`` -- a headline table, then one section per part (its tables, embedded PNGs,
  notes); parts that were asked for but could not run are listed, with the reason;
* ``<out>/report.json`` -- every figure of every part, the same metadata.
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphmem.memory import GraphMemory

from .common import machine_info
from .parts import Headline, PartResult

__all__ = [
    "ALL_PARTS",
    "DEFAULT_OUT",
    "PartOptions",
    "SkippedPart",
    "command_line",
    "external_part",
    "run_parts",
    "versions",
    "write_report",
]

ALL_PARTS: tuple[str, ...] = ("writes", "retrieval", "quality", "growth", "import")
DEFAULT_OUT = Path("benchmarks/report")
EXTERNAL = {"growth": "graphmem_devtools.bench.growth", "import": "graphmem_devtools.bench.importing"}
"""Parts built in their own modules, each exposing ``register(verbs)``, ``run_part(*, out_dir, quick)`` and
``part_from_results(path, out_dir)`` (the part rebuilt from the results JSON its own verb wrote)."""


@dataclass
class SkippedPart:
    name: str
    reason: str


@dataclass
class PartOptions:
    """Sizes of the parts run here (growth/import choose their own from ``quick``)."""

    quick: bool = False
    writes_rounds: int = 1000
    writes_warmup: int = 100
    retrieval_sizes: tuple[int, ...] = (100, 1_000, 5_000, 20_000)
    retrieval_queries: int = 200
    retrieval_warmup: int = 10
    locomo_data: Path = Path("../shared/benchmarks/locomo/locomo10.json")
    locomo_convs: int | None = None
    locomo_results: Path | None = None
    haystack_results: Path | None = None
    coding_results: Path | None = None
    growth_results: Path | None = None  # reuse `graphmem bench growth`'s growth.json (the 1M step takes ~40 min)
    import_results: Path | None = None  # reuse `graphmem bench import`'s import.json

    def results_for(self, name: str) -> Path | None:
        """The results file an external part is read from instead of being measured (None: measure it)."""
        return {"growth": self.growth_results, "import": self.import_results}.get(name)

    @classmethod
    def for_quick(cls, **over: Any) -> PartOptions:
        base = cls(quick=True, writes_rounds=100, writes_warmup=10, retrieval_sizes=(100, 1_000, 3_000),
                   retrieval_queries=30, retrieval_warmup=3, locomo_convs=1)
        for k, v in over.items():
            setattr(base, k, v)
        return base


@dataclass
class _Run:
    parts: list[PartResult] = field(default_factory=list)
    skipped: list[SkippedPart] = field(default_factory=list)
    timings_s: dict[str, float] = field(default_factory=dict)
    loads: dict[str, list[float]] = field(default_factory=dict)


def external_part(name: str) -> Any | None:
    """The module of an externally built part (growth, import), or None when it is not there."""
    try:
        return importlib.import_module(EXTERNAL[name])
    except ImportError:
        return None


def _dist_version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def versions(mem: GraphMemory | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "python": platform.python_version(),
        "graphmem": _dist_version("graphmem"),
        "neo4j driver": _dist_version("neo4j"),
        "neo4j-rust-ext": _dist_version("neo4j-rust-ext"),
        "langchain-neo4j": _dist_version("langchain-neo4j"),
        "langchain-core": _dist_version("langchain-core"),
        "matplotlib": _dist_version("matplotlib"),
        "numpy": _dist_version("numpy"),
        "rank-bm25": _dist_version("rank-bm25"),
    }
    if mem is not None:
        info = mem.db.server_info()
        out["neo4j server"] = f"{info.version} ({info.edition})"
        out["embedder"] = mem.embedder.model if mem.embedder is not None else None
    return out


def run_parts(
    mem: GraphMemory,
    names: Sequence[str],
    *,
    out_dir: Path,
    options: PartOptions,
    log: Callable[[str], None] = lambda m: None,
    external_kwargs: dict[str, dict[str, Any]] | None = None,
) -> tuple[list[PartResult], list[SkippedPart], dict[str, Any]]:
    """Run the named parts in order; a part that is missing or fails is recorded as skipped (with the
    reason) and the others still run. Returns (results, skipped, per-part timings and load averages).

    ``external_kwargs[name]`` are extra keyword arguments for an external part's ``run_part`` (the smoke
    test passes its server and tiny sizes); by default growth/import choose their own server and sizes."""
    from .compare import run_retrieval_part, run_writes_part
    from .quality import run_quality_part

    out_dir.mkdir(parents=True, exist_ok=True)
    run = _Run()
    for name in names:
        if name not in ALL_PARTS:
            raise ValueError(f"unknown part {name!r}: {', '.join(ALL_PARTS)}")
        t0 = time.perf_counter()
        load0 = os.getloadavg()
        log(f"== part {name}")
        try:
            if name == "writes":
                res = run_writes_part(mem, out_dir=out_dir, rounds=options.writes_rounds,
                                      warmup=options.writes_warmup, log=log)
            elif name == "retrieval":
                res = run_retrieval_part(mem, out_dir=out_dir, sizes=options.retrieval_sizes,
                                         queries=options.retrieval_queries, warmup=options.retrieval_warmup, log=log)
            elif name == "quality":
                res = run_quality_part(mem, out_dir=out_dir, data=options.locomo_data,
                                       limit_convs=options.locomo_convs, results_json=options.locomo_results,
                                       haystack_results=options.haystack_results,
                                       coding_results=options.coding_results, log=log)
            else:
                mod = external_part(name)
                if mod is None:
                    run.skipped.append(SkippedPart(name, f"module {EXTERNAL[name]} is not available in this build"))
                    log(f"part {name}: skipped (module {EXTERNAL[name]} not available)")
                    continue
                reuse = options.results_for(name)
                if reuse is not None:
                    log(f"part {name}: figures read from {reuse}")
                    res = mod.part_from_results(reuse, out_dir)
                else:
                    res = mod.run_part(out_dir=out_dir, quick=options.quick, **(external_kwargs or {}).get(name, {}))
        except Exception as e:  # one broken part must not lose the others' figures
            run.skipped.append(SkippedPart(name, f"failed: {type(e).__name__}: {e}"))
            log(f"part {name} failed:\n{traceback.format_exc()}")
            continue
        run.parts.append(res)
        run.timings_s[name] = round(time.perf_counter() - t0, 1)
        run.loads[name] = [round(x, 2) for x in (*load0, *os.getloadavg())]
    return run.parts, run.skipped, {"seconds": run.timings_s, "load_average_start_end": run.loads}


def _headline_table(heads: list[tuple[str, Headline]]) -> list[str]:
    lines = ["| part | measure | graphmem | the alternative | ratio |", "|---|---|---|---|---|"]
    for part, h in heads:
        lines.append(f"| {part} | {h.measure} | {h.graphmem} | {h.other} | {h.ratio} |")
    return lines


def write_report(
    parts: list[PartResult],
    *,
    out_dir: Path,
    command: str,
    mem: GraphMemory | None,
    skipped: Sequence[SkippedPart] = (),
    run_info: dict[str, Any] | None = None,
    started: datetime | None = None,
    quick: bool = False,
) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.json`` under ``out_dir``; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    server = mem.db.server_info().version if mem is not None else None
    machine = machine_info(server)
    vers = versions(mem)
    load_now = [round(x, 2) for x in os.getloadavg()]
    started = started or datetime.now(UTC)
    heads = [(p.name, h) for p in parts for h in p.headline]
    md: list[str] = [
        "# graphmem benchmark report" + (" (quick smoke run: tiny sizes, figures not meaningful)" if quick else ""),
        "",
        f"Command: `{command}`",
        "",
        f"Run: started {started.isoformat(timespec='seconds')}, finished {datetime.now(UTC).isoformat(timespec='seconds')}.",
        "",
        f"Machine: {machine.get('cpu')} ({machine.get('cores')} cores, {machine.get('memory_gb')} GB), "
        f"{machine.get('os')}. Load average (1/5/15 min) at the end: {'/'.join(str(x) for x in load_now)} "
        f"on {os.cpu_count()} cores; the machine is shared, so compare the ratios (each comparison runs its sides "
        "interleaved in one run) rather than absolute times.",
        "",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in vers.items() if v is not None) + ".",
        "",
        "## Headline",
        "",
        *_headline_table(heads),
        "",
    ]
    if skipped:
        md += ["Parts not in this report:", ""]
        md += [f"- **{s.name}**: {s.reason}" for s in skipped]
        md.append("")
    info = run_info or {}
    for p in parts:
        md += [f"## {p.title}", "", p.markdown.rstrip(), ""]
        unlinked = [x for x in p.plots if f"]({_rel(x, out_dir)})" not in p.markdown]
        if unlinked:  # growth/import leave their plots to the caller (their own .md links them too)
            md += [*[f"![{x.stem.replace('_', ' ')}]({_rel(x, out_dir)})" for x in unlinked], ""]
        secs = info.get("seconds", {}).get(p.name)
        load = info.get("load_average_start_end", {}).get(p.name)
        extra = []
        if secs is not None:
            extra.append(f"part run time {secs} s")
        if load:
            extra.append(f"load average {load[0]}/{load[1]}/{load[2]} before, {load[3]}/{load[4]}/{load[5]} after")
        notes = [*p.notes, *([", ".join(extra).capitalize() + "."] if extra else [])]
        if notes:
            md += [*[f"- {n}" for n in notes], ""]
    md_path = out_dir / "report.md"
    md_path.write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    js_path = out_dir / "report.json"
    payload = {
        "command": command,
        "quick": quick,
        "started": started.isoformat(timespec="seconds"),
        "machine": machine,
        "versions": vers,
        "load_average_end": load_now,
        "run": info,
        "headline": [{"part": part, "measure": h.measure, "graphmem": h.graphmem, "other": h.other, "ratio": h.ratio}
                     for part, h in heads],
        "skipped": [{"name": s.name, "reason": s.reason} for s in skipped],
        "parts": {p.name: {"title": p.title, "figures": p.figures, "plots": [_rel(x, out_dir) for x in p.plots],
                           "notes": p.notes} for p in parts},
    }
    js_path.write_text(json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8")
    return md_path, js_path


def _rel(path: Path, base: Path) -> str:
    try:
        return str(path.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path)


def command_line() -> str:
    """The exact command as typed (``graphmem`` + its arguments)."""
    import shlex

    return "graphmem " + " ".join(shlex.quote(a) for a in sys.argv[1:])
