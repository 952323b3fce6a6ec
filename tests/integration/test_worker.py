"""The summarizer worker: claims with leases, retries, failures, concurrency, uniqueness in the database."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from graphmem import Database, GraphMemory
from graphmem.check import check_hierarchy
from graphmem.errors import DatabaseError, ProviderError
from graphmem.models import ConversationSummary, TurnIn
from graphmem.providers import ExtractiveSummarizer, SummarizableTurn, SummaryResult
from graphmem.worker import SummaryWorker, WorkerConfig, retry_failed_jobs, worker_status

from ..support import support_db

pytestmark = pytest.mark.integration


def _fill(memory: GraphMemory, session_id: str, n: int, *, chars: int = 900) -> None:
    base = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
    memory.import_turns(
        session_id,
        [
            TurnIn(
                user_message=f"Question {i}: why does the import of batch {i} time out?",
                assistant_message=(f"Batch {i} timed out because the index was missing; I added it and it passed. " * 20)[
                    : chars - 60
                ],
                timestamp=base + timedelta(minutes=i),
            )
            for i in range(n)
        ],
    )


def _cfg(namespace: str, **kw: object) -> WorkerConfig:
    return WorkerConfig(scope=namespace, poll_seconds=0.05, **kw)  # type: ignore[arg-type]


def _jobs(database: Database, session_id: str) -> list[dict[str, object]]:
    return list(database.read("check/forest", sessionId=session_id)[0]["jobs"])


class FlakySummarizer:
    """Fails the first ``failures`` calls, then summarizes extractively."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0
        self.inner = ExtractiveSummarizer()
        self.lock = threading.Lock()

    def summarize(self, turns: Sequence[SummarizableTurn]) -> SummaryResult:
        with self.lock:
            self.calls += 1
            if self.calls <= self.failures:
                raise ProviderError(f"the model is overloaded (call {self.calls})")
        return self.inner.summarize(turns)

    def summarize_summaries(self, summaries: Sequence[ConversationSummary]) -> SummaryResult:
        return self.inner.summarize_summaries(summaries)


def test_failing_jobs_back_off_then_end_failed_and_can_be_retried(
    memory: GraphMemory, database: Database, namespace: str
) -> None:
    s = memory.create_session(namespace)
    _fill(memory, s.id, 1)
    flaky = FlakySummarizer(failures=100)
    w = SummaryWorker(database, flaky, config=_cfg(namespace, max_attempts=3, retry_base_seconds=0.2))
    w.run_until_idle()  # attempt 1 fails; the job backs off 0.2 s
    job = _jobs(database, s.id)[0]
    assert job["state"] == "ready" and "overloaded" in str(job["lastError"])
    for _ in range(2):  # the back-off is over: attempts 2 and 3
        support_db(database).write("testing/age_jobs", sessionId=s.id)
        w.run_until_idle()
    assert _jobs(database, s.id)[0]["state"] == "failed"
    assert flaky.calls == 3 and w.stats.jobs_failed == 1 and w.stats.errors == 3
    st = worker_status(database)
    mine = [f for f in st.failed if f["sessionId"] == s.id]
    assert len(mine) == 1 and mine[0]["errors"] == 3 and "ProviderError: the model is overloaded" in mine[0]["lastError"]
    report = check_hierarchy(database, [s.id], complete=True)
    assert {"failed-job", "turn-uncovered"} <= report.codes()
    assert check_hierarchy(database, [s.id]).ok  # not caught up, but nothing inconsistent

    flaky.failures = 0
    w.run_until_idle()
    assert memory.summaries(s.id) == []  # failed jobs stay failed
    assert retry_failed_jobs(database, s.id) == 1
    w.run_until_idle()
    assert len(memory.summaries(s.id, 1)) == 1 and _jobs(database, s.id) == []
    assert check_hierarchy(database, [s.id], complete=True).ok


def test_expired_lease_is_taken_over_and_the_late_writer_writes_nothing(
    memory: GraphMemory, database: Database, namespace: str
) -> None:
    s = memory.create_session(namespace)
    _fill(memory, s.id, 2)
    a = SummaryWorker(database, config=_cfg(namespace, lease_seconds=1.0), owner="a")
    b = SummaryWorker(database, config=_cfg(namespace, lease_seconds=30.0), owner="b")
    a.plan()
    claimed_a = a.claim(10)
    assert len(claimed_a) == 2
    assert b.claim(10) == []  # leased
    support_db(database).write("testing/age_jobs", sessionId=s.id)
    claimed_b = b.claim(10)  # a "died": its leases expired
    assert sorted(j.id for j in claimed_b) == sorted(j.id for j in claimed_a)
    assert all(j.lost_leases == 1 and j.attempts == 2 for j in claimed_b)
    assert a.process(claimed_a[0]) == "lost"  # a wakes up late: its token is stale
    assert memory.summaries(s.id) == []
    assert [b.process(j) for j in claimed_b] == ["written", "written"]
    assert len(memory.summaries(s.id, 1)) == 2
    assert a.process(claimed_a[1]) == "lost"  # the job is gone now
    assert check_hierarchy(database, [s.id], complete=True).ok


def test_a_job_whose_leases_keep_expiring_ends_failed(memory: GraphMemory, database: Database, namespace: str) -> None:
    s = memory.create_session(namespace)
    _fill(memory, s.id, 1)
    w = SummaryWorker(database, config=_cfg(namespace, lease_seconds=0.2, max_lost_leases=2))
    w.plan()
    assert len(w.claim(1)) == 1
    support_db(database).write("testing/age_jobs", sessionId=s.id)
    assert len(w.claim(1)) == 1  # first lost lease
    support_db(database).write("testing/age_jobs", sessionId=s.id)
    assert w.claim(1) == []  # second: the job is given up
    job = _jobs(database, s.id)[0]
    assert job["state"] == "failed" and "lease expired 2 times" in str(job["lastError"])


def test_the_database_refuses_a_second_summary_of_the_same_children(
    memory: GraphMemory, database: Database, namespace: str
) -> None:
    s = memory.create_session(namespace)
    _fill(memory, s.id, 2)
    SummaryWorker(database, config=_cfg(namespace)).run_until_idle()
    first, second = memory.summaries(s.id, 1)
    # whatever Python does, a child never gets a second parent: SUMMARIZES {childId} is unique
    with pytest.raises(DatabaseError, match="ConstraintValidationFailed"):
        support_db(database).write("testing/tamper_link", parentId=second.id, childId=first.child_ids[0], key=first.child_ids[0])
    # and two summaries never share a cover key (level + exact children)
    keys = {m["id"]: m["coverKey"] for m in database.read("check/forest", sessionId=s.id)[0]["summaries"]}
    with pytest.raises(DatabaseError, match="ConstraintValidationFailed"):
        support_db(database).write("testing/tamper_set", id=second.id, props={"coverKey": keys[first.id]})
    # a job planned again for covered children writes nothing: its guard sees them covered
    w = SummaryWorker(database, config=_cfg(namespace))
    key = f"{s.id}|1"
    database.write("worker/lock_cursor", sessionId=s.id, key=key, level=1)
    database.write("worker/create_jobs", key=key, through=2, jobs=[{
        "id": str(uuid.uuid4()), "coverKey": f"L1:{uuid.uuid4().hex}", "level": 1, "childIds": first.child_ids,
        "fromIndex": 1, "toIndex": 1, "charCount": first.char_count}])
    [job] = w.claim(5)
    assert w.process(job) == "dropped"
    assert len(memory.summaries(s.id, 1)) == 2 and _jobs(database, s.id) == []
    assert check_hierarchy(database, [s.id], complete=True).ok


def test_concurrent_workers_never_duplicate(memory: GraphMemory, database: Database, namespace: str) -> None:
    sessions = [memory.create_session(f"{namespace}/p{i}") for i in range(3)]
    for s in sessions:
        _fill(memory, s.id, 25)
    workers = [SummaryWorker(database, config=_cfg(namespace, claim_batch=3), owner=f"w{i}") for i in range(4)]
    done = threading.Event()

    def check(_: object) -> None:  # after each round of any worker
        # the roll-up of a session's last level-1 summaries is planned in a round after they are
        # written: caught up means no raw history, no job, and the 4 level-2 summaries (6 x 900)
        if all(memory.raw_history_chars(s.id) == 0 and not _jobs(database, s.id)
               and len(memory.summaries(s.id, 2)) == 4 for s in sessions):
            done.set()

    for w in workers:
        w.on_progress = check
    threads = [w.start_thread() for w in workers]
    assert done.wait(timeout=300), "the workers never caught up"
    for t in threads:
        t.stop()
    assert [t.error for t in threads] == [None] * len(threads)
    total = sum(w.stats.turns_summarized for w in workers)
    assert total == 75, [w.stats.as_dict() for w in workers]
    assert sum(1 for w in workers if w.stats.summaries_written) >= 2  # the work was actually shared
    report = check_hierarchy(database, [s.id for s in sessions], complete=True)
    assert report.ok, report.text()
    assert report.summaries[1] == 75 and report.summaries[2] == 12  # 4 level-2 per session (6 x 900)


def test_a_session_deleted_mid_job_leaves_nothing(memory: GraphMemory, database: Database, namespace: str) -> None:
    s = memory.create_session(namespace)
    _fill(memory, s.id, 2)
    w = SummaryWorker(database, config=_cfg(namespace))
    w.plan()
    jobs = w.claim(5)
    assert len(jobs) == 2
    memory.delete_session(s.id)
    assert [w.process(j) for j in jobs] == ["dropped", "dropped"]  # the jobs went with the session
    leftovers = database.read("maintenance/session_leftovers", sessionId=s.id)[0]
    assert leftovers == {"turns": 0, "toolCalls": 0, "summaries": 0, "sessions": 0}
    assert database.read("check/forest", sessionId=s.id) == []


def test_background_thread_follows_the_conversation(memory: GraphMemory, database: Database, namespace: str) -> None:
    s = memory.create_session(namespace)
    worker = memory.worker(config=_cfg(namespace))
    stored, caught_up = threading.Event(), threading.Event()
    worker.on_progress = lambda _: caught_up.set() if stored.is_set() and not memory.raw_history_chars(s.id) else None
    thread = worker.start_thread(nice=5)
    try:
        for i in range(3):
            memory.store_turn(s.id, f"step {i}: what next?", f"Next we run the migration number {i} and check it.")
        stored.set()
        assert caught_up.wait(timeout=120), "the background worker never caught up"
    finally:
        stats = thread.stop()
    assert thread.error is None and not thread.is_alive()
    assert stats.turns_summarized == 3
    assert [m.turn_count for m in memory.level1_summaries_not_summarized(s.id)] == [1, 1, 1]


def test_worker_embeds_turns_and_expands_their_context(memory: GraphMemory, namespace: str) -> None:
    from graphmem.embedding import LocalEmbedder
    from graphmem.worker import WorkerConfig

    mem = GraphMemory(memory.db, embedder=LocalEmbedder())
    s = mem.create_session(namespace + "/ctx")
    for i in range(4):
        mem.store_turn(s.id, f"question {i} about the redis cache", f"answer {i}: raise the TTL")
    mem.worker(config=WorkerConfig(scope=namespace)).run_until_idle(max_seconds=300)
    rows = support_db(mem.db).read("testing/turn_states", sessionId=s.id)
    assert [r["index"] for r in rows] == [1, 2, 3, 4]
    assert all(r["embedState"] == "done" and r["hasEmbedding"] for r in rows)
    assert all(r["summaryState"] == "done" for r in rows)
    assert all(r["contextText"] for r in rows)
    assert "question 1" in rows[0]["contextText"]  # turn 1's context holds its neighbour, turn 2


def test_a_scoped_worker_embeds_only_its_directory(memory: GraphMemory, namespace: str) -> None:
    """`graphmem worker --scope DIR` embeds (and expands) the turns and summaries of DIR and below only."""
    from graphmem.embedding import LocalEmbedder

    mem = GraphMemory(memory.db, embedder=LocalEmbedder())
    inside = mem.create_session(namespace + "/mine/repo")
    outside = mem.create_session(namespace + "/other")
    for s in (inside, outside):
        for i in range(3):
            mem.store_turn(s.id, f"question {i} about the redis cache", f"answer {i}: raise the TTL")
    mem.worker(config=WorkerConfig(scope=namespace + "/mine")).run_until_idle(max_seconds=300)
    mine = support_db(mem.db).read("testing/turn_states", sessionId=inside.id)
    other = support_db(mem.db).read("testing/turn_states", sessionId=outside.id)
    assert all(r["embedState"] == "done" and r["hasEmbedding"] and r["contextText"] for r in mine)
    assert all(r["embedState"] == "pending" and not r["hasEmbedding"] and not r["contextText"] for r in other)
    assert all(r["summaryState"] == "pending" for r in other)
    assert mem.summaries(outside.id) == []
    assert mem.summaries(inside.id)
