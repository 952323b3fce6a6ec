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
import contextlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.memory import GraphMemory
from graphmem.models import TurnIn

from ..statements import dev_db
from .common import (
    machine_info,
    peak_rss_mb,
    percentiles,
    read_part_results,
    results_source_note,
    wait_for_idle_server,
)
from .parts import Headline, PartResult

__all__ = [
    "DEDICATED_HEAP",
    "DEDICATED_PAGECACHE",
    "GrowthConfig",
    "dedicated_memory",
    "part_from_results",
    "register",
    "run_growth",
    "run_part",
    "store_size_bytes",
]

DIM = 512
TOPICS = 200
TURNS_PER_SESSION = 90
L1_SPAN = 10  # turns per level-1 summary
NODES_PER_SESSION = TURNS_PER_SESSION + TURNS_PER_SESSION // L1_SPAN + 1
SESSIONS_PER_PROJECT = 25
MODEL = "synthetic-512"
DEDICATED_HEAP = "2g"
DEDICATED_PAGECACHE = "2g"
FULL_SIZES = (1_000, 10_000, 100_000, 1_000_000)
QUICK_SIZES = (1_000, 5_000)

Log = Callable[[str], None]


@dataclass
class GrowthConfig:
    """What to measure (defaults: the full run)."""

    sizes: tuple[int, ...] = FULL_SIZES
    store_samples: int = 200
    search_samples: int = 150  # per scope
    context_samples: int = 100
    warmup: int = 20
    worker_at: int = 10_000  # summarizer + worker throughput at the first size >= this
    worker_turns: int = 400
    summarizer_turns: int = 500
    batch_sessions: int = 10  # sessions (of 100 nodes) per load statement
    worker_embeds: bool = True  # False: the worker summarises without an embedder
    seed: int = 7
    idle_wait_seconds: float = 900.0  # after each load, wait up to this long for the server to go idle


# ----------------------------------------------------------------------------------------------
# synthetic data


class _Synth:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.np = np.random.default_rng(seed)
        sy = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "fi", "gu", "he", "ja", "qu"]
        words = list(dict.fromkeys("".join(self.rng.choice(sy) for _ in range(self.rng.randint(2, 4)))
                                   for _ in range(8000)))
        self.vocab = np.array(words, dtype=object)
        w = 1 / (np.arange(len(words)) + 1) ** 0.9
        self.p = w / w.sum()
        c = self.np.normal(size=(TOPICS, DIM))
        self.centroids = c / np.linalg.norm(c, axis=1, keepdims=True)

    def texts(self, topics: Sequence[int], n_words: int) -> list[str]:
        """One pseudo-word text per topic: Zipf-distributed common words plus topic-specific ones."""
        common = self.np.choice(len(self.vocab), size=(len(topics), n_words), p=self.p)
        own_n = max(2, n_words // 6)
        own = (np.asarray(topics)[:, None] * 37 + self.np.integers(0, 5, size=(len(topics), own_n))) % len(self.vocab)
        idx = np.concatenate([common, own], axis=1)
        self.np.permuted(idx, axis=1, out=idx)
        return [" ".join(row) for row in self.vocab[idx].tolist()]

    def vectors(self, topics: Sequence[int], noise: float = 0.9) -> list[list[float]]:
        v = self.centroids[np.asarray(topics)] + noise * self.np.normal(size=(len(topics), DIM)) / np.sqrt(DIM)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        out: list[list[float]] = v.astype(np.float32).tolist()
        return out


@dataclass
class _Dataset:
    ns: str
    sessions: list[tuple[str, int, int]] = field(default_factory=list)  # (id, project number, topic)
    nodes: int = 0


def _session_rows(synth: _Synth, data: _Dataset, count: int) -> list[dict[str, Any]]:
    base = datetime(2025, 1, 1, tzinfo=UTC)
    rows = []
    for _ in range(count):
        i = len(data.sessions)
        proj = i // SESSIONS_PER_PROJECT
        topic = synth.rng.randrange(TOPICS)
        sid = str(uuid.uuid4())
        data.sessions.append((sid, proj, topic))
        start = base + timedelta(hours=i)
        topics = [topic if synth.rng.random() < 0.6 else synth.rng.randrange(TOPICS) for _ in range(TURNS_PER_SESSION)]
        users = synth.texts(topics, 12)
        answers = synth.texts(topics, 40)
        results = synth.texts(topics, 20)
        tvecs = synth.vectors(topics)
        turns = [
            {"id": str(uuid.uuid4()), "index": j + 1, "userMessage": users[j], "assistantMessage": answers[j],
             "timestamp": start + timedelta(minutes=j), "embedding": tvecs[j], "toolId": str(uuid.uuid4()),
             "toolName": ("Read", "Grep", "Bash", "Edit")[j % 4], "toolArgs": json.dumps({"arg": users[j][:40]}),
             "toolResult": results[j], "toolMs": 10 + j}
            for j in range(TURNS_PER_SESSION)
        ]
        n1 = TURNS_PER_SESSION // L1_SPAN
        s_topics = [topic] * (n1 + 1)
        stexts = synth.texts(s_topics, 60)
        kfs = synth.texts(s_topics, 6)
        svecs = synth.vectors(s_topics)
        level1 = [
            {"id": str(uuid.uuid4()), "text": stexts[k], "keyFindings": [kfs[k]], "tool": "Read",
             "timestamp": start + timedelta(minutes=(k + 1) * L1_SPAN - 1), "embedding": svecs[k],
             "from": k * L1_SPAN, "to": (k + 1) * L1_SPAN - 1}
            for k in range(n1)
        ]
        level2 = [{"id": str(uuid.uuid4()), "text": stexts[n1], "keyFindings": [kfs[n1]],
                   "timestamp": start + timedelta(minutes=TURNS_PER_SESSION), "embedding": svecs[n1]}]
        rows.append({"id": sid, "cwd": f"{data.ns}/p{proj}/s{i}", "projectPath": f"{data.ns}/p{proj}",
                     "startedAt": start, "lastActivityAt": start + timedelta(minutes=TURNS_PER_SESSION),
                     "turns": turns, "level1": level1, "level2": level2})
    return rows


def _grow(mem: GraphMemory, synth: _Synth, data: _Dataset, target: int, batch: int, log: Log) -> float:
    """Load whole sessions until the dataset holds ``target`` turns + summaries; returns seconds."""
    want = max(1, -(-target // NODES_PER_SESSION))
    t0 = time.perf_counter()
    last = t0
    start_nodes = data.nodes
    while len(data.sessions) < want:
        rows = _session_rows(synth, data, min(batch, want - len(data.sessions)))
        dev_db(mem.db).write("bench/growth_sessions", sessions=rows, model=MODEL)
        data.nodes = len(data.sessions) * NODES_PER_SESSION
        if time.perf_counter() - last > 30:
            last = time.perf_counter()
            rate = (data.nodes - start_nodes) / max(1e-9, last - t0)
            log(f"  loaded {data.nodes:,} / {want * NODES_PER_SESSION:,} nodes ({rate:,.0f} nodes/s this step)")
    mem.db.write("meta/await_indexes", timeoutSeconds=3600)
    mem.await_text_index()
    return time.perf_counter() - t0


# ----------------------------------------------------------------------------------------------
# measurements


def store_size_bytes(data_dir: Path) -> dict[str, int]:
    """Bytes on disk under a Neo4j data directory: store files (with indexes) and transaction logs."""

    def du(p: Path) -> int:
        total = 0
        for root, _dirs, files in os.walk(p):
            for f in files:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(root, f)).st_blocks * 512
        return total

    return {"store": du(data_dir / "databases" / "neo4j"), "tx_logs": du(data_dir / "transactions" / "neo4j"),
            "total": du(data_dir)}


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds a process has used (Linux /proc), None when unreadable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _current_rss_mb() -> float:
    with contextlib.suppress(OSError, ValueError, StopIteration):
        line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmRSS"))
        return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def _measure(mem: GraphMemory, synth: _Synth, data: _Dataset, cfg: GrowthConfig, step: int) -> dict[str, Any]:
    from graphmem.retrieval import ContextConfig, Scope, Searcher

    from .store import _assistant, _tools, _user

    out: dict[str, Any] = {}
    # store_turn: into a session of its own per step (3 tool calls, no embedding)
    s = mem.create_session(f"{data.ns}/store/step{step}", project_path=f"{data.ns}/store", agent="bench")
    counter = iter(range(10**9))

    def one() -> None:
        i = next(counter)
        mem.store_turn(s.id, _user(i), _assistant(i), _tools(i))

    for _ in range(cfg.warmup):
        one()
    out["store_turn"] = percentiles([_timed(one) for _ in range(cfg.store_samples)])

    # hybrid search, k=10, the query vector given (database path), a fresh searcher (scope sizes)
    base_cfg = mem.searcher().config
    searcher = Searcher(mem.db, None, base_cfg, dimensions=DIM)
    queries = []
    for _ in range(cfg.search_samples):
        sid, proj, topic = synth.rng.choice(data.sessions)
        queries.append((sid, proj, topic, synth.texts([topic], 5)[0], synth.vectors([topic], 1.2)[0]))
    scopes: dict[str, Callable[[str, int], Scope]] = {
        "session": lambda sid, _p: Scope.session(sid),
        "project": lambda _s, p: Scope("project", f"{data.ns}/p{p}"),
        "everything": lambda _s, _p: Scope.everything(),
    }
    for kind, make in scopes.items():
        strategies: dict[str, int] = {}

        def run(q: tuple[str, int, int, str, list[float]], make: Callable[[str, int], Scope] = make,
                strategies: dict[str, int] = strategies, record: bool = True) -> None:
            r = searcher.search(q[3], scope=make(q[0], q[1]), k=10, mode="hybrid", vector=q[4])
            if record:
                st = str(r.strategy.get("vector", {}).get("strategy", "?"))
                strategies[st] = strategies.get(st, 0) + 1

        for q in queries[: cfg.warmup]:
            run(q, record=False)
        lat = [_timed(lambda q=q: run(q)) for q in queries]  # type: ignore[misc]
        p: dict[str, Any] = dict(percentiles(lat))
        p["vector strategy"] = ", ".join(f"{k} x{v}" for k, v in sorted(strategies.items()))
        out[f"search {kind}"] = p

    # build_context end to end (the message embedded by the memory's embedder), project scope
    mem.searcher(replace(base_cfg))  # a fresh searcher: scope sizes are cached
    ccfg = ContextConfig(scope="project")
    picks = [synth.rng.choice(data.sessions) for _ in range(cfg.context_samples + cfg.warmup)]
    lat = []
    for n, (sid, _proj, topic) in enumerate(picks):
        msg = f"what did we decide about {synth.texts([topic], 6)[0]}?"
        mem.deferred.wait_all()  # the previous call's background injection log (an LLM answer's time in a session)
        ms = _timed(lambda sid=sid, msg=msg: mem.build_context(sid, msg, config=ccfg))  # type: ignore[misc]
        if n >= cfg.warmup:
            lat.append(ms)
    out["build_context"] = percentiles(lat)
    return out


def _summarizer_throughput(n: int) -> dict[str, Any]:
    from graphmem.providers import ExtractiveSummarizer, ToolCallForSummary, TurnForSummary

    from .store import _assistant, _tools, _user

    s = ExtractiveSummarizer()
    turns = [TurnForSummary(_user(i), _assistant(i), tuple(ToolCallForSummary.from_tool_call(c) for c in _tools(i)))
             for i in range(n)]
    s.summarize(turns[:1])  # warm-up (lazy imports)
    t0 = time.perf_counter()
    for t in turns:
        s.summarize([t])
    secs = time.perf_counter() - t0
    return {"turns": n, "seconds": round(secs, 3), "turns_per_s": round(n / secs, 1)}


def _worker_throughput(mem: GraphMemory, data: _Dataset, n: int, embed: bool) -> dict[str, Any]:
    from graphmem.worker import SummaryWorker, WorkerConfig

    from .store import _assistant, _tools, _user

    scope = f"{data.ns}/worker"
    s = mem.create_session(f"{scope}/s", agent="bench")
    base = datetime(2025, 6, 1, tzinfo=UTC)
    mem.import_turns(s.id, [TurnIn(user_message=_user(i), assistant_message=_assistant(i), tool_calls=_tools(i),
                                   timestamp=base + timedelta(seconds=i), source_id=f"growth-worker-{i}")
                            for i in range(n)])
    embedder = mem.embedder if embed else None
    worker = SummaryWorker(mem.db, None, embedder, WorkerConfig(scope=scope))
    t0 = time.perf_counter()
    stats = worker.run_until_idle()
    secs = time.perf_counter() - t0
    d = stats.as_dict()
    return {
        "turns": n, "seconds": round(secs, 2),
        "turns_summarized": d["turns_summarized"], "turns_embedded": d["turns_embedded"],
        "summaries": d["summaries"], "summaries_embedded": d["summaries_embedded"],
        "summaries_by_level": d["summaries_by_level"],
        "turns_per_s": round(n / secs, 1),
        "embeddings_per_s": round((d["turns_embedded"] + d["summaries_embedded"]) / secs, 1),
        "embedder": getattr(embedder, "model", None) if embedder is not None else None,
    }


def run_growth(
    mem: GraphMemory,
    cfg: GrowthConfig,
    *,
    data_dir: Path | None = None,
    server_pid: int | None = None,
    log: Log = print,
    on_step: Callable[[dict[str, Any]], object] | None = None,
) -> dict[str, Any]:
    """Grow a synthetic dataset on ``mem``'s server through ``cfg.sizes`` and measure after each step.

    ``data_dir``: the server's data directory (store size on disk; None: not measured); ``server_pid``:
    the server's process on this machine (its CPU seconds per load step; None: not measured). The dataset
    lives under its own namespace (``/graphmem-bench/growth-<uuid>``), deleted afterwards only when
    it is small (a dedicated server is thrown away instead). Returns the figures (JSON-serialisable);
    ``on_step`` gets them after every size (partial results survive an interrupted run)."""
    mem.init_schema()
    synth = _Synth(cfg.seed)
    data = _Dataset(ns=f"/graphmem-bench/growth-{uuid.uuid4().hex[:12]}")
    figures: dict[str, Any] = {
        "machine": machine_info(mem.db.server_info().version),
        "config": {**cfg.__dict__, "sizes": list(cfg.sizes), "nodes_per_session": NODES_PER_SESSION,
                   "sessions_per_project": SESSIONS_PER_PROJECT, "dimensions": DIM},
        "steps": [],
    }
    total_load = 0.0
    try:
        for step, size in enumerate(cfg.sizes):
            log(f"growing to {size:,} turns + summaries")
            before = data.nodes
            cpu0 = _cpu_seconds(server_pid) if server_pid else None
            own0 = time.process_time()
            secs = _grow(mem, synth, data, size, cfg.batch_sessions, log)
            cpu1 = _cpu_seconds(server_pid) if server_pid else None
            own1 = time.process_time()
            total_load += secs
            added = data.nodes - before
            log(f"  {data.nodes:,} nodes ({added:,} added in {secs:,.1f} s = {added / max(secs, 1e-9):,.0f}/s)")
            row: dict[str, Any] = {
                "target": size, "nodes": data.nodes, "sessions": len(data.sessions),
                "load_seconds": round(secs, 1), "load_nodes_per_s": round(added / max(secs, 1e-9), 1),
                "load_seconds_cumulative": round(total_load, 1),
                "load_python_cpu_seconds": round(own1 - own0, 1),
            }
            if cpu0 is not None and cpu1 is not None:
                row["load_server_cpu_seconds"] = round(cpu1 - cpu0, 1)
                row["load_nodes_per_server_cpu_s"] = round(added / max(cpu1 - cpu0, 1e-9), 1)
            # after a bulk load Neo4j merges index segments and applies full-text updates for a
            # while: measure the query, not that
            idle_s, frac = wait_for_idle_server(server_pid, max_seconds=cfg.idle_wait_seconds)
            if frac is not None:
                row["idle_wait_seconds"] = round(idle_s, 1)
                row["idle_cpu_fraction"] = round(frac, 3)
                log(f"  server idle after {idle_s:.0f} s ({frac:.0%} of a core over 5 s)")
            row.update(_measure(mem, synth, data, cfg, step))
            if cfg.worker_at and size >= cfg.worker_at and "worker" not in figures:
                log("  summarizer and worker throughput")
                figures["summarizer"] = _summarizer_throughput(cfg.summarizer_turns)
                figures["worker"] = {"at_nodes": data.nodes,
                                     **_worker_throughput(mem, data, cfg.worker_turns, cfg.worker_embeds)}
            if data_dir is not None:
                row["disk_bytes"] = store_size_bytes(data_dir)
            row["rss_mb"] = _current_rss_mb()
            row["peak_rss_mb"] = peak_rss_mb()
            row["loadavg"] = [round(x, 2) for x in os.getloadavg()]
            figures["steps"].append(row)
            log(f"  store_turn p50 {row['store_turn'].get('p50')} ms, search(everything) p50 "
                f"{row['search everything'].get('p50')} ms, build_context p50 {row['build_context'].get('p50')} ms, "
                f"disk {(row.get('disk_bytes') or {}).get('total', 0) / 1e6:,.0f} MB, load avg {row['loadavg']}")
            figures["peak_rss_mb"] = peak_rss_mb()
            if on_step is not None:
                on_step(figures)
        if "worker" not in figures and cfg.worker_at:
            figures["summarizer"] = _summarizer_throughput(cfg.summarizer_turns)
            figures["worker"] = {"at_nodes": data.nodes,
                                 **_worker_throughput(mem, data, cfg.worker_turns, cfg.worker_embeds)}
    finally:
        figures["peak_rss_mb"] = peak_rss_mb()
        figures["namespace"] = data.ns
        if data.nodes <= 20_000:  # small: clean up (on a shared server); big ones live on a thrown-away server
            from .store import cleanup_bench_namespace

            cleanup_bench_namespace(mem, data.ns)
    return figures


# ----------------------------------------------------------------------------------------------
# a dedicated managed server


def _free_port(avoid: set[int] | None = None) -> int:
    import socket

    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in (avoid or set()):
            return port


@contextlib.contextmanager
def dedicated_memory(home: Path, *, heap: str = DEDICATED_HEAP, pagecache: str = DEDICATED_PAGECACHE,
                     bolt_port: int | None = None, http_port: int | None = None, version: str | None = None,
                     log: Log = print) -> Iterator[tuple[GraphMemory, Path, int]]:
    """A GraphMemory on a managed Neo4j of its own under ``home`` (started, and stopped afterwards),
    with the configured embedder; yields it, the server's data directory and its process id."""
    from graphmem.config import Settings
    from graphmem.db import Database
    from graphmem.embedding import make_embedder
    from graphmem.neo4j_local import ManagedServer

    settings = Settings.load()
    bolt = bolt_port or _free_port()
    server = ManagedServer(home, version or settings.neo4j_version, java_home=settings.java_home, heap=heap,
                           pagecache=pagecache, bolt_port=bolt, http_port=http_port or _free_port({bolt}),
                           start_timeout=600)
    shared = settings.home.expanduser() / "neo4j" / server.version / "lib"
    if not server.installed() and shared.is_dir() and not server.lib_dir.exists():
        server.server_dir.mkdir(parents=True, exist_ok=True)
        server.lib_dir.symlink_to(shared, target_is_directory=True)  # reuse the jars already downloaded
    log(f"starting a dedicated Neo4j {server.version} under {home} (heap {heap}, page cache {pagecache})")
    st = server.start()
    try:
        db = Database(st.uri, "neo4j", server.password())
        mem = GraphMemory(db, embedder=make_embedder(settings))
        try:
            yield mem, server.server_dir / "data", st.pid
        finally:
            mem.close()
    finally:
        server.stop()


# ----------------------------------------------------------------------------------------------
# report: markdown, plots, PartResult


def _disk_after_shutdown(figures: dict[str, Any], data_dir: Path) -> None:
    """The store size once the server has stopped (a clean shutdown checkpoints every page)."""
    nodes = figures["steps"][-1]["nodes"] if figures["steps"] else 0
    figures["disk_after_shutdown"] = {"nodes": nodes, **store_size_bytes(data_dir)}


def _fmt_bytes(n: int | None) -> str:
    return "n/a" if n is None else f"{n / 1e6:,.0f} MB"


def _plots(figures: dict[str, Any], out_dir: Path) -> list[Path]:
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
    res = part_result(figures, _plots(figures, out_dir), dedicated="disk_after_shutdown" in figures)
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
        return part_result(figures, _plots(figures, out_dir), dedicated=False)
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
        _disk_after_shutdown(figures, dd)
    finally:
        if own:
            shutil.rmtree(where, ignore_errors=True)
    return part_result(figures, _plots(figures, out_dir), dedicated=True)


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
        result = part_result(fig, _plots(fig, out), dedicated=True)
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
        _disk_after_shutdown(figures, dd)
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
