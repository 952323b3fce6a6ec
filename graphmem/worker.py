"""The summarizer worker: embeds pending turns, writes level-1 summaries, rolls summaries up.

Run it as ``graphmem worker run`` (foreground; any number of them, on any number of machines) or
in a library process with :meth:`SummaryWorker.start_thread`. Everything it shares with other
workers lives in Neo4j:

**Planning.** For each session with pending turns, a planner takes the write lock of the
session's ``(:SummaryCursor {key: "<session>|<level>"})`` (MERGEd on a unique key), reads the
children after the cursor, groups them (:mod:`graphmem.hierarchy`), creates one
``(:SummaryJob)`` per group and moves the cursor past them, all in one transaction: planners of
the same (session, level) are serialised and never queue the same child twice (a job's
``coverKey`` is unique as well). Roll-ups are planned the same way once a level's open summaries
pass its threshold.

**Claiming.** A claim transaction locks candidate jobs (sorted ids, so claimers cannot deadlock),
re-reads them and takes those still claimable: ``ready`` ones whose backoff has passed and
``running`` ones whose lease expired. A claimed job gets ``state: 'running'``, the worker's id, a
fresh random ``token`` and ``leaseUntil`` (server clock, so machines' clocks do not matter).

**Writing.** One transaction per job: lock the job, check that the token is still ours and that
no child is covered yet, create the summary with its ``SUMMARIZES`` and ``HAS_SUMMARY`` relations,
mark the children (turns ``summaryState: 'done'``), and delete the job. A worker killed at any
point leaves either nothing or the whole summary; its job is taken again after the lease. The
database enforces the rest: each child has at most one parent (``SUMMARIZES {childId}`` is
unique) and a summary's ``coverKey`` is unique, so no summary is ever written twice for the same
children even by a worker whose lease silently expired.

**Failing.** An exception while summarizing or writing counts an error and puts the job back with
exponential backoff; after ``max_attempts`` errors (or ``max_lost_leases`` expired leases: a job
that keeps killing its worker) it stays ``failed`` with its last error, shown by
``graphmem worker status`` until ``graphmem worker retry-failed``.
"""

from __future__ import annotations

import logging
import os
import random
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .activity import ForegroundSignal
from .config import Settings
from .db import Database
from .db.client import Tx
from .embedding import Embedder, embed_pending_summaries, embed_pending_turns, scope_params
from .errors import DatabaseError, DatabaseUnavailable, GraphMemError
from .hierarchy import PlanChild, cover_key, plan_level1, plan_rollup, rollup_threshold
from .models import ConversationSummary
from .providers import (
    ExtractiveSummarizer,
    Summarizer,
    SummaryResult,
    ToolCallForSummary,
    TurnForSummary,
)

__all__ = [
    "DEFAULT_LLM_BATCH_CHARS",
    "ClaimedJob",
    "SummaryWorker",
    "WorkerConfig",
    "WorkerStats",
    "WorkerStatus",
    "WorkerThread",
    "retry_failed_jobs",
    "worker_status",
]

log = logging.getLogger("graphmem.worker")

DEFAULT_LLM_BATCH_CHARS = 1500
"""Level-1 batching with an LLM summarizer when not configured: consecutive turns totalling at most
this many raw characters share one summary (one LLM call)."""


@dataclass(frozen=True)
class WorkerConfig:
    """How a worker groups, claims and retries (defaults = :class:`~graphmem.config.Settings`)."""

    batch_chars: int = 0
    """Level-1 batching: 0 = one summary per turn (the default with the extractive summarizer)."""
    batch_max_turns: int = 8
    batch_wait_seconds: float = 60.0
    """An open batch is closed once its newest turn is this old (the conversation paused)."""
    rollup_threshold_chars: int = 5000
    rollup_growth: float = 4.0
    rollup_min_children: int = 2
    rollup_max_children: int = 64
    lease_seconds: float = 120.0
    max_attempts: int = 5
    max_lost_leases: int = 25
    retry_base_seconds: float = 5.0
    retry_max_seconds: float = 900.0
    claim_batch: int = 4
    poll_seconds: float = 1.0
    embed_batch: int = 64
    plan_limit: int = 500
    """Children read per planning transaction."""
    sessions_per_round: int = 100
    input_max_chars: int = 20_000
    """Characters of each message given to the summarizer (long pastes are cut)."""
    tool_max_chars: int = 2_000
    gc_every_seconds: float = 600.0
    context_window: int = 2
    """Neighbouring turns written into each embedded turn's ``contextText`` (0 = off)."""
    duty_cycle: float = 1.0
    """Fraction of wall time spent working while there is work: below 1 the worker pauses after each
    job (``job time * (1 / duty_cycle - 1)``) to leave CPU to interactive writers and readers."""
    yield_seconds: float = 0.25
    """Take no new job (and start no embedding batch) while a foreground call on this machine
    (store_turn, search, build_context) ran less than this long ago (see :mod:`graphmem.activity`;
    0 = never yield)."""
    max_yield_seconds: float = 2.0
    """Yield at most this long in a row, so a busy foreground slows the worker but never stops it."""
    test_delay_seconds: float = 0.0
    scope: str | None = None
    """Only work on sessions of this directory and below (a normalised path); None = all."""

    def scope_params(self) -> dict[str, str | None]:
        return scope_params(self.scope)

    @classmethod
    def from_settings(cls, settings: Settings, *, llm: bool | None = None, scope: str | None = None) -> WorkerConfig:
        """From the settings; ``llm`` (default: ``settings.summarizer == "openai"``) picks the
        level-1 batching default when ``summary_batch_chars`` is not set."""
        if llm is None:
            llm = settings.summarizer == "openai"
        batch = settings.summary_batch_chars
        if batch is None:
            batch = DEFAULT_LLM_BATCH_CHARS if llm else 0
        return cls(
            batch_chars=batch,
            batch_max_turns=settings.summary_batch_max_turns,
            batch_wait_seconds=settings.summary_batch_wait_seconds,
            rollup_threshold_chars=settings.rollup_threshold_chars,
            rollup_growth=settings.rollup_growth,
            rollup_min_children=settings.rollup_min_children,
            rollup_max_children=settings.rollup_max_children,
            lease_seconds=settings.worker_lease_seconds,
            max_attempts=settings.worker_max_attempts,
            max_lost_leases=settings.worker_max_lost_leases,
            retry_base_seconds=settings.worker_retry_base_seconds,
            retry_max_seconds=settings.worker_retry_max_seconds,
            claim_batch=settings.worker_claim_batch,
            duty_cycle=settings.worker_duty_cycle,
            yield_seconds=settings.worker_yield_seconds,
            poll_seconds=settings.worker_poll_seconds,
            test_delay_seconds=settings.worker_test_delay_seconds,
            scope=scope,
        )

    def backoff_seconds(self, errors: int) -> float:
        """The wait before retrying a job that failed ``errors`` times (exponential, capped)."""
        return float(min(self.retry_max_seconds, self.retry_base_seconds * 2 ** max(0, errors - 1)))


@dataclass
class WorkerStats:
    """What one worker did (counters since it started)."""

    summaries: Counter[int] = field(default_factory=Counter)
    """Summaries written, by level."""
    turns_summarized: int = 0
    jobs_planned: int = 0
    errors: int = 0
    jobs_failed: int = 0
    jobs_lost: int = 0
    """Jobs whose lease another worker took over before this one wrote them (nothing written)."""
    jobs_dropped: int = 0
    """Jobs with nothing left to do (session deleted, children already summarized)."""
    turns_embedded: int = 0
    summaries_embedded: int = 0
    yielded_seconds: float = 0.0
    """Time spent waiting for foreground calls on this machine (see :mod:`graphmem.activity`)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    summarize_seconds: float = 0.0
    write_seconds: float = 0.0
    started: float = field(default_factory=time.monotonic)

    @property
    def summaries_written(self) -> int:
        return sum(self.summaries.values())

    def elapsed(self) -> float:
        return max(1e-9, time.monotonic() - self.started)

    def as_dict(self) -> dict[str, Any]:
        secs = self.elapsed()
        return {
            "summaries": self.summaries_written,
            "summaries_by_level": {str(k): v for k, v in sorted(self.summaries.items())},
            "turns_summarized": self.turns_summarized,
            "turns_per_second": round(self.turns_summarized / secs, 2),
            "jobs_planned": self.jobs_planned,
            "errors": self.errors,
            "jobs_failed": self.jobs_failed,
            "jobs_lost": self.jobs_lost,
            "jobs_dropped": self.jobs_dropped,
            "turns_embedded": self.turns_embedded,
            "summaries_embedded": self.summaries_embedded,
            "yielded_seconds": round(self.yielded_seconds, 3),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "summarize_seconds": round(self.summarize_seconds, 3),
            "write_seconds": round(self.write_seconds, 3),
            "elapsed_seconds": round(secs, 3),
        }


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


class _Lost(Exception):
    """The job is no longer ours (taken over after our lease expired, or deleted)."""


class _Drop(Exception):
    """The job has nothing left to do: roll back and delete it."""


def _default_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


def _props(result: SummaryResult) -> dict[str, Any]:
    """The summary node's properties; secrets an LLM summarizer wrote are redacted (its input was)."""
    from .integrations.redaction import redact

    s = result.summary

    def clean(items: Sequence[str]) -> list[str]:
        return [redact(x)[0] for x in items]

    return {
        "text": redact(s.summary)[0],
        "keyFindings": clean(s.key_findings),
        "filesMentioned": clean(s.files_mentioned),
        "toolsUsed": clean(s.tools_used),
        "topics": clean(s.topics),
        "method": result.method,
        "model": result.model,
        "promptTokens": result.prompt_tokens,
        "completionTokens": result.completion_tokens,
        "costUsd": result.cost_usd,
        "fallbackError": result.fallback_error,
    }


class SummaryWorker:
    """One worker: a loop of embed, plan, claim, summarize, write (see the module docstring)."""

    def __init__(
        self,
        db: Database,
        summarizer: Summarizer | None = None,
        embedder: Embedder | None = None,
        config: WorkerConfig | None = None,
        *,
        owner: str | None = None,
        on_progress: Callable[[WorkerStats], None] | None = None,
        foreground: ForegroundSignal | None = None,
    ) -> None:
        """``foreground``: the same machine's foreground mark (see :mod:`graphmem.activity`); the
        worker yields to it between jobs."""
        self.db = db
        self.foreground = foreground
        self.summarizer: Summarizer = summarizer or ExtractiveSummarizer()
        self.embedder = embedder
        self.config = config or WorkerConfig()
        self.owner = owner or _default_owner()
        self.stats = WorkerStats()
        self.on_progress = on_progress
        self._stop = threading.Event()
        self._paused = threading.Event()
        self._last_gc = 0.0
        self._rng = random.Random()

    # -- lifecycle -------------------------------------------------------------------------
    def stop(self) -> None:
        """Ask the loop to stop after the job in hand (claimed but unstarted jobs are given back)."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def pause(self) -> None:
        """Stop taking work after the job in hand (leases of claimed, unstarted jobs are given back)."""
        self._paused.set()

    def resume(self) -> None:
        self._paused.clear()

    def run(self, *, until_idle: bool = False, max_seconds: float | None = None) -> WorkerStats:
        """Work until :meth:`stop` (or, with ``until_idle``, until a round finds nothing to do).

        A database outage does not end the loop: it waits and tries again (with ``until_idle`` it
        raises)."""
        deadline = None if max_seconds is None else time.monotonic() + max_seconds
        outage = 0.0
        while not self._stop.is_set():
            if deadline is not None and time.monotonic() >= deadline:
                break
            if self._paused.is_set():
                self._stop.wait(0.05)
                continue
            try:
                done = self.run_once()
                outage = 0.0
            except Exception as e:
                # an outage, a transaction that failed even after the driver's retries, or a bug: a
                # long-running worker must not die of it. The leases of jobs in hand expire and
                # another round (or worker) takes them again.
                if until_idle:
                    raise
                outage = min(30.0, max(1.0, outage * 2))
                if isinstance(e, DatabaseUnavailable | DatabaseError):
                    log.warning("worker %s: %s; retrying in %.0f s", self.owner, e, outage)
                else:
                    log.exception("worker %s: unexpected error; retrying in %.0f s", self.owner, outage)
                self._stop.wait(outage)
                continue
            if self.on_progress is not None:
                self.on_progress(self.stats)
            if done == 0:
                if until_idle:
                    break
                self._stop.wait(self.config.poll_seconds)
        return self.stats

    def run_until_idle(self, *, max_seconds: float | None = None) -> WorkerStats:
        """Work until there is nothing left to do now (open level-1 batches may still wait)."""
        return self.run(until_idle=True, max_seconds=max_seconds)

    def start_thread(self, *, nice: int = 0) -> WorkerThread:
        """Run :meth:`run` in a daemon thread (Linux: at ``nice`` lower CPU priority)."""
        t = WorkerThread(self, nice=nice)
        t.start()
        return t

    # -- one round -------------------------------------------------------------------------
    def run_once(self) -> int:
        """One round: embed, claim (planning when the queue runs low), process, embed summaries.
        Returns how much was done (0 = idle)."""
        self._yield_to_foreground()
        done = self._embed_turns()
        jobs = self.claim(self.config.claim_batch)
        if len(jobs) < self.config.claim_batch:
            planned = self.plan()
            done += planned
            if planned:
                jobs += self.claim(self.config.claim_batch - len(jobs))
        claimed_at = time.monotonic()
        contents = self._contents(jobs)
        for i, job in enumerate(jobs):
            if self._stop.is_set() or self._paused.is_set():
                for rest in jobs[i:]:
                    self._release(rest)
                break
            if time.monotonic() - claimed_at > self.config.lease_seconds / 2:
                self._extend(jobs[i:])
                claimed_at = time.monotonic()
            self._yield_to_foreground()
            started = time.monotonic()
            self.process(job, contents)
            done += 1
            if 0 < self.config.duty_cycle < 1:
                self._stop.wait((time.monotonic() - started) * (1 / self.config.duty_cycle - 1))
        self._yield_to_foreground()
        done += self._embed_summaries()
        if time.monotonic() - self._last_gc > self.config.gc_every_seconds:
            self._last_gc = time.monotonic()
            self.db.write("worker/orphans", limit=1000)
            from .facts import delete_expired_facts, index_pending_vectors

            expired = delete_expired_facts(self.db)  # seed 000's cron: expired facts are deleted
            if expired:
                log.info("worker %s: deleted %d expired facts", self.owner, expired)
            indexed = index_pending_vectors(self.db)  # left pending by a process that stopped
            if indexed:
                log.info("worker %s: indexed %d fact vectors left pending", self.owner, indexed)
        return done

    def _yield_to_foreground(self) -> None:
        """Wait while a foreground call on this machine is recent (bounded by max_yield_seconds)."""
        sig, cfg = self.foreground, self.config
        if sig is None or cfg.yield_seconds <= 0:
            return
        waited = 0.0
        while waited < cfg.max_yield_seconds and not self._stop.is_set():
            fresh = cfg.yield_seconds - sig.age()
            if fresh <= 0:
                break
            step = min(fresh, cfg.max_yield_seconds - waited, 0.05)
            self._stop.wait(step)
            waited += step
        self.stats.yielded_seconds += waited

    # -- embedding -------------------------------------------------------------------------
    def _embed_turns(self) -> int:
        if self.embedder is None:
            return 0
        try:
            embedded = embed_pending_turns(self.db, self.embedder, limit=self.config.embed_batch, path=self.config.scope)
            n = embedded.total
        except GraphMemError as e:
            if isinstance(e, DatabaseUnavailable):
                raise
            log.warning("worker %s: embedding turns failed: %s", self.owner, e)
            return 0
        self.stats.turns_embedded += n
        if n:
            # document expansion for the lexical side (retrieval's contextText: the ±2 neighbours)
            from .embedding import expand_context

            try:
                expand_context(self.db, self.config.context_window, ids=embedded.ids)
            except GraphMemError as e:
                if isinstance(e, DatabaseUnavailable):
                    raise
                log.warning("worker %s: context expansion failed: %s", self.owner, e)
        return n

    def _embed_summaries(self) -> int:
        if self.embedder is None:
            return 0
        try:
            n = embed_pending_summaries(
                self.db, self.embedder, limit=self.config.embed_batch, path=self.config.scope
            ).total
        except GraphMemError as e:
            if isinstance(e, DatabaseUnavailable):
                raise
            log.warning("worker %s: embedding summaries failed: %s", self.owner, e)
            return 0
        self.stats.summaries_embedded += n
        return n

    # -- planning --------------------------------------------------------------------------
    def plan(self) -> int:
        """Queue jobs for every session with pending turns or summaries past a roll-up threshold;
        returns the number of jobs queued."""
        cfg = self.config
        created = 0
        scope = cfg.scope_params()
        for row in self.db.read(
            "worker/level1_sessions", limit=cfg.sessions_per_round, path=scope["path"], prefix=scope["prefix"]
        ):
            created += self.plan_session(row["sessionId"], 1)
        for row in self.db.read(
            "worker/rollup_sessions",
            threshold=float(cfg.rollup_threshold_chars),
            growth=float(cfg.rollup_growth),
            minChildren=max(1, cfg.rollup_min_children),
            maxChildren=max(cfg.rollup_max_children, cfg.rollup_min_children),
            limit=cfg.sessions_per_round,
            path=scope["path"],
            prefix=scope["prefix"],
        ):
            created += self.plan_session(row["sessionId"], int(row["level"]) + 1)
        self.stats.jobs_planned += created
        return created

    def plan_session(self, session_id: str, level: int) -> int:
        """Queue the level-``level`` jobs of one session (one transaction); returns how many."""
        cfg = self.config
        key = f"{session_id}|{level}"

        def work(tx: Tx) -> int:
            locked = tx.run("worker/lock_cursor", sessionId=session_id, key=key, level=level)
            if not locked or not locked[0]["locked"]:
                return 0  # the session is gone
            if level == 1:
                rows = tx.run(
                    "worker/plan_turns", key=key, limit=cfg.plan_limit, waitMs=int(cfg.batch_wait_seconds * 1000)
                )
                children = [PlanChild.from_row(r) for r in rows[0]["items"] if _complete(r)]
                jobs, through = plan_level1(children, batch_chars=cfg.batch_chars, max_turns=cfg.batch_max_turns)
            else:
                rows = tx.run("worker/plan_summaries", key=key, level=level - 1, limit=cfg.plan_limit)
                children = [PlanChild.from_row(r) for r in rows[0]["items"] if _complete(r)]
                jobs, through = plan_rollup(
                    children,
                    int(rows[0]["through"] or 0),
                    child_level=level - 1,
                    threshold=rollup_threshold(level - 1, cfg.rollup_threshold_chars, cfg.rollup_growth),
                    min_children=cfg.rollup_min_children,
                    max_children=cfg.rollup_max_children,
                )
            if not jobs or through is None:
                return 0
            payload = [
                {
                    "id": str(uuid.uuid4()),
                    "coverKey": cover_key(session_id, j.level, j.child_ids),
                    "level": j.level,
                    "childIds": j.child_ids,
                    "fromIndex": j.from_index,
                    "toIndex": j.to_index,
                    "charCount": j.char_count,
                }
                for j in jobs
            ]
            out = tx.run("worker/create_jobs", key=key, through=through, jobs=payload)
            return int(out[0]["created"]) if out else 0

        return self.db.transaction(work)

    # -- claiming --------------------------------------------------------------------------
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

    # -- processing ------------------------------------------------------------------------
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

    def _contents(self, jobs: Sequence[ClaimedJob]) -> dict[str, dict[str, Any]]:
        """The children of these jobs (turns with tool calls, or summaries) by id, in two reads."""
        cfg = self.config
        turn_ids = sorted({c for j in jobs if j.level == 1 for c in j.child_ids})
        summary_ids = sorted({c for j in jobs if j.level > 1 for c in j.child_ids})
        out: dict[str, dict[str, Any]] = {}
        if turn_ids:
            for r in self.db.read(
                "summaries/job_turns", ids=turn_ids, maxChars=cfg.input_max_chars, maxToolChars=cfg.tool_max_chars
            ):
                if r["id"] is not None:
                    out[r["id"]] = r
        if summary_ids:
            for r in self.db.read("summaries/job_summaries", ids=summary_ids):
                if r["id"] is not None:
                    out[r["id"]] = r
        return out

    def process(self, job: ClaimedJob, contents: dict[str, dict[str, Any]] | None = None) -> str:
        """Summarize and write one claimed job (its children read now unless in ``contents``).
        Returns ``written``, ``lost``, ``dropped`` or ``error``."""
        cfg = self.config
        try:
            t0 = time.perf_counter()
            if contents is None or any(c not in contents for c in job.child_ids):
                contents = self._contents([job])
            rows = [contents[c] for c in job.child_ids if c in contents]
            if len(rows) != len(job.child_ids):
                self._drop(job)  # the session (or its turns) was deleted
                return "dropped"
            with self._lease_kept(job):  # a slow LLM call does not lose the lease while we are alive
                if job.level == 1:
                    result = self.summarizer.summarize([_turn_for_summary(r) for r in rows])
                else:
                    result = self.summarizer.summarize_summaries([_conversation_summary(r) for r in rows])
                self.stats.summarize_seconds += time.perf_counter() - t0
                if cfg.test_delay_seconds > 0:
                    time.sleep(cfg.test_delay_seconds)
                t1 = time.perf_counter()
                linked = self._write(job, result)
                self.stats.write_seconds += time.perf_counter() - t1
        except _Lost:
            self.stats.jobs_lost += 1
            return "lost"
        except _Drop:
            self._drop(job)
            return "dropped"
        except DatabaseUnavailable:
            raise  # the lease will expire and the job be taken again
        except DatabaseError as e:
            if "ConstraintValidationFailed" in str(e):
                # another writer covered these children first (the database refused a second parent)
                self._drop(job)
                return "dropped"
            self._fail(job, f"{type(e).__name__}: {e}")
            return "error"
        except Exception as e:  # a summarizer or data problem: retry with backoff, then fail
            log.debug("job %s failed", job.id, exc_info=True)
            self._fail(job, f"{type(e).__name__}: {e}")
            return "error"
        self.stats.summaries[job.level] += 1
        if job.level == 1:
            self.stats.turns_summarized += linked
        self.stats.prompt_tokens += result.prompt_tokens or 0
        self.stats.completion_tokens += result.completion_tokens or 0
        self.stats.cost_usd += result.cost_usd or 0.0
        return "written"

    def _write(self, job: ClaimedJob, result: SummaryResult) -> int:
        """The job's one write transaction; returns the number of children linked."""
        child_ids = list(job.child_ids)
        summary_id = str(uuid.uuid4())
        props = _props(result)

        def work(tx: Tx) -> int:
            tx.run("worker/lock_jobs", ids=[job.id])
            if job.level == 1:
                rows = tx.run(
                    "summaries/create_level1", sessionId=job.session_id, id=summary_id, props=props,
                    coverKey=job.cover_key, childIds=child_ids, jobId=job.id, token=job.token,
                )
            else:
                rows = tx.run(
                    "summaries/create_rollup", sessionId=job.session_id, id=summary_id, props=props,
                    coverKey=job.cover_key, childIds=child_ids, jobId=job.id, token=job.token, level=job.level,
                )
            if rows:
                if int(rows[0]["linked"]) != len(child_ids):
                    raise _Drop  # some children are gone: roll back, nothing to write
                return int(rows[0]["linked"])
            # nothing written: find out why (the job is locked, so this reads its committed state)
            guard = tx.run("summaries/guard", jobId=job.id, token=job.token, childIds=child_ids)
            if not guard or not guard[0]["owned"]:
                raise _Lost
            covered = int(guard[0]["covered"])
            if 0 < covered < len(child_ids):  # should never happen: make it visible (retries, then failed)
                raise RuntimeError(f"{covered} of the job's {len(child_ids)} children already have another summary")
            raise _Drop  # every child already covered, or the session is gone

        return self.db.transaction(work)


def _complete(row: dict[str, Any]) -> bool:
    """False for a node deleted by a concurrent commit while it was read (its properties are null)."""
    return row.get("id") is not None and row.get("fromIndex") is not None and row.get("toIndex") is not None


def _turn_for_summary(row: dict[str, Any]) -> TurnForSummary:
    return TurnForSummary(
        user_message=row["userMessage"] or "",
        assistant_message=row["assistantMessage"] or "",
        tool_calls=tuple(
            ToolCallForSummary(name=c["name"] or "", args=c.get("args"), result=c.get("result"), success=c.get("success"))
            for c in row["toolCalls"]
        ),
        index=row.get("index"),
    )


def _conversation_summary(row: dict[str, Any]) -> ConversationSummary:
    return ConversationSummary(
        summary=row["text"] or "",
        key_findings=list(row["keyFindings"] or []),
        files_mentioned=list(row["filesMentioned"] or []),
        tools_used=list(row["toolsUsed"] or []),
        topics=list(row["topics"] or []),
    )


class WorkerThread(threading.Thread):
    """A :class:`SummaryWorker` running in a daemon thread; :meth:`stop` ends it cleanly."""

    def __init__(self, worker: SummaryWorker, *, nice: int = 0) -> None:
        super().__init__(name=f"graphmem-worker-{worker.owner}", daemon=True)
        self.worker = worker
        self.nice = nice
        self.error: BaseException | None = None

    def run(self) -> None:
        if self.nice > 0 and hasattr(os, "setpriority"):
            try:  # Linux: a thread is a task with its own nice value
                tid = threading.get_native_id()
                os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + self.nice)
            except OSError:
                pass
        try:
            self.worker.run()
        except BaseException as e:  # recorded for the owner; a daemon thread has no one to raise to
            self.error = e
            log.exception("worker thread %s stopped", self.name)

    def stop(self, timeout: float | None = 30.0) -> WorkerStats:
        self.worker.stop()
        self.join(timeout)
        return self.worker.stats


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
    failed = [_natives(r["job"]) for r in db.read("worker/failed_jobs", limit=failed_limit)]
    return WorkerStatus(
        jobs=[_natives(j) for j in row["jobs"]],
        workers=[_natives(w) for w in row["workers"]],
        failed=failed,
        pending_turns=int(row["pendingTurns"]),
        unembedded_turns=int(row["unembeddedTurns"]),
        unembedded_summaries=int(row["unembeddedSummaries"]),
        summaries=int(row["summaries"]),
    )


def _natives(row: dict[str, Any]) -> dict[str, Any]:
    """neo4j.time values -> datetime."""
    out = {}
    for k, v in row.items():
        to_native = getattr(v, "to_native", None)
        out[k] = to_native() if callable(to_native) else v
    return out


def retry_failed_jobs(db: Database, session_id: str | None = None) -> int:
    """Give failed jobs (of one session, or all) a fresh set of attempts; returns how many."""
    rows = db.write("worker/retry_failed", sessionId=session_id)
    return int(rows[0]["retried"]) if rows else 0
