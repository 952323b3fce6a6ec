"""The local spool: turns a hook could not store because Neo4j was unreachable.

``$GRAPHMEM_HOME/spool/spool.jsonl`` (mode 0600, in a 0700 folder) is append-only: one JSON line
per entry (a session's identity plus its new, already redacted turns), written with a single
``write`` under an exclusive ``flock`` and ``fsync``'d before the hook moves its transcript cursor
past those turns. Nothing the hook read is lost: either the turns are in Neo4j, or in the spool,
or the cursor was not moved and the next Stop reads them again.

Replay (exactly once, resumable, bounded by a budget) is :mod:`graphmem.runtime.spool_replay`;
the durable file primitives are :mod:`graphmem.runtime.spool_files`.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .spool_files import SpoolError, append_bytes, explain, fsync_dir, locked, read_lines, read_progress
from .spool_replay import ReplayResult, replay_spool

if TYPE_CHECKING:
    from ..memory import GraphMemory
    from ..models import TurnIn

__all__ = ["ReplayResult", "Spool", "SpoolError", "SpoolStatus"]

SPOOL_VERSION = 1


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
                fsync_dir(self.home)
        except OSError as e:
            raise explain(e, f"create the spool folder {self.dir}") from e

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
        with locked(self._lock_path):
            append_bytes(self.path, line)

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

    def _pending_lines(self) -> Iterator[bytes]:
        """Every line not yet imported, in replay order: leftover snapshots (each after its
        committed prefix), then the spool file."""
        for snap in self._snapshots():
            offset = read_progress(snap).offset
            try:
                with open(snap, "rb") as f:
                    f.seek(offset)
                    data = f.read()
            except FileNotFoundError:
                continue  # replayed meanwhile
            except OSError as e:
                raise explain(e, f"read the spool snapshot {snap}") from e
            yield from (ln for ln in data.split(b"\n") if ln.strip())
        yield from read_lines(self.path)

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
                size += max(0, p.stat().st_size - read_progress(p).offset)
        with contextlib.suppress(OSError):
            size += self.path.stat().st_size
        rejected = len(read_lines(self.rejected_path)) if self.rejected_path.exists() else 0
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
            append_bytes(self.rejected_path, data)

    def replay(
        self,
        mem: GraphMemory,
        *,
        progress: Callable[[int], None] | None = None,
        max_seconds: float | None = None,
        max_entries: int | None = None,
    ) -> ReplayResult:
        """Import the spooled entries into ``mem`` (exactly once, in order): see
        :func:`graphmem.runtime.spool_replay.replay_spool`."""
        return replay_spool(self, mem, progress=progress, max_seconds=max_seconds, max_entries=max_entries)
