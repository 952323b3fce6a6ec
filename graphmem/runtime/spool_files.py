"""Durable file primitives of the spool and the transcript cursors: locks, ``fsync``'d appends and
renames, clear errors, and the progress sidecar of a spool snapshot being replayed.

A snapshot's sidecar (``<snapshot>.done``, JSON) records the bytes and entries of the snapshot
already stored or set aside, the snapshot's size and (once counted) its entry count. It is
replaced atomically (temp file, ``fsync``, rename) and checked against its snapshot when read: a
sidecar that does not fit (size, offset not at a line end) counts as none.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import GraphMemError

__all__ = [
    "SnapshotProgress",
    "SpoolError",
    "append_bytes",
    "count_entries",
    "explain",
    "fsync_dir",
    "locked",
    "read_lines",
    "read_progress",
    "sidecar",
    "write_progress",
]


class SpoolError(GraphMemError):
    """The spool cannot be written or read (disk full, read-only $GRAPHMEM_HOME, permissions)."""


def fsync_dir(path: Path) -> None:
    """``fsync`` a folder (its entries: created, renamed, removed files); errors are ignored."""
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


def explain(e: OSError, what: str) -> SpoolError:
    """A :class:`SpoolError` saying in words why ``what`` failed (disk full, read-only, ...)."""
    reason = {
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is exceeded",
        errno.EROFS: "the file system is read-only",
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted",
        errno.ENOTDIR: "a path component is not a directory",
    }.get(e.errno or 0, e.strerror or str(e))
    return SpoolError(f"cannot {what}: {reason} ({e.filename or ''}{': ' if e.filename else ''}{e})")


@contextlib.contextmanager
def locked(path: Path, *, blocking: bool = True) -> Iterator[bool]:
    """Hold an exclusive ``flock`` on ``path`` (created 0600); without ``blocking`` yields False when
    another process holds it."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as e:
        raise explain(e, f"open the spool lock {path}") from e
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing releases the lock



def append_bytes(path: Path, data: bytes) -> None:
    """Append ``data`` to ``path`` (created 0600) with one ``write`` and ``fsync``; a cut-short last
    line before it stays a line of its own, and a failed write leaves no partial line behind."""
    existed = path.exists()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError as e:
        raise explain(e, f"open the spool file {path}") from e
    try:
        size = os.fstat(fd).st_size
        if size > 0 and not _ends_with_newline(path, size):
            data = b"\n" + data  # a cut-short line before us stays a line of its own
        try:
            written = os.write(fd, data)
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        except OSError as e:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)  # leave no partial line behind
            raise explain(e, f"write the spool file {path}") from e
    finally:
        os.close(fd)
    if not existed:
        with contextlib.suppress(OSError):
            os.chmod(path, 0o600)
        fsync_dir(path.parent)

def _ends_with_newline(path: Path, size: int) -> bool:
    try:
        with open(path, "rb") as f:
            f.seek(size - 1)
            return f.read(1) == b"\n"
    except OSError:
        return True


def read_lines(path: Path) -> list[bytes]:
    """The non-blank lines of ``path`` (none when it does not exist)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as e:
        raise explain(e, f"read the spool file {path}") from e
    return [ln for ln in data.split(b"\n") if ln.strip()]



def count_entries(path: Path, offset: int) -> int:
    """Entries (non-blank lines) in ``path`` from ``offset`` on."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            return sum(1 for ln in f if ln.strip())
    except FileNotFoundError:
        return 0
    except OSError as e:
        raise explain(e, f"read the spool file {path}") from e


@dataclass
class SnapshotProgress:
    """A snapshot's sidecar: the bytes (and entries) of it already stored or set aside."""

    offset: int = 0
    lines: int = 0
    total: int | None = None
    """Entries in the whole snapshot, once counted."""
    size: int = 0
    """The snapshot's size (a sidecar for another file is ignored)."""


def _sidecar(snap: Path) -> Path:
    return snap.with_name(snap.name + ".done")


def sidecar(snap: Path) -> Path:
    """The progress sidecar of snapshot ``snap``."""
    return snap.with_name(snap.name + ".done")


def read_progress(snap: Path) -> SnapshotProgress:
    """``snap``'s sidecar, checked against the snapshot; nothing recorded when it is missing,
    unreadable or does not fit (the whole snapshot is then imported again, without duplicates)."""
    try:
        size = snap.stat().st_size
    except OSError:
        return SnapshotProgress()
    fresh = SnapshotProgress(size=size)
    try:
        v = json.loads(sidecar(snap).read_bytes())
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
    return SnapshotProgress(offset=offset, lines=lines, total=total, size=size)



def write_progress(snap: Path, prog: SnapshotProgress) -> None:
    """Replace ``snap``'s sidecar atomically (temp file, ``fsync``, rename). A crash keeps the
    old sidecar (or none): it lags, and the entries after it are imported again (skipped)."""
    tmp = snap.parent / f".progress-{os.getpid()}-{uuid.uuid4().hex}.tmp"
    data = json.dumps({"offset": prog.offset, "lines": prog.lines, "total": prog.total,
                       "size": prog.size}).encode("ascii")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, sidecar(snap))
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        # nothing is lost: the snapshot stays, and the next replay skips what is already stored
        raise explain(e, f"record the replay progress of {snap}") from e
