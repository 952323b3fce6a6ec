"""``graphmem worker run`` as a real process, SIGKILLed mid-job: nothing half written, nothing
duplicated, and the job is taken again once its lease expires.

The workers summarize with the local fake LLM server; what they asked it and what it answered are
the events the tests wait for (and kill at)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from graphmem import Database, GraphMemory
from graphmem.check import check_hierarchy
from graphmem.models import TurnIn
from graphmem.worker import SummaryWorker, WorkerConfig

from ..conftest import Neo4jTarget
from ..fake_openai import FakeOpenAIServer, stall
from ..support import support_db

pytestmark = pytest.mark.integration

CLI = "import sys; from graphmem.cli import main; sys.exit(main(sys.argv[1:]))"


def _spawn(target: Neo4jTarget, tmp: Path, namespace: str, worker_id: str, fake: FakeOpenAIServer,
           **env: str) -> subprocess.Popen[bytes]:
    """A worker process summarizing with ``fake`` (whose waiters it wakes when it exits)."""
    full = dict(os.environ)
    full.update(target.env())
    full.update({"GRAPHMEM_HOME": str(tmp / "home"), "GRAPHMEM_EMBEDDER": "none", "GRAPHMEM_WORKER_CLAIM_BATCH": "1"})
    full.update({"GRAPHMEM_SUMMARIZER": "openai", "GRAPHMEM_OPENAI_BASE_URL": fake.base_url,
                 "GRAPHMEM_OPENAI_API_KEY": fake.api_key})
    full.update(env)
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "worker", "run", "--cwd", namespace, "--id", worker_id, "--quiet", "--nice", "0"],
        env=full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    fake.notify_on_exit(proc)
    return proc


def _running_jobs(database: Database, session_id: str, owner: str) -> list[str]:
    rows = database.read("check/forest", sessionId=session_id)
    jobs = rows[0]["jobs"] if rows else []
    return [j["id"] for j in jobs if j["state"] == "running" and (not owner or j["owner"] == owner)]


def _await(fake: FakeOpenAIServer, cond: Callable[[], bool], what: str, proc: subprocess.Popen[bytes],
           timeout: float = 120.0) -> None:
    """Block until ``cond`` holds, checked whenever ``fake`` receives a request or sends an answer
    and when ``proc`` exits (``fake.notify_on_exit``); ``timeout`` only fails a hung test."""
    if not fake.wait_until(lambda: cond() or proc.poll() is not None, timeout):
        raise AssertionError(f"timed out waiting for {what}")
    if not cond():
        raise AssertionError(f"worker exited ({proc.returncode}) before {what}: "
                             f"{proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")


def _summaries_answered(fake: FakeOpenAIServer) -> int:
    """The summary (and roll-up) requests ``fake`` has answered (fact extraction left out)."""
    return sum(1 for r in fake.answered("chat/completions")
               if ((r.body or {}).get("response_format") or {}).get("json_schema", {}).get("name")
               == "ConversationSummary")


def _kill(proc: subprocess.Popen[bytes]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def _turns(n: int, chars: int = 900) -> list[TurnIn]:
    return [
        TurnIn(user_message=f"Step {i}: why is the nightly export of table {i} empty?",
               assistant_message=(f"The export of table {i} filtered on the wrong date column; I fixed the filter. " * 20)[: chars - 60])
        for i in range(n)
    ]


def _assert_complete(memory: GraphMemory, database: Database, session_id: str, turns: int) -> None:
    report = check_hierarchy(database, [session_id], complete=True)
    assert report.ok, report.text()
    assert report.summaries[1] == turns  # one per turn, none twice (the check also counts parents)
    assert memory.raw_history_chars(session_id) == 0
    forest = database.read("check/forest", sessionId=session_id)[0]
    assert forest["jobs"] == []
    assert len({m["coverKey"] for m in forest["summaries"]}) == len(forest["summaries"])


def test_worker_killed_while_summarizing_is_retaken_after_the_lease(
    memory: GraphMemory, database: Database, namespace: str, neo4j_target: Neo4jTarget, tmp_path: Path
) -> None:
    s = memory.create_session(namespace)
    memory.import_turns(s.id, _turns(3))
    # the victim claims a job and calls its LLM, which never answers in time: it is killed in between.
    # Its lease outlasts the test (the job is aged below instead of waited for)
    lease = 600.0
    with FakeOpenAIServer() as fake:
        fake.script("chat/completions", stall(120))
        proc = _spawn(neo4j_target, tmp_path, namespace, "victim", fake,
                      GRAPHMEM_SUMMARY_BATCH_CHARS="0", GRAPHMEM_WORKER_LEASE_SECONDS=str(lease))
        try:
            _await(fake, lambda: fake.count("chat/completions") >= 1, "the victim to call its LLM", proc)
        finally:
            _kill(proc)
    [held] = _running_jobs(database, s.id, "victim")  # claimed (committed) before its LLM call
    assert memory.summaries(s.id) == []  # nothing half written
    rescuer = SummaryWorker(database, config=WorkerConfig(scope=namespace, lease_seconds=30))
    early = rescuer.claim(10)
    assert held not in {j.id for j in early} and len(early) == 2  # still leased by the dead worker
    for j in early:
        assert rescuer.process(j) == "written"
    # taken again once the lease has expired (aged here instead of waited for)
    support_db(database).write("testing/age_jobs", sessionId=s.id)
    retaken = next((j for j in rescuer.claim(10) if j.id == held), None)
    assert retaken is not None, "the killed worker's job was never taken again"
    assert retaken.lost_leases == 1 and retaken.attempts == 2
    assert rescuer.process(retaken) == "written"
    _assert_complete(memory, database, s.id, 3)


def test_worker_killed_during_a_slow_llm_call(
    memory: GraphMemory, database: Database, namespace: str, neo4j_target: Neo4jTarget, tmp_path: Path
) -> None:
    s = memory.create_session(namespace)
    memory.import_turns(s.id, _turns(2))
    with FakeOpenAIServer() as fake:
        fake.script("chat/completions", stall(45))
        llm = {"GRAPHMEM_WORKER_LEASE_SECONDS": "3", "GRAPHMEM_SUMMARY_BATCH_CHARS": "0"}
        proc = _spawn(neo4j_target, tmp_path, namespace, "victim", fake, **llm)
        try:
            _await(fake, lambda: fake.count("chat/completions") >= 1, "the victim's LLM call", proc)
        finally:
            _kill(proc)
        assert memory.summaries(s.id) == []
        # a second real worker process (fast LLM now) finishes everything, the killed job after its
        # lease: once the LLM has answered both summaries, SIGTERM lets it finish the job in hand
        proc2 = _spawn(neo4j_target, tmp_path, namespace, "rescuer", fake, **llm)
        try:
            _await(fake, lambda: _summaries_answered(fake) >= 2, "the rescuer's two summaries", proc2)
        finally:
            proc2.send_signal(signal.SIGTERM)
            assert proc2.wait(timeout=60) == 0  # a clean stop on SIGTERM
    assert len(memory.summaries(s.id, 1)) == 2 and not _running_jobs(database, s.id, "rescuer")
    assert {m.method for m in memory.summaries(s.id, 1)} == {"llm"}
    _assert_complete(memory, database, s.id, 2)


KILL_POINTS = (("asked", 2), ("answered", 1), ("asked", 5), ("answered", 3))
"""Where each victim in turn is SIGKILLed: ``("asked", n)`` as its n-th LLM request arrives (its job
claimed, its call in flight); ``("answered", n)`` just after its n-th answer was sent (it is turning
the answer into a summary and writing it: often inside the write transaction)."""


def test_repeated_kills_inside_jobs(
    memory: GraphMemory, database: Database, namespace: str, neo4j_target: Neo4jTarget, tmp_path: Path
) -> None:
    """A small version of the reliability suite: kill -9 the worker at varied points of its jobs
    (often inside a write transaction), several times; the survivors' work always adds up exactly."""
    s = memory.create_session(namespace)
    memory.import_turns(s.id, _turns(40))
    with FakeOpenAIServer() as fake:
        for k, (event, n) in enumerate(KILL_POINTS):
            before = fake.count("chat/completions")

            def reached(event: str = event, n: int = n, before: int = before) -> bool:
                mine = fake.requests("chat/completions")[before:]
                return len([r for r in mine if event == "asked" or r.answered]) >= n

            proc = _spawn(neo4j_target, tmp_path, namespace, f"victim{k}", fake, GRAPHMEM_WORKER_LEASE_SECONDS="1",
                          GRAPHMEM_WORKER_CLAIM_BATCH="4")
            try:
                _await(fake, reached, f"victim{k}'s LLM request {n} to be {event}", proc)
            finally:
                _kill(proc)
            report = check_hierarchy(database, [s.id])
            assert report.ok, report.text()  # consistent after every kill, whatever was in flight
    support_db(database).write("testing/age_jobs", sessionId=s.id)  # the victims' leases are over
    SummaryWorker(database, config=WorkerConfig(scope=namespace, lease_seconds=30)).run_until_idle()
    _assert_complete(memory, database, s.id, 40)
