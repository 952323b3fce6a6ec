"""``graphmem bench async``: 50 concurrent ``build_context`` calls, AsyncGraphMemory in one event
loop against GraphMemory in 50 threads and GraphMemory one call after the other."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

from graphmem import AsyncGraphMemory, GraphMemory, Settings

from .common import BenchResult, machine_info, percentiles

__all__ = ["run_async_bench"]


def _commit() -> str:
    try:
        root = Path(__file__).resolve().parents[3]
        return subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def _messages(round_: int, n: int) -> list[str]:
    return [f"round {round_} question {i}: how did we fix the deploy timeout and the cache key?" for i in range(n)]


def run_async_bench(mem: GraphMemory, settings: Settings, *, concurrency: int = 50, rounds: int = 5,
                    turns: int = 200, command: str = "graphmem bench async",
                    progress: Callable[[str], None] | None = None) -> BenchResult:
    """Throughput (contexts per second) and per-call latency of ``concurrency`` concurrent
    build_context calls, ``rounds`` times per mode, on one session of ``turns`` turns."""
    say = progress or (lambda _m: None)
    ns = f"/graphmem-bench/async/{uuid.uuid4().hex}"
    session = mem.create_session(ns, ns, "bench")
    t0 = datetime.now(UTC) - timedelta(days=1)
    mem.import_turns(session.id, [
        {"user_message": f"question {i} about module {i % 17}: the deploy timeout, the cache key, invoice {i}",
         "assistant_message": f"answer {i}: changed deploy.sh step {i % 5} and the cache key of module {i % 17}",
         "timestamp": t0 + timedelta(minutes=i)} for i in range(turns)])
    mem.await_text_index()
    figures: dict[str, object] = {}
    try:
        def sequential(r: int) -> tuple[float, list[float]]:
            return _sync_sequential(mem, session.id, _messages(r, concurrency))

        def threads(r: int) -> tuple[float, list[float]]:
            return _sync_threads(mem, session.id, _messages(r, concurrency))

        def one_loop(r: int) -> tuple[float, list[float]]:
            return asyncio.run(_async(settings, session.id, _messages(r, concurrency)))

        modes: list[tuple[str, Callable[[int], tuple[float, list[float]]]]] = [
            ("sync sequential", sequential), ("sync threads", threads), ("async one loop", one_loop)]
        for name, run in modes:
            run(-1)  # warm-up (JIT, connections, caches)
            latencies: list[float] = []
            walls: list[float] = []
            for r in range(rounds):
                wall, lat = run(r)
                walls.append(wall)
                latencies.extend(lat)
            total = sum(walls)
            figures[f"{name}: build_context"] = {
                **percentiles(latencies),
                "contexts/s": round(concurrency * rounds / total, 1) if total else None,
            }
            say(f"{name}: {concurrency * rounds / total:.1f} contexts/s")
    finally:
        mem.delete_session(session.id)
    return BenchResult(
        name="async",
        command=command,
        machine=machine_info(mem.db.server_info().version),
        figures=figures,
        notes=[f"commit {_commit()}; load average before the run {_load()}",
               f"{concurrency} concurrent build_context calls per round, {rounds} rounds per mode (after one "
               f"warm-up round), one session of {turns} turns; latency is per call, contexts/s is calls / wall time",
               "sync threads: GraphMemory shared by a pool of as many threads as calls; async one loop: "
               "AsyncGraphMemory, asyncio.gather in one event loop, embedding on the loop's default executor"],
    )


def _sync_sequential(mem: GraphMemory, sid: str, messages: list[str]) -> tuple[float, list[float]]:
    lat = []
    start = time.perf_counter()
    for m in messages:
        t = time.perf_counter()
        mem.build_context(sid, m)
        lat.append((time.perf_counter() - t) * 1000)
    return time.perf_counter() - start, lat


def _sync_threads(mem: GraphMemory, sid: str, messages: list[str]) -> tuple[float, list[float]]:
    def one(m: str) -> float:
        t = time.perf_counter()
        mem.build_context(sid, m)
        return (time.perf_counter() - t) * 1000

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(messages)) as pool:
        lat = list(pool.map(one, messages))
    return time.perf_counter() - start, lat


async def _async(settings: Settings, sid: str, messages: list[str]) -> tuple[float, list[float]]:
    async with AsyncGraphMemory.from_settings(settings) as mem:
        await mem.get_session(sid)  # connect before the clock starts

        async def one(m: str) -> float:
            t = time.perf_counter()
            await mem.build_context(sid, m)
            return (time.perf_counter() - t) * 1000

        start = time.perf_counter()
        lat = await asyncio.gather(*(one(m) for m in messages))
        return time.perf_counter() - start, list(lat)
