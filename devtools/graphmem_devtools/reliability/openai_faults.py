"""Fault run 3: the local OpenAI-compatible server failing a fraction of requests."""

from __future__ import annotations

import contextlib
import json
import random
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..servers import explicit_env
from ..statements import dev_db
from ._fault_common import Log, load_avg, log_stderr, run_cli
from .worker_kill import turn_batch

__all__ = ["openai_fault_run"]


# ---------------------------------------------------------------------------------------------
# 3. the OpenAI-compatible server failing a fraction of requests


class _CountingEmbedder:
    """Counts logical embed calls and the HTTP attempts each took (requests seen by the fake server)."""

    def __init__(self, inner: Any, fake: Any, path: str) -> None:
        self.inner = inner
        self.fake = fake
        self.path = path
        self.attempts: list[int] = []
        self.failures = 0

    @property
    def model(self) -> str:
        return str(self.inner.model)

    @property
    def dimensions(self) -> int:
        return int(self.inner.dimensions)

    def _counted(self, fn: Callable[[], Any]) -> Any:
        before = self.fake.count(self.path)
        try:
            return fn()
        except Exception:
            self.failures += 1
            raise
        finally:
            self.attempts.append(self.fake.count(self.path) - before)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = self._counted(lambda: self.inner.embed(texts))
        return out

    def embed_one(self, text: str) -> list[float]:
        out: list[float] = self._counted(lambda: self.inner.embed_one(text))
        return out


class _CountingSummarizer(_CountingEmbedder):
    def summarize(self, turns: Sequence[Any]) -> Any:
        return self._counted(lambda: self.inner.summarize(turns))

    def summarize_summaries(self, summaries: Sequence[Any]) -> Any:
        return self._counted(lambda: self.inner.summarize_summaries(summaries))


def openai_fault_run(
    *,
    uri: str,
    user: str,
    password: str,
    home: Path,
    turns: int = 200,
    sessions: int = 4,
    fault_rate: float = 0.3,
    max_attempts: int = 3,
    phase1_attempts: int = 2,
    job_max_attempts: int = 1,
    force_failures: int = 0,
    client_timeout: float = 1.0,
    seed: int = 8,
    namespace: str | None = None,
    log: Log = log_stderr,
) -> dict[str, Any]:
    """Run the worker with the OpenAI embedder and LLM summarizer against a server failing
    ``fault_rate`` of the requests; returns request counts by outcome, attempts per call, the
    failed jobs seen, and whether everything converged.

    Phase 1: the LLM summarizer alone (``phase1_attempts`` per call, ``job_max_attempts`` per job)
    so jobs whose calls exhaust their attempts end ``failed`` (``force_failures`` makes the first
    jobs fail for sure with scripted 500s). Phase 2: ``retry-failed``, then the shipped
    configuration (LLM with extractive fallback, ``max_attempts`` per call, 5 per job)."""
    from graphmem.check import check_hierarchy
    from graphmem.db import Database, schema_status
    from graphmem.embedding import OpenAIEmbedder
    from graphmem.memory import GraphMemory
    from graphmem.providers import ExtractiveSummarizer
    from graphmem.providers.openai_summarizer import OpenAISummarizer
    from graphmem.providers.retry import RetryPolicy
    from graphmem.providers.summarizers import FallbackSummarizer
    from graphmem.worker import SummaryWorker, WorkerConfig, retry_failed_jobs, worker_status

    from ..fake_openai import CHAT, EMBEDDINGS, FakeOpenAIServer

    rng = random.Random(seed)
    ns = namespace or f"/graphmem-faults/oa{uuid.uuid4().hex[:8]}"
    db = Database(uri, user, password)
    base = GraphMemory(db)
    base.ensure_schema()
    st = schema_status(db)
    model = str(st.get("embedding_model") or base.embedding_model)
    dims = int(st.get("embedding_dimensions") or base.embedding_dimensions)
    sids = [base.create_session(f"{ns}/repo{k}").id for k in range(sessions)]
    for k, sid in enumerate(sids):
        n = turns // sessions + (1 if k < turns % sessions else 0)
        base.import_turns(sid, turn_batch(rng, n, k * 10_000_000))
    policy = RetryPolicy(max_attempts=max_attempts, initial_backoff=0.05, max_backoff=0.5)
    policy1 = RetryPolicy(max_attempts=phase1_attempts, initial_backoff=0.05, max_backoff=0.5)
    t0 = time.monotonic()
    fake = FakeOpenAIServer(default_dimensions=dims, failure_rate=fault_rate, seed=seed,
                            failure_kinds=("429", "500", "stall"), stall_seconds=client_timeout * 3)
    phases: dict[str, Any] = {}
    with fake:
        embedder = _CountingEmbedder(
            OpenAIEmbedder(model, api_key=fake.api_key, base_url=fake.base_url, dimensions=dims,
                           timeout=client_timeout, retry=policy), fake, EMBEDDINGS)
        llm = _CountingSummarizer(
            OpenAISummarizer("gpt-4o-mini", api_key=fake.api_key, base_url=fake.base_url, timeout=client_timeout,
                             retry=policy1), fake, CHAT)
        llm2 = _CountingSummarizer(
            OpenAISummarizer("gpt-4o-mini", api_key=fake.api_key, base_url=fake.base_url, timeout=client_timeout,
                             retry=policy), fake, CHAT)
        cfg = WorkerConfig(scope=ns, lease_seconds=30, max_attempts=job_max_attempts, retry_base_seconds=0.2,
                           retry_max_seconds=1.0, poll_seconds=0.1, embed_batch=16)
        if force_failures:
            from ..fake_openai import server_error

            fake.script("chat/completions", *[server_error() for _ in range(force_failures * phase1_attempts)])
        # phase 1: the LLM alone (no fallback): jobs whose calls exhaust their attempts end up failed
        w1 = SummaryWorker(db, llm, embedder, cfg, owner="faults-llm-only")
        s1 = _until_quiet(w1, db, sids, include_failed=True)
        status = worker_status(db, failed_limit=1000)
        failed = [f for f in status.failed if f.get("sessionId") in sids]
        cli_env = explicit_env(uri, user, password, home)
        cli_status = run_cli(["worker", "status", "--json", "--failed", "1000"], cli_env)
        shown = 0
        with contextlib.suppress(ValueError):
            shown = sum(1 for f in json.loads(cli_status.stdout).get("failed", []) if f.get("sessionId") in sids)
        phases["llm_only"] = {"summaries": s1.summaries_written, "job_errors": s1.errors,
                              "jobs_failed": len(failed), "failed_shown_by_worker_status": shown,
                              "failed_errors": sorted({str(f.get("lastError"))[:120] for f in failed})[:3]}
        log(f"openai faults: phase 1 (LLM only): {s1.summaries_written} summaries, {len(failed)} failed jobs "
            f"({shown} shown by `graphmem worker status`)")
        # phase 2: retry-failed, then the design's configuration (LLM with extractive fallback)
        retried = 0
        for sid in sids:
            retried += retry_failed_jobs(db, sid)
        fallback = FallbackSummarizer(llm2, ExtractiveSummarizer(), cooldown=0.0)
        cfg2 = WorkerConfig(scope=ns, lease_seconds=30, max_attempts=5, retry_base_seconds=0.2,
                            retry_max_seconds=1.0, poll_seconds=0.1, embed_batch=16)
        w2 = SummaryWorker(db, fallback, embedder, cfg2, owner="faults-fallback")
        s2 = _until_quiet(w2, db, sids, include_failed=False)
        phases["fallback"] = {"retried_failed_jobs": retried, "summaries": s2.summaries_written,
                              "job_errors": s2.errors, "jobs_failed": s2.jobs_failed}
        converge = time.monotonic() - t0
        requests = fake.requests()
    report = check_hierarchy(db, sids, complete=True)
    status = worker_status(db, failed_limit=1000)
    still_failed = [f for f in status.failed if f.get("sessionId") in sids]
    methods: Counter[str] = Counter()
    pending_embed = 0
    stored = 0
    for sid in sids:
        for m in base.summaries(sid):
            methods[m.method or "?"] += 1
        stored += len(base.load_session(sid).turns)
    pending_embed = _unembedded(db, sids)
    server_version = db.server_info().version
    db.close()
    outcome: Counter[str] = Counter()
    for r in requests:
        kind = "embeddings" if r.path.endswith("embeddings") else "chat"
        outcome[f"{kind}:{r.fault or r.status}"] += 1
    calls = {"embed": embedder, "llm_phase1": llm, "llm_phase2": llm2}
    bounds = {"embed": max_attempts, "llm_phase1": phase1_attempts, "llm_phase2": max_attempts}
    max_seen = {k: max(c.attempts, default=0) for k, c in calls.items()}
    bounded = all(max_seen[k] <= bounds[k] for k in calls)
    ok = (report.ok and not still_failed and pending_embed == 0 and stored == turns and bounded
          and report.summaries[1] > 0)
    return {
        "ok": ok,
        "neo4j": server_version,
        "fault_rate": fault_rate,
        "turns": turns,
        "turns_stored": stored,
        "requests": len(requests),
        "requests_by_outcome": dict(sorted(outcome.items())),
        "observed_fault_rate": round(sum(1 for r in requests if r.fault) / max(1, len(requests)), 3),
        "calls": {k: len(c.attempts) for k, c in calls.items()},
        "calls_exhausted": {k: c.failures for k, c in calls.items()},
        "attempts_per_call": {k: {str(a): n for a, n in sorted(Counter(c.attempts).items())} for k, c in calls.items()},
        "retries": {k: sum(a - 1 for a in c.attempts if a > 1) for k, c in calls.items()},
        "max_attempts_policy": bounds,
        "max_attempts_seen": max_seen,
        "attempts_bounded": bounded,
        "phases": phases,
        "summaries_by_method": dict(methods),
        "summaries_by_level": {str(k): v for k, v in sorted(report.summaries.items())},
        "check_complete_ok": report.ok,
        "failed_jobs_left": len(still_failed),
        "turns_not_embedded": pending_embed,
        "time_to_converge_s": round(converge, 1),
        "load_avg_1m": load_avg()[0],
    }


def _unembedded(db: Any, sids: Sequence[str]) -> int:
    """Turns and summaries of these sessions still waiting for an embedding."""
    n = 0
    for sid in sids:
        for row in dev_db(db).read("reliability/faults_unembedded", sessionId=sid):
            n += int(row["turns"]) + int(row["summaries"])
    return n


def _until_quiet(worker: Any, db: Any, sids: Sequence[str], *, include_failed: bool,
                 max_seconds: float = 900.0) -> Any:
    """Run ``worker`` until its sessions have no pending turn, unembedded turn or queued job
    (failed jobs count as settled in phase 1)."""
    deadline = time.monotonic() + max_seconds
    while time.monotonic() < deadline:
        worker.run(until_idle=True, max_seconds=60)
        busy = _unembedded(db, sids)
        for sid in sids:
            rows = db.read("check/forest", sessionId=sid)
            jobs = rows[0]["jobs"] if rows else []
            failed = [j for j in jobs if include_failed and j["state"] == "failed"]
            busy += len(jobs) - len(failed)
            # a turn whose level-1 job failed for good stays unsummarised until `retry-failed`: settled here
            settled = {c for j in failed for c in (j.get("childIds") or [])}
            busy += sum(1 for t in (rows[0]["turns"] if rows else [])
                        if t["summaryState"] != "done" and t["id"] not in settled)
        if busy == 0:
            break
        time.sleep(0.3)  # backoffs (jobs' retry time, the embedder's failed batch) pass
    return worker.stats
