"""Fact-memory benchmark: ``remember`` with its similarity check at N facts (default 100,000) and
what the pre-call injection adds to ``build_context``. Own namespace, batched inserts, deleted after."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable

import numpy as np

from ..facts import FactSettings, Scope, delete_facts_under_path, inject_facts, remember
from ..memory import GraphMemory
from .common import BenchResult, machine_info, peak_rss_mb, percentiles

__all__ = ["run_facts_bench"]

_PEOPLE = ["Mickael", "David", "Julie", "Tom", "Sarah", "Paul", "Nina", "Hugo", "Lea", "Omar"]
_VERBS = ["likes", "works on", "decided to use", "fixed", "is afraid of", "wants to learn", "reviewed", "moved to"]
_THINGS = ["PostgreSQL", "the billing service", "Rust", "skiing", "the CI pipeline", "Toulouse", "pgvector",
           "the mobile app", "Kubernetes", "the cache layer", "tennis", "the onboarding flow"]
_TYPES = ["fact", "preference", "decision", "event", "observation", "todo"]


def _sentence(rng: random.Random, i: int) -> str:
    return (f"{rng.choice(_PEOPLE)} {rng.choice(_VERBS)} {rng.choice(_THINGS)} "
            f"(note {i}, ticket {rng.randint(1000, 99999)})")


def _timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def _inject_times(mem: GraphMemory, session_id: str, msgs: list[str], vecs: list[list[float]],
                  cfg: FactSettings) -> list[float]:
    out = []
    for m, v in zip(msgs, vecs, strict=True):
        t0 = time.perf_counter()
        inject_facts(mem, session_id, m, vector=v, settings=cfg)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def run_facts_bench(
    mem: GraphMemory,
    *,
    facts: int = 100_000,
    samples: int = 300,
    warmup: int = 30,
    batch: int = 2000,
    seed: int = 7,
    small_facts: int = 200,
    command: str = "graphmem bench facts",
) -> BenchResult:
    """Load ``facts`` facts into one project scope (UNWIND batches, vectors embedded locally), then
    time ``remember`` (new texts: the similarity check and the insert) and ``inject_facts``."""
    if mem.embedder is None:
        raise ValueError("the facts benchmark needs an embedder")
    ns = f"/graphmem-bench/{uuid.uuid4().hex}"
    mem.init_schema()
    info = mem.db.server_info()
    result = BenchResult("facts", command, machine_info(info.version))
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    scope = Scope.project(ns + "/big")
    try:
        # 1. bulk load through the same statements remember uses, batched
        t0 = time.perf_counter()
        loaded = 0
        while loaded < facts:
            n = min(batch, facts - loaded)
            texts = [_sentence(rng, loaded + j) for j in range(n)]
            # random unit vectors: the index and scan costs depend on the count, not on the text
            raw = nprng.standard_normal((n, mem.embedding_dimensions)).astype(np.float32)
            vectors = (raw / np.linalg.norm(raw, axis=1, keepdims=True)).tolist()
            rows = [
                {"id": str(uuid.uuid4()), "content": t, "type": rng.choice(_TYPES), "vector": v,
                 "subjects": [t.split()[0].lower()]}
                for t, v in zip(texts, vectors, strict=True)
            ]
            mem.db.write("facts/bench_load", scopeKey=scope.key, rows=rows)
            loaded += n
        load_s = time.perf_counter() - t0
        mem.db.write("meta/await_indexes", timeoutSeconds=600)
        result.figures["bulk load"] = (
            f"{loaded} facts in {load_s:.1f} s ({loaded / load_s:,.0f}/s, random unit vectors), batches of {batch}"
        )

        # 2. remember: new facts into the big scope (similarity check through the index)
        for i in range(warmup):
            remember(mem, _sentence(rng, 10**7 + i), scope=scope)
        mem.embedder.embed_one("warm")
        embedder = mem.embedder
        times: list[float] = []
        emb: list[float] = []
        for i in range(samples):
            text = _sentence(rng, 2 * 10**7 + i)
            t0 = time.perf_counter()
            remember(mem, text, scope=scope)
            times.append((time.perf_counter() - t0) * 1000)
            other = _sentence(rng, 3 * 10**7 + i)
            t0 = time.perf_counter()
            embedder.embed_one(other)
            emb.append((time.perf_counter() - t0) * 1000)
        st: dict[str, object] = dict(percentiles(times))
        st["path"] = "SEARCH clause" if info.vector_search_clause else "vector index over-fetch"
        result.figures["remember (dedup check, warm embedder)"] = st
        result.figures["of which: local embedding of the text"] = percentiles(emb)

        # 3. injection: a session of the big project vs a session with a small project
        session = mem.create_session(ns + "/big", project_path=ns + "/big", agent="bench")
        cfg = FactSettings(injection_dedup_turns=0)
        msgs = [f"what did {rng.choice(_PEOPLE)} decide about {rng.choice(_THINGS)}?" for _ in range(samples)]
        vecs = mem.embedder.embed(msgs)
        for m, v in zip(msgs[:warmup], vecs[:warmup], strict=False):
            inject_facts(mem, session.id, m, vector=v, settings=cfg)
        inj = _inject_times(mem, session.id, msgs, vecs, cfg)
        result.figures["inject_facts (message vector given)"] = percentiles(inj)
        small = mem.create_session(ns + "/small", project_path=ns + "/small", agent="bench")
        for i in range(small_facts):
            remember(mem, _sentence(rng, 4 * 10**7 + i), scope=Scope.project(ns + "/small"))
        inj_small = _inject_times(mem, small.id, msgs, vecs, cfg)
        result.figures[f"inject_facts, {small_facts}-fact project (vector given)"] = percentiles(inj_small)
        result.figures["peak Python RSS"] = f"{peak_rss_mb()} MiB"
        result.notes += [
            f"{facts} facts in one project scope; remember() texts are new sentences of the same shape, so the "
            "similarity check runs on every call (index path for a large scope, exact scan under "
            "2,000 facts).",
            "remember() = local embedding (USE v3, warm) + lock scope + nearest facts + insert, one transaction.",
            "inject_facts() = settings (cached) + one candidate read + vector hits + the Retrieval log write; the "
            "message vector is given, as build_context already embeds the message. Dedup window 0 so every call "
            "does full work.",
            "The machine's 2 cores are shared with other jobs: p95/p99 include that noise.",
        ]
    finally:
        delete_facts_under_path(mem.db, ns)
        for row in mem.db.read("maintenance/sessions_under_path", path=ns, prefix=ns + "/"):
            mem.delete_session(row["id"])
    return result
