"""Replaying the spool into the database, exactly once.

**Replay** (next successful hook, ``graphmem db up``, ``graphmem spool replay``, the daemon's
timer) is exactly-once in the database: every spooled turn carries a source id and goes through
:meth:`GraphMemory.import_turns`, which skips ids the session already holds (and
``create_session`` with an existing id returns that session), so importing an entry again adds
nothing. One replay at a time (a non-blocking lock: another caller returns ``busy``). Under the
append lock the spool file is renamed to a ``replaying-<ns>-<pid>.jsonl`` snapshot (new hooks
append to a fresh file); this happens only when no snapshot is left, at most once per replay
call, so there is at most one snapshot (leftovers of older versions are replayed first, in name
order) and the order is always: snapshot(s), then the spool file. A snapshot is never modified;
its entries are imported in order from the offset recorded in its sidecar
``replaying-<ns>-<pid>.jsonl.done`` (JSON: bytes and entries already stored or set aside, the
snapshot's size and entry count), and it is deleted (then its sidecar) once all of it is done.

If the database fails part-way, or the caller's budget (``max_seconds``, ``max_entries``: a hook
replays for a bounded time, see ``GRAPHMEM_HOOK_REPLAY_SECONDS``) is spent, the snapshot stays
where it is and only its sidecar is rewritten (temp file, ``fsync``, rename): a stopped replay
costs the entries it imported, not the size of the backlog. The next replay resumes after the
recorded offset, still in front of whatever was appended meanwhile (order matters: turn indexes
follow import order). A long replay also records its progress every :data:`CHECKPOINT_ENTRIES`
entries or :data:`CHECKPOINT_SECONDS`. A sidecar is written only after the entries it covers are
committed, so it can lag but never lead: a crash after a commit and before the sidecar, during
the sidecar's write (the old one stays; a stray temp file is removed), or between deleting a
snapshot and its sidecar (an orphan sidecar is removed) only means some entries are imported
again and skipped. A sidecar that does not fit its snapshot (size, offset not at a line end) is
ignored: the snapshot is imported again from the start, without duplicates. A crash while the
snapshot is taken leaves either the spool file or the snapshot (an atomic rename, ``fsync``'d
before any of it is imported). A budget is checked between entries and the first entry is always
attempted, so every replay makes progress. Entries the database refuses for good (invalid data)
go to ``rejected.jsonl`` instead of blocking the queue. A truncated last line (a write cut short
by a crash or a full disk) is set aside the same way; such an entry was never acknowledged, so
its transcript cursor was not moved either. :meth:`Spool.entries`, :meth:`Spool.status` and
``ReplayResult.remaining`` count only what is not yet imported.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import DatabaseError, GraphMemError
from .spool_files import (
    count_entries,
    explain,
    fsync_dir,
    locked,
    read_progress,
    sidecar,
    write_progress,
)

if TYPE_CHECKING:
    from ..memory import GraphMemory

__all__ = ["CHECKPOINT_ENTRIES", "CHECKPOINT_SECONDS", "ReplayResult", "replay_spool"]



class Spool(Protocol):
    """What a replay uses of :class:`graphmem.runtime.spool.Spool`: its files, locks and clock."""

    dir: Path
    path: Path
    _lock_path: Path
    _replay_lock_path: Path
    _clock: Callable[[], float]

    def pending(self) -> bool: ...
    def _ensure_dir(self) -> None: ...
    def _snapshots(self) -> list[Path]: ...
    @staticmethod
    def _decode(line: bytes) -> dict[str, Any] | None: ...
    def _reject(self, line: bytes, reason: str) -> None: ...


CHECKPOINT_ENTRIES = 100
"""A long replay records its progress at least every this many entries..."""
CHECKPOINT_SECONDS = 1.0
"""... or this many seconds (each record is one small file ``fsync``)."""


@dataclass
class ReplayResult:
    """What :meth:`Spool.replay` did."""

    entries: int = 0
    """Entries committed (and removed from the spool)."""
    turns_created: int = 0
    turns_skipped: int = 0
    """Turns already in the database (an earlier replay or import stored them)."""
    remaining: int = 0
    """When the replay stopped early (the database failed part-way, or the budget was spent):
    every entry still spooled, older ones and any appended meanwhile. 0 when it finished."""
    rejected: int = 0
    """Entries set aside in ``rejected.jsonl`` (invalid data, truncated lines)."""
    busy: bool = False
    """Another process was replaying; nothing was done."""
    budget_exhausted: bool = False
    """The replay stopped because ``max_seconds`` or ``max_entries`` was spent (``remaining`` > 0)."""
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def replay_spool(
    spool: Spool,
    mem: GraphMemory,
    *,
    progress: Callable[[int], None] | None = None,
    max_seconds: float | None = None,
    max_entries: int | None = None,
) -> ReplayResult:
    """Import ``spool``'s entries into ``mem`` (exactly once, in order); see the module doc.

    Without a budget every entry is imported (the spool file is taken at most once per call,
    so entries appended meanwhile wait for the next replay). ``max_seconds`` (counted from this
    call) and ``max_entries`` (entries taken from the spool: committed or set aside) stop the
    replay between entries; the first entry is always attempted. What is left stays spooled,
    in front of newer entries, and the result says ``budget_exhausted``.

    Returns at once with ``busy`` when another process is replaying. Database errors stop
    the replay (the rest stays spooled) and are reported in ``error``, not raised."""
    if max_seconds is not None and not max_seconds >= 0:
        raise ValueError(f"max_seconds must be >= 0 or None, not {max_seconds!r}")
    if max_entries is not None and max_entries < 1:
        raise ValueError(f"max_entries must be >= 1 or None, not {max_entries!r}")
    deadline = None if max_seconds is None else spool._clock() + max_seconds
    result = ReplayResult()
    if not spool.pending():
        return result
    spool._ensure_dir()
    with locked(spool._replay_lock_path, blocking=False) as got:
        if not got:
            result.busy = True
            return result
        _drop_leftovers(spool)
        run = _Run(mem=mem, result=result, progress=progress, deadline=deadline, max_entries=max_entries,
                   clock=spool._clock)
        took_spool = False
        while True:
            snapshots = spool._snapshots()
            if not snapshots:
                if took_spool:
                    break
                if run.spent():
                    if count_entries(spool.path, 0):
                        result.budget_exhausted = True
                        result.remaining = _remaining(spool, [])
                    break
                took_spool = True
                snap = _take_snapshot(spool)
                if snap is None:
                    break
                snapshots = [snap]
            snap = snapshots[0]
            if _replay_snapshot(spool, snap, run):
                _finish_snapshot(spool, snap)
                continue
            result.remaining = _remaining(spool, snapshots)  # stopped: budget spent or database error
            break
    return result


def _replay_snapshot(spool: Spool, snap: Path, run: _Run) -> bool:
    """Import ``snap`` from its committed offset; True once all of it is stored or set aside.

    When it stops early (budget, database error) the sidecar records the progress (and the
    snapshot's entry count, so ``remaining`` is cheap next time); during a long replay it is
    also written every :data:`CHECKPOINT_ENTRIES` entries or :data:`CHECKPOINT_SECONDS`."""
    prog = read_progress(snap)
    saved = (prog.offset, prog.lines, prog.total)
    last_saved = time.monotonic()
    try:
        f = open(snap, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        return True
    except OSError as e:
        raise explain(e, f"read the spool snapshot {snap}") from e
    with f:
        f.seek(prog.offset)
        finished = False
        while True:
            try:
                raw = f.readline()
            except OSError as e:
                raise explain(e, f"read the spool snapshot {snap}") from e
            if not raw:
                finished = True
                break
            line = raw.rstrip(b"\n")
            if not line.strip():
                prog.offset += len(raw)
                continue
            if run.spent():
                run.result.budget_exhausted = True  # the budget is spent: the rest waits, in order
                break
            if not run.import_line(spool, line):
                break  # a database error: this entry and the rest wait
            prog.offset += len(raw)
            prog.lines += 1
            if (prog.lines - saved[1] >= CHECKPOINT_ENTRIES
                    or time.monotonic() - last_saved >= CHECKPOINT_SECONDS):
                write_progress(snap, prog)
                saved, last_saved = (prog.offset, prog.lines, prog.total), time.monotonic()
    if finished:
        return True
    if prog.total is None:
        prog.total = prog.lines + count_entries(snap, prog.offset)  # once per snapshot
    if (prog.offset, prog.lines, prog.total) != saved:
        write_progress(snap, prog)
    return False



def _drop_leftovers(spool: Spool) -> None:
    """Under the replay lock: sidecars whose snapshot is gone, temp files of a crashed replay."""
    with contextlib.suppress(OSError):
        for side in spool.dir.glob("replaying-*.jsonl.done"):
            if not side.with_name(side.name[: -len(".done")]).exists():
                with contextlib.suppress(OSError):
                    side.unlink()
        for tmp in [*spool.dir.glob(".progress-*.tmp"), *spool.dir.glob(".spool-*.tmp")]:
            with contextlib.suppress(OSError):
                tmp.unlink()


def _take_snapshot(spool: Spool) -> Path | None:
    """Rename the spool file to a new snapshot (under the append lock); None when it is empty."""
    with locked(spool._lock_path):
        try:
            if spool.path.stat().st_size == 0:
                return None
        except FileNotFoundError:
            return None
        except OSError as e:
            raise explain(e, f"read the spool file {spool.path}") from e
        snap = spool.dir / f"replaying-{time.time_ns():020d}-{os.getpid()}.jsonl"
        with contextlib.suppress(FileNotFoundError):
            sidecar(snap).unlink()  # cannot exist (unique name); never trust one that does
        try:
            os.replace(spool.path, snap)
        except OSError as e:
            raise explain(e, f"move the spool file {spool.path}") from e
        fsync_dir(spool.dir)  # the rename is durable before anything of the snapshot is imported
        return snap


def _finish_snapshot(spool: Spool, snap: Path) -> None:
    try:
        snap.unlink()
    except FileNotFoundError:
        pass
    except OSError as e:
        # its entries are stored; the next replay finds them stored (sidecar or source ids)
        raise explain(e, f"remove the replayed spool snapshot {snap}") from e
    fsync_dir(spool.dir)  # the snapshot is gone before its sidecar (an orphan sidecar is dropped)
    with contextlib.suppress(OSError):
        sidecar(snap).unlink()


def _remaining(spool: Spool, snapshots: list[Path]) -> int:
    """Entries not yet imported in ``snapshots`` and the spool file."""
    n = 0
    for snap in snapshots:
        prog = read_progress(snap)
        n += (prog.total - prog.lines) if prog.total is not None else count_entries(snap, prog.offset)
    return n + count_entries(spool.path, 0)


@dataclass
class _Run:
    """One replay call: its budget, the sessions it created, its result."""

    mem: GraphMemory
    result: ReplayResult
    progress: Callable[[int], None] | None
    deadline: float | None
    max_entries: int | None
    clock: Callable[[], float] = time.monotonic
    taken: int = 0
    sessions_ok: set[str] = field(default_factory=set)

    def spent(self) -> bool:
        """The budget is spent (never before the first entry of the call)."""
        return self.taken > 0 and ((self.max_entries is not None and self.taken >= self.max_entries)
                                   or (self.deadline is not None and self.clock() >= self.deadline))

    def import_line(self, spool: Spool, line: bytes) -> bool:
        """Import one line (or set it aside); False on a database error (nothing taken)."""
        from ..models import TurnIn

        result = self.result
        entry = spool._decode(line)
        if entry is None:
            spool._reject(line, "not a readable spool entry (truncated write?)")
            result.rejected += 1
            self.taken += 1
            return True
        try:
            sid = entry["session_id"]
            if sid not in self.sessions_ok:
                started = entry.get("started_at")
                self.mem.create_session(
                    entry.get("cwd") or "/",
                    entry.get("project_path"),
                    entry.get("agent"),
                    session_id=sid,
                    title=entry.get("title"),
                    started_at=datetime.fromisoformat(started) if started else None,
                )
                self.sessions_ok.add(sid)
            rows = entry["turns"]
            if isinstance(entry.get("id"), str):  # as make_entry does: a re-import is always skipped
                rows = [{**t, "source_id": t.get("source_id") or f"spool:{entry['id']}:{i}"}
                        if isinstance(t, dict) else t for i, t in enumerate(rows)]
            turns = [TurnIn.model_validate(t) for t in rows]
            r = self.mem.import_turns(sid, turns)
        except DatabaseError as e:  # unreachable or failing: keep this entry and the rest
            result.error = str(e).splitlines()[0] if str(e) else type(e).__name__
            return False
        except (GraphMemError, ValueError, TypeError, KeyError) as e:
            spool._reject(line, f"{type(e).__name__}: {e}")
            result.rejected += 1
            self.taken += 1
            return True
        self.taken += 1
        result.entries += 1
        result.turns_created += r.created
        result.turns_skipped += r.skipped
        if self.progress is not None:
            self.progress(1)
        return True
