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

from .config import DEFAULT_LLM_BATCH_CHARS, WorkerConfig, WorkerStats
from .queue import ClaimedJob, WorkerStatus, retry_failed_jobs, worker_status
from .summary_worker import SummaryWorker, WorkerThread

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
