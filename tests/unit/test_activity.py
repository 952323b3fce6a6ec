"""The foreground mark (graphmem.activity) and the worker's bounded yield to it, on a virtual
clock: the worker's waits advance it, so nothing here depends on how fast the machine is."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from graphmem.activity import ForegroundSignal
from graphmem.db import Database
from graphmem.worker import SummaryWorker, WorkerConfig


class Clock:
    """A wall clock that moves only when told."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class VirtualStop:
    """Stands in for the worker's stop event: ``wait(t)`` advances the clock by ``t`` at once
    (and calls ``during_wait``, e.g. a foreground call that marks meanwhile)."""

    def __init__(self, clock: Clock, during_wait: Any = None) -> None:
        self.clock = clock
        self.during_wait = during_wait
        self.waits: list[float] = []

    def is_set(self) -> bool:
        return False

    def wait(self, timeout: float) -> bool:
        self.waits.append(timeout)
        self.clock.now += max(timeout, 1e-6)  # a wait always moves time (a file's mtime is rounded to 1 ns)
        if self.during_wait is not None:
            self.during_wait()
        return False


def test_mark_creates_the_file_and_age_measures_from_it(tmp_path: Path) -> None:
    clock = Clock()
    sig = ForegroundSignal.for_home(tmp_path / "home", clock=clock)
    assert sig.age() == float("inf")
    sig.mark()
    assert sig.path.exists() and sig.path == tmp_path / "home" / "run" / "foreground"
    assert sig.age() == 0.0
    clock.now += 2.5
    assert sig.age() == pytest.approx(2.5)
    sig.mark()
    assert sig.age() == 0.0


def test_marks_are_written_at_most_every_50_ms(tmp_path: Path) -> None:
    clock = Clock()
    sig = ForegroundSignal.for_home(tmp_path, clock=clock)
    sig.mark()
    clock.now += 0.04
    sig.mark()  # too soon: not written
    assert sig.age() == pytest.approx(0.04)
    clock.now += 0.02
    sig.mark()
    assert sig.age() == 0.0


def test_mark_never_raises_on_an_unwritable_home(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    sig = ForegroundSignal(blocker / "run" / "foreground")
    sig.mark()  # cannot create it: silently nothing
    assert sig.age() == float("inf")


def _worker(sig: ForegroundSignal | None, stop: VirtualStop, **cfg: Any) -> SummaryWorker:
    # the yield touches neither the database nor the summarizer
    w = SummaryWorker(cast(Database, object()), config=WorkerConfig(**cfg), foreground=sig)
    w._stop = stop  # type: ignore[assignment]
    return w


def test_worker_waits_out_a_recent_foreground_call(tmp_path: Path) -> None:
    clock = Clock()
    sig = ForegroundSignal.for_home(tmp_path, clock=clock)
    stop = VirtualStop(clock)
    w = _worker(sig, stop, yield_seconds=0.3, max_yield_seconds=5.0)
    sig.mark()
    clock.now += 0.1  # the call was 0.1 s ago: 0.2 s of its window are left
    w._yield_to_foreground()
    assert sum(stop.waits) == pytest.approx(0.2)
    assert w.stats.yielded_seconds == pytest.approx(0.2)
    assert sig.age() >= 0.3  # it went back to work once the window was over


def test_worker_yield_is_bounded_under_constant_foreground(tmp_path: Path) -> None:
    clock = Clock()
    sig = ForegroundSignal.for_home(tmp_path, clock=clock)
    stop = VirtualStop(clock, during_wait=sig.mark)  # a foreground call during every wait
    w = _worker(sig, stop, yield_seconds=0.3, max_yield_seconds=0.4)
    sig.mark()
    w._yield_to_foreground()
    assert sum(stop.waits) == pytest.approx(0.4)  # max_yield_seconds, then it works anyway
    assert sig.age() < 0.3


def test_no_signal_or_zero_window_never_waits(tmp_path: Path) -> None:
    clock = Clock()
    sig = ForegroundSignal.for_home(tmp_path, clock=clock)
    sig.mark()
    for w in (_worker(None, VirtualStop(clock)), _worker(sig, VirtualStop(clock), yield_seconds=0.0)):
        w._yield_to_foreground()
        assert cast(VirtualStop, w._stop).waits == []
        assert w.stats.yielded_seconds == 0.0
