"""Write-path benchmark: store_turn (3 tool calls, no embedding), bulk import, the write floor."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime, timedelta

from graphmem.facts import delete_facts_under_path
from graphmem.memory import GraphMemory
from graphmem.models import ToolCallIn, TurnIn

from ..statements import dev_db
from .common import BenchResult, interleaved, machine_info, peak_rss_mb, percentiles

__all__ = ["cleanup_bench_namespace", "run_store_bench"]


def _tools(i: int) -> list[ToolCallIn]:
    return [
        ToolCallIn(name="Grep", args={"pattern": f"def handler_{i}", "path": "src/"}, result=f"src/app/h{i}.py:12", success=True, duration_ms=35),
        ToolCallIn(name="Read", args={"file_path": f"src/app/h{i}.py"}, result="x = 1\n" * 40, success=True, duration_ms=9),
        ToolCallIn(name="Bash", args={"command": "pytest -q tests/test_h.py"}, result="3 passed in 0.4s", success=i % 7 != 0, duration_ms=900),
    ]


def _user(i: int) -> str:
    return f"Why does handler_{i} return 500 when the payload has no 'user' key? Please fix it and add a test."


def _assistant(i: int) -> str:
    return (
        f"handler_{i} indexes payload['user'] directly; I changed it to payload.get('user') with a 400 response "
        "when it is missing, and added tests/test_h.py::test_missing_user. " * 3
    )


def cleanup_bench_namespace(mem: GraphMemory, ns: str) -> None:
    """Delete a benchmark's sessions and the facts of its projects."""
    for row in mem.db.read("maintenance/sessions_under_path", path=ns, prefix=ns + "/"):
        mem.delete_session(row["id"])
    delete_facts_under_path(mem.db, ns)


def run_store_bench(mem: GraphMemory, *, turns: int = 2000, warmup: int = 200, bulk: int = 20000,
                    warmup_seconds: float = 60.0, command: str = "graphmem bench store") -> BenchResult:
    """Measure the write path on ``mem``'s server; cleans its own namespace afterwards.

    The warm-up runs at least ``warmup`` rounds and at least ``warmup_seconds``: a server that has just
    started runs its write path interpreted until the JVM has compiled it, and on this machine that
    takes tens of seconds of load (store_turn p50 8.8 ms in the first minutes of a fresh server,
    3.4 ms once warm)."""
    ns = f"/graphmem-bench/{uuid.uuid4().hex}"
    mem.init_schema()
    result = BenchResult("store", command, machine_info(mem.db.server_info().version))
    dev = dev_db(mem.db)
    try:
        s = mem.create_session(ns + "/store", agent="bench")
        counter = iter(range(10**9))

        def one() -> None:
            i = next(counter)
            mem.store_turn(s.id, _user(i), _assistant(i), _tools(i))

        def floor_call() -> None:
            dev.write("bench/noop_write")

        warm_start = time.perf_counter()
        warm_rounds = 0
        while warm_rounds < warmup or time.perf_counter() - warm_start < warmup_seconds:
            one()
            floor_call()
            warm_rounds += 1
        warm_secs = time.perf_counter() - warm_start
        # interleave the floor and store_turn so both see the same machine load
        samples = interleaved({"store": one, "floor": floor_call}, turns)
        store_ms, floor = samples["store"], samples["floor"]
        st = percentiles(store_ms)
        fl = percentiles(floor)
        st["throughput_per_s"] = round(1000 / st["mean"], 1)
        result.figures["store_turn (3 tool calls, no embedding)"] = st
        result.figures["empty write transaction (floor)"] = fl
        result.figures["store_turn p50 / floor p50"] = round(st["p50"] / fl["p50"], 2)

        imp = mem.create_session(ns + "/import", agent="bench")
        base = datetime(2025, 1, 1, tzinfo=UTC)
        rows = [
            TurnIn(user_message=_user(i), assistant_message=_assistant(i), tool_calls=_tools(i),
                   timestamp=base + timedelta(seconds=i), source_id=f"bench-{i}")
            for i in range(bulk)
        ]
        t0 = time.perf_counter()
        res = mem.import_turns(imp.id, rows, batch_size=500)
        secs = time.perf_counter() - t0
        result.figures["bulk import (3 tool calls each)"] = (
            f"{res.created} turns in {secs:.2f} s = {res.created / secs:,.0f} turns/s "
            f"({3 * res.created / secs:,.0f} tool calls/s), batches of 500"
        )
        result.figures["peak Python RSS"] = f"{peak_rss_mb()} MiB"
        result.notes.append(
            "store_turn is one write transaction (Turn + 3 ToolCalls + HAS_TURN + NEXT + session update); "
            "it and the floor run interleaved, one call each in turn, after an untimed warm-up of "
            f"{warm_rounds} rounds in {warm_secs:.0f} s (at least {warmup} rounds and {warmup_seconds:g} s: "
            "a freshly started server is slower until the JVM has compiled its write path)."
        )
    finally:
        cleanup_bench_namespace(mem, ns)
    return result
