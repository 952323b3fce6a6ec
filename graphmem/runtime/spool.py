"""The local spool: turns a hook could not store because Neo4j was unreachable.

``$GRAPHMEM_HOME/spool/spool.jsonl`` (mode 0600, in a 0700 folder) is append-only: one JSON line
per entry (a session's identity plus its new, already redacted turns), written with a single
``write`` under an exclusive ``flock`` and ``fsync``'d before the hook moves its transcript cursor
past those turns. Nothing the hook read is lost: either the turns are in Neo4j, or in the spool,
or the cursor was not moved and the next Stop reads them again.

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
import errno
import fcntl
import json
import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import DatabaseError, GraphMemError

if TYPE_CHECKING:
    from ..memory import GraphMemory
    from ..models import TurnIn

__all__ = ["ReplayResult", "Spool", "SpoolError", "SpoolStatus"]

SPOOL_VERSION = 1

CHECKPOINT_ENTRIES = 100
"""A long replay records its progress at least every this many entries..."""
CHECKPOINT_SECONDS = 1.0
"""... or this many seconds (each record is one small file ``fsync``)."""


class SpoolError(GraphMemError):
    """The spool cannot be written or read (disk full, read-only $GRAPHMEM_HOME, permissions)."""


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


@dataclass
class SpoolStatus:
    """``graphmem spool status``."""

    path: str
    entries: int
    turns: int
    bytes: int
    """Bytes of the entries not yet imported (a snapshot's imported prefix is not counted)."""
    rejected: int
    oldest: str | None = None
    sessions: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _explain(e: OSError, what: str) -> SpoolError:
    reason = {
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is exceeded",
        errno.EROFS: "the file system is read-only",
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted",
        errno.ENOTDIR: "a path component is not a directory",
    }.get(e.errno or 0, e.strerror or str(e))
    return SpoolError(f"cannot {what}: {reason} ({e.filename or ''}{': ' if e.filename else ''}{e})")


class Spool:
    """The spool of one ``$GRAPHMEM_HOME``."""

    def __init__(self, home: str | os.PathLike[str], *, clock: Callable[[], float] = time.monotonic) -> None:
        """``clock``: the monotonic clock a replay's ``max_seconds`` is counted on (tests)."""
        self.home = Path(home)
        self._clock = clock
        self.dir = self.home / "spool"
        self.path = self.dir / "spool.jsonl"
        self.rejected_path = self.dir / "rejected.jsonl"
        self._lock_path = self.dir / ".lock"
        self._replay_lock_path = self.dir / ".replay.lock"

    # -- files and locks -----------------------------------------------------------------------
    def _ensure_dir(self) -> None:
        try:
            self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
            created = not self.dir.is_dir()
            self.dir.mkdir(mode=0o700, exist_ok=True)
            if created:
                os.chmod(self.dir, 0o700)
                _fsync_dir(self.home)
        except OSError as e:
            raise _explain(e, f"create the spool folder {self.dir}") from e

    @contextlib.contextmanager
    def _locked(self, path: Path, *, blocking: bool = True) -> Iterator[bool]:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as e:
            raise _explain(e, f"open the spool lock {path}") from e
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            yield True
        finally:
            os.close(fd)  # closing releases the lock

    def _snapshots(self) -> list[Path]:
        try:
            return sorted(self.dir.glob("replaying-*.jsonl"))
        except OSError:
            return []

    # -- writing ---------------------------------------------------------------------------------
    @staticmethod
    def make_entry(
        *,
        agent: str | None,
        session_id: str,
        cwd: str,
        project_path: str | None,
        turns: list[TurnIn],
        title: str | None = None,
        started_at: datetime | None = None,
        source_path: str | None = None,
    ) -> dict[str, Any]:
        """An entry for :meth:`append`: turns as JSON, each with a source id (one is derived from
        the entry id when the source had none, so a replay is exactly-once)."""
        entry_id = uuid.uuid4().hex
        rows = []
        for i, t in enumerate(turns):
            row = t.model_dump(mode="json")
            if not row.get("source_id"):
                row["source_id"] = f"spool:{entry_id}:{i}"
            rows.append(row)
        return {
            "v": SPOOL_VERSION,
            "id": entry_id,
            "spooled_at": datetime.now(UTC).isoformat(),
            "agent": agent,
            "session_id": session_id,
            "cwd": cwd,
            "project_path": project_path,
            "title": title,
            "started_at": started_at.isoformat() if started_at else None,
            "source_path": source_path,
            "turns": rows,
        }

    def append(self, entry: dict[str, Any]) -> None:
        """Append one entry durably (``fsync``); raises :class:`SpoolError` with a clear reason."""
        line = json.dumps(entry, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"
        self._ensure_dir()
        with self._locked(self._lock_path):
            self._append_bytes(self.path, line)

    def _append_bytes(self, path: Path, data: bytes) -> None:
        existed = path.exists()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError as e:
            raise _explain(e, f"open the spool file {path}") from e
        try:
            size = os.fstat(fd).st_size
            if size > 0 and not self._ends_with_newline(path, size):
                data = b"\n" + data  # a cut-short line before us stays a line of its own
            try:
                written = os.write(fd, data)
                while written < len(data):
                    written += os.write(fd, data[written:])
                os.fsync(fd)
            except OSError as e:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, size)  # leave no partial line behind
                raise _explain(e, f"write the spool file {path}") from e
        finally:
            os.close(fd)
        if not existed:
            with contextlib.suppress(OSError):
                os.chmod(path, 0o600)
            _fsync_dir(path.parent)

    @staticmethod
    def _ends_with_newline(path: Path, size: int) -> bool:
        try:
            with open(path, "rb") as f:
                f.seek(size - 1)
                return f.read(1) == b"\n"
        except OSError:
            return True

    # -- reading ---------------------------------------------------------------------------------
    @staticmethod
    def _read_lines(path: Path) -> list[bytes]:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as e:
            raise _explain(e, f"read the spool file {path}") from e
        return [ln for ln in data.split(b"\n") if ln.strip()]

    @staticmethod
    def _decode(line: bytes) -> dict[str, Any] | None:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            return None
        if not isinstance(value, dict) or not isinstance(value.get("session_id"), str):
            return None
        if not isinstance(value.get("turns"), list):
            return None
        return value

    def _progress(self, snap: Path) -> _Progress:
        """``snap``'s sidecar, checked against the snapshot; nothing recorded when it is missing,
        unreadable or does not fit (the whole snapshot is then imported again, without duplicates)."""
        try:
            size = snap.stat().st_size
        except OSError:
            return _Progress()
        fresh = _Progress(size=size)
        try:
            v = json.loads(_sidecar(snap).read_bytes())
        except (OSError, ValueError, RecursionError):
            return fresh
        if not isinstance(v, dict):
            return fresh
        offset, lines, total = v.get("offset"), v.get("lines"), v.get("total")
        if not (type(offset) is int and type(lines) is int and (total is None or type(total) is int)):
            return fresh
        if v.get("size") != size or not 0 <= offset <= size or lines < 0 or (total is not None and total < lines):
            return fresh
        if 0 < offset < size:  # must end a line
            try:
                with open(snap, "rb") as f:
                    f.seek(offset - 1)
                    if f.read(1) != b"\n":
                        return fresh
            except OSError:
                return fresh
        return _Progress(offset=offset, lines=lines, total=total, size=size)

    @staticmethod
    def _count(path: Path, offset: int) -> int:
        """Entries (non-blank lines) in ``path`` from ``offset`` on."""
        try:
            with open(path, "rb") as f:
                f.seek(offset)
                return sum(1 for ln in f if ln.strip())
        except FileNotFoundError:
            return 0
        except OSError as e:
            raise _explain(e, f"read the spool file {path}") from e

    def _pending_lines(self) -> Iterator[bytes]:
        """Every line not yet imported, in replay order: leftover snapshots (each after its
        committed prefix), then the spool file."""
        for snap in self._snapshots():
            offset = self._progress(snap).offset
            try:
                with open(snap, "rb") as f:
                    f.seek(offset)
                    data = f.read()
            except FileNotFoundError:
                continue  # replayed meanwhile
            except OSError as e:
                raise _explain(e, f"read the spool snapshot {snap}") from e
            yield from (ln for ln in data.split(b"\n") if ln.strip())
        yield from self._read_lines(self.path)

    def entries(self) -> list[dict[str, Any]]:
        """Every readable entry not yet imported, in replay order (leftover snapshots first, then
        the spool)."""
        out = []
        for line in self._pending_lines():
            e = self._decode(line)
            if e is not None:
                out.append(e)
        return out

    def pending(self) -> bool:
        """Whether anything waits for a replay (cheap: file sizes only; a snapshot whose entries
        are all stored counts until a replay removes it)."""
        try:
            if self.path.stat().st_size > 0:
                return True
        except OSError:
            pass
        return bool(self._snapshots())

    def status(self) -> SpoolStatus:
        entries = self.entries()
        size = 0
        for p in self._snapshots():
            with contextlib.suppress(OSError):
                size += max(0, p.stat().st_size - self._progress(p).offset)
        with contextlib.suppress(OSError):
            size += self.path.stat().st_size
        rejected = len(self._read_lines(self.rejected_path)) if self.rejected_path.exists() else 0
        return SpoolStatus(
            path=str(self.path),
            entries=len(entries),
            turns=sum(len(e["turns"]) for e in entries),
            bytes=size,
            rejected=rejected,
            oldest=entries[0].get("spooled_at") if entries else None,
            sessions=list(dict.fromkeys(e["session_id"] for e in entries)),
        )

    # -- replay ----------------------------------------------------------------------------------
    def _reject(self, line: bytes, reason: str) -> None:
        record = {"rejected_at": datetime.now(UTC).isoformat(), "reason": reason,
                  "line": line.decode("utf-8", errors="replace")}
        data = json.dumps(record, ensure_ascii=True).encode("ascii") + b"\n"
        with contextlib.suppress(SpoolError):
            self._append_bytes(self.rejected_path, data)

    def _write_progress(self, snap: Path, prog: _Progress) -> None:
        """Replace ``snap``'s sidecar atomically (temp file, ``fsync``, rename). A crash keeps the
        old sidecar (or none): it lags, and the entries after it are imported again (skipped)."""
        tmp = self.dir / f".progress-{os.getpid()}-{uuid.uuid4().hex}.tmp"
        data = json.dumps({"offset": prog.offset, "lines": prog.lines, "total": prog.total,
                           "size": prog.size}).encode("ascii")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, _sidecar(snap))
        except OSError as e:
            with contextlib.suppress(OSError):
                tmp.unlink()
            # nothing is lost: the snapshot stays, and the next replay skips what is already stored
            raise _explain(e, f"record the replay progress of {snap}") from e

    def _drop_leftovers(self) -> None:
        """Under the replay lock: sidecars whose snapshot is gone, temp files of a crashed replay."""
        with contextlib.suppress(OSError):
            for side in self.dir.glob("replaying-*.jsonl.done"):
                if not side.with_name(side.name[: -len(".done")]).exists():
                    with contextlib.suppress(OSError):
                        side.unlink()
            for tmp in [*self.dir.glob(".progress-*.tmp"), *self.dir.glob(".spool-*.tmp")]:
                with contextlib.suppress(OSError):
                    tmp.unlink()

    def _take_snapshot(self) -> Path | None:
        """Rename the spool file to a new snapshot (under the append lock); None when it is empty."""
        with self._locked(self._lock_path):
            try:
                if self.path.stat().st_size == 0:
                    return None
            except FileNotFoundError:
                return None
            except OSError as e:
                raise _explain(e, f"read the spool file {self.path}") from e
            snap = self.dir / f"replaying-{time.time_ns():020d}-{os.getpid()}.jsonl"
            with contextlib.suppress(FileNotFoundError):
                _sidecar(snap).unlink()  # cannot exist (unique name); never trust one that does
            try:
                os.replace(self.path, snap)
            except OSError as e:
                raise _explain(e, f"move the spool file {self.path}") from e
            _fsync_dir(self.dir)  # the rename is durable before anything of the snapshot is imported
            return snap

    def _finish_snapshot(self, snap: Path) -> None:
        try:
            snap.unlink()
        except FileNotFoundError:
            pass
        except OSError as e:
            # its entries are stored; the next replay finds them stored (sidecar or source ids)
            raise _explain(e, f"remove the replayed spool snapshot {snap}") from e
        _fsync_dir(self.dir)  # the snapshot is gone before its sidecar (an orphan sidecar is dropped)
        with contextlib.suppress(OSError):
            _sidecar(snap).unlink()

    def _remaining(self, snapshots: list[Path]) -> int:
        """Entries not yet imported in ``snapshots`` and the spool file."""
        n = 0
        for snap in snapshots:
            prog = self._progress(snap)
            n += (prog.total - prog.lines) if prog.total is not None else self._count(snap, prog.offset)
        return n + self._count(self.path, 0)

    def replay(
        self,
        mem: GraphMemory,
        *,
        progress: Callable[[int], None] | None = None,
        max_seconds: float | None = None,
        max_entries: int | None = None,
    ) -> ReplayResult:
        """Import the spooled entries into ``mem`` (exactly once, in order); see the module doc.

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
        deadline = None if max_seconds is None else self._clock() + max_seconds
        result = ReplayResult()
        if not self.pending():
            return result
        self._ensure_dir()
        with self._locked(self._replay_lock_path, blocking=False) as got:
            if not got:
                result.busy = True
                return result
            self._drop_leftovers()
            run = _Run(mem=mem, result=result, progress=progress, deadline=deadline, max_entries=max_entries,
                       clock=self._clock)
            took_spool = False
            while True:
                snapshots = self._snapshots()
                if not snapshots:
                    if took_spool:
                        break
                    if run.spent():
                        if self._count(self.path, 0):
                            result.budget_exhausted = True
                            result.remaining = self._remaining([])
                        break
                    took_spool = True
                    snap = self._take_snapshot()
                    if snap is None:
                        break
                    snapshots = [snap]
                snap = snapshots[0]
                if self._replay_snapshot(snap, run):
                    self._finish_snapshot(snap)
                    continue
                result.remaining = self._remaining(snapshots)  # stopped: budget spent or database error
                break
        return result

    def _replay_snapshot(self, snap: Path, run: _Run) -> bool:
        """Import ``snap`` from its committed offset; True once all of it is stored or set aside.

        When it stops early (budget, database error) the sidecar records the progress (and the
        snapshot's entry count, so ``remaining`` is cheap next time); during a long replay it is
        also written every :data:`CHECKPOINT_ENTRIES` entries or :data:`CHECKPOINT_SECONDS`."""
        prog = self._progress(snap)
        saved = (prog.offset, prog.lines, prog.total)
        last_saved = time.monotonic()
        try:
            f = open(snap, "rb")  # noqa: SIM115 - closed below
        except FileNotFoundError:
            return True
        except OSError as e:
            raise _explain(e, f"read the spool snapshot {snap}") from e
        with f:
            f.seek(prog.offset)
            finished = False
            while True:
                try:
                    raw = f.readline()
                except OSError as e:
                    raise _explain(e, f"read the spool snapshot {snap}") from e
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
                if not run.import_line(self, line):
                    break  # a database error: this entry and the rest wait
                prog.offset += len(raw)
                prog.lines += 1
                if (prog.lines - saved[1] >= CHECKPOINT_ENTRIES
                        or time.monotonic() - last_saved >= CHECKPOINT_SECONDS):
                    self._write_progress(snap, prog)
                    saved, last_saved = (prog.offset, prog.lines, prog.total), time.monotonic()
        if finished:
            return True
        if prog.total is None:
            prog.total = prog.lines + self._count(snap, prog.offset)  # once per snapshot
        if (prog.offset, prog.lines, prog.total) != saved:
            self._write_progress(snap, prog)
        return False


@dataclass
class _Progress:
    """A snapshot's sidecar: the bytes (and entries) of it already stored or set aside."""

    offset: int = 0
    lines: int = 0
    total: int | None = None
    """Entries in the whole snapshot, once counted."""
    size: int = 0
    """The snapshot's size (a sidecar for another file is ignored)."""


def _sidecar(snap: Path) -> Path:
    return snap.with_name(snap.name + ".done")


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
