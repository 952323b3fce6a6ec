"""The worker's loop: embed pending turns and summaries, plan jobs, claim them, summarize, write
(see :mod:`graphmem.worker`)."""

from __future__ import annotations

import logging
import os
import random
import socket
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from ..activity import ForegroundSignal
from ..chat.digest import Digester
from ..chat.live import embed_pending_live
from ..db import Database
from ..db.client import Tx
from ..embedding import Embedder, embed_pending_summaries, embed_pending_turns, expand_context
from ..errors import DatabaseError, DatabaseUnavailable, GraphMemError
from ..facts import FactExtractor, delete_expired_facts, extract_facts_from_turn, index_pending_vectors
from ..hierarchy import PlanChild, cover_key, plan_level1, plan_rollup, rollup_threshold
from ..notes import NotesConfig, embed_pending_notes, sync_notes
from ..providers import (
    ExtractiveSummarizer,
    Summarizer,
    SummaryResult,
)
from .config import WorkerConfig, WorkerStats
from .queue import ClaimedJob, JobLeases, LeaseLost, NothingToDo
from .rows import complete_row, conversation_summary, summary_props, turn_for_summary

__all__ = ["SummaryWorker", "WorkerThread"]

log = logging.getLogger("graphmem.worker")


def _default_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class SummaryWorker(JobLeases):
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
        digester: Digester | None = None,
        extractor: FactExtractor | None = None,
        notes: NotesConfig | None = None,
    ) -> None:
        """``foreground``: the same machine's foreground mark (see :mod:`graphmem.activity`); the
        worker yields to it between jobs. ``digester``: the chat rooms' digest, run when due (checked
        at start and with the periodic cleanup). ``extractor``: an LLM that extracts facts from each
        turn once its level-1 summary is written (never on the hook path). ``notes``: a Markdown vault
        synced with the periodic cleanup (an unscoped worker also embeds the notes)."""
        self.digester = digester
        self.extractor = extractor
        self.notes = notes
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
        done += self._embed_live()
        if time.monotonic() - self._last_gc > self.config.gc_every_seconds:
            self._last_gc = time.monotonic()
            self.db.write("worker/orphans", limit=1000)
            expired = delete_expired_facts(self.db)  # the periodic cleanup: expired facts are deleted
            if expired:
                log.info("worker %s: deleted %d expired facts", self.owner, expired)
            indexed = index_pending_vectors(self.db)  # left pending by a process that stopped
            if indexed:
                log.info("worker %s: indexed %d fact vectors left pending", self.owner, indexed)
            try:
                synced = sync_notes(self.db, self.notes) if self.notes is not None else None
            except (GraphMemError, OSError) as e:
                log.warning("worker %s: syncing the notes failed: %s", self.owner, e)
            else:
                for warning in synced.warnings if synced is not None else []:
                    log.warning("worker %s: %s", self.owner, warning)
            try:
                digested = self.digester.run_if_due() if self.digester is not None else None
            except (GraphMemError, OSError) as e:  # e.g. the LLM is down: the next check tries again
                log.warning("worker %s: the digest failed: %s", self.owner, e)
            else:
                done += len(digested.digests) if digested is not None else 0
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
            embedded = embed_pending_turns(self.db, self.embedder, limit=self.config.embed_batch, path=self.config.scope,
                                           long_turn_chars=self.config.long_turn_chars)
            n = embedded.total
        except GraphMemError as e:
            if isinstance(e, DatabaseUnavailable):
                raise
            log.warning("worker %s: embedding turns failed: %s", self.owner, e)
            return 0
        self.stats.turns_embedded += n
        if n:
            # document expansion for the lexical side (retrieval's contextText: the ±2 neighbours)

            try:
                expand_context(self.db, self.config.context_window, ids=embedded.ids,
                               long_turn_chars=self.config.long_turn_chars)
            except GraphMemError as e:
                if isinstance(e, DatabaseUnavailable):
                    raise
                log.warning("worker %s: context expansion failed: %s", self.owner, e)
        return n

    def _embed_live(self) -> int:
        """Embed pending live messages of observed rooms and pending notes (unscoped workers only:
        they have no path)."""
        if self.embedder is None or self.config.scope is not None:
            return 0
        try:
            return (embed_pending_live(self.db, self.embedder, limit=self.config.embed_batch)
                    + embed_pending_notes(self.db, self.embedder, limit=self.config.embed_batch))
        except GraphMemError as e:
            if isinstance(e, DatabaseUnavailable):
                raise
            log.warning("worker %s: embedding live messages failed: %s", self.owner, e)
            return 0

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
                children = [PlanChild.from_row(r) for r in rows[0]["items"] if complete_row(r)]
                jobs, through = plan_level1(children, batch_chars=cfg.batch_chars, max_turns=cfg.batch_max_turns)
            else:
                rows = tx.run("worker/plan_summaries", key=key, level=level - 1, limit=cfg.plan_limit)
                children = [PlanChild.from_row(r) for r in rows[0]["items"] if complete_row(r)]
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
                    result = self.summarizer.summarize([turn_for_summary(r) for r in rows])
                else:
                    result = self.summarizer.summarize_summaries([conversation_summary(r) for r in rows])
                self.stats.summarize_seconds += time.perf_counter() - t0
                t1 = time.perf_counter()
                linked = self._write(job, result)
                self.stats.write_seconds += time.perf_counter() - t1
        except LeaseLost:
            self.stats.jobs_lost += 1
            return "lost"
        except NothingToDo:
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
        if job.level == 1 and self.extractor is not None:
            self._extract_facts(job.child_ids)
        return "written"

    def _extract_facts(self, turn_ids: Sequence[str]) -> None:
        """Facts from turns just summarized (finished turns), by the configured LLM; a failure is
        logged and never fails the summary (a retried job meets its facts as ``unchanged``)."""
        assert self.extractor is not None
        for turn_id in turn_ids:
            try:
                found = extract_facts_from_turn(self.db, turn_id, self.extractor, embedder=self.embedder)
                self.stats.facts_extracted += len(found)
            except (GraphMemError, OSError) as e:
                log.warning("worker %s: fact extraction from turn %s failed: %s", self.owner, turn_id, e)

    def _write(self, job: ClaimedJob, result: SummaryResult) -> int:
        """The job's one write transaction; returns the number of children linked."""
        child_ids = list(job.child_ids)
        summary_id = str(uuid.uuid4())
        props = summary_props(result)

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
                    raise NothingToDo  # some children are gone: roll back, nothing to write
                return int(rows[0]["linked"])
            # nothing written: find out why (the job is locked, so this reads its committed state)
            guard = tx.run("summaries/guard", jobId=job.id, token=job.token, childIds=child_ids)
            if not guard or not guard[0]["owned"]:
                raise LeaseLost
            covered = int(guard[0]["covered"])
            if 0 < covered < len(child_ids):  # should never happen: make it visible (retries, then failed)
                raise RuntimeError(f"{covered} of the job's {len(child_ids)} children already have another summary")
            raise NothingToDo  # every child already covered, or the session is gone

        return self.db.transaction(work)


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
