"""The pieces under AsyncGraphMemory that need no server: the greenlet bridge and OnDemand."""

from __future__ import annotations

import asyncio
import threading

import pytest

from graphmem.aio import await_only, run_sync
from graphmem.aio.embedding import OffLoopEmbedder
from graphmem.db.concurrency import OnDemand


def test_on_demand_runs_a_piece_when_its_result_is_asked_for() -> None:
    ran: list[str] = []
    pool = OnDemand()
    first = pool.submit(lambda: ran.append("first") or 1)
    second = pool.submit(lambda: ran.append("second") or 2)
    assert ran == []
    assert second.result() == 2 and first.result() == 1
    assert ran == ["second", "first"]
    assert first.result() == 1 and ran == ["second", "first"]  # once


def test_on_demand_hands_over_errors_and_honours_cancel() -> None:
    pool = OnDemand()

    def boom() -> None:
        raise ValueError("no")

    failing = pool.submit(boom)
    assert isinstance(failing.exception(), ValueError)
    with pytest.raises(ValueError):
        failing.result()
    ran: list[int] = []
    never = pool.submit(ran.append, 1)
    assert never.cancel()
    assert ran == []


def test_run_sync_awaits_what_the_function_hands_over() -> None:
    def work(x: int) -> int:
        await_only(asyncio.sleep(0))
        with pytest.raises(KeyError):  # raised where the function awaited
            await_only(_fail())
        return x + await_only(_value(41))

    async def _value(v: int) -> int:
        await asyncio.sleep(0)
        return v

    async def _fail() -> None:
        raise KeyError("k")

    async def main() -> list[int]:
        return list(await asyncio.gather(*(run_sync(work, i) for i in range(20))))

    assert asyncio.run(main()) == [41 + i for i in range(20)]


def test_await_only_outside_run_sync_is_refused() -> None:
    async def nothing() -> None:
        return None

    with pytest.raises(RuntimeError, match="outside run_sync"):
        await_only(nothing())


def test_embedding_runs_off_the_loop_thread() -> None:
    seen: list[str] = []

    class Recorder:
        model = "m"
        dimensions = 2

        def embed(self, texts: list[str]) -> list[list[float]]:
            seen.append(threading.current_thread().name)
            return [[1.0, 0.0] for _ in texts]

        def embed_one(self, text: str) -> list[float]:
            return self.embed([text])[0]

    emb = OffLoopEmbedder(Recorder())

    async def main() -> list[float]:
        return await run_sync(emb.embed_one, "x")

    assert asyncio.run(main()) == [1.0, 0.0]
    assert seen and seen[0] != threading.main_thread().name
    assert emb.embed(["y"]) == [[1.0, 0.0]] and seen[-1] == threading.main_thread().name
