"""``graphmem worker run`` as a real process, SIGKILLed mid-job: nothing half written, nothing
duplicated, and the job is taken again once its lease expires."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
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


def _spawn(target: Neo4jTarget, tmp: Path, namespace: str, worker_id: str, **env: str) -> subprocess.Popen[bytes]:
    full = dict(os.environ)
    full.update(target.env())
    full.update({"GRAPHMEM_HOME": str(tmp / "home"), "GRAPHMEM_EMBEDDER": "none", "GRAPHMEM_WORKER_CLAIM_BATCH": "1"})
    full.update(env)
    return subprocess.Popen(
        [sys.executable, "-c", CLI, "worker", "run", "--cwd", namespace, "--id", worker_id, "--quiet", "--nice", "0"],
        env=full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )


def _running_jobs(database: Database, session_id: str, owner: str) -> list[str]:
    rows = database.read("check/forest", sessionId=session_id)
    jobs = rows[0]["jobs"] if rows else []
    return [j["id"] for j in jobs if j["state"] == "running" and (not owner or j["owner"] == owner)]


def _wait(cond: Callable[[], bool], timeout: float, what: str, proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"worker exited ({proc.returncode}) before {what}: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


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
    # the victim claims a job and calls its LLM, which never answers in time: it is killed in between
    lease = 10.0
    with FakeOpenAIServer() as fake:
        fake.script("chat/completions", stall(120))
        proc = _spawn(neo4j_target, tmp_path, namespace, "victim", GRAPHMEM_SUMMARIZER="openai",
                      GRAPHMEM_OPENAI_BASE_URL=fake.base_url, GRAPHMEM_OPENAI_API_KEY=fake.api_key,
                      GRAPHMEM_SUMMARY_BATCH_CHARS="0", GRAPHMEM_WORKER_LEASE_SECONDS=str(lease))
        try:
            _wait(lambda: fake.count("chat/completions") >= 1 and bool(_running_jobs(database, s.id, "victim")),
                  90, "the victim to claim a job and call its LLM", proc)
            seen = time.monotonic()
        finally:
            _kill(proc)
    [held] = _running_jobs(database, s.id, "victim")
    assert memory.summaries(s.id) == []  # nothing half written
    rescuer = SummaryWorker(database, config=WorkerConfig(scope=namespace, lease_seconds=30))
    early = rescuer.claim(10)
    if time.monotonic() - seen < lease - 1:  # (a very slow machine could get here after the lease)
        assert held not in {j.id for j in early} and len(early) == 2  # still leased by the dead worker
    for j in early:
        if j.id != held:
            assert rescuer.process(j) == "written"
    retaken = next((j for j in early if j.id == held), None)
    if retaken is None:  # taken again once the lease has expired (aged here instead of waited for)
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
        llm = {"GRAPHMEM_SUMMARIZER": "openai", "GRAPHMEM_OPENAI_BASE_URL": fake.base_url,
               "GRAPHMEM_OPENAI_API_KEY": fake.api_key, "GRAPHMEM_WORKER_LEASE_SECONDS": "3",
               "GRAPHMEM_SUMMARY_BATCH_CHARS": "0"}
        proc = _spawn(neo4j_target, tmp_path, namespace, "victim", **llm)
        try:
            _wait(lambda: fake.count("chat/completions") >= 1, 90, "the victim's LLM call", proc)
        finally:
            _kill(proc)
        assert memory.summaries(s.id) == []
        # a second real worker process (fast LLM now) finishes everything, the killed job after its lease
        proc2 = _spawn(neo4j_target, tmp_path, namespace, "rescuer", **llm)
        try:
            _wait(lambda: len(memory.summaries(s.id, 1)) == 2 and not _running_jobs(database, s.id, "rescuer"),
                  120, "the rescuer to write both summaries", proc2)
        finally:
            proc2.send_signal(signal.SIGTERM)
            assert proc2.wait(timeout=60) == 0  # a clean stop on SIGTERM
    assert {m.method for m in memory.summaries(s.id, 1)} == {"llm"}
    _assert_complete(memory, database, s.id, 2)


def test_repeated_kills_at_random_moments(
    memory: GraphMemory, database: Database, namespace: str, neo4j_target: Neo4jTarget, tmp_path: Path
) -> None:
    """A small version of the reliability suite: kill -9 the worker at random points (often inside a
    write transaction), several times; the survivors' work always adds up exactly."""
    s = memory.create_session(namespace)
    memory.import_turns(s.id, _turns(40))
    rng = random.Random(4)
    for k in range(3):
        proc = _spawn(neo4j_target, tmp_path, namespace, f"victim{k}", GRAPHMEM_WORKER_LEASE_SECONDS="1",
                      GRAPHMEM_WORKER_CLAIM_BATCH="4")
        try:
            _wait(lambda: bool(_running_jobs(database, s.id, "")) or memory.raw_history_chars(s.id) == 0, 90,
                  "the victim to start", proc)
            time.sleep(rng.uniform(0.05, 0.6))
        finally:
            _kill(proc)
        report = check_hierarchy(database, [s.id])
        assert report.ok, report.text()  # consistent after every kill, whatever was in flight
    support_db(database).write("testing/age_jobs", sessionId=s.id)  # the victims' leases are over
    SummaryWorker(database, config=WorkerConfig(scope=namespace, lease_seconds=30)).run_until_idle()
    _assert_complete(memory, database, s.id, 40)
