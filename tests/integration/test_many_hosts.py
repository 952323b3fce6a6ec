"""Several hosts sharing one database: ``graphmem worker run`` processes with homes of their own
(their own spool, pid files and settings) and their own worker ids summarize one namespace
together. One of them is SIGKILLed while it holds a running job; the others finish everything:
no job is lost, no summary is written twice, and the dead worker's job is done by another worker
once its lease is over.

Each host talks to an LLM server of its own (the local fake), so the requests it received show which
worker summarized which turn."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from graphmem import Database, GraphMemory
from graphmem.check import check_hierarchy
from graphmem.models import TurnIn

from ..conftest import Neo4jTarget
from ..fake_openai import FakeOpenAIServer, stall
from ..support import support_db

pytestmark = pytest.mark.integration

CLI = "import sys; from graphmem.cli import main; sys.exit(main(sys.argv[1:]))"

HOSTS = ("host-a", "host-b", "host-c")
VICTIM, SURVIVORS = HOSTS[0], HOSTS[1:]
SESSIONS, TURNS = 3, 12
ROLLUP_CHARS = 2200
"""With turns of about 900 characters: three level-1 summaries make a level-2 one (2 x 900 < 2200 <
3 x 900), and four level-2 summaries a level-3 one (3 x 2700 < 4 x 2200 < 4 x 2700)."""
EXPECTED = {1: TURNS, 2: TURNS // 3, 3: 1}
"""Summaries per session and level once everything is done (grouping is greedy in turn order, so
it does not depend on which worker wrote what, or when)."""


def _marker(session: int, turn: int) -> str:
    return f"ticket S{session}T{turn:02d}:"


def _turns(session: int) -> list[TurnIn]:
    return [
        TurnIn(user_message=f"{_marker(session, i)} why is the nightly export of table {i} empty?",
               assistant_message=(f"The export of table {i} filtered on the wrong date column; I fixed the filter. "
                                  * 20)[:840])
        for i in range(TURNS)
    ]


def _spawn(target: Neo4jTarget, home: Path, namespace: str, host: str, fake: FakeOpenAIServer,
           *flags: str) -> subprocess.Popen[bytes]:
    """One host's worker: its own GRAPHMEM_HOME and id, the shared database, its own LLM server."""
    home.mkdir(parents=True)
    env = dict(os.environ)
    env.update(target.env())
    env.update({
        "GRAPHMEM_HOME": str(home), "GRAPHMEM_EMBEDDER": "none", "GRAPHMEM_WORKER_CLAIM_BATCH": "1",
        "GRAPHMEM_WORKER_POLL_SECONDS": "0.2", "GRAPHMEM_SUMMARIZER": "openai",
        "GRAPHMEM_OPENAI_BASE_URL": fake.base_url, "GRAPHMEM_OPENAI_API_KEY": fake.api_key,
        "GRAPHMEM_SUMMARY_BATCH_CHARS": "0", "GRAPHMEM_ROLLUP_THRESHOLD_CHARS": str(ROLLUP_CHARS),
    })
    read_end, write_end = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", CLI, "worker", "run", "--cwd", namespace, "--id", host, "--quiet", "--nice", "0",
             "--json", *flags],
            env=env, stdout=subprocess.PIPE, stderr=write_end,
        )
    finally:
        os.close(write_end)

    def copy_log() -> None:
        """Its stderr into worker.log, waking the test's waits at each line and when it exits."""
        with open(read_end, "rb") as err, open(home / "worker.log", "wb") as log:
            for line in err:
                log.write(line)
                log.flush()
                fake.notify()
        proc.wait()
        fake.notify()

    threading.Thread(target=copy_log, name=f"{host}-log", daemon=True).start()
    return proc


def _summary_requests(fake: FakeOpenAIServer, answered: bool = False) -> list[Any]:
    """The summary and roll-up requests this LLM server received (or answered), fact extraction
    left out."""
    return [r for r in (fake.answered if answered else fake.requests)("chat/completions")
            if ((r.body or {}).get("response_format") or {}).get("json_schema", {}).get("name")
            == "ConversationSummary"]


def _summary_turns(fake: FakeOpenAIServer, answered: bool = False) -> list[str]:
    """The user messages of the level-1 summary requests this LLM server received (or answered)
    (fact extraction and roll-up requests left out)."""
    out = []
    for r in _summary_requests(fake, answered):
        text = json.dumps(r.body["messages"])
        out += [m for s in range(SESSIONS) for i in range(TURNS) if (m := _marker(s, i)) in text]
    return out


def _wait(cond: Callable[[], bool], what: str, procs: dict[str, subprocess.Popen[bytes]], tmp: Path,
          fakes: dict[str, FakeOpenAIServer], state: Callable[[], object] = lambda: "", timeout: float = 180.0) -> None:
    """Block until ``cond`` holds: checked at each request or answer of the hosts' LLM servers
    (they share one condition), each line a worker logs and each worker's exit. ``timeout`` only
    fails a hung test."""
    def exited() -> bool:
        return any(p.poll() is not None for p in procs.values())

    if not fakes[HOSTS[0]].wait_until(lambda: cond() or exited(), timeout):
        raise AssertionError(f"timed out waiting for {what} {state()}")
    for host, p in procs.items():
        if p.poll() is not None:
            raise AssertionError(f"worker {host} exited ({p.returncode}) before {what}: {_log(tmp, host)}")


def _log(tmp: Path, host: str) -> str:
    return (tmp / host / "worker.log").read_text(errors="replace")[-2000:]


@pytest.fixture
def sessions(memory: GraphMemory, namespace: str) -> list[str]:
    """The namespace's sessions, with enough raw text for level-2 and level-3 roll-ups."""
    ids = []
    for k in range(SESSIONS):
        s = memory.create_session(namespace)
        memory.import_turns(s.id, _turns(k))
        ids.append(s.id)
    return ids


@pytest.fixture
def fakes() -> Iterator[dict[str, FakeOpenAIServer]]:
    changed = threading.Condition()  # one for all: a wait can watch every host's server
    with ExitStack() as stack:
        yield {h: stack.enter_context(FakeOpenAIServer(changed=changed)) for h in HOSTS}


def test_hosts_share_one_database_and_a_killed_host_loses_nothing(
    database: Database, memory: GraphMemory, namespace: str, sessions: list[str], neo4j_target: Neo4jTarget,
    fakes: dict[str, FakeOpenAIServer], tmp_path: Path,
) -> None:
    def forests() -> list[dict[str, Any]]:
        return [database.read("check/forest", sessionId=sid)[0] for sid in sessions]

    def running(owner: str) -> list[dict[str, Any]]:
        return [j | {"session": k} for k, f in enumerate(forests()) for j in f["jobs"]
                if j["state"] == "running" and j["owner"] == owner]

    def levels() -> Counter[int]:
        return Counter(int(m["level"]) for f in forests() for m in f["summaries"])

    procs: dict[str, subprocess.Popen[bytes]] = {}
    try:
        # the victim's LLM never answers in time (nor when the client retries after its 60 s timeout):
        # it holds its first job until it is killed
        fakes[VICTIM].script("chat/completions", *[stall(120)] * 4)
        procs[VICTIM] = _spawn(neo4j_target, tmp_path / VICTIM, namespace, VICTIM, fakes[VICTIM])
        # the other hosts start at the same time, paused until the victim holds its job
        for host in SURVIVORS:
            procs[host] = _spawn(neo4j_target, tmp_path / host, namespace, host, fakes[host], "--paused")
        _wait(lambda: bool(_summary_turns(fakes[VICTIM])), "the victim to call its LLM", procs, tmp_path, fakes)
        assert running(VICTIM)  # its job claimed (committed) before the call
        _wait(lambda: all(f"worker {h} started" in _log(tmp_path, h) for h in SURVIVORS),
              "the other hosts to start (their signal handlers in place)", procs, tmp_path, fakes)
        for host in SURVIVORS:
            procs[host].send_signal(signal.SIGUSR2)  # resume
        # kill it while the other hosts are busy
        _wait(lambda: sum(len(_summary_turns(fakes[h], answered=True)) for h in SURVIVORS) >= 6,
              "the other hosts to summarize turns", procs, tmp_path, fakes)
        [held] = running(VICTIM)
        victim = procs[VICTIM]
        os.kill(victim.pid, signal.SIGKILL)
        assert victim.wait(timeout=30) == -signal.SIGKILL
        del procs[VICTIM]
        assert not Path(f"/proc/{victim.pid}").exists()  # gone (and reaped)
        assert [j["id"] for j in running(VICTIM)] == [held["id"]]  # its lease still holds the job
        # its lease is over (expired here instead of waited for): another host takes the job again
        assert support_db(database).write("testing/expire_lease", jobId=held["id"])[0]["expired"] == 1
        total = {lvl: n * SESSIONS for lvl, n in EXPECTED.items()}
        # every summary asked for and answered: a SIGTERM lets each worker finish its job in hand
        _wait(lambda: sum(len(_summary_requests(fakes[h], answered=True)) for h in SURVIVORS) >= sum(total.values()),
              f"the LLM answers for every summary {total}; now", procs, tmp_path, fakes,
              lambda: (dict(levels()), [j for f in forests() for j in f["jobs"]]))
        stats = {}
        for host in SURVIVORS:
            p = procs[host]
            p.send_signal(signal.SIGTERM)  # a clean stop: the worker prints its stats
            out, _ = p.communicate(timeout=60)
            assert p.returncode == 0, _log(tmp_path, host)
            del procs[host]
            stats[host] = json.loads(out)
    finally:
        for p in procs.values():
            p.kill()
            p.wait(timeout=30)

    # every job done, the hierarchy consistent, every turn summarized exactly once
    report = check_hierarchy(database, sessions, complete=True)
    assert report.ok, report.text()
    assert report.awaiting == 0 and report.queued_jobs == 0 and report.failed_jobs == 0
    assert dict(report.summaries) == total
    for f in forests():
        assert f["jobs"] == []
        assert len({m["coverKey"] for m in f["summaries"]}) == len(f["summaries"])  # no summary twice
        assert Counter(int(m["level"]) for m in f["summaries"]) == EXPECTED
    assert all(memory.raw_history_chars(sid) == 0 for sid in sessions)
    # the survivors wrote every summary (the victim none), lost no lease and failed nothing
    assert sum(s["summaries"] for s in stats.values()) == sum(total.values()), stats
    assert all(s["jobs_lost"] == 0 and s["jobs_failed"] == 0 and s["errors"] == 0 for s in stats.values()), stats
    # each turn went to exactly one surviving host's LLM; the killed host's turn also to its own
    held_session = int(held["session"])
    forest = forests()[held_session]
    order = sorted(t["index"] for t in forest["turns"])
    [held_turn] = [t["index"] for t in forest["turns"] if t["id"] in held["childIds"]]
    held_marker = _marker(held_session, order.index(held_turn))
    assert set(_summary_turns(fakes[VICTIM])) == {held_marker}  # (sent again if its client retried)
    sent = {h: _summary_turns(fakes[h]) for h in SURVIVORS}
    assert Counter(m for h in SURVIVORS for m in sent[h]) == Counter(
        {_marker(s, i): 1 for s in range(SESSIONS) for i in range(TURNS)})
    rescuers = [h for h in SURVIVORS if held_marker in sent[h]]  # who summarized the killed worker's turn
    assert held["owner"] == VICTIM and len(rescuers) == 1 and rescuers[0] != held["owner"], (held, rescuers)
