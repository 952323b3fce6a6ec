"""Fact-memory benchmark: ``remember`` with its similarity check at N facts (default 100,000) and
what the pre-call injection adds to ``build_context``. Own namespace, batched inserts, deleted after."""

from __future__ import annotations

import os
import random
import statistics
import time
import uuid

import numpy as np

from graphmem.db.params import vector_param
from graphmem.facts import (
    FactScope,
    FactTuning,
    delete_facts_under_path,
    get_tuning,
    inject_facts,
    wait_for_vectors,
)
from graphmem.facts.model import words
from graphmem.facts.store import delete_facts
from graphmem.memory import GraphMemory
from graphmem.retrieval import ContextConfig

from ..statements import dev_db
from .common import BenchResult, machine_info, managed_server_pid, peak_rss_mb, percentiles, wait_for_idle_server

__all__ = ["run_facts_bench"]

_PEOPLE = ["Mickael", "David", "Julie", "Tom", "Sarah", "Paul", "Nina", "Hugo", "Lea", "Omar"]
_VERBS = ["likes", "works on", "decided to use", "fixed", "is afraid of", "wants to learn", "reviewed", "moved to"]
_THINGS = ["PostgreSQL", "the billing service", "Rust", "skiing", "the CI pipeline", "Toulouse", "pgvector",
           "the mobile app", "Kubernetes", "the cache layer", "tennis", "the onboarding flow"]
_STEPS = ["linker", "bundler", "schema migrator", "asset compressor", "license checker", "doc generator"]
_TYPES = ["fact", "preference", "decision", "event", "observation", "todo"]


def _sentence(rng: random.Random, i: int) -> str:
    return (f"{rng.choice(_PEOPLE)} {rng.choice(_VERBS)} {rng.choice(_THINGS)} "
            f"(note {i}, ticket {rng.randint(1000, 99999)})")


def _warm_sentence(rng: random.Random, i: int) -> str:
    """Warm-up facts: words of their own, unlike both the timed facts and the injection's messages."""
    return (f"build step {i} of the {rng.choice(_STEPS)} took {rng.randint(1, 999)} ms on runner "
            f"{rng.randint(1, 40)}")


def _inject_times(mem: GraphMemory, session_id: str, msgs: list[str], vecs: list[list[float]],
                  cfg: FactTuning) -> list[float]:
    out = []
    for m, v in zip(msgs, vecs, strict=True):
        t0 = time.perf_counter()
        inject_facts(mem.db, session_id, m, embedder=mem.embedder, deferred=mem.deferred, vector=v, tuning=cfg)
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
    warmup_seconds: float = 60.0,
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
    scope = FactScope.project(ns + "/big")
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
                {"id": str(uuid.uuid4()), "content": t, "type": rng.choice(_TYPES), "vector": vector_param(v),
                 "subjects": [t.split()[0].lower()], "words": words(t)}
                for t, v in zip(texts, vectors, strict=True)
            ]
            dev_db(mem.db).write("bench/facts_load", scopeKey=scope.key, rows=rows)
            loaded += n
        load_s = time.perf_counter() - t0
        mem.db.write("meta/await_indexes", timeoutSeconds=600)
        result.figures["bulk load"] = (
            f"{loaded} facts in {load_s:.1f} s ({loaded / load_s:,.0f}/s, random unit vectors), batches of {batch}"
        )
        idle_s, frac = wait_for_idle_server(managed_server_pid())
        if frac is not None:
            result.figures["waiting for the server to go idle"] = (
                f"{idle_s:.0f} s until Neo4j used under 5% of a core for 5 s ({frac:.0%}) after the bulk load"
            )

        # 2. remember: new facts into the big scope (similarity check through the index)
        # untimed warm-up: at least `warmup` calls and `warmup_seconds` (a freshly started server is
        # slower until its JVM has compiled these paths); the extra calls draw their texts from a
        # stream of their own, so the timed phases see the same texts and messages either way
        warm_start = time.perf_counter()
        for i in range(warmup):
            mem.remember(_sentence(rng, 10**7 + i), scope=scope)
        warm_rng, warm_calls, warm_ids = random.Random(seed + 2), warmup, set()
        while time.perf_counter() - warm_start < warmup_seconds:
            warm_ids.add(mem.remember(_warm_sentence(warm_rng, warm_calls), scope=scope).fact.id)
            warm_calls += 1
        warm_secs = time.perf_counter() - warm_start
        if warm_ids:  # the extra facts go again (their own words: they never update the others)
            wait_for_vectors(mem.deferred)
            delete_facts(mem.db, sorted(warm_ids))
            wait_for_idle_server(managed_server_pid())
        mem.embedder.embed_one("warm")
        embedder = mem.embedder
        times: list[float] = []
        emb: list[float] = []
        actions: dict[str, int] = {}
        for i in range(samples):
            text = _sentence(rng, 2 * 10**7 + i)
            t0 = time.perf_counter()
            action = mem.remember(text, scope=scope).action
            times.append((time.perf_counter() - t0) * 1000)
            actions[action] = actions.get(action, 0) + 1
            other = _sentence(rng, 3 * 10**7 + i)
            t0 = time.perf_counter()
            embedder.embed_one(other)
            emb.append((time.perf_counter() - t0) * 1000)
        st: dict[str, object] = dict(percentiles(times))
        st["path"] = "SEARCH clause" if info.vector_search_clause else "vector index over-fetch"
        st["actions"] = ", ".join(f"{k} {v}" for k, v in sorted(actions.items()))
        result.figures["remember (dedup check, warm embedder)"] = st
        result.figures["of which: local embedding of the text"] = percentiles(emb)
        # the same, until the new vector is in the index too (its own random stream: the later
        # phases see the same messages as before this figure existed)
        rng2 = random.Random(seed + 1)
        indexed: list[float] = []
        for i in range(min(samples, 100)):
            text = _sentence(rng2, 5 * 10**7 + i)
            t0 = time.perf_counter()
            mem.remember(text, scope=scope)
            wait_for_vectors(mem.deferred)
            indexed.append((time.perf_counter() - t0) * 1000)
        result.figures["remember, then its vector indexed (background writer waited for)"] = percentiles(indexed)

        # 3. injection: a session of the big project vs a session with a small project
        session = mem.create_session(ns + "/big", project_path=ns + "/big", agent="bench")
        cfg = FactTuning(injection_dedup_turns=0)
        msgs = [f"what did {rng.choice(_PEOPLE)} decide about {rng.choice(_THINGS)}?" for _ in range(samples)]
        vecs = mem.embedder.embed(msgs)
        for m, v in zip(msgs[:warmup], vecs[:warmup], strict=False):
            inject_facts(mem.db, session.id, m, embedder=mem.embedder, deferred=mem.deferred, vector=v, tuning=cfg)
        inj = _inject_times(mem, session.id, msgs, vecs, cfg)
        result.figures["inject_facts (message vector given)"] = percentiles(inj)
        small = mem.create_session(ns + "/small", project_path=ns + "/small", agent="bench")
        for i in range(small_facts):
            mem.remember(_sentence(rng, 4 * 10**7 + i), scope=FactScope.project(ns + "/small"))
        inj_small = _inject_times(mem, small.id, msgs, vecs, cfg)
        result.figures[f"inject_facts, {small_facts}-fact project (vector given)"] = percentiles(inj_small)

        # 4. build_context end to end, with and without the injection, interleaved (same messages)
        for i in range(3):
            mem.store_turn(session.id, f"what does {_PEOPLE[i]} work on?", f"{_PEOPLE[i]} works on {_THINGS[i]}.")
        with_cfg, without_cfg = ContextConfig(facts=True), ContextConfig(facts=False)
        # untimed warm-up, at least `warmup` pairs and `warmup_seconds` (as for remember above)
        ctx_start, ctx_warm = time.perf_counter(), 0
        while ctx_warm < warmup or time.perf_counter() - ctx_start < warmup_seconds:
            m = msgs[ctx_warm % len(msgs)]
            mem.build_context(session.id, f"{m} (warm-up {ctx_warm})", config=with_cfg)
            mem.build_context(session.id, f"{m} (warm-up {ctx_warm})", config=without_cfg)
            ctx_warm += 1
        ctx_warm_secs = time.perf_counter() - ctx_start
        mem.deferred.wait(session.id)
        # the warm-up's injections all count at one turn index: let the session move past them, as
        # a real session's dedup window would
        for i in range(get_tuning(mem.db).injection_dedup_turns):
            mem.store_turn(session.id, f"and the next step ({i})?", "done.")
        ctx: dict[str, list[float]] = {"with": [], "without": []}
        stages: dict[str, dict[str, list[float]]] = {"with": {}, "without": {}}
        load: list[float] = []
        for i, m in enumerate(msgs):
            # a real session moves on: one stored turn per message (untimed), so the injection's
            # dedup window (N turns) holds what a real session would, not every earlier call's facts
            mem.store_turn(session.id, m, f"answer {i}")
            order = ("with", "without") if i % 2 == 0 else ("without", "with")
            for name in order:
                text = f"{m} ({name} {i})"  # a new text each time: the embedder's cache never answers
                # the previous call's injection log is written in the background; in a session the
                # LLM's answer comes between two calls, so it is done by then: wait for it untimed
                mem.deferred.wait(session.id)
                t0 = time.perf_counter()
                block = mem.build_context(session.id, text, config=with_cfg if name == "with" else without_cfg)
                ctx[name].append((time.perf_counter() - t0) * 1000)
                for stage, ms in block.timings_ms.items():
                    stages[name].setdefault(stage, []).append(ms)
            if i % 20 == 0:
                load.append(os.getloadavg()[0])
        for name in ("with", "without"):
            st = dict(percentiles(ctx[name]))
            st["stages p50 ms"] = ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in stages[name].items())
            result.figures[f"build_context {name} fact injection (local embedder, message embedded once)"] = st
        p_with, p_without = percentiles(ctx["with"]), percentiles(ctx["without"])
        result.figures["injection's share of build_context"] = (
            f"p50 +{p_with['p50'] - p_without['p50']:.1f} ms, p95 +{p_with['p95'] - p_without['p95']:.1f} ms "
            f"(with minus without, interleaved); load average during the run {min(load):.1f}-{max(load):.1f}"
        )
        result.figures["peak Python RSS"] = f"{peak_rss_mb()} MiB"
        result.notes += [
            f"{facts} facts in one project scope; remember() texts are new sentences of the same shape, so the "
            "similarity check runs on every call (index path for a large scope, exact scan under "
            "2,000 facts).",
            f"Untimed warm-up before the timed remember() calls: {warm_calls} remember() calls in {warm_secs:.0f} s "
            f"(at least {warmup} calls and {warmup_seconds:g} s: a freshly started server is slower until its JVM "
            f"has compiled these paths); the calls after the first {warmup} store facts in words of their own, "
            "deleted again before the timing, so the later phases see the same facts either way. The injection "
            f"phase starts with {warmup} untimed calls; the build_context phase with {ctx_warm} untimed pairs in "
            f"{ctx_warm_secs:.0f} s, then as many stored turns as the dedup window holds.",
            "remember() = local embedding (USE v3, warm) + one auto-commit statement (lock scope, same text, nearest facts: "
            "exact scan or index, plus the scope's vectors not yet indexed; the decision rules; the insert or update). "
            "The new fact's vector is "
            "committed outside the vector index and indexed shortly after on the background writer, with the other "
            "vectors remembered within 0.5 s (one transaction), concurrently with the next calls (the calls run back "
            "to back, so that work competes with them); 'remember, then its vector indexed' waits for it too "
            "(waiting starts the indexing at once).",
            "inject_facts() = settings (cached) + two reads at once (candidates; per-scope vector hits) + the Retrieval "
            "log write; the message vector is given, as build_context already embeds the message. Dedup window 0 so "
            "every call does full work.",
            "build_context with/without injection: the same session of the big project (3 turns), the same "
            "messages, the two variants alternating (ABBA) so machine noise hits both alike; stage timings are "
            "GraphMemory.build_context's timings_ms (state = one round trip for session, recent turns and level-1 "
            "summaries; facts = the injection in its own thread, started before the message is embedded (its candidates "
            "need no vector) and concurrent with the search; facts_wait = what it added after the search). Stored injection settings (dedup window 10 turns); one turn is stored "
            "(untimed) before each message so the window holds what a real session's would. build_context "
            "queues the Retrieval log on a background writer (GraphMemory.deferred) once the context is built; the "
            "previous call's log is waited for, untimed, before each call, as the LLM's answer would come in between "
            "in a session (inject_facts above writes its log inline, in the timing).",
            "The machine's 2 cores are shared with other jobs: p95/p99 include that noise.",
        ]
    finally:
        delete_facts_under_path(mem.db, ns)
        for row in mem.db.read("maintenance/sessions_under_path", path=ns, prefix=ns + "/"):
            mem.delete_session(row["id"])
    return result
