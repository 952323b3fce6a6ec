"""DeferredWrites: order, per-key waits, failures reported once, close waits (a recording fake
stands in for Database.write; the real writes are covered by tests/integration/test_facts.py)."""

from __future__ import annotations

import threading
from typing import Any, ClassVar

from graphmem.db.deferred import DeferredWrites
from graphmem.errors import DatabaseError


class _Recorder:
    """Records writes; each write first waits until ``gate`` is open (when given), so a test
    decides when the background writer may go on."""

    def __init__(self, fail: str | None = None, gate: threading.Event | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any], str]] = []
        self.fail = fail
        self.gate = gate
        self.written = threading.Semaphore(0)
        """Released once per finished write call (tests acquire it to wait for one)."""

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        try:
            if self.gate is not None:
                assert self.gate.wait(60), "the test never opened the gate"
            if self.fail is not None and params.get("id") == self.fail:
                raise DatabaseError("boom")
            if params.get("id") == "bug":
                raise TypeError("not a database error")
            self.calls.append((name, params, threading.current_thread().name))
            return []
        finally:
            self.written.release()


class _ManualTimer:
    """Stands in for threading.Timer: never fires by itself; :meth:`fire` runs it now."""

    made: ClassVar[list[_ManualTimer]] = []

    def __init__(self, interval: float, function: Any, args: tuple[Any, ...]) -> None:
        self.interval, self.function, self.args = interval, function, args
        self.daemon = False
        self.started = self.cancelled = False
        _ManualTimer.made.append(self)

    def start(self) -> None:
        self.started = True

    def cancel(self) -> None:
        self.cancelled = True

    def fire(self) -> None:
        assert self.started
        if not self.cancelled:
            self.function(*self.args)


def test_writes_run_in_order_on_one_background_thread_and_wait_returns_after_them() -> None:
    gate = threading.Event()
    rec = _Recorder(gate=gate)
    dw = DeferredWrites(rec)  # type: ignore[arg-type]
    for i in range(5):
        dw.submit("s1", "retrievals/log", id=str(i))
    assert dw.pending() == 5 and rec.calls == []  # queued behind the closed gate
    gate.set()
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


def _queued(n: int) -> tuple[_Recorder, DeferredWrites]:
    """A writer with ``n`` writes queued, one per key, none written yet; the gate opens as it
    is returned (so the writes run while the test waits for them)."""
    gate = threading.Event()
    rec = _Recorder(gate=gate)
    dw = DeferredWrites(rec)  # type: ignore[arg-type]
    for i in range(n):
        dw.submit(f"s{i}", "retrievals/log", id=str(i))
    assert dw.pending() == n and rec.calls == []
    gate.set()
    return rec, dw


def test_close_waits_for_everything_then_later_writes_run_inline() -> None:
    rec, dw = _queued(3)
    dw.close()
    assert len(rec.calls) == 3
    dw.submit("s9", "retrievals/log", id="late")
    assert rec.calls[-1][1]["id"] == "late" and rec.calls[-1][2] == threading.current_thread().name


def test_wait_all_waits_for_every_key() -> None:
    rec, dw = _queued(4)
    dw.wait_all()
    assert len(rec.calls) == 4 and dw.pending() == 0
    dw.close()


def test_wait_for_an_unknown_key_returns_at_once() -> None:
    dw = DeferredWrites(_Recorder())  # type: ignore[arg-type]
    assert dw.wait("nobody", timeout=None) == []
    assert dw.pending() == 0


def test_held_writes_wait_for_release_then_run_in_order() -> None:
    rec = _Recorder()
    dw = DeferredWrites(rec)  # type: ignore[arg-type]
    dw.hold("s1")
    dw.submit("s1", "retrievals/log", id="a")
    dw.submit("s2", "retrievals/log", id="other")  # another key is not held
    dw.submit("s1", "retrievals/log", id="b")
    assert dw.wait("s2") == [] and dw.wait("s1") == []  # held writes are not queued yet
    assert [c[1]["id"] for c in rec.calls] == ["other"]
    dw.release("s1")
    dw.submit("s1", "retrievals/log", id="c")  # no longer held
    assert dw.wait("s1") == []
    assert [c[1]["id"] for c in rec.calls] == ["other", "a", "b", "c"]
    dw.release("s1")  # releasing a key that is not held does nothing
    dw.close()


def test_close_writes_what_is_still_held_and_release_after_close_writes_inline() -> None:
    rec = _Recorder()
    dw = DeferredWrites(rec)  # type: ignore[arg-type]
    dw.hold("s1")
    dw.submit("s1", "retrievals/log", id="kept")
    dw.close()
    assert [c[1]["id"] for c in rec.calls] == ["kept"]  # never lost
    dw.hold("s2")  # closed: a hold no longer keeps anything back
    dw.submit("s2", "retrievals/log", id="late")
    dw.release("s2")
    assert [c[1]["id"] for c in rec.calls] == ["kept", "late"]


def test_grouped_items_are_written_together_after_the_linger() -> None:
    rec = _Recorder()
    _ManualTimer.made = []
    dw = DeferredWrites(rec, timer=_ManualTimer)  # type: ignore[arg-type]
    for i in range(3):
        dw.submit_grouped("vectors", "facts/index_vectors", "ids", [f"f{i}"], linger=0.3)
    assert rec.calls == [] and dw.pending() == 1  # lingering
    [first] = _ManualTimer.made
    assert first.interval == 0.3 and first.daemon
    first.fire()  # the linger is over
    assert rec.written.acquire(timeout=60)
    assert [(c[0], c[1]) for c in rec.calls] == [("facts/index_vectors", {"ids": ["f0", "f1", "f2"]})]
    assert rec.calls[0][2].startswith("graphmem-deferred")
    dw.submit_grouped("vectors", "facts/index_vectors", "ids", ["f3"], linger=0.3)  # a new group
    assert len(_ManualTimer.made) == 2 and len(rec.calls) == 1
    _ManualTimer.made[1].fire()
    assert rec.written.acquire(timeout=60)
    assert [c[1]["ids"] for c in rec.calls] == [["f0", "f1", "f2"], ["f3"]]
    assert dw.pending() == 0
    dw.close()


def test_wait_starts_a_lingering_group_at_once_and_reports_its_failure() -> None:
    rec = _Recorder(fail="never")
    _ManualTimer.made = []
    dw = DeferredWrites(rec, timer=_ManualTimer)  # type: ignore[arg-type]
    dw.submit_grouped("vectors", "facts/index_vectors", "ids", ["a"], linger=30.0)
    dw.submit_grouped("vectors", "facts/index_vectors", "ids", ["b"], linger=30.0)
    assert dw.wait("vectors") == []  # the timer never fires: wait itself started the write
    assert [c[1]["ids"] for c in rec.calls] == [["a", "b"]]
    assert _ManualTimer.made[0].cancelled
    failing = DeferredWrites(_FailingGroup())  # type: ignore[arg-type]
    failing.submit_grouped("vectors", "facts/index_vectors", "ids", ["x"], linger=30.0)
    errors = failing.wait("vectors")
    assert len(errors) == 1 and "facts/index_vectors" in errors[0] and "boom" in errors[0]
    failing.close()
    dw.close()


class _FailingGroup:
    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        raise DatabaseError("boom")


def test_close_and_wait_all_write_open_groups_and_later_groups_run_inline() -> None:
    rec = _Recorder()
    dw = DeferredWrites(rec, timer=_ManualTimer)  # type: ignore[arg-type]  # lingers until told
    dw.submit_grouped("v1", "facts/index_vectors", "ids", ["a"], linger=30.0)
    dw.wait_all()
    assert [c[1]["ids"] for c in rec.calls] == [["a"]]
    dw.submit_grouped("v1", "facts/index_vectors", "ids", ["b"], linger=30.0)
    dw.submit("v1", "retrievals/log", id="after")  # a plain write of the key queues behind the group
    dw.submit_grouped("v2", "facts/index_vectors", "ids", ["c"], linger=30.0)
    dw.close()  # the timers never fire: close itself wrote the open groups
    assert [c[1] for c in rec.calls][1:] in ([{"ids": ["b"]}, {"id": "after"}, {"ids": ["c"]}],
                                              [{"ids": ["b"]}, {"ids": ["c"]}, {"id": "after"}])
    dw.submit_grouped("v1", "facts/index_vectors", "ids", ["late"], linger=30.0)  # closed: inline
    assert rec.calls[-1][1] == {"ids": ["late"]} and rec.calls[-1][2] == threading.current_thread().name
