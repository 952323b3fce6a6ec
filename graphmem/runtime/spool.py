"""The local spool: turns a hook could not store because Neo4j was unreachable.

``$GRAPHMEM_HOME/spool/spool.jsonl`` (mode 0600, in a 0700 folder) is append-only: one JSON line
per entry (a session's identity plus its new, already redacted turns), written with a single
``write`` under an exclusive ``flock`` and ``fsync``'d before the hook moves its transcript cursor
past those turns. Nothing the hook read is lost: either the turns are in Neo4j, or in the spool,
or the cursor was not moved and the next Stop reads them again.

**Replay** (next successful hook, ``graphmem db up``, ``graphmem spool replay``, the daemon's
timer) is exactly-once in the database: every spooled turn carries a source id and goes through
:meth:`GraphMemory.import_turns`, which skips ids the session already holds. Under the lock the
spool file is renamed to a ``replaying-*.jsonl`` snapshot (new hooks append to a fresh file); the
snapshot's entries are imported in order; it is deleted only once each of them is committed, set
aside or written back. If the database fails part-way, or the caller's budget (``max_seconds``,
``max_entries``: a hook replays for a bounded time, see ``GRAPHMEM_HOOK_REPLAY_SECONDS``) is spent,
the entries not yet committed are put back *in front of* whatever was appended meanwhile (order
matters: turn indexes follow import order). A budget is checked between entries and the first
entry is always attempted, so every replay makes progress. A crash at any point leaves a snapshot
or the spool file, which the next replay imports again without duplicates. Entries
the database refuses for good (invalid data) go to ``rejected.jsonl`` instead of blocking the
queue. A truncated last line (a write cut short by a crash or a full disk) is set aside the same
way; such an entry was never acknowledged, so its transcript cursor was not moved either.
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
    """Entries still in the spool (the database failed part-way, or the budget was spent)."""
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

    def __init__(self, home: str | os.PathLike[str]) -> None:
        self.home = Path(home)
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

    def entries(self) -> list[dict[str, Any]]:
        """Every readable entry, in replay order (leftover snapshots first, then the spool)."""
        out = []
        for p in [*self._snapshots(), self.path]:
            for line in self._read_lines(p):
                e = self._decode(line)
                if e is not None:
                    out.append(e)
        return out

    def pending(self) -> bool:
        """Whether anything waits for a replay (cheap: file sizes only)."""
        try:
            if self.path.stat().st_size > 0:
                return True
        except OSError:
            pass
        return bool(self._snapshots())

    def status(self) -> SpoolStatus:
        entries = self.entries()
        size = 0
        for p in [*self._snapshots(), self.path]:
            with contextlib.suppress(OSError):
                size += p.stat().st_size
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

    def replay(
        self,
        mem: GraphMemory,
        *,
        progress: Callable[[int], None] | None = None,
        max_seconds: float | None = None,
        max_entries: int | None = None,
    ) -> ReplayResult:
        """Import the spooled entries into ``mem`` (exactly once, in order); see the module doc.

        Without a budget every entry is imported. ``max_seconds`` (counted from this call) and
        ``max_entries`` (entries taken from the spool: committed or set aside) stop the replay
        between entries; the first entry is always attempted. What is left stays spooled, in
        front of newer entries, and the result says ``budget_exhausted``.

        Returns at once with ``busy`` when another process is replaying. Database errors stop
        the replay (the rest stays spooled) and are reported in ``error``, not raised."""
        from ..models import TurnIn

        if max_seconds is not None and not max_seconds >= 0:
            raise ValueError(f"max_seconds must be >= 0 or None, not {max_seconds!r}")
        if max_entries is not None and max_entries < 1:
            raise ValueError(f"max_entries must be >= 1 or None, not {max_entries!r}")
        deadline = None if max_seconds is None else time.monotonic() + max_seconds
        result = ReplayResult()
        if not self.pending():
            return result
        self._ensure_dir()
        with self._locked(self._replay_lock_path, blocking=False) as got:
            if not got:
                result.busy = True
                return result
            with self._locked(self._lock_path):
                if self.path.exists() and self.path.stat().st_size > 0:
                    snap = self.dir / f"replaying-{time.time_ns():020d}-{os.getpid()}.jsonl"
                    try:
                        os.replace(self.path, snap)
                    except OSError as e:
                        raise _explain(e, f"move the spool file {self.path}") from e
                    _fsync_dir(self.dir)
                snapshots = self._snapshots()
            lines = [ln for p in snapshots for ln in self._read_lines(p)]
            remaining: list[bytes] = []
            sessions_ok: set[str] = set()
            for i, line in enumerate(lines):
                if i > 0 and ((max_entries is not None and i >= max_entries)
                              or (deadline is not None and time.monotonic() >= deadline)):
                    remaining = lines[i:]  # the budget is spent: the rest waits, in order
                    result.budget_exhausted = True
                    break
                entry = self._decode(line)
                if entry is None:
                    self._reject(line, "not a readable spool entry (truncated write?)")
                    result.rejected += 1
                    continue
                try:
                    sid = entry["session_id"]
                    if sid not in sessions_ok:
                        started = entry.get("started_at")
                        mem.create_session(
                            entry.get("cwd") or "/",
                            entry.get("project_path"),
                            entry.get("agent"),
                            session_id=sid,
                            title=entry.get("title"),
                            started_at=datetime.fromisoformat(started) if started else None,
                        )
                        sessions_ok.add(sid)
                    turns = [TurnIn.model_validate(t) for t in entry["turns"]]
                    r = mem.import_turns(sid, turns)
                except DatabaseError as e:  # unreachable or failing: keep this entry and the rest
                    remaining = lines[i:]
                    result.error = str(e).splitlines()[0] if str(e) else type(e).__name__
                    break
                except (GraphMemError, ValueError, TypeError, KeyError) as e:
                    self._reject(line, f"{type(e).__name__}: {e}")
                    result.rejected += 1
                    continue
                result.entries += 1
                result.turns_created += r.created
                result.turns_skipped += r.skipped
                if progress is not None:
                    progress(1)
            with self._locked(self._lock_path):
                if remaining:
                    newer = self._read_lines(self.path)
                    tmp = self.dir / f".spool-{os.getpid()}-{uuid.uuid4().hex}.tmp"
                    try:
                        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                        try:
                            os.write(fd, b"".join(ln + b"\n" for ln in [*remaining, *newer]))
                            os.fsync(fd)
                        finally:
                            os.close(fd)
                        os.replace(tmp, self.path)
                    except OSError as e:
                        with contextlib.suppress(OSError):
                            tmp.unlink()
                        # the snapshots stay: the next replay imports them again, without duplicates
                        raise _explain(e, f"write back the spool file {self.path}") from e
                    result.remaining = len(remaining)
                for snap in snapshots:
                    with contextlib.suppress(FileNotFoundError):
                        snap.unlink()
                _fsync_dir(self.dir)
        return result
