"""Transcript cursors of the Stop hooks: where the last ingest of each transcript stopped.

One small JSON file per transcript under ``$GRAPHMEM_HOME/cursors/`` (0700 folder, 0600 files,
written atomically), named by a digest of the agent and the transcript's real path. Files rather
than the graph because the cursor must move when Neo4j is down too (the turns then go to the
spool). Losing a cursor is harmless: the transcript is read again from the start and the
database skips every turn whose source id it already holds.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..integrations import ReadCursor
from .spool_files import explain

__all__ = ["CursorStore"]


class CursorStore:
    """Cursors of one ``$GRAPHMEM_HOME``."""

    def __init__(self, home: str | os.PathLike[str]) -> None:
        self.dir = Path(home) / "cursors"

    def _key(self, agent: str, transcript: str) -> str:
        real = os.path.realpath(os.path.expanduser(transcript))
        return hashlib.sha1(f"{agent}\x00{real}".encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()

    def _ensure(self) -> None:
        try:
            if not self.dir.is_dir():
                self.dir.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                self.dir.mkdir(mode=0o700, exist_ok=True)
                os.chmod(self.dir, 0o700)
        except OSError as e:
            raise explain(e, f"create the cursor folder {self.dir}") from e

    def get(self, agent: str, transcript: str) -> ReadCursor | None:
        """The saved cursor, or None (never read, or unreadable)."""
        path = self.dir / f"{self._key(agent, transcript)}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return ReadCursor.model_validate(data.get("cursor") or {})
        except (OSError, ValueError):
            return None

    def info(self, agent: str, transcript: str) -> dict[str, Any] | None:
        path = self.dir / f"{self._key(agent, transcript)}.json"
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def put(self, agent: str, transcript: str, cursor: ReadCursor, *, session_id: str | None = None) -> None:
        """Save atomically (temporary file, fsync, rename). Raises :class:`SpoolError`."""
        self._ensure()
        key = self._key(agent, transcript)
        path = self.dir / f"{key}.json"
        tmp = self.dir / f".{key}.{os.getpid()}.tmp"
        data = {
            "agent": agent,
            "transcript": os.path.realpath(os.path.expanduser(transcript)),
            "session_id": session_id,
            "cursor": cursor.model_dump(mode="json"),
            "updated_at": datetime.now(UTC).isoformat(),
        }
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, json.dumps(data, ensure_ascii=True).encode("ascii"))
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except OSError as e:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise explain(e, f"save the transcript cursor {path}") from e

    @contextlib.contextmanager
    def lock(self, agent: str, transcript: str) -> Iterator[None]:
        """Serialise ingests of one transcript across processes (``flock``)."""
        self._ensure()
        path = self.dir / f"{self._key(agent, transcript)}.lock"
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as e:
            raise explain(e, f"open the cursor lock {path}") from e
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

