"""The summary job queue in Neo4j: claiming jobs with a lease, keeping, releasing, dropping and
failing them (see :mod:`graphmem.worker` for the protocol), and the queue's status.
"""

from __future__ import annotations

import logging
import random
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..db import Database
from ..db.client import Tx
from ..db.rows import native_row
from ..errors import GraphMemError
from .config import WorkerConfig, WorkerStats

__all__ = ["ClaimedJob", "JobLeases", "LeaseLost", "NothingToDo", "WorkerStatus", "retry_failed_jobs", "worker_status"]

log = logging.getLogger("graphmem.worker")


@dataclass(frozen=True)
class ClaimedJob:
    """A job this worker holds a lease on."""

    id: str
    session_id: str
    level: int
    child_ids: tuple[str, ...]
    cover_key: str
    token: str
    attempts: int
    errors: int
    lost_leases: int

    @classmethod
    def from_row(cls, row: dict[str, Any], token: str) -> ClaimedJob:
        return cls(
            id=row["id"],
            session_id=row["sessionId"],
            level=int(row["level"]),
            child_ids=tuple(row["childIds"] or ()),
            cover_key=row["coverKey"],
            token=token,
            attempts=int(row["attempts"] or 0),
            errors=int(row["errors"] or 0),
            lost_leases=int(row["lostLeases"] or 0),
        )


class LeaseLost(Exception):
    """The job is no longer ours (taken over after our lease expired, or deleted)."""


class NothingToDo(Exception):
    """The job has nothing left to do: roll back and delete it."""


class JobLeases:
    """Claiming, leases and giving jobs back: the part of :class:`~graphmem.worker.SummaryWorker`
    that talks to the job queue."""

    db: Database
    config: WorkerConfig
    owner: str
    stats: WorkerStats
    _rng: random.Random

    def claim(self, n: int) -> list[ClaimedJob]:
        """Claim up to ``n`` jobs with a lease (one transaction)."""
        if n <= 0:
            return []
        scope = self.config.scope_params()
        # (a job deleted by a concurrent commit while this read runs comes back with a null id)
        candidates = [
            r["id"]
            for r in self.db.read("worker/claimable_jobs", limit=n * 4, path=scope["path"], prefix=scope["prefix"])
            if r["id"] is not None
        ]
        if not candidates:
            return []
        # workers that see the same queue spread over it instead of all fighting for its head
        ids = sorted(self._rng.sample(candidates, min(n, len(candidates))))
        token = uuid.uuid4().hex
        lease_ms = int(self.config.lease_seconds * 1000)

        def work(tx: Tx) -> list[dict[str, Any]]:
            tx.run("worker/lock_jobs", ids=ids)
            return tx.run("worker/claim_jobs", ids=ids, owner=self.owner, token=token, leaseMs=lease_ms)

        rows = self.db.transaction(work)
        jobs = [ClaimedJob.from_row(r["job"], token) for r in rows]
        out: list[ClaimedJob] = []
        for job in jobs:
            if job.lost_leases >= self.config.max_lost_leases:
                self._fail(job, f"its lease expired {job.lost_leases} times: the workers running it died or "
                                "stalled (killed, out of memory?)", final=True)
            else:
                out.append(job)
        return out

    def _extend(self, jobs: Sequence[ClaimedJob]) -> None:
        by_token: dict[str, list[str]] = {}
        for j in jobs:
            by_token.setdefault(j.token, []).append(j.id)
        for token, ids in by_token.items():
            self.db.write(
                "worker/extend_leases", ids=sorted(ids), token=token, leaseMs=int(self.config.lease_seconds * 1000)
            )

    def _owned(self, tx: Tx, job: ClaimedJob) -> dict[str, Any] | None:
        tx.run("worker/lock_jobs", ids=[job.id])
        rows = tx.run("worker/job_owner", jobId=job.id, token=job.token)
        return rows[0] if rows and rows[0]["owned"] else None

    def _release(self, job: ClaimedJob) -> None:
        def work(tx: Tx) -> None:
            if self._owned(tx, job) is not None:
                tx.run("worker/release_job", jobId=job.id)

        self.db.transaction(work)

    def _drop(self, job: ClaimedJob) -> None:
        def work(tx: Tx) -> None:
            if self._owned(tx, job) is not None:
                tx.run("worker/drop_job", jobId=job.id)

        self.db.transaction(work)
        self.stats.jobs_dropped += 1

    def _fail(self, job: ClaimedJob, error: str, *, final: bool = False) -> None:
        cfg = self.config

        def work(tx: Tx) -> str | None:
            owned = self._owned(tx, job)
            if owned is None:
                return None
            errors = int(owned["errors"] or 0) + 1
            state = "failed" if final or errors >= cfg.max_attempts else "ready"
            backoff = cfg.backoff_seconds(errors) * (0.75 + 0.25 * self._rng.random())
            tx.run("worker/fail_job", jobId=job.id, error=error[:4000], state=state, backoffMs=int(backoff * 1000))
            return state

        self.stats.errors += 1
        state = self.db.transaction(work)
        if state is None:
            self.stats.jobs_lost += 1
        elif state == "failed":
            self.stats.jobs_failed += 1
            log.error("worker %s: job %s (level %d, session %s) failed for good: %s",
                      self.owner, job.id, job.level, job.session_id, error)
        else:
            log.warning("worker %s: job %s failed (attempt %d), will retry: %s", self.owner, job.id, job.attempts, error)

    @contextmanager
    def _lease_kept(self, job: ClaimedJob) -> Iterator[None]:
        """Extend ``job``'s lease every third of a lease while the block runs (in a helper thread)."""
        done = threading.Event()
        interval = max(0.2, self.config.lease_seconds / 3)

        def keep() -> None:
            while not done.wait(interval):
                try:
                    self._extend([job])
                except GraphMemError as e:
                    log.warning("worker %s: could not extend the lease of job %s: %s", self.owner, job.id, e)

        keeper = threading.Thread(target=keep, name=f"lease-{job.id}", daemon=True)
        keeper.start()
        try:
            yield
        finally:
            done.set()
            keeper.join(timeout=self.config.lease_seconds)


# -- status and maintenance ----------------------------------------------------------------------


@dataclass(frozen=True)
class WorkerStatus:
    """The queue as ``graphmem worker status`` shows it."""

    jobs: list[dict[str, Any]]
    """``{state, level, count, expired}`` per (state, level)."""
    workers: list[dict[str, Any]]
    """Workers holding live leases: ``{owner, jobs, lastClaim}``."""
    failed: list[dict[str, Any]]
    pending_turns: int
    unembedded_turns: int
    unembedded_summaries: int
    summaries: int

    def count(self, state: str) -> int:
        return sum(int(j["count"]) for j in self.jobs if j["state"] == state)


def worker_status(db: Database, *, failed_limit: int = 20) -> WorkerStatus:
    row = db.read("worker/status")[0]
    failed = [native_row(r["job"]) for r in db.read("worker/failed_jobs", limit=failed_limit)]
    return WorkerStatus(
        jobs=[native_row(j) for j in row["jobs"]],
        workers=[native_row(w) for w in row["workers"]],
        failed=failed,
        pending_turns=int(row["pendingTurns"]),
        unembedded_turns=int(row["unembeddedTurns"]),
        unembedded_summaries=int(row["unembeddedSummaries"]),
        summaries=int(row["summaries"]),
    )


def retry_failed_jobs(db: Database, session_id: str | None = None) -> int:
    """Give failed jobs (of one session, or all) a fresh set of attempts; returns how many."""
    rows = db.write("worker/retry_failed", sessionId=session_id)
    return int(rows[0]["retried"]) if rows else 0
