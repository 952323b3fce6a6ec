"""The foreground mark (graphmem.activity) and the worker's bounded yield to it."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, cast

from graphmem.activity import ForegroundSignal
from graphmem.db import Database
from graphmem.worker import SummaryWorker, WorkerConfig


def test_mark_creates_the_file_and_age_measures_from_it(tmp_path: Path) -> None:
    sig = ForegroundSignal.for_home(tmp_path / "home")
    assert sig.age() == float("inf")
    sig.mark()
    assert sig.path.exists() and sig.path == tmp_path / "home" / "run" / "foreground"
    assert sig.age() < 1.0


def test_mark_never_raises_on_an_unwritable_home(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    sig = ForegroundSignal(blocker / "run" / "foreground")
    sig.mark()  # cannot create it: silently nothing
    assert sig.age() == float("inf")


def _worker(sig: ForegroundSignal | None, **cfg: Any) -> SummaryWorker:
    # the yield touches neither the database nor the summarizer
    return SummaryWorker(cast(Database, object()), config=WorkerConfig(**cfg), foreground=sig)


def test_worker_waits_out_a_recent_foreground_call(tmp_path: Path) -> None:
    sig = ForegroundSignal.for_home(tmp_path)
    w = _worker(sig, yield_seconds=0.3, max_yield_seconds=5.0)
    sig.mark()
    t0 = time.monotonic()
    w._yield_to_foreground()
    waited = time.monotonic() - t0
    assert 0.15 < waited < 1.5
    assert w.stats.yielded_seconds > 0.15


def test_worker_yield_is_bounded_under_constant_foreground(tmp_path: Path) -> None:
    sig = ForegroundSignal.for_home(tmp_path)
    w = _worker(sig, yield_seconds=0.3, max_yield_seconds=0.4)
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            sig._last = 0.0  # bypass the 50 ms throttle: mark continuously
            sig.mark()
            time.sleep(0.01)

    t = threading.Thread(target=busy)
    t.start()
    try:
        t0 = time.monotonic()
        w._yield_to_foreground()
        assert time.monotonic() - t0 < 1.5  # at most max_yield_seconds (+ scheduling)
    finally:
        stop.set()
        t.join()


def test_no_signal_or_zero_window_never_waits(tmp_path: Path) -> None:
    sig = ForegroundSignal.for_home(tmp_path)
    sig.mark()
    for w in (_worker(None), _worker(sig, yield_seconds=0.0)):
        t0 = time.monotonic()
        w._yield_to_foreground()
        assert time.monotonic() - t0 < 0.05
