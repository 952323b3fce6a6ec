"""Summarizer worker benchmark: offline summarizer speed, worker throughput, and "never blocking".

* **Offline summarizer**: :class:`~graphmem.providers.ExtractiveSummarizer` on realistic coding
  turns (3 tool calls each), one turn per summary, and 6-summary roll-ups.
* **Worker throughput**: a backlog of imported turns summarized (levels 1..n) by one in-process
  worker until idle; turns/s and summaries/s end to end (claims, reads, summaries, writes).
* **Never blocking**: ``store_turn`` and ``build_context`` (or, when the retrieval package is not
  there, ``recent_turns`` + ``load_session``) on one session, in alternating blocks without and with
  a busy ``graphmem worker run`` process (a separate OS process, as deployed, working through a
  backlog in another session and summarizing the measured session's new turns as they arrive).
  Blocks alternate so both conditions see the same background load on the machine.

Everything runs in its own namespace (``/graphmem-bench/<uuid>``), deleted afterwards.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from graphmem.memory import GraphMemory
from graphmem.models import TurnIn
from graphmem.providers import ExtractiveSummarizer, ToolCallForSummary, TurnForSummary
from graphmem.worker import SummaryWorker, WorkerConfig

from .common import BenchResult, machine_info, percentiles
from .store import _assistant, _tools, _user, cleanup_bench_namespace

__all__ = ["run_worker_bench"]

_CLI = "import sys; from graphmem.cli import main; sys.exit(main(sys.argv[1:]))"


def _turn_in(i: int, base: datetime) -> TurnIn:
    return TurnIn(user_message=_user(i), assistant_message=_assistant(i), tool_calls=_tools(i),
                  timestamp=base + timedelta(seconds=i), source_id=f"bench-{i}")


def _summarizer_figures(result: BenchResult, n: int) -> None:
    s = ExtractiveSummarizer()
    turns = [
        TurnForSummary(_user(i), _assistant(i), tuple(ToolCallForSummary.from_tool_call(c) for c in _tools(i)))
        for i in range(n)
    ]
    s.summarize(turns[:1])  # warm-up (imports networkx)
    t0 = time.perf_counter()
    l1 = [s.summarize([t]) for t in turns]
    secs = time.perf_counter() - t0
    result.figures["offline summarizer (extractive, 1 turn + 3 tool calls per summary)"] = (
        f"{n} turns in {secs:.2f} s = {n / secs:,.0f} turns/s"
    )
    groups = [[r.summary for r in l1[i : i + 6]] for i in range(0, len(l1) - 5, 6)]
    t0 = time.perf_counter()
    for g in groups:
        s.summarize_summaries(g)
    secs = time.perf_counter() - t0
    result.figures["offline roll-up (extractive, 6 summaries per roll-up)"] = (
        f"{len(groups)} roll-ups in {secs:.2f} s = {len(groups) / max(secs, 1e-9):,.0f}/s"
    )


def _worker_figures(mem: GraphMemory, ns: str, result: BenchResult, n: int) -> None:
    s = mem.create_session(ns + "/throughput", agent="bench")
    base = datetime(2025, 1, 1, tzinfo=UTC)
    mem.import_turns(s.id, [_turn_in(i, base) for i in range(n)])
    worker = SummaryWorker(mem.db, config=WorkerConfig(scope=ns))
    t0 = time.perf_counter()
    stats = worker.run_until_idle()
    secs = time.perf_counter() - t0
    d = stats.as_dict()
    result.figures["worker throughput (1 in-process worker, extractive, no embedding)"] = (
        f"{d['turns_summarized']} turns -> {d['summaries']} summaries {d['summaries_by_level']} in {secs:.2f} s = "
        f"{d['turns_summarized'] / secs:,.1f} turns/s, {d['summaries'] / secs:,.1f} summaries/s "
        f"(summarizing {d['summarize_seconds']} s, write transactions {d['write_seconds']} s)"
    )
    result.figures["worker throughput turns/s"] = round(d["turns_summarized"] / secs, 1)


def _spawn_worker(ns: str, env: Mapping[str, str], name: str) -> subprocess.Popen[bytes]:
    """A paused ``graphmem worker run`` process, returned once it is connected and ready."""
    full = dict(os.environ)
    full.update(env)
    proc = subprocess.Popen(
        [sys.executable, "-c", _CLI, "worker", "run", "--cwd", ns, "--no-embed", "--quiet", "--paused",
         "--id", name],
        env=full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    while True:
        line = proc.stderr.readline()
        if not line:
            raise RuntimeError(f"the benchmark worker exited ({proc.wait()})")
        if b" started " in line:
            break
    stream = proc.stderr
    threading.Thread(target=lambda: stream.read(), daemon=True).start()  # keep the pipe drained
    return proc


def _stop_worker(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _summary_count(mem: GraphMemory, session_id: str) -> int:
    return int(mem.db.read("maintenance/session_leftovers", sessionId=session_id)[0]["summaries"])


def run_worker_bench(
    mem: GraphMemory,
    *,
    summarizer_turns: int = 500,
    worker_turns: int = 600,
    ops_per_block: int = 40,
    blocks: int = 24,
    backlog: int = 2000,
    measured_turns: int = 30,
    warmup: int = 20,
    worker_env: Mapping[str, str] | None = None,
    duty_cycle: float | None = None,
    command: str = "graphmem bench worker",
    progress: Callable[[str], None] | None = None,
) -> BenchResult:
    """Run the three measurements on ``mem``'s server (see the module docstring)."""
    say = progress or (lambda _msg: None)
    ns = f"/graphmem-bench/{uuid.uuid4().hex}"
    mem.init_schema()
    result = BenchResult("worker", command, machine_info(mem.db.server_info().version))
    env = dict(worker_env or {})
    if duty_cycle is not None:
        env["GRAPHMEM_WORKER_DUTY_CYCLE"] = str(duty_cycle)
    try:
        say("offline summarizer")
        _summarizer_figures(result, summarizer_turns)
        say("worker throughput")
        _worker_figures(mem, ns, result, worker_turns)

        say("never blocking: setting up")
        measured = mem.create_session(ns + "/measured", agent="bench")
        busy = mem.create_session(ns + "/backlog/b", agent="bench")
        base = datetime(2025, 2, 1, tzinfo=UTC)
        mem.import_turns(measured.id, [_turn_in(i, base) for i in range(measured_turns)])
        SummaryWorker(mem.db, config=WorkerConfig(scope=ns)).run_until_idle()
        mem.import_turns(busy.id, [_turn_in(i, base) for i in range(backlog)])
        use_context = hasattr(mem, "build_context")
        counter = iter(range(10**9))

        def write() -> None:
            i = next(counter)
            mem.store_turn(measured.id, _user(i), _assistant(i), _tools(i))

        def read() -> None:
            if use_context:
                mem.build_context(measured.id, "why does the handler return 500 without a user key?")
            else:
                mem.recent_turns(measured.id, max_chars=5000, limit=3)
                mem.load_session(measured.id)

        for _ in range(warmup):  # warm-up (connections, query plans, lazy imports)
            write()
            read()
        # off: no worker; busy: a worker on the backlog only (it competes for CPU and disk);
        # busy+session: a worker on the backlog and the measured session (it also takes the session's
        # and the newest turn's locks when it writes their summaries)
        modes = ["off", "busy", "off", "busy+session"]
        samples: dict[str, dict[str, list[float]]] = {m: {"write": [], "read": []} for m in modes}
        worker_turns_done = 0
        worker_secs = 0.0
        # two long-lived worker processes, paused between their blocks (SIGUSR2 / SIGUSR1): short
        # interleaved blocks, so that the machine's background load hits every condition alike
        procs = {"busy": _spawn_worker(ns + "/backlog", env, "bench-busy"),
                 "busy+session": _spawn_worker(ns, env, "bench-busy-session")}
        try:
            for b in range(blocks):
                mode = modes[b % len(modes)]
                proc = procs.get(mode)
                if proc is not None:
                    before = _summary_count(mem, busy.id)
                    proc.send_signal(signal.SIGUSR2)
                    deadline = time.monotonic() + 60
                    while _summary_count(mem, busy.id) == before and time.monotonic() < deadline:
                        time.sleep(0.05)  # measure only once the worker is actually busy
                    started, before = time.monotonic(), _summary_count(mem, busy.id)
                if b % len(modes) == 0:
                    say(f"never blocking: block {b + 1}/{blocks}")
                for _ in range(ops_per_block):
                    t0 = time.perf_counter()
                    write()
                    t1 = time.perf_counter()
                    read()
                    t2 = time.perf_counter()
                    samples[mode]["write"].append((t1 - t0) * 1000)
                    samples[mode]["read"].append((t2 - t1) * 1000)
                if proc is not None:
                    worker_turns_done += _summary_count(mem, busy.id) - before
                    worker_secs += time.monotonic() - started
                    proc.send_signal(signal.SIGUSR1)
                    time.sleep(0.5)  # let it finish the job in hand
        finally:
            for proc in procs.values():
                _stop_worker(proc)
        read_name = "build_context" if use_context else "recent_turns + load_session"
        fig: dict[str, Any] = {}
        labels = {"off": "without worker", "busy": "with a busy worker (other session)",
                  "busy+session": "with a busy worker (also this session)"}
        for mode in ("off", "busy", "busy+session"):
            fig[f"store_turn, {labels[mode]}"] = percentiles(samples[mode]["write"])
            fig[f"{read_name}, {labels[mode]}"] = percentiles(samples[mode]["read"])
        result.figures.update(fig)
        w_off, r_off = fig["store_turn, without worker"], fig[f"{read_name}, without worker"]
        for mode in ("busy", "busy+session"):
            w_on, r_on = fig[f"store_turn, {labels[mode]}"], fig[f"{read_name}, {labels[mode]}"]
            if w_on.get("n") and w_off.get("n"):
                result.figures[f"store_turn p99 {mode} / off"] = round(w_on["p99"] / w_off["p99"], 3)
                result.figures[f"{read_name} p95 {mode} / off"] = round(r_on["p95"] / r_off["p95"], 3)
        result.figures["busy worker's own throughput during the measurement"] = (
            f"{worker_turns_done} backlog summaries (all levels) written in {worker_secs:.1f} s = "
            f"{worker_turns_done / max(worker_secs, 1e-9):,.1f}/s (plus the measured session's)"
        )
        result.notes.append(
            f"never blocking: {blocks} blocks of {ops_per_block} (store_turn, {read_name}) pairs in the order "
            "off, busy, off, busy+session, ...; two `graphmem worker run --no-embed` processes (default nice 10) "
            "are started paused and each resumed for its blocks only (SIGUSR2/SIGUSR1): one scoped to a backlog "
            f"of {backlog} turns in another session (busy), one to the whole namespace (busy+session: it also "
            "summarizes the measured session's turns as they arrive, taking that session's locks). Reads use the "
            f"memory's configured embedder for the query. Worker duty cycle: {env.get('GRAPHMEM_WORKER_DUTY_CYCLE', '1.0 (default)')}. "
            "The workers yield to foreground calls on this machine (graphmem.activity): no new job while a "
            f"store_turn/build_context ran in the last {env.get('GRAPHMEM_WORKER_YIELD_SECONDS', '0.25 (default)')} s, "
            "for at most 2 s in a row; their throughput during the measured blocks shows what that costs them."
        )
        if not use_context:
            result.notes.append("build_context was not available: the reads are recent_turns + load_session.")
        result.notes.append(f"machine load average at the end: {os.getloadavg()[0]:.1f} "
                            f"(shared machine; figures are noisy)")
    finally:
        cleanup_bench_namespace(mem, ns)
    return result
