"""The summary hierarchy: how children are grouped into summary jobs, and reads of the summaries.

Level 1 summarizes turns; level ``n + 1`` summarizes level-``n`` summaries. Every summary covers a
contiguous range of its session's turns (``fromIndex`` .. ``toIndex``), and every turn or summary
has at most one parent (the ``SUMMARIZES {childId}`` uniqueness constraint).

* **Level 1** (:func:`plan_level1`): with ``batch_chars == 0`` every turn gets its own summary;
  otherwise consecutive turns are grouped while their raw characters stay within ``batch_chars``
  (at most ``max_turns``), and the last, still open group is closed once its newest turn is older
  than the batching wait (the conversation paused).
* **Roll-up** (:func:`plan_rollup`): consecutive level-``n`` summaries not yet covered are
  grouped until the raw characters they cover pass :func:`rollup_threshold` of level ``n``
  (``threshold * growth ** (n - 1)``: 5,000, 20,000, 80,000 ... by default), so each level holds a
  bounded number of open summaries and a week-long session stays bounded.

The planning functions are pure; :mod:`graphmem.worker` runs them inside the per-(session, level)
planning transaction that also queues the jobs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .db import Database
from .db.rows import native
from .models import Summary

__all__ = [
    "PlanChild",
    "PlannedJob",
    "cover_key",
    "plan_level1",
    "plan_rollup",
    "rollup_threshold",
    "session_summaries",
    "summaries_not_rolled_up",
    "summary_from_row",
]


@dataclass(frozen=True)
class PlanChild:
    """A turn (level-1 planning) or a summary (roll-up planning) waiting for a parent."""

    id: str
    from_index: int
    to_index: int
    char_count: int
    settled: bool = True
    """Turns only: older than the batching wait (an open batch may be closed)."""

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> PlanChild:
        return cls(
            id=str(row["id"]),
            from_index=int(row["fromIndex"]),
            to_index=int(row["toIndex"]),
            char_count=int(row["charCount"] or 0),
            settled=bool(row.get("settled", True)),
        )


@dataclass(frozen=True)
class PlannedJob:
    """One summary to write: its level and its children, oldest first."""

    level: int
    children: tuple[PlanChild, ...]

    @property
    def child_ids(self) -> list[str]:
        return [c.id for c in self.children]

    @property
    def from_index(self) -> int:
        return self.children[0].from_index

    @property
    def to_index(self) -> int:
        return self.children[-1].to_index

    @property
    def char_count(self) -> int:
        return sum(c.char_count for c in self.children)


def cover_key(session_id: str, level: int, child_ids: Sequence[str]) -> str:
    """The identity of a summary (and of its job): its level and exactly which children it covers."""
    digest = hashlib.sha256("\x1f".join([session_id, str(level), *child_ids]).encode("utf-8")).hexdigest()
    return f"L{level}:{digest[:40]}"


def rollup_threshold(level: int, base_chars: int, growth: float) -> float:
    """Raw characters of open level-``level`` summaries past which they are rolled up into level + 1."""
    if level < 1:
        raise ValueError("summary levels start at 1")
    return float(base_chars) * float(growth) ** (level - 1)


def plan_level1(
    children: Sequence[PlanChild], *, batch_chars: int, max_turns: int
) -> tuple[list[PlannedJob], int | None]:
    """Group pending turns (in index order) into level-1 jobs.

    Returns the jobs and the index of the last turn they cover (``None`` when there is no job): the
    planning cursor moves there, and later turns wait for the next planning round.
    """
    jobs: list[PlannedJob] = []
    if batch_chars <= 0 or max_turns <= 1:
        jobs = [PlannedJob(1, (c,)) for c in children]
        return jobs, (jobs[-1].to_index if jobs else None)
    batch: list[PlanChild] = []
    chars = 0

    def close() -> None:
        nonlocal batch, chars
        if batch:
            jobs.append(PlannedJob(1, tuple(batch)))
        batch, chars = [], 0

    for c in children:
        if batch and (
            c.from_index != batch[-1].to_index + 1 or chars + c.char_count > batch_chars or len(batch) >= max_turns
        ):
            close()
        batch.append(c)
        chars += c.char_count
        if chars >= batch_chars or len(batch) >= max_turns:
            close()
    if batch and batch[-1].settled:
        close()
    return jobs, (jobs[-1].to_index if jobs else None)


def plan_rollup(
    children: Sequence[PlanChild],
    through: int,
    *,
    child_level: int,
    threshold: float,
    min_children: int = 2,
    max_children: int = 64,
) -> tuple[list[PlannedJob], int | None]:
    """Group open level-``child_level`` summaries (in turn order, after the cursor ``through``) into
    level ``child_level + 1`` jobs: a job closes once its children's raw characters pass
    ``threshold`` (with at least ``min_children``) or it holds ``max_children``. Only a contiguous
    run starting right after the cursor is used: a gap is a lower-level summary not written yet
    (or failed), and rolling past it would break the order of the hierarchy.
    """
    jobs: list[PlannedJob] = []
    batch: list[PlanChild] = []
    chars = 0
    expected = through + 1
    min_children = max(1, min_children)
    for c in children:
        if c.from_index != expected:
            break
        batch.append(c)
        chars += c.char_count
        expected = c.to_index + 1
        if (chars > threshold and len(batch) >= min_children) or len(batch) >= max(max_children, min_children):
            jobs.append(PlannedJob(child_level + 1, tuple(batch)))
            batch, chars = [], 0
    return jobs, (jobs[-1].to_index if jobs else None)


# -- reads ---------------------------------------------------------------------------------------


def summary_from_row(row: Mapping[str, Any]) -> Summary:
    """A stored summary node (as ``summaries/*.cypher`` return it) as a :class:`~graphmem.models.Summary`."""
    return Summary(
        id=row["id"],
        session_id=row["sessionId"],
        level=int(row["level"]),
        summary=row.get("text") or "",
        key_findings=list(row.get("keyFindings") or []),
        files_mentioned=list(row.get("filesMentioned") or []),
        tools_used=list(row.get("toolsUsed") or []),
        topics=list(row.get("topics") or []),
        char_count=int(row.get("charCount") or 0),
        turn_count=int(row.get("turnCount") or 0),
        timestamp=native(row["timestamp"]),
        method=row.get("method") or "extractive",
        child_ids=list(row.get("childIds") or []),
    )


def summaries_not_rolled_up(db: Database, session_id: str, level: int, limit: int = 10) -> list[Summary]:
    """The latest ``limit`` level-``level`` summaries of a session that no higher summary covers yet,
    oldest first."""
    if level < 1 or limit < 0:
        raise ValueError("level must be >= 1 and limit >= 0")
    rows = db.read("summaries/not_rolled_up", sessionId=session_id, level=level, limit=limit)
    return [summary_from_row(r["summary"]) for r in reversed(rows)]


def session_summaries(db: Database, session_id: str, level: int | None = None) -> list[Summary]:
    """A session's summaries (one level or all), by level then turn order."""
    rows = db.read("summaries/for_session", sessionId=session_id, level=level)
    return [summary_from_row(r["summary"]) for r in rows]
