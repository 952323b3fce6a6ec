"""DeferredWrites: order, per-key waits, failures reported once, close waits (a recording fake
stands in for Database.write; the real writes are covered by tests/integration/test_facts.py)."""

from __future__ import annotations

import threading
import time
from typing import Any

from graphmem.db.deferred import DeferredWrites
from graphmem.errors import DatabaseError


class _Recorder:
    def __init__(self, delay: float = 0.0, fail: str | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any], str]] = []
        self.delay = delay
        self.fail = fail

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        time.sleep(self.delay)
        if params.get("id") == self.fail:
            raise DatabaseError("boom")
        if params.get("id") == "bug":
            raise TypeError("not a database error")
        self.calls.append((name, params, threading.current_thread().name))
        return []


def test_writes_run_in_order_on_one_background_thread_and_wait_returns_after_them() -> None:
    rec = _Recorder(delay=0.02)
    dw = DeferredWrites(rec)  # type: ignore[arg-type]
    for i in range(5):
        dw.submit("s1", "retrievals/log", id=str(i))
    assert dw.pending() > 0
    assert dw.wait("s1") == []
    assert [c[1]["id"] for c in rec.calls] == ["0", "1", "2", "3", "4"]
    assert all(c[2].startswith("graphmem-deferred") for c in rec.calls)
    assert dw.pending() == 0
    dw.close()


def test_a_failed_write_is_reported_once_to_its_key_only() -> None:
    rec = _Recorder(fail="bad")
    dw = DeferredWrites(rec)  # type: ignore[arg-type]
    dw.submit("s1", "retrievals/log", id="bad")
    dw.submit("s2", "retrievals/log", id="good")
    assert dw.wait("s2") == []
    errors = dw.wait("s1")
    assert len(errors) == 1 and "retrievals/log" in errors[0] and "boom" in errors[0]
    assert dw.wait("s1") == []  # reported once
    assert [c[1]["id"] for c in rec.calls] == ["good"]
    dw.submit("s3", "retrievals/log", id="bug")  # a bug in the write is reported the same way
    assert dw.wait("s3") == ["retrievals/log: TypeError: not a database error"]
    dw.close()


def _queued(n: int, delay: float) -> tuple[_Recorder, DeferredWrites]:
    """A writer with ``n`` slow writes queued, one per key."""
    rec = _Recorder(delay=delay)
    dw = DeferredWrites(rec)  # type: ignore[arg-type]
    for i in range(n):
        dw.submit(f"s{i}", "retrievals/log", id=str(i))
    return rec, dw


def test_close_waits_for_everything_then_later_writes_run_inline() -> None:
    rec, dw = _queued(3, 0.05)
    dw.close()
    assert len(rec.calls) == 3
    dw.submit("s9", "retrievals/log", id="late")
    assert rec.calls[-1][1]["id"] == "late" and rec.calls[-1][2] == threading.current_thread().name


def test_wait_all_waits_for_every_key() -> None:
    rec, dw = _queued(4, 0.02)
    dw.wait_all()
    assert len(rec.calls) == 4 and dw.pending() == 0
    dw.close()


def test_wait_for_an_unknown_key_returns_at_once() -> None:
    dw = DeferredWrites(_Recorder())  # type: ignore[arg-type]
    assert dw.wait("nobody", timeout=None) == []
    assert dw.pending() == 0
