"""``graphmem bench growth``'s measurements at each size, and the dedicated server it grows."""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from graphmem.memory import GraphMemory
from graphmem.models import TurnIn

from .common import (
    machine_info,
    peak_rss_mb,
    percentiles,
    wait_for_idle_server,
)
from .growth_data import (
    DEDICATED_HEAP,
    DEDICATED_PAGECACHE,
    DIM,
    NODES_PER_SESSION,
    SESSIONS_PER_PROJECT,
    Dataset,
    GrowthConfig,
    Log,
    Synth,
    grow,
)

__all__ = ["dedicated_memory", "run_growth", "store_size_bytes"]


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


def _measure(mem: GraphMemory, synth: Synth, data: Dataset, cfg: GrowthConfig, step: int) -> dict[str, Any]:
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


def _worker_throughput(mem: GraphMemory, data: Dataset, n: int, embed: bool) -> dict[str, Any]:
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
    synth = Synth(cfg.seed)
    data = Dataset(ns=f"/graphmem-bench/growth-{uuid.uuid4().hex[:12]}")
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
            secs = grow(mem, synth, data, size, cfg.batch_sessions, log)
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
