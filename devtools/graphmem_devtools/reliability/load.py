"""``graphmem reliability load``: many writer and reader processes against one server, with figures.

Writers (separate processes) call :meth:`GraphMemory.store_turn` with three tool calls each, into
their own session and, every other turn, into a session they share with other writers. Readers
(separate processes, each with the local embedder) alternate :meth:`GraphMemory.build_context`
(which embeds the message, injects facts and logs the injection) and a hybrid
:meth:`GraphMemory.search` over a project. Every process starts at the same moment (after its
imports, connection and model load) and stops at a common deadline.

Reported: throughput, p50/p95/p99 of ``store_turn``, ``build_context`` and ``search``, every error
(classified by exception type and message), the peak resident memory of every process
(``VmHWM``) and of the Neo4j JVM (sampled ``VmRSS`` from ``/proc`` during the run, and its
``VmHWM``), the load average during the run, and at the end the check that every session's turn
indexes are exactly ``1..n``, that every acknowledged turn is stored with its tool calls and that
the ``NEXT`` chain is linear.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import queue
import random
import shlex
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..bench.common import BenchResult, machine_info, percentiles, write_results

__all__ = ["LoadConfig", "LoadOutcome", "proc_memory_mb", "register", "run_load"]

Target = tuple[str, str, str]
"""(uri, user, password) given to every child process."""

_TOPICS = (
    ("timezone", "The scheduler crashes when TZ is unset; default to UTC in settings.py and add a test."),
    ("cart", "The cart is empty after login because the session cookie had SameSite=Strict; use Lax."),
    ("migration", "The orders migration locks the table; split it into batches of 10k rows with a pause."),
    ("flaky", "test_upload is flaky because it depends on wall-clock time; freeze the clock with a fixture."),
    ("memory", "The worker leaks memory by caching every parsed file; bound the cache to 512 entries."),
    ("docker", "The image is 2 GB because build tools stay in the final stage; use a multi-stage build."),
)


@dataclass(frozen=True)
class LoadConfig:
    """Sizes of one load run."""

    writers: int = 8
    readers: int = 8
    seconds: float = 600.0
    shared_sessions: int = 2
    """Sessions shared by writers (writer ``w`` also writes to shared session ``w % shared_sessions``
    on every other turn); 0 = each writer only writes to its own session."""
    projects: int = 4
    seed_turns: int = 60
    """Embedded history turns per project before the run (what the readers find)."""
    facts_per_project: int = 3
    tool_calls: int = 3
    ready_timeout: float = 1800.0
    """Seconds the processes may take to import, connect, load the model and warm up."""


@dataclass
class LoadOutcome:
    """Everything measured, plus the pass/fail verdict (errors 0 and contiguity intact)."""

    result: BenchResult
    errors: int
    contiguity_ok: bool
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.errors == 0 and self.contiguity_ok


def proc_memory_mb(pid: int | str = "self") -> dict[str, float]:
    """``VmRSS`` and ``VmHWM`` (peak resident) of a process from ``/proc``, in MiB (empty if gone)."""
    out: dict[str, float] = {}
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return out
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            parts = rest.split()
            if parts:
                out[key] = round(int(parts[0]) / 1024, 1)
    return out


def _classify(e: BaseException) -> str:
    msg = " ".join(str(e).split())[:160]
    return f"{type(e).__module__}.{type(e).__name__}: {msg}"


def _tool_calls(n: int, i: int, who: str) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = [
        {"name": "Grep", "args": {"pattern": f"def handler_{i}", "path": "src/"}, "result": f"src/{who}.py:{i}",
         "success": True, "duration_ms": 30},
        {"name": "Read", "args": {"file_path": f"src/{who}.py"}, "result": "x = 1\n" * 20, "success": True,
         "duration_ms": 8},
        {"name": "Bash", "args": {"command": "pytest -q"}, "result": f"{i % 9} passed", "success": i % 7 != 0,
         "duration_ms": 700},
    ]
    return [calls[j % len(calls)] for j in range(n)]


def _wait_go(go: Any, ready: Any, name: str, timeout: float) -> bool:
    ready.put(("ready", name, os.getpid()))
    return bool(go.wait(timeout))


def _writer_main(target: Target, name: str, own: str, shared: str | None, tool_calls: int, go: Any,
                 deadline: Any, ready: Any, out: Any) -> None:
    """One writer process: store_turn until the deadline; reports latencies, acks and errors."""
    from graphmem.db import Database
    from graphmem.memory import GraphMemory

    lat: list[float] = []
    acks: list[tuple[str, int, str]] = []
    errors: Counter[str] = Counter()
    # GraphMemory closes first: its background writer finishes before the driver closes
    with Database(*target) as db, GraphMemory(db) as mem:
        db.server_info()  # connect now, not inside the first timed call
        warm = mem.store_turn(own, f"[{name}] warm-up", "warm-up", _tool_calls(tool_calls, 0, name))
        acks.append((own, warm.index, warm.id))  # not timed: it compiles the statement on a fresh server
        if _wait_go(go, ready, name, 600):
            i = 0
            rng = random.Random(name)
            while time.time() < deadline.value or i < 2:  # at least one turn per session, however slow
                sid = shared if shared is not None and i % 2 == 1 else own
                topic, answer = _TOPICS[rng.randrange(len(_TOPICS))]
                t0 = time.perf_counter()
                try:
                    t = mem.store_turn(sid, f"[{name} #{i}] What about the {topic} problem?",
                                       f"{answer} ({name} turn {i})", _tool_calls(tool_calls, i, name))
                    lat.append((time.perf_counter() - t0) * 1000)
                    acks.append((sid, t.index, t.id))
                except Exception as e:  # counted and classified; the run goes on
                    errors[_classify(e)] += 1
                    time.sleep(0.05)
                i += 1
    out.put({"name": name, "kind": "writer", "pid": os.getpid(), "store_turn": lat, "acks": acks,
             "errors": dict(errors), "memory": proc_memory_mb()})


def _reader_main(target: Target, name: str, sessions: list[tuple[str, str]], go: Any, deadline: Any,
                 ready: Any, out: Any) -> None:
    """One reader process: build_context and hybrid search alternately until the deadline."""
    from graphmem.db import Database
    from graphmem.embedding import LocalEmbedder
    from graphmem.memory import GraphMemory

    lat: dict[str, list[float]] = {"build_context": [], "search": []}
    errors: Counter[str] = Counter()
    strategies: Counter[str] = Counter()
    embedder = LocalEmbedder()
    embedder.load()
    # GraphMemory closes first: its background writer (the injection logs) finishes before the driver
    # closes (a log still being written then failed the process with a BufferError in the driver)
    with Database(*target) as db, GraphMemory(db, embedder=embedder) as mem:
        db.server_info()
        sid0, project0 = sessions[0]
        mem.build_context(sid0, "warm-up")  # not timed: plans the statements on a fresh server
        mem.search("warm-up", scope=f"project:{project0}", k=10)
        if _wait_go(go, ready, name, 600):
            rng = random.Random(name)
            i = 0
            while time.time() < deadline.value or i < 2:  # at least one of each call, however slow
                sid, project = sessions[rng.randrange(len(sessions))]
                topic, answer = _TOPICS[rng.randrange(len(_TOPICS))]
                kind = "build_context" if i % 2 == 0 else "search"
                t0 = time.perf_counter()
                try:
                    if kind == "build_context":
                        mem.build_context(sid, f"the {topic} problem is back, what did we do last time?")
                    else:
                        res = mem.search(f"{topic} {answer.split(';')[0]}", scope=f"project:{project}", k=10)
                        strategies[str(res.strategy.get("vector", {}).get("strategy", res.effective_mode))] += 1
                    lat[kind].append((time.perf_counter() - t0) * 1000)
                except Exception as e:
                    errors[f"{kind}: {_classify(e)}"] += 1
                    time.sleep(0.05)
                i += 1
    out.put({"name": name, "kind": "reader", "pid": os.getpid(), **lat, "errors": dict(errors),
             "strategies": dict(strategies), "memory": proc_memory_mb()})


class _Sampler(threading.Thread):
    """Samples the Neo4j JVM's resident memory and the load average every ``every`` seconds."""

    def __init__(self, pid: int | None, every: float = 2.0) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.every = every
        self.jvm_rss: list[float] = []
        self.load: list[float] = []
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.load.append(os.getloadavg()[0])
            if self.pid is not None:
                rss = proc_memory_mb(self.pid).get("VmRSS")
                if rss is not None:
                    self.jvm_rss.append(rss)
            self._stop_event.wait(self.every)

    def stop(self) -> None:
        self._stop_event.set()
        self.join(timeout=10)


def _seed(mem: Any, ns: str, cfg: LoadConfig) -> list[str]:
    """Projects with embedded history and facts; returns the project paths."""
    projects = [f"{ns}/project-{p}" for p in range(cfg.projects)]
    for p, path in enumerate(projects):
        hist = mem.create_session(path, agent="load-history")
        rows = []
        for i in range(cfg.seed_turns):
            topic, answer = _TOPICS[(i + p) % len(_TOPICS)]
            rows.append({"user_message": f"history {i}: the {topic} issue in project {p}",
                         "assistant_message": answer, "tool_calls": _tool_calls(cfg.tool_calls, i, "seed")})
        mem.import_turns(hist.id, rows)
        for j in range(cfg.facts_per_project):
            topic, answer = _TOPICS[j % len(_TOPICS)]
            mem.remember(f"Project {p} decided about {topic}: {answer}", [f"load-{topic}"], type="decision",
                         scope=f"project:{path}")
    if mem.embedder is not None:
        mem.embed_pending()
    return projects


def run_load(target: Target, cfg: LoadConfig, *, neo4j_pid: int | None = None, command: str = "",
             out_dir: Path | None = None, keep: bool = False, log: Any = None) -> LoadOutcome:
    """Run the load against ``target`` and return the figures (written to ``out_dir`` if given)."""
    from graphmem.db import Database
    from graphmem.embedding import LocalEmbedder
    from graphmem.memory import GraphMemory

    say = log or (lambda _m: None)
    ns = f"/graphmem-load/{uuid.uuid4().hex}"
    db = Database(*target)
    mem = GraphMemory(db, embedder=LocalEmbedder())
    mem.ensure_schema()
    version = db.server_info().version
    result = BenchResult("reliability-load", command, machine_info(version))
    problems: list[str] = []
    try:
        t_seed = time.perf_counter()
        projects = _seed(mem, ns, cfg)
        say(f"seeded {len(projects)} projects x {cfg.seed_turns} turns in {time.perf_counter() - t_seed:.1f} s")
        # writer sessions: own ones spread over the projects, plus the shared ones
        own = [mem.create_session(f"{projects[w % len(projects)]}/w{w}", agent="load-writer").id
               for w in range(cfg.writers)]
        shared = [mem.create_session(f"{projects[s % len(projects)]}/shared{s}", agent="load-shared").id
                  for s in range(min(cfg.shared_sessions, cfg.writers))]
        project_of = {sid: projects[w % len(projects)] for w, sid in enumerate(own)}
        project_of.update({sid: projects[s % len(projects)] for s, sid in enumerate(shared)})
        read_sessions = sorted(project_of.items())
        ctx = mp.get_context("spawn")
        go = ctx.Event()
        deadline = ctx.Value("d", 0.0)
        ready: Any = ctx.Queue()
        out: Any = ctx.Queue()
        procs = []
        for w in range(cfg.writers):
            sh = shared[w % len(shared)] if shared else None
            procs.append(ctx.Process(target=_writer_main, name=f"writer-{w}", daemon=True, args=(
                target, f"writer-{w}", own[w], sh, cfg.tool_calls, go, deadline, ready, out)))
        for rd in range(cfg.readers):
            procs.append(ctx.Process(target=_reader_main, name=f"reader-{rd}", daemon=True, args=(
                target, f"reader-{rd}", read_sessions, go, deadline, ready, out)))
        for p in procs:
            p.start()
        t_ready = time.perf_counter()
        n_ready = 0
        while n_ready < len(procs):
            try:
                ready.get(timeout=5)
                n_ready += 1
            except queue.Empty:
                dead = [p.name for p in procs if p.exitcode is not None]
                if dead or time.perf_counter() - t_ready > cfg.ready_timeout:
                    for p in procs:
                        if p.is_alive():
                            p.kill()
                    raise RuntimeError(f"only {n_ready} of {len(procs)} processes got ready (dead: {dead})") from None
        say(f"{len(procs)} processes ready in {time.perf_counter() - t_ready:.1f} s; running {cfg.seconds:.0f} s")
        jvm_before = proc_memory_mb(neo4j_pid) if neo4j_pid else {}
        sampler = _Sampler(neo4j_pid)
        sampler.start()
        load_start = os.getloadavg()
        deadline.value = time.time() + cfg.seconds
        t_run = time.perf_counter()
        go.set()
        reports: list[dict[str, Any]] = []
        grace = cfg.seconds + 300
        while len(reports) < len(procs):
            try:
                reports.append(out.get(timeout=max(5.0, grace - (time.perf_counter() - t_run))))
            except queue.Empty:
                problems.append(f"only {len(reports)} of {len(procs)} processes reported")
                break
        wall = time.perf_counter() - t_run
        load_end = os.getloadavg()
        sampler.stop()
        for p in procs:
            p.join(timeout=30)
            if p.exitcode != 0:
                problems.append(f"{p.name} exit code {p.exitcode}")
                if p.is_alive():
                    p.kill()
        jvm_after = proc_memory_mb(neo4j_pid) if neo4j_pid else {}

        # -- the end check: contiguity, acknowledged turns present, tool calls, NEXT chain ----------
        acks: dict[str, dict[int, str]] = {}
        for rep in reports:
            for sid, idx, tid in rep.get("acks", []):
                if idx in acks.setdefault(sid, {}):
                    problems.append(f"session {sid}: index {idx} acknowledged twice")
                acks[sid][idx] = tid
        checked_turns = 0
        for sid in own + shared:
            detail = mem.load_session(sid)
            idxs = [t.index for t in detail.turns]
            checked_turns += len(idxs)
            if idxs != list(range(1, len(idxs) + 1)):
                problems.append(f"session {sid}: turn indexes not 1..{len(idxs)}")
            if detail.turn_count != len(idxs):
                problems.append(f"session {sid}: turnCount {detail.turn_count} != {len(idxs)} turns")
            stored = {t.index: t.id for t in detail.turns}
            for idx, tid in acks.get(sid, {}).items():
                if stored.get(idx) != tid:
                    problems.append(f"session {sid}: acknowledged turn {idx} ({tid}) missing")
            if len(stored) != len(acks.get(sid, {})):
                problems.append(f"session {sid}: {len(stored)} stored vs {len(acks.get(sid, {}))} acknowledged")
            bad_tools = [t.index for t in detail.turns if len(t.tool_calls) != cfg.tool_calls]
            if bad_tools:
                problems.append(f"session {sid}: {len(bad_tools)} turns without {cfg.tool_calls} tool calls")
            chain = db.read("maintenance/next_chain_check", sessionId=sid)[0]
            n = len(idxs)
            if chain != {"turns": n, "nexts": max(0, n - 1), "heads": 1 if n else 0, "branching": 0}:
                problems.append(f"session {sid}: NEXT chain {chain}")
        contiguity_ok = not [p for p in problems if p.startswith("session ")]

        # -- figures --------------------------------------------------------------------------------
        store_lat = [x for r in reports for x in r.get("store_turn", [])]
        ctx_lat = [x for r in reports for x in r.get("build_context", [])]
        search_lat = [x for r in reports for x in r.get("search", [])]
        errors: Counter[str] = Counter()
        for r in reports:
            for k, v in r.get("errors", {}).items():
                errors[f"{r['kind']}: {k}"] += int(v)
        n_errors = sum(errors.values())
        strategies: Counter[str] = Counter()
        for r in reports:
            strategies.update(r.get("strategies", {}))
        f = result.figures
        f["store_turn"] = {**percentiles(store_lat), "per_s": round(len(store_lat) / wall, 1)}
        f["build_context"] = {**percentiles(ctx_lat), "per_s": round(len(ctx_lat) / wall, 1)}
        f["search (hybrid, project scope)"] = {**percentiles(search_lat), "per_s": round(len(search_lat) / wall, 1)}
        f["config"] = asdict(cfg)
        f["wall_seconds"] = round(wall, 1)
        f["throughput_ops_per_s"] = round((len(store_lat) + len(ctx_lat) + len(search_lat)) / wall, 1)
        f["errors"] = n_errors
        f["errors_by_class"] = dict(errors)
        f["vector_strategies"] = dict(strategies)
        f["sessions_checked"] = len(own) + len(shared)
        f["turns_checked"] = checked_turns
        f["turns_acknowledged"] = sum(len(v) for v in acks.values())
        f["contiguity_ok"] = contiguity_ok
        f["process_memory_mb"] = {r["name"]: r.get("memory", {}) for r in sorted(reports, key=lambda r: r["name"])}
        f["peak_rss_mb_max_writer"] = max((r.get("memory", {}).get("VmHWM", 0.0) for r in reports
                                           if r["kind"] == "writer"), default=0.0)
        f["peak_rss_mb_max_reader"] = max((r.get("memory", {}).get("VmHWM", 0.0) for r in reports
                                           if r["kind"] == "reader"), default=0.0)
        f["neo4j_jvm_memory_mb"] = {
            "pid": neo4j_pid, "rss_before": jvm_before.get("VmRSS"), "rss_after": jvm_after.get("VmRSS"),
            "rss_max_sampled": max(sampler.jvm_rss, default=None), "vmhwm_after": jvm_after.get("VmHWM"),
        }
        f["coordinator_memory_mb"] = proc_memory_mb()
        f["loadavg"] = {
            "start_1m": round(load_start[0], 2), "end_1m": round(load_end[0], 2),
            "mean_1m_sampled": round(sum(sampler.load) / len(sampler.load), 2) if sampler.load else None,
            "max_1m_sampled": round(max(sampler.load), 2) if sampler.load else None,
        }
        f["problems"] = problems
        result.notes += [
            f"{cfg.writers} writer and {cfg.readers} reader processes (spawned), {cfg.seconds:.0f} s, one Neo4j "
            f"{version}; writers store_turn with {cfg.tool_calls} tool calls into their own session and, every "
            f"other turn, into one of {len(shared)} shared sessions; readers alternate build_context (local USE "
            "embedder, fact injection on) and a hybrid project-scoped search (k=10).",
            f"Seeded history: {cfg.projects} projects x {cfg.seed_turns} embedded turns and "
            f"{cfg.facts_per_project} project facts. No summarizer worker runs during the load: new turns stay "
            "pending (found by the full-text side only).",
            f"Load average (1 min) {load_start[0]:.2f} at start, {load_end[0]:.2f} at end, sampled mean "
            f"{f['loadavg']['mean_1m_sampled']}, max {f['loadavg']['max_1m_sampled']}; the machine has "
            f"{os.cpu_count()} cores, shared with other work, so latencies are pessimistic.",
            f"Errors: {n_errors}" + (f" ({dict(errors)})" if errors else "") + "; contiguity check: "
            + ("every session's indexes are 1..n, every acknowledged turn is stored with its tool calls, NEXT "
               "chains are linear" if contiguity_ok else "FAILED: " + "; ".join(problems[:10])),
            "Memory: VmHWM (peak resident) of each process read from /proc/self/status at its end; the Neo4j JVM's "
            "VmRSS sampled every 2 s from /proc/<pid>/status (heap and page cache are preallocated/mapped, so "
            "its resident size mostly reflects the configuration).",
        ]
        if out_dir is not None:
            write_results(result, out_dir)
        return LoadOutcome(result, n_errors, contiguity_ok and not problems, problems)
    finally:
        if not keep:
            from graphmem.facts import delete_facts_under_path

            for row in db.read("maintenance/sessions_under_path", path=ns, prefix=ns + "/"):
                mem.delete_session(row["id"])
            delete_facts_under_path(db, ns)
        db.close()


# -- CLI --------------------------------------------------------------------------------------------
def register(verbs: Any) -> None:
    p = verbs.add_parser("load", help="N writer + N reader processes for M minutes: latency, errors, memory")
    p.add_argument("--writers", type=int, default=8)
    p.add_argument("--readers", type=int, default=8)
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--shared-sessions", type=int, default=2)
    p.add_argument("--projects", type=int, default=4)
    p.add_argument("--seed-turns", type=int, default=60)
    p.add_argument("--keep", action="store_true", help="keep the data written (namespace under /graphmem-load)")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    p.set_defaults(handler=_cli)


def _cli(args: argparse.Namespace) -> int:
    from graphmem.config import Settings

    settings = Settings.load()
    pid: int | None = None
    if settings.managed:
        from graphmem.neo4j_local import ManagedServer

        server = ManagedServer(settings.home, settings.neo4j_version, java_home=settings.java_home,
                               heap=settings.heap, pagecache=settings.pagecache, bolt_port=settings.bolt_port,
                               http_port=settings.http_port, start_timeout=settings.start_timeout)
        st = server.start()
        target: Target = (st.uri, "neo4j", server.password())
        pid = st.pid
    else:
        pw = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
        target = (str(settings.neo4j_uri), settings.neo4j_user, pw)
    cfg = LoadConfig(writers=args.writers, readers=args.readers, seconds=args.minutes * 60,
                     shared_sessions=args.shared_sessions, projects=args.projects, seed_turns=args.seed_turns)
    command = "graphmem " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    outcome = run_load(target, cfg, neo4j_pid=pid, command=command, out_dir=args.out, keep=args.keep,
                       log=lambda m: print(m, file=sys.stderr, flush=True))
    print(outcome.result.markdown())
    return 0 if outcome.ok else 1
