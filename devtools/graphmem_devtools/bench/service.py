"""Memory service benchmark: p50/p95 of the search and facts endpoints over real HTTP (uvicorn on
a free port, one keep-alive httpx client) beside the library call each one wraps, at N facts
(default 100,000) in one project scope; the HTTP overhead as a ratio. Own namespace, deleted after."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable

import httpx
import numpy as np

from graphmem.db.params import vector_param
from graphmem.facts import FactScope, delete_facts_under_path
from graphmem.facts.model import words
from graphmem.memory import GraphMemory
from graphmem.service import create_app, serve_in_thread

from ..statements import dev_db
from .common import BenchResult, machine_info, percentiles

__all__ = ["run_service_bench"]

_TOPICS = ["PostgreSQL", "the billing service", "Rust", "the CI pipeline", "Kubernetes", "the cache layer",
           "the mobile app", "pgvector", "the onboarding flow", "Toulouse"]
_QUERIES = ["which database does billing use", "how is the CI pipeline configured", "cache invalidation rules",
            "mobile app release process", "who maintains the Kubernetes cluster", "onboarding flow decisions"]


def _pair(http_call: Callable[[], object], lib_call: Callable[[], object], samples: int, warmup: int
          ) -> tuple[list[float], list[float]]:
    """Alternate the two calls (ABBA) so the machine's noise hits both alike."""
    for _ in range(warmup):
        http_call()
        lib_call()
    h: list[float] = []
    lib: list[float] = []
    for i in range(samples):
        order = (http_call, lib_call) if i % 2 == 0 else (lib_call, http_call)
        for fn in order:
            t0 = time.perf_counter()
            fn()
            (h if fn is http_call else lib).append((time.perf_counter() - t0) * 1000)
    return h, lib


def run_service_bench(mem: GraphMemory, *, facts: int = 100_000, turns: int = 200, samples: int = 200,
                      warmup: int = 20, batch: int = 2000, seed: int = 11,
                      command: str = "graphmem bench service") -> BenchResult:
    if mem.embedder is None:
        raise ValueError("the service benchmark needs an embedder")
    ns = f"/graphmem-bench/{uuid.uuid4().hex}"
    mem.init_schema()
    result = BenchResult("service", command, machine_info(mem.db.server_info().version))
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    proj = ns + "/big"
    scope = FactScope.project(proj)
    session = None
    try:
        t0 = time.perf_counter()
        loaded = 0
        while loaded < facts:
            n = min(batch, facts - loaded)
            texts = [f"Fact {loaded + j}: {rng.choice(_TOPICS)} was decided on in review {loaded + j}" for j in range(n)]
            raw = nprng.standard_normal((n, mem.embedding_dimensions)).astype(np.float32)
            vectors = (raw / np.linalg.norm(raw, axis=1, keepdims=True)).tolist()
            rows = [{"id": str(uuid.uuid4()), "content": t, "type": "fact", "vector": vector_param(v),
                     "subjects": [t.split()[0].lower()], "words": words(t)} for t, v in zip(texts, vectors, strict=True)]
            dev_db(mem.db).write("bench/facts_load", scopeKey=scope.key, rows=rows)
            loaded += n
        session = mem.create_session(proj, project_path=proj, agent="bench")
        mem.import_turns(session.id, [{"user_message": f"step {i}: {rng.choice(_QUERIES)}?",
                                       "assistant_message": f"About {rng.choice(_TOPICS)}: answer {i}. " * 5}
                                      for i in range(turns)])
        mem.embed_pending()
        mem.db.write("meta/await_indexes", timeoutSeconds=600)
        mem.await_text_index()
        result.figures["load"] = (f"{loaded} facts (random unit vectors) and {turns} turns in "
                                  f"{time.perf_counter() - t0:.1f} s")
        keys = ["global", scope.key]
        queries = [rng.choice(_QUERIES) for _ in range(samples + warmup)]
        with serve_in_thread(create_app(mem)) as url, httpx.Client(base_url=url, timeout=120) as http:
            it = iter(queries * 4)

            def ok(r: httpx.Response) -> None:
                r.raise_for_status()

            cases: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
                ("GET /api/facts?scope=project (50 facts) | list_facts",
                 lambda: ok(http.get("/api/facts", params={"scope": scope.key, "limit": 50})),
                 lambda: mem.list_facts(scopes=[scope.key], limit=50)),
                ("GET /api/search?mode=semantic&kinds=facts | search_facts",
                 lambda: ok(http.get("/api/search", params={"q": next(it), "mode": "semantic", "kinds": "facts",
                                                             "scope": f"project:{proj}", "k": 10})),
                 lambda: mem.search_facts(next(it), scopes=keys, limit=10)),
                ("GET /api/search?mode=text&kinds=turns | search (text)",
                 lambda: ok(http.get("/api/search", params={"q": next(it), "mode": "text", "kinds": "turns",
                                                             "scope": f"project:{proj}", "k": 10})),
                 lambda: mem.search(next(it), scope=f"project:{proj}", levels=[0], k=10, mode="text")),
                ("GET /api/search?mode=hybrid (turns, summaries, facts) | search + search_facts",
                 lambda: ok(http.get("/api/search", params={"q": next(it), "mode": "hybrid",
                                                             "scope": f"project:{proj}", "k": 10})),
                 lambda: (mem.search(next(it), scope=f"project:{proj}", k=10, mode="hybrid"),
                          mem.search_facts(next(it), scopes=keys, limit=10))),
            ]
            for name, http_call, lib_call in cases:
                it = iter(queries * 4)
                h, lib = _pair(http_call, lib_call, samples, warmup)
                ph, pl = percentiles(h), percentiles(lib)
                http_name, lib_name = (part.strip() for part in name.split("|"))
                result.figures[f"HTTP {http_name}"] = {**ph, "p50 ratio": round(ph["p50"] / pl["p50"], 2),
                                                        "p95 ratio": round(ph["p95"] / pl["p95"], 2)}
                result.figures[f"library {lib_name}"] = pl
        result.notes += [
            f"{facts} facts in one project scope; the endpoints run in uvicorn (one worker, FastAPI's thread pool) "
            "in this process, called over loopback HTTP with one keep-alive httpx client; the library calls use "
            "the same GraphMemory. Each pair alternates (ABBA); ratio = HTTP / library at the same percentile.",
            "The HTTP side includes query parsing and validation, JSON encoding of the results (200-character "
            "excerpts), the thread-pool hop and the client's decoding.",
            "The machine's 2 cores are shared with other jobs: p95 includes that noise.",
        ]
    finally:
        if session is not None:
            mem.delete_session(session.id)
        delete_facts_under_path(mem.db, ns)
    return result
