"""Retrieval latency at 1k / 10k / 100k turns + summaries (``graphmem bench retrieval``).

Synthetic data, said plainly: pseudo-word texts (a Zipf-like vocabulary, so BM25 posting lists look
like real ones) and **synthetic vectors** (512-d, clustered around 200 random topic centroids plus
noise, L2-normalised) written straight to the nodes, so loading 100k nodes does not wait for the
embedder. 1,000 sessions at 100k (10 sessions per project, one directory per session), 90% turns,
10% summaries (levels 1 and 2). Queries reuse a stored document's words and a noisy copy of its
topic's centroid. ``search`` is timed in the database path (query vector given, k=10, hybrid), per
scope and per vector strategy; ``build_context`` is timed end to end with the local embedder
(embedding the message included). Everything lives in its own namespace, deleted afterwards.
"""

from __future__ import annotations

import os
import random
import statistics
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from graphmem.embedding import refresh_context_vectors, refresh_session_docs
from graphmem.memory import GraphMemory
from graphmem.models import TurnIn
from graphmem.retrieval import ContextConfig, RetrievalConfig, Scope, Searcher

from ..statements import dev_db
from .common import BenchResult, machine_info, managed_server_pid, percentiles, wait_for_idle_server
from .store import cleanup_bench_namespace

__all__ = ["run_retrieval_bench"]

DIM = 512
TOPICS = 200
RECIPE_WARMUP = 30
"""Untimed searches each side-by-side recipe runs before its timed ones (its own statement plans compiled)."""


class _Synth:
    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.np = np.random.default_rng(seed)
        sy = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "fi", "gu", "he", "ja", "qu"]
        self.vocab = list(dict.fromkeys("".join(self.rng.choice(sy) for _ in range(self.rng.randint(2, 4)))
                                        for _ in range(8000)))
        self.weights = [1 / (i + 1) ** 0.9 for i in range(len(self.vocab))]
        c = self.np.normal(size=(TOPICS, DIM))
        self.centroids = c / np.linalg.norm(c, axis=1, keepdims=True)

    def text(self, topic: int, n: int) -> str:
        # topic-specific words make the text side meaningful too
        own = [self.vocab[(topic * 37 + j) % len(self.vocab)] for j in range(5)]
        words = self.rng.choices(self.vocab, weights=self.weights, k=n) + self.rng.choices(own, k=max(2, n // 6))
        self.rng.shuffle(words)
        return " ".join(words)

    def vector(self, topic: int, noise: float = 0.9) -> list[float]:
        v = self.centroids[topic] + noise * self.np.normal(size=DIM) / np.sqrt(DIM)
        out: list[float] = (v / np.linalg.norm(v)).astype(np.float32).tolist()
        return out


def _load(mem: GraphMemory, synth: _Synth, ns: str, sessions: list[dict[str, Any]], n_target: int,
          state: dict[str, int], log: Callable[[str], None]) -> None:
    """Grow the namespace to ``n_target`` turns + summaries."""
    base = datetime(2025, 1, 1, tzinfo=UTC)
    per_session = max(10, n_target // 1000) if n_target >= 10_000 else 10
    n_sessions = max(1, n_target // per_session)
    while len(sessions) < n_sessions:
        i = len(sessions)
        proj = f"{ns}/p{i // 10}"
        made = mem.create_session(f"{proj}/s{i}", project_path=proj, agent="bench")
        sessions.append({"id": made.id, "turns": 0, "summaries": 0, "topic": synth.rng.randrange(TOPICS)})
    per = n_target // len(sessions)
    vec_rows: list[dict[str, Any]] = []

    turn_ids: list[str] = []

    def flush_vectors(force: bool = False) -> None:
        if vec_rows and (force or len(vec_rows) >= 1000):
            dev_db(mem.db).write("bench/set_turn_vectors", rows=list(vec_rows), model="synthetic-512")
            vec_rows.clear()
            # turns are searched on their neighbour-averaged vector (ctxEmbedding), as the embedding
            # pipeline writes it: without it the vector side would find no turns at all
            refresh_context_vectors(mem.db, turn_ids)
            turn_ids.clear()

    for s in sessions:
        want_turns = int(per * 0.9) - s["turns"]
        want_sums = per - int(per * 0.9) - s["summaries"]
        if want_turns > 0:
            start = s["turns"]
            topics = [s["topic"] if synth.rng.random() < 0.6 else synth.rng.randrange(TOPICS) for _ in range(want_turns)]
            turns = [TurnIn(user_message=synth.text(t, 12), assistant_message=synth.text(t, 40),
                            timestamp=base + timedelta(minutes=start + j)) for j, t in enumerate(topics)]
            mem.import_turns(s["id"], turns, batch_size=500)
            rows = mem.db.read("turns/recent", sessionId=s["id"], limit=want_turns)
            for r, t in zip(sorted(rows, key=lambda r: r["turn"]["index"]), topics, strict=False):
                vec_rows.append({"id": r["turn"]["id"], "embedding": synth.vector(t)})
                turn_ids.append(r["turn"]["id"])
                flush_vectors()
            s["turns"] += want_turns
        if want_sums > 0:
            rows2 = []
            for j in range(want_sums):
                t = s["topic"]
                sid = str(uuid.uuid4())
                rows2.append({"sessionId": s["id"], "id": sid, "level": 1 if j % 4 else 2, "text": synth.text(t, 60),
                              "turnCount": 5, "keyFindings": [synth.text(t, 6)], "filesMentioned": [],
                              "timestamp": base + timedelta(minutes=s["summaries"] + j)})
                vec_rows.append({"id": sid, "embedding": synth.vector(t)})
            dev_db(mem.db).write("bench/create_summaries_batch", rows=rows2)
            s["summaries"] += want_sums
        flush_vectors()
    flush_vectors(force=True)
    # the whole-session BM25 documents the text side adds (session_search), as the worker writes them
    ids = [s["id"] for s in sessions]
    for start in range(0, len(ids), 200):
        refresh_session_docs(mem.db, ids[start:start + 200])
    state["n"] = sum(s["turns"] + s["summaries"] for s in sessions)
    log(f"loaded {state['n']} turns + summaries in {len(sessions)} sessions")


def _queries(mem: GraphMemory, synth: _Synth, ns: str, sessions: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    out = []
    for _ in range(n):
        s = synth.rng.choice(sessions)
        i = sessions.index(s)
        kind = synth.rng.choice(["session", "project", "everything"])
        scope = {"session": Scope.session(s["id"]), "project": Scope("project", f"{ns}/p{i // 10}"),
                 "everything": Scope.everything()}[kind]
        words = synth.text(s["topic"], 5)
        out.append({"kind": kind, "scope": scope, "text": words, "vector": synth.vector(s["topic"], 1.2)})
    return out


def _settle(searcher: Searcher, queries: list[dict[str, Any]], *, max_seconds: float = 600.0) -> tuple[int, float, float]:
    """Search in passes until five passes in a row bring no median 5% below the best so far (after
    a bulk load the server merges index segments and applies eventually consistent full-text
    updates for minutes). Returns (passes, seconds, best median ms)."""
    t0 = time.perf_counter()
    best = float("inf")
    passes = since_best = 0
    while since_best < 5 and time.perf_counter() - t0 < max_seconds:
        lat, _ = _time_search(searcher, queries[:60], {"session", "project", "everything"})
        med = statistics.median(lat) if lat else 0.0
        passes += 1
        if med < 0.95 * best:
            best, since_best = med, 0
        else:
            since_best += 1
    return passes, time.perf_counter() - t0, best


def _time_search(
    searcher: Searcher, queries: list[dict[str, Any]], kinds: set[str], stages: dict[str, list[float]] | None = None
) -> tuple[list[float], dict[str, int]]:
    """Latencies (ms) and vector strategies of the queries of ``kinds``; ``stages`` collects each
    search's own stage timings (vector and text run concurrently, hydrate after them)."""
    lat: list[float] = []
    strategies: dict[str, int] = {}
    for q in queries:
        if q["kind"] not in kinds:
            continue
        t0 = time.perf_counter()
        r = searcher.search(q["text"], scope=q["scope"], k=10, mode="hybrid", vector=q["vector"])
        lat.append((time.perf_counter() - t0) * 1000)
        st = r.strategy.get("vector", {}).get("strategy", "?")
        strategies[st] = strategies.get(st, 0) + 1
        if stages is not None:
            for stage in ("vector", "text", "hydrate"):
                if stage in r.timings_ms:
                    stages.setdefault(stage, []).append(float(r.timings_ms[stage]))
    return lat, strategies


def _recipes(current: RetrievalConfig) -> list[tuple[str, RetrievalConfig]]:
    """The recipes timed side by side: the current one first, then the one before the long-turn rule,
    the joined short turns and the graph source, then the current one without the graph source,
    without its fact seeds (the synthetic data has no facts: what an empty fact index costs every
    search), with short turns scored field by field (the synthetic turns are all short), without
    the cap on their neighbours' context (its extra query), without the query's word pairs
    scored as phrases and without the answer lift (its extra query)."""
    return [
        ("current recipe", current),
        ("previous recipe (no graph source, long_turn_chars=0, short turns field by field)",
         replace(current, graph_weight=0.0, long_turn_chars=0, join_short_turns=False)),
        ("current recipe without the graph source", replace(current, graph_weight=0.0)),
        ("current recipe without fact seeds", replace(current, graph_fact_seeds=0)),
        ("current recipe with short turns field by field", replace(current, join_short_turns=False)),
        ("current recipe without the context cap", replace(current, context_cap=None)),
        ("current recipe without proximity pairs", replace(current, proximity_weight=0.0)),
        ("current recipe without the answer lift", replace(current, answer_lift=0.0)),
    ]


def _median_ratio(first: list[float], other: list[float]) -> float | None:
    """The median over paired samples of ``other / first`` (None without a pair)."""
    ratios = [b / a for a, b in zip(first, other, strict=True) if a > 0]
    return round(statistics.median(ratios), 3) if ratios else None


def _time_side_by_side(searchers: dict[str, Searcher], queries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each query searched by every searcher in turn, the order rotating from query to query (so
    the server's state and the machine's load weigh on all of them alike): percentiles per searcher,
    with the median of the per-query ratio to the first searcher."""
    names = list(searchers)
    lat: dict[str, list[float]] = {n: [] for n in names}
    for i, q in enumerate(queries):
        order = names[i % len(names):] + names[:i % len(names)]
        for n in order:
            t0 = time.perf_counter()
            searchers[n].search(q["text"], scope=q["scope"], k=10, mode="hybrid", vector=q["vector"])
            lat[n].append((time.perf_counter() - t0) * 1000)
    out: dict[str, dict[str, Any]] = {}
    for n in names:
        p: dict[str, Any] = dict(percentiles(lat[n]))
        p["median ratio to the first"] = _median_ratio(lat[names[0]], lat[n])
        out[n] = p
    return out


def run_retrieval_bench(
    mem: GraphMemory,
    *,
    sizes: tuple[int, ...] = (1_000, 10_000, 100_000),
    queries: int = 300,
    context_calls: int = 300,
    context_warmup: int = 30,
    command: str = "graphmem bench retrieval",
    log: Callable[[str], None] = print,
) -> BenchResult:
    ns = f"/graphmem-bench/retrieval-{uuid.uuid4().hex[:12]}"
    mem.init_schema()
    result = BenchResult("retrieval", command, machine_info(mem.db.server_info().version))
    synth = _Synth()
    sessions: list[dict[str, Any]] = []
    state = {"n": 0}
    base_cfg = mem.searcher().config
    server_pid = managed_server_pid()
    try:
        for size in sizes:
            t0 = time.perf_counter()
            _load(mem, synth, ns, sessions, size, state, log)
            mem.await_text_index()
            mem.db.write("meta/await_indexes", timeoutSeconds=600)
            log(f"load to {size}: {time.perf_counter() - t0:.0f} s")
            idle_s, frac = wait_for_idle_server(server_pid)
            if frac is not None:
                log(f"server idle after {idle_s:.0f} s ({frac:.0%} of a core over 5 s)")
                result.figures[f"{size} nodes, waiting for the server to go idle"] = (
                    f"{idle_s:.0f} s until Neo4j used under 5% of a core for 5 s ({frac:.0%}): it merges index "
                    "segments and applies full-text updates after the bulk load"
                )
            qs = _queries(mem, synth, ns, sessions, queries)
            adaptive = Searcher(mem.db, None, base_cfg, dimensions=DIM)
            passes, settle_s, med = _settle(adaptive, qs)
            log(f"settled after {passes} passes in {settle_s:.0f} s (best median {med:.1f} ms)")
            result.figures[f"{size} nodes, settling before timing"] = (
                f"{passes} passes of {min(60, len(qs))} searches in {settle_s:.0f} s, until the median stopped "
                f"improving by 5% for 5 passes (best median {med:.1f} ms): the server merges its indexes after the bulk load"
            )
            for kind in ("session", "project", "everything"):
                lat, strat = _time_search(adaptive, qs, {kind})
                p: dict[str, Any] = dict(percentiles(lat))
                p["vector strategy"] = ", ".join(f"{k} x{v}" for k, v in sorted(strat.items()))
                result.figures[f"{size} nodes, hybrid k=10, {kind} scope (adaptive)"] = p
            search_stages: dict[str, list[float]] = {}
            lat, _ = _time_search(adaptive, qs, {"session", "project", "everything"}, search_stages)
            pa: dict[str, Any] = dict(percentiles(lat))
            pa["stages p50 ms"] = ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in search_stages.items() if v)
            result.figures[f"{size} nodes, hybrid k=10, all scopes (adaptive)"] = pa
            recipes = {name: Searcher(mem.db, None, cfg, dimensions=DIM) for name, cfg in _recipes(base_cfg)}
            for s in recipes.values():
                # untimed: a recipe that leaves a statement's list parameter empty (no asking turns without
                # the answer lift) runs plans of its own, each compiled on its first search of a scope kind
                _time_search(s, qs[:RECIPE_WARMUP], {"session", "project", "everything"})
            for name, p_side in _time_side_by_side(recipes, qs).items():
                result.figures[f"{size} nodes, hybrid k=10, all scopes, side by side: {name}"] = p_side
            forced_index = Searcher(mem.db, None, replace(base_cfg, exact_scan_max=0, exact_scan_max_filtered=0), dimensions=DIM)
            forced_exact = Searcher(mem.db, None, replace(base_cfg, exact_scan_max=10**9, exact_scan_max_filtered=10**9), dimensions=DIM)
            for label, s in (("index", forced_index), ("exact", forced_exact)):
                _time_search(s, qs[:20], {"session", "project"})
                for kind in ("session", "project"):
                    lat, strat = _time_search(s, qs, {kind})
                    pf: dict[str, Any] = dict(percentiles(lat))
                    pf["vector strategy"] = ", ".join(f"{k} x{v}" for k, v in sorted(strat.items()))
                    result.figures[f"{size} nodes, hybrid k=10, {kind} scope (forced {label})"] = pf
        if mem.embedder is not None and context_calls > 0:
            cfg = ContextConfig(scope="project")
            ids = [synth.rng.choice(sessions)["id"] for _ in range(context_calls + context_warmup)]
            memories: dict[str, GraphMemory] = {}
            for name, rc in _recipes(base_cfg):
                other = mem if not memories else GraphMemory(mem.db, embedder=mem.embedder)
                other.searcher(rc)
                memories[name] = other
            names = list(memories)
            lat_by: dict[str, list[float]] = {n: [] for n in names}
            stages: dict[str, list[float]] = {}
            for n, sid in enumerate(ids):
                msg = f"what did we decide about {synth.text(synth.rng.randrange(TOPICS), 6)}?"
                # every recipe answers the same message, in an order rotating from call to call
                for name in names[n % len(names):] + names[:n % len(names)]:
                    m = memories[name]
                    # the previous call's injection log is written in the background; in a session the
                    # LLM's answer comes between two calls, so it is done by then: wait for it untimed
                    for w in memories.values():
                        w.deferred.wait_all()
                    t0 = time.perf_counter()
                    block = m.build_context(sid, msg, config=cfg)
                    if n >= context_warmup:
                        lat_by[name].append((time.perf_counter() - t0) * 1000)
                        if m is mem:
                            for stage, ms in block.timings_ms.items():
                                stages.setdefault(stage, []).append(float(ms))
            bc: dict[str, Any] = dict(percentiles(lat_by[names[0]]))
            bc["stages p50 ms"] = ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in stages.items())
            result.figures[f"{state['n']} nodes, build_context end to end (local embedder, project scope)"] = bc
            for name in names[1:]:
                pb: dict[str, Any] = dict(percentiles(lat_by[name]))
                pb["median ratio to the first"] = _median_ratio(lat_by[names[0]], lat_by[name])
                result.figures[f"{state['n']} nodes, build_context end to end, side by side: {name}"] = pb
        result.notes += [
            "Synthetic data: pseudo-word texts and synthetic 512-d clustered vectors (not model embeddings), "
            "written straight to the nodes; 10 sessions per project, 90% turns / 10% summaries.",
            "search timings exclude query embedding (the query vector is given); build_context includes it "
            "(USE multilingual v3, local, 1 thread) but the stored vectors are synthetic. Before each timed "
            "build_context the previous call's background injection log (GraphMemory.deferred) is waited for, "
            "untimed: in a session the LLM's answer comes between two calls. "
            f"{context_calls} build_context calls are timed after {context_warmup} untimed ones "
            "(the first calls of a process warm the embedder and the statements' plans).",
            f"Side by side rows: each recipe first runs {RECIPE_WARMUP} untimed searches (its own statement plans "
            "compiled), then every query is searched by the current recipe (graph_weight "
            f"{base_cfg.graph_weight}), the previous one (no graph source, long_turn_chars=0: long turns take the "
            "whole-session prior; short turns scored field by field in memory_search), the current one without the "
            "graph source, without fact seeds, with short turns field by field, without the context cap (its "
            "extra query), without proximity pairs and without the answer lift (its extra query), in rotating "
            "order, in one pass; "
            "'median ratio to the first' is the median over queries of each one's latency divided by the current "
            "recipe's for the same query. The synthetic data has no SUMMARIZES, tool-call or fact edges: the graph "
            "statement follows NEXT edges only here.",
            "Stages of a search (the all-scopes row): the vector and the full-text candidate statements run "
            "concurrently (two server statements on the machine's cores), hydrate (the final hits' details) after "
            "both; stage p50s do not add up to the total p50.",
            f"Load average during the run (1/5/15 min): {os.getloadavg()} on {os.cpu_count()} cores "
            "(the machine is shared; figures are pessimistic when the load exceeds the core count).",
            f"Adaptive vector strategy: exact cosine scan when the scope holds <= {base_cfg.exact_scan_max_filtered} "
            f"turns + summaries on servers with in-index filtering (<= {base_cfg.exact_scan_max} on 5.26), "
            "else the vector indexes (in-index filtering on 2026.x, over-fetch on 5.26).",
        ]
    finally:
        t0 = time.perf_counter()
        cleanup_bench_namespace(mem, ns)
        log(f"cleaned up in {time.perf_counter() - t0:.0f} s")
    return result
