"""``graphmem bench growth``'s results: plots, notes, markdown and the part of ``graphmem bench all``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .common import (
    read_part_results,
    results_source_note,
)
from .growth_data import (
    DEDICATED_HEAP,
    DEDICATED_PAGECACHE,
    DIM,
    L1_SPAN,
    NODES_PER_SESSION,
    SESSIONS_PER_PROJECT,
    TURNS_PER_SESSION,
)
from .growth_measure import store_size_bytes
from .parts import Headline, PartResult

__all__ = ["disk_after_shutdown", "growth_markdown", "part_from_results", "part_result", "plots", "write_growth"]


# ----------------------------------------------------------------------------------------------
# report: markdown, plots, PartResult


def disk_after_shutdown(figures: dict[str, Any], data_dir: Path) -> None:
    """The store size once the server has stopped (a clean shutdown checkpoints every page)."""
    nodes = figures["steps"][-1]["nodes"] if figures["steps"] else 0
    figures["disk_after_shutdown"] = {"nodes": nodes, **store_size_bytes(data_dir)}


def _fmt_bytes(n: int | None) -> str:
    return "n/a" if n is None else f"{n / 1e6:,.0f} MB"


def plots(figures: dict[str, Any], out_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = figures["steps"]
    if not steps:
        return []
    out_dir.mkdir(parents=True, exist_ok=True)
    xs = [s["nodes"] for s in steps]
    fig, ax = plt.subplots(figsize=(8, 6.2), dpi=110)
    series = [("store_turn", "store_turn (3 tool calls)", "tab:blue"),
              ("search session", "search, session scope", "tab:green"),
              ("search project", "search, project scope", "tab:olive"),
              ("search everything", "search, everything", "tab:red"),
              ("build_context", "build_context (embeds the message)", "tab:purple")]
    for key, label, color in series:
        p50 = [s[key].get("p50") for s in steps]
        p95 = [s[key].get("p95") for s in steps]
        if any(v is None for v in p50):
            continue
        ax.plot(xs, p50, marker="o", color=color, label=f"{label} p50")
        ax.plot(xs, p95, marker=".", linestyle="--", color=color, alpha=0.6, label=f"{label} p95")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("turns + summaries in the store")
    ax.set_ylabel("latency (ms)")
    loads = ", ".join(f"{s['loadavg'][0]:.0f}" for s in steps)
    ax.set_title(f"graphmem latency as the memory grows (load average per step: {loads}; {os.cpu_count()} cores)",
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.13))
    fig.tight_layout()
    lat = out_dir / "growth_latency.png"
    fig.savefig(lat)
    plt.close(fig)
    paths = [lat]
    if all("disk_bytes" in s for s in steps):
        fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
        ax.plot(xs, [s["disk_bytes"]["store"] / 1e6 for s in steps], marker="o", label="store files + indexes")
        ax.plot(xs, [s["disk_bytes"]["total"] / 1e6 for s in steps], marker="s", label="whole data dir (+ tx logs)")
        ax.plot(xs, [s["load_seconds_cumulative"] for s in steps], marker="^", color="tab:gray",
                label="cumulative load time (s)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("turns + summaries in the store")
        ax.set_ylabel("MB on disk / seconds")
        ax.set_title("Neo4j store size and load time")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        size = out_dir / "growth_store.png"
        fig.savefig(size)
        plt.close(fig)
        paths.append(size)
    return paths


def _notes(figures: dict[str, Any], dedicated: bool) -> list[str]:
    cfg = figures["config"]
    notes = [
        f"Synthetic data: sessions of {TURNS_PER_SESSION} turns (one tool call each) + "
        f"{TURNS_PER_SESSION // L1_SPAN} level-1 summaries + 1 level-2 summary ({NODES_PER_SESSION} nodes), "
        f"{SESSIONS_PER_PROJECT} sessions per project; pseudo-word texts and synthetic {DIM}-d clustered vectors "
        "(not model embeddings), written in the same UNWIND batch as the nodes "
        f"({cfg['batch_sessions']} sessions = {cfg['batch_sessions'] * NODES_PER_SESSION} nodes per statement, "
        "`cypher/bench/growth_sessions.cypher`).",
        "One dataset grown step by step; each step is measured after the load (indexes online, full-text "
        "refreshed). store_turn: a fresh session per step, 3 tool calls, no embedding. search: hybrid k=10, "
        "the query vector given (no embedding in the timing), a random session / its project "
        f"({SESSIONS_PER_PROJECT * NODES_PER_SESSION} nodes) / everything. build_context: project scope, end to "
        "end including embedding the message with the local embedder, against synthetic stored vectors (the "
        "previous call's background injection log is waited for, untimed, before each call).",
        f"Settings: {cfg['store_samples']} store_turn, {cfg['search_samples']} searches per scope, "
        f"{cfg['context_samples']} build_context per step after {cfg['warmup']} warm-up calls each.",
    ]
    if dedicated:
        notes.append(f"A dedicated managed Neo4j (own GRAPHMEM_HOME): heap {DEDICATED_HEAP}, page cache "
                     f"{DEDICATED_PAGECACHE}; the vector indexes (Lucene HNSW) live outside the page cache, in the "
                     "OS file cache. Store size = `data/databases/neo4j` (store files and indexes, as allocated on disk; "
                     "Community has no `db.checkpoint()`, so pages not yet flushed by a periodic checkpoint are not "
                     "counted); the whole data directory adds the transaction logs (retention 2 days / 512M).")
    else:
        notes.append("Run on a shared server: the store size is not measured (it would include other data).")
    w = figures.get("worker")
    if w and not w.get("embedder"):
        notes.append("The worker ran without an embedder (shared server: its embedding pass is not scoped).")
    idle = [(s["nodes"], s["idle_wait_seconds"]) for s in figures["steps"] if "idle_wait_seconds" in s]
    if idle:
        notes.append("After each load the bench waited until Neo4j used under 5% of a core for 5 s (index merges and "
                     "full-text updates finished) before timing: " + ", ".join(f"{n:,} nodes {w:.0f} s" for n, w in idle)
                     + ".")
    loads = [s["loadavg"][0] for s in figures["steps"]]
    if loads:
        notes.append(f"Load average (1 min) after each step: {loads} on {os.cpu_count()} cores; the machine is shared, "
                     "so absolute figures are pessimistic when the load exceeds the core count.")
    return notes


def growth_markdown(figures: dict[str, Any]) -> str:
    steps = figures["steps"]
    lines = ["| turns + summaries | load s (nodes/s) | store_turn p50/p95/p99 ms | search session p50/p95/p99 | "
             "search project p50/p95/p99 | search everything p50/p95/p99 | build_context p50/p95/p99 | "
             "store on disk | data dir | peak RSS MiB |",
             "|---:|---:|---|---|---|---|---|---:|---:|---:|"]

    def ppp(d: dict[str, Any]) -> str:
        return f"{d.get('p50')} / {d.get('p95')} / {d.get('p99')}"

    for s in steps:
        disk = s.get("disk_bytes") or {}
        lines.append(
            f"| {s['nodes']:,} | {s['load_seconds']:,} ({s['load_nodes_per_s']:,.0f}) | {ppp(s['store_turn'])} | "
            f"{ppp(s['search session'])} | {ppp(s['search project'])} | {ppp(s['search everything'])} | "
            f"{ppp(s['build_context'])} | {_fmt_bytes(disk.get('store'))} | {_fmt_bytes(disk.get('total'))} | "
            f"{s['peak_rss_mb']} |"
        )
    lines.append("")
    strat = [f"{s['nodes']:,}: session {s['search session'].get('vector strategy')}; project "
             f"{s['search project'].get('vector strategy')}; everything {s['search everything'].get('vector strategy')}"
             for s in steps]
    if strat:
        lines += ["Vector strategies chosen: " + " · ".join(strat), ""]
    cpu = [f"{s['nodes']:,}: {s['load_server_cpu_seconds']} server CPU-s for {s['load_nodes_per_server_cpu_s']:,} "
           "nodes per server CPU-second" for s in steps if "load_server_cpu_seconds" in s]
    if cpu:
        lines += ["Load cost in CPU time (independent of how busy the shared machine is): " + " · ".join(cpu), ""]
    final = figures.get("disk_after_shutdown")
    if final:
        lines += [f"Store size after a clean shutdown (every page checkpointed) at {final['nodes']:,} nodes: "
                  f"**{_fmt_bytes(final['store'])}** store files and indexes, {_fmt_bytes(final['total'])} data "
                  f"directory with transaction logs.", ""]
    sm, w = figures.get("summarizer"), figures.get("worker")
    if sm:
        lines.append(f"- Offline extractive summarizer: {sm['turns']} turns (3 tool calls each) in {sm['seconds']} s = "
                     f"**{sm['turns_per_s']:,} turns/s** (one turn per summary).")
    if w:
        emb = f"embedded with {w['embedder']}" if w.get("embedder") else "no embedding"
        lines.append(
            f"- Worker (1 in-process worker, extractive, {emb}) at {w['at_nodes']:,} nodes: {w['turns']} imported "
            f"turns -> {w['turns_summarized']} summarised, {w['turns_embedded']} turns + {w['summaries_embedded']} "
            f"summaries embedded, {w['summaries']} summaries {w['summaries_by_level']} in {w['seconds']} s = "
            f"**{w['turns_per_s']} turns/s** summarised (with everything pending embedded: "
            f"{w.get('embeddings_per_s', 'n/a')} embeddings/s; the worker's embedding pass takes every pending "
            "turn of the database, e.g. the store_turn samples)."
        )
    lines.append(f"- Peak RSS of the Python process: {figures.get('peak_rss_mb')} MiB.")
    return "\n".join(lines) + "\n"


def _headline(figures: dict[str, Any]) -> list[Headline]:
    steps = figures["steps"]
    if not steps:
        return []
    first, last = steps[0], steps[-1]
    out = []
    for key, label in (("store_turn", "store_turn p50"), ("search everything", "hybrid search p50 (everything)"),
                       ("build_context", "build_context p50")):
        a, b = first[key].get("p50"), last[key].get("p50")
        if a and b:
            out.append(Headline(f"{label} at {last['nodes']:,} nodes", f"{b} ms",
                                f"at {first['nodes']:,} nodes: {a} ms", f"{b / a:.2f}x"))
    disk = last.get("disk_bytes")
    if disk:
        out.append(Headline(f"store on disk at {last['nodes']:,} nodes", _fmt_bytes(disk["store"]), "", ""))
    w = figures.get("worker")
    if w:
        out.append(Headline("worker throughput (embed + summarise)", f"{w['turns_per_s']} turns/s", "", ""))
    return out


def part_result(figures: dict[str, Any], plots: list[Path], dedicated: bool) -> PartResult:
    return PartResult(name="growth", title="How cost grows: 1k to 1M turns + summaries",
                      figures=figures, markdown=growth_markdown(figures), plots=plots,
                      headline=_headline(figures), notes=_notes(figures, dedicated))


def part_from_results(path: Path, out_dir: Path) -> PartResult:
    """The growth part rebuilt from a ``growth.json`` written by ``graphmem bench growth`` (the 1M step
    takes the better part of an hour, so ``bench all --growth-results`` can reuse a committed run): the
    same tables and headline, the plots drawn again under ``out_dir``, the file's own notes, and a first
    note naming the file and the command that produced it."""
    loaded = read_part_results(path, "growth")
    figures: dict[str, Any] = loaded["figures"]
    res = part_result(figures, plots(figures, out_dir), dedicated="disk_after_shutdown" in figures)
    res.notes = [results_source_note(path, loaded), *[str(n) for n in loaded.get("notes", res.notes)]]
    res.figures = {**figures, "source": str(path), "source_command": loaded.get("command")}
    return res


def write_growth(result: PartResult, out_dir: Path, command: str) -> tuple[Path, Path]:
    """``<out>/growth.json`` and ``growth.md`` (the PNGs are already there)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    m = result.figures.get("machine", {})
    js, md = out_dir / "growth.json", out_dir / "growth.md"
    js.write_text(json.dumps({"name": "growth", "command": command, "figures": result.figures,
                              "notes": result.notes, "plots": [p.name for p in result.plots]}, indent=2) + "\n")
    body = ["# Benchmark: growth", "", f"Command: `{command}`", "",
            f"Machine: {m.get('cpu')} ({m.get('cores')} cores, {m.get('memory_gb')} GB), {m.get('os')}, "
            f"Python {m.get('python')}, Neo4j {m.get('neo4j')}, graphmem {m.get('graphmem')}, {m.get('date')}", "",
            result.markdown, *[f"![{p.stem}]({p.name})" for p in result.plots], "",
            *[f"- {n}" for n in result.notes]]
    md.write_text("\n".join(body) + "\n")
    return js, md
