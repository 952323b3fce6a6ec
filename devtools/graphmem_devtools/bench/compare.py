"""Side-by-side parts of ``graphmem bench all``: **writes** and **retrieval** strategies.

Both sides of every comparison run against the same Neo4j server in one run, interleaved: each
round runs every side once, in a freshly shuffled order, so a load spike on the shared machine hits
all sides alike. Ratios are reported next to the absolute times for that reason.

* writes -- graphmem ``store_turn`` (one turn with 3 tool calls) vs langchain-neo4j's
  ``Neo4jChatMessageHistory.add_messages`` for the same turn (a user message and an assistant
  message, the tool calls folded into the assistant text, since the history keeps only ``content``)
  vs the floor: an empty write transaction round trip. All three use the same driver object.
* retrieval -- one session grown to each scope size with synthetic 512-d vectors
  (see :mod:`graphmem_devtools.bench.retrieval`): the exact ``vector.similarity.cosine`` scan over the
  session's nodes (the design's original exact query) vs the vector index (in-index filtering on 2026.x,
  over-fetch + post-filter on 5.26) vs graphmem's adaptive choice; and hybrid vs vector-only vs
  text-only (adaptive) at each size.
"""

from __future__ import annotations

import math
import os
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

from graphmem.embedding import refresh_context_vectors
from graphmem.memory import GraphMemory
from graphmem.models import TurnIn
from graphmem.retrieval import Scope, Searcher
from graphmem.retrieval.models import SearchMode

from ..statements import dev_db
from .common import interleaved, percentiles
from .parts import Headline, PartResult
from .plots import cdf_plot, line_plot
from .retrieval import DIM, TOPICS, _Synth
from .store import _assistant, _tools, _user, cleanup_bench_namespace

__all__ = ["fold_tool_calls", "run_retrieval_part", "run_writes_part"]

Log = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


def _ratio(a: float, b: float) -> float:
    return round(a / b, 2) if b else math.nan


def fold_tool_calls(assistant: str, tools: list[dict[str, Any]]) -> str:
    """The assistant text with the turn's tool calls appended as text, the way a langchain user keeps
    them in a history that stores only message content."""
    parts = [assistant]
    for t in tools:
        status = "ok" if t.get("success") else "failed"
        parts.append(f"[tool {t['name']} {t.get('args')!r} -> {status}]\n{t.get('result') or ''}")
    return "\n\n".join(parts)


class _BorrowedGraph:
    """What ``Neo4jChatMessageHistory(graph=...)`` reads from a ``Neo4jGraph``: the driver and database.
    Lets the langchain side borrow graphmem's driver, so both sides (and the floor) share it."""

    def __init__(self, mem: GraphMemory) -> None:
        self._driver = mem.db.driver
        self._database = mem.db.database


def run_writes_part(
    mem: GraphMemory,
    *,
    out_dir: Path,
    rounds: int = 1000,
    warmup: int = 100,
    seed: int = 11,
    log: Log = _quiet,
) -> PartResult:
    """graphmem store_turn vs langchain-neo4j add_messages vs the empty write transaction."""
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_neo4j import Neo4jChatMessageHistory

    mem.init_schema()
    ns = f"/graphmem-bench/writes-{uuid.uuid4().hex[:12]}"
    lc_session = f"graphmem-bench-{uuid.uuid4().hex}"
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {"graphmem": [], "langchain": [], "floor": []}
    load_start = os.getloadavg()
    history = Neo4jChatMessageHistory(lc_session, node_label="LangchainChatSession",
                                      graph=cast(Any, _BorrowedGraph(mem)))
    lc_messages = 0
    dev = dev_db(mem.db)
    try:
        s = mem.create_session(ns + "/writes", agent="bench")
        counter = iter(range(10**9))

        def graphmem_side() -> None:
            i = next(counter)
            mem.store_turn(s.id, _user(i), _assistant(i), _tools(i))

        lc_counter = iter(range(10**9))

        def langchain_side() -> None:
            i = next(lc_counter)
            tools = [t.model_dump(exclude_none=True) for t in _tools(i)]
            history.add_messages([HumanMessage(content=_user(i)), AIMessage(content=fold_tool_calls(_assistant(i), tools))])

        def floor_side() -> None:
            dev.write("bench/noop_write")

        sides: dict[str, Callable[[], None]] = {"graphmem": graphmem_side, "langchain": langchain_side, "floor": floor_side}
        samples.update(interleaved(sides, rounds, warmup=warmup, rng=rng,
                                   progress=lambda r: log(f"writes: {r}/{rounds} rounds")))
        lc_messages = int(dev.read("bench/langchain_message_count", sessionId=lc_session)[0]["messages"])
    finally:
        history.clear(delete_session_node=True)
        cleanup_bench_namespace(mem, ns)
    left = int(dev.read("bench/langchain_sessions", sessionId=lc_session)[0]["sessions"])
    load_end = os.getloadavg()
    g, lc, fl = (percentiles(samples[k]) for k in ("graphmem", "langchain", "floor"))
    figures: dict[str, Any] = {
        "rounds": rounds,
        "warmup_rounds": warmup,
        "graphmem store_turn (3 tool calls)": g,
        "langchain-neo4j add_messages (user + assistant, tools folded)": lc,
        "empty write transaction (floor)": fl,
        "ratios": {
            f"graphmem / langchain {p}": _ratio(g[p], lc[p]) for p in ("p50", "p95", "p99")
        } | {
            f"graphmem / floor {p}": _ratio(g[p], fl[p]) for p in ("p50", "p95", "p99")
        } | {
            f"langchain / floor {p}": _ratio(lc[p], fl[p]) for p in ("p50", "p95", "p99")
        },
        "langchain messages written": lc_messages,
        "langchain session nodes left after cleanup": left,
        "load_average_start": list(load_start),
        "load_average_end": list(load_end),
        "langchain_neo4j_version": _version("langchain-neo4j"),
    }
    plot = cdf_plot(
        out_dir / "writes_latency_cdf.png",
        {"graphmem store_turn (turn + 3 tool calls, 1 tx)": samples["graphmem"],
         "langchain-neo4j add_messages (2 messages, 2 tx)": samples["langchain"],
         "empty write transaction (floor)": samples["floor"]},
        title=f"One turn written, same server, interleaved ({rounds} rounds)",
    )
    rows = [
        ("graphmem `store_turn` (turn + 3 ToolCall nodes, 1 transaction)", g),
        ("langchain-neo4j `add_messages` (2 Message nodes, tools folded into the text; 2 transactions)", lc),
        ("empty write transaction (the floor)", fl),
    ]
    md = [
        "Each round writes one turn with each side, in a random order per round; all three sides use the same "
        "driver object and the same server.",
        "",
        "| writer | n | p50 ms | p95 ms | p99 ms | mean ms |",
        "|---|---:|---:|---:|---:|---:|",
        *[f"| {name} | {p['n']} | {p['p50']} | {p['p95']} | {p['p99']} | {p['mean']} |" for name, p in rows],
        "",
        "| ratio | p50 | p95 | p99 |",
        "|---|---:|---:|---:|",
        *[f"| {a} / {b} | " + " | ".join(str(figures['ratios'][f'{a} / {b} {p}']) for p in ('p50', 'p95', 'p99')) + " |"
          for a, b in (("graphmem", "langchain"), ("graphmem", "floor"), ("langchain", "floor"))],
        "",
        f"![write latency CDF]({plot.name})",
    ]
    notes = [
        "langchain-neo4j's `Neo4jChatMessageHistory` keeps only each message's role and content, so the three tool "
        "calls (name, arguments, result, status) are appended to the assistant message's text; graphmem stores them "
        "as ToolCall nodes with their own properties. `add_messages` is langchain-core's default: one `add_message` "
        "(one auto-commit query) per message. The langchain side uses its own node label (`LangchainChatSession`) "
        "so it cannot collide with graphmem's `Session` nodes; its session node and messages are deleted afterwards "
        f"({left} left).",
        "store_turn does not embed (the worker does that later); neither does langchain's history.",
        f"Load average (1/5/15 min) at start {_fmt_load(load_start)}, at end {_fmt_load(load_end)} on "
        f"{os.cpu_count()} cores.",
    ]
    headline = [
        Headline("write one turn with 3 tool calls, p50", f"{g['p50']} ms",
                 f"langchain-neo4j add_messages {lc['p50']} ms", f"{_ratio(g['p50'], lc['p50'])}x"),
        Headline("write one turn with 3 tool calls, p99", f"{g['p99']} ms",
                 f"langchain-neo4j add_messages {lc['p99']} ms", f"{_ratio(g['p99'], lc['p99'])}x"),
        Headline("store_turn p50 vs an empty write transaction", f"{g['p50']} ms",
                 f"empty write tx {fl['p50']} ms", f"{_ratio(g['p50'], fl['p50'])}x"),
    ]
    return PartResult("writes", "Writes: graphmem vs langchain-neo4j vs the floor", figures, "\n".join(md),
                      [plot], headline, notes)


def _fmt_load(load: tuple[float, float, float]) -> str:
    return "/".join(f"{x:.1f}" for x in load)


def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


# -- retrieval ---------------------------------------------------------------------------------


def _grow(mem: GraphMemory, synth: _Synth, session_id: str, have: int, want: int, topic: int) -> None:
    """Append turns ``have+1 .. want`` to the session and give them synthetic vectors."""
    base = datetime(2025, 1, 1, tzinfo=UTC)
    step = 2000
    dev = dev_db(mem.db)
    for start in range(have, want, step):
        n = min(step, want - start)
        topics = [topic if synth.rng.random() < 0.3 else synth.rng.randrange(TOPICS) for _ in range(n)]
        mem.import_turns(session_id, [
            TurnIn(user_message=synth.text(t, 12), assistant_message=synth.text(t, 40),
                   timestamp=base + timedelta(minutes=start + j)) for j, t in enumerate(topics)
        ], batch_size=1000)
        rows = dev.read("bench/turn_ids_after", sessionId=session_id, after=start)
        vec = [{"id": r["id"], "embedding": synth.vector(t)} for r, t in zip(rows, topics, strict=True)]
        for i in range(0, len(vec), 1000):
            dev.write("bench/set_turn_vectors", rows=vec[i:i + 1000], model="synthetic-512")
        # turns are searched on their neighbour-averaged vector (ctxEmbedding), as the embedding pipeline writes it
        ids = [r["id"] for r in rows]
        for i in range(0, len(ids), 1000):
            refresh_context_vectors(mem.db, ids[i:i + 1000])


def _crossover(sizes: list[int], exact: list[float], index: list[float]) -> float | None:
    """The scope size where the exact scan stops beating the index (log-linear interpolation of p50)."""
    for i in range(1, len(sizes)):
        d0, d1 = exact[i - 1] - index[i - 1], exact[i] - index[i]
        if d0 <= 0 < d1:
            f = -d0 / (d1 - d0) if d1 != d0 else 0.0
            return round(math.exp(math.log(sizes[i - 1]) + f * (math.log(sizes[i]) - math.log(sizes[i - 1]))))
    return None


def _no_crossover(sizes: list[int], exact: list[float], index: list[float]) -> str:
    if all(i <= e for e, i in zip(exact, index, strict=True)):
        return f"none: the index was as fast or faster at every size measured (crossover at or below {sizes[0]:,})"
    if all(e <= i for e, i in zip(exact, index, strict=True)):
        return f"none: the exact scan was as fast or faster at every size measured (crossover above {sizes[-1]:,})"
    return "none (the curves cross more than once: noise)"


def run_retrieval_part(
    mem: GraphMemory,
    *,
    out_dir: Path,
    sizes: tuple[int, ...] = (100, 1_000, 5_000, 20_000),
    queries: int = 200,
    warmup: int = 10,
    seed: int = 5,
    log: Log = _quiet,
) -> PartResult:
    """Vector strategy crossover (exact scan vs index vs adaptive) and hybrid vs vector vs text, per scope size."""
    mem.init_schema()
    ns = f"/graphmem-bench/strategies-{uuid.uuid4().hex[:12]}"
    synth = _Synth(seed)
    rng = random.Random(seed)
    cfg = mem.searcher().config
    server = mem.db.server_info()
    threshold = cfg.exact_scan_max_filtered if server.vector_search_clause else cfg.exact_scan_max
    index_label = "index-filtered (SEARCH clause)" if server.vector_search_clause else "index-overfetch (queryNodes)"
    searchers: dict[str, Searcher] = {
        "exact": Searcher(mem.db, None, replace(cfg, exact_scan_max=10**9, exact_scan_max_filtered=10**9), dimensions=DIM),
        "index": Searcher(mem.db, None, replace(cfg, exact_scan_max=0, exact_scan_max_filtered=0), dimensions=DIM),
        "adaptive": Searcher(mem.db, None, cfg, dimensions=DIM),
    }
    mode_names: dict[str, SearchMode] = {"hybrid": "hybrid", "vector only": "semantic", "text only": "text"}
    per_size: dict[str, Any] = {}
    load_start = os.getloadavg()
    try:
        s = mem.create_session(ns + "/scope", agent="bench")
        topic = synth.rng.randrange(TOPICS)
        have = 0
        for size in sorted(sizes):
            t0 = time.perf_counter()
            _grow(mem, synth, s.id, have, size, topic)
            have = size
            mem.await_text_index()
            mem.db.write("meta/await_indexes", timeoutSeconds=600)
            for se in searchers.values():
                se.forget_counts()
            log(f"retrieval: scope grown to {size} turns in {time.perf_counter() - t0:.0f} s")
            scope = Scope.session(s.id)
            qs = []
            for _ in range(queries + warmup):
                t = topic if rng.random() < 0.5 else rng.randrange(TOPICS)
                qs.append((synth.text(t, 5), synth.vector(t, 1.2)))
            strat_lat: dict[str, list[float]] = {k: [] for k in searchers}
            strat_used: dict[str, dict[str, int]] = {k: {} for k in searchers}
            mode_lat: dict[str, list[float]] = {k: [] for k in mode_names}
            overlap: list[float] = []
            empty = 0
            jobs: list[tuple[str, str]] = [("strategy", k) for k in searchers] + [("mode", k) for k in mode_names]
            for qi, (text, vec) in enumerate(qs):
                rng.shuffle(jobs)
                ids: dict[str, list[str]] = {}
                for kind, name in jobs:
                    t1 = time.perf_counter()
                    if kind == "strategy":
                        res = searchers[name].search(text, scope=scope, k=10, mode="semantic", vector=vec)
                    else:
                        res = searchers["adaptive"].search(text, scope=scope, k=10, mode=mode_names[name], vector=vec)
                    ms = (time.perf_counter() - t1) * 1000
                    if qi < warmup:
                        continue
                    if kind == "strategy":
                        strat_lat[name].append(ms)
                        used = str(res.strategy.get("vector", {}).get("strategy", "?"))
                        strat_used[name][used] = strat_used[name].get(used, 0) + 1
                        ids[name] = [h.id for h in res.hits]
                        empty += not res.hits
                    else:
                        mode_lat[name].append(ms)
                if "exact" in ids and "index" in ids and ids["exact"]:
                    overlap.append(len(set(ids["exact"]) & set(ids["index"])) / len(ids["exact"]))
            p = {k: percentiles(v) for k, v in strat_lat.items()}
            winner = "exact" if p["exact"]["p50"] <= p["index"]["p50"] else "index"
            adaptive_used = max(strat_used["adaptive"], key=lambda x: strat_used["adaptive"][x])
            adaptive_kind = "exact" if adaptive_used == "exact" else "index"
            per_size[str(size)] = {
                "scope_nodes": size,
                "vector_only_k10": {
                    "exact scan": p["exact"], "vector index": p["index"], "adaptive": p["adaptive"],
                    "index strategy used": strat_used["index"], "adaptive strategy used": strat_used["adaptive"],
                },
                "winner_p50": winner,
                "adaptive_picked": adaptive_kind,
                "adaptive_picked_winner": adaptive_kind == winner,
                "index_recall_at_10_vs_exact": round(sum(overlap) / len(overlap), 4) if overlap else None,
                "vector_searches_without_hits": empty,
                "modes_k10_adaptive": {k: percentiles(v) for k, v in mode_lat.items()},
            }
            if empty:
                raise RuntimeError(f"{empty} vector searches found nothing at {size} turns: the synthetic vectors "
                                   "are not where search looks (the figures would be meaningless)")
            log(f"retrieval {size}: exact p50 {p['exact']['p50']} ms, index p50 {p['index']['p50']} ms, "
                f"adaptive {adaptive_used} p50 {p['adaptive']['p50']} ms")
    finally:
        cleanup_bench_namespace(mem, ns)
    load_end = os.getloadavg()
    sz = sorted(sizes)
    ex = [per_size[str(x)]["vector_only_k10"]["exact scan"]["p50"] for x in sz]
    ix = [per_size[str(x)]["vector_only_k10"]["vector index"]["p50"] for x in sz]
    ad = [per_size[str(x)]["vector_only_k10"]["adaptive"]["p50"] for x in sz]
    cross = _crossover(sz, ex, ix)
    figures: dict[str, Any] = {
        "server": server.version,
        "index_strategy": index_label,
        "exact_scan_max (adaptive threshold)": threshold,
        "queries_per_size": queries,
        "sizes": per_size,
        "crossover_p50_scope_nodes": cross,
        "adaptive_picked_winner_everywhere": all(v["adaptive_picked_winner"] for v in per_size.values()),
        "load_average_start": list(load_start),
        "load_average_end": list(load_end),
    }
    plots = [
        line_plot(out_dir / "retrieval_strategy_crossover.png", sz,
                  {"exact cosine scan": ex, f"vector index ({index_label})": ix,
                   "graphmem adaptive": ad},
                  title="Vector-only search k=10 in one session scope, p50",
                  xlabel="turns in the scope (log)", ylabel="p50 latency, ms (log)",
                  vline=(threshold, f"adaptive threshold {threshold}")),
        line_plot(out_dir / "retrieval_modes.png", sz,
                  {m: [per_size[str(x)]["modes_k10_adaptive"][m]["p50"] for x in sz] for m in mode_names},
                  title="Search k=10 by mode (adaptive vector strategy), p50",
                  xlabel="turns in the scope (log)", ylabel="p50 latency, ms (log)"),
    ]
    md = [
        f"One session grown to {', '.join(f'{x:,}' for x in sz)} turns (synthetic 512-d vectors and pseudo-word "
        f"texts). Per query, in a random order: vector-only k=10 with the exact `vector.similarity.cosine` scan "
        f"over the session's nodes (the exact scan), with the vector index, {index_label}, and with graphmem's "
        f"adaptive choice (exact up to {threshold:,} nodes in scope); then hybrid / vector-only / text-only (adaptive). "
        f"{queries} queries per size after {warmup} warm-up queries. Server: Neo4j {server.version}.",
        "",
        "| turns in scope | exact p50 / p95 ms | index p50 / p95 ms | adaptive p50 / p95 ms | faster (p50) | adaptive used | "
        "index recall@10 vs exact |",
        "|---:|---|---|---|---|---|---:|",
    ]
    for x in sz:
        v = per_size[str(x)]
        q = v["vector_only_k10"]
        md.append(
            f"| {x:,} | {q['exact scan']['p50']} / {q['exact scan']['p95']} | {q['vector index']['p50']} / "
            f"{q['vector index']['p95']} | {q['adaptive']['p50']} / {q['adaptive']['p95']} | {v['winner_p50']} | "
            f"{v['adaptive_picked']}{'' if v['adaptive_picked_winner'] else ' (not the faster)'} | "
            f"{v['index_recall_at_10_vs_exact']} |")
    md += [
        "",
        f"Crossover (p50, interpolated): {f'{cross:,} turns' if cross else _no_crossover(sz, ex, ix)}; "
        f"graphmem's threshold: {threshold:,}.",
        "",
        f"![strategy crossover]({plots[0].name})",
        "",
        "| turns in scope | hybrid p50 / p95 ms | vector only p50 / p95 ms | text only p50 / p95 ms |",
        "|---:|---|---|---|",
    ]
    for x in sz:
        m = per_size[str(x)]["modes_k10_adaptive"]
        md.append(f"| {x:,} | " + " | ".join(f"{m[k]['p50']} / {m[k]['p95']}" for k in mode_names) + " |")
    md += ["", f"![search modes]({plots[1].name})"]
    notes = [
        "Synthetic data (vectors clustered around 200 topic centroids, not model embeddings); query vectors are "
        "given, so no embedding time is included. The database holds other data besides this session when it is "
        "shared; the index strategies' cost depends on the whole index, the exact scan's only on the scope.",
        "Vector-only runs use k=10 (the index is asked for 10 candidates per kind); hybrid asks each source for "
        f"{cfg.vector_depth} (vector) / {cfg.text_depth} (text) candidates before fusion, so it costs more than "
        "either alone.",
        f"Load average (1/5/15 min) at start {_fmt_load(load_start)}, at end {_fmt_load(load_end)} on "
        f"{os.cpu_count()} cores.",
    ]
    largest = per_size[str(sz[-1])]
    smallest = per_size[str(sz[0])]
    headline = [
        Headline(f"vector search k=10, session of {sz[0]:,} turns, p50 (adaptive: {smallest['adaptive_picked']})",
                 f"{smallest['vector_only_k10']['adaptive']['p50']} ms",
                 f"exact {smallest['vector_only_k10']['exact scan']['p50']} ms / index "
                 f"{smallest['vector_only_k10']['vector index']['p50']} ms",
                 f"{_ratio(smallest['vector_only_k10']['adaptive']['p50'], min(ex[0], ix[0]))}x of the faster"),
        Headline(f"vector search k=10, session of {sz[-1]:,} turns, p50 (adaptive: {largest['adaptive_picked']})",
                 f"{largest['vector_only_k10']['adaptive']['p50']} ms",
                 f"exact {largest['vector_only_k10']['exact scan']['p50']} ms / index "
                 f"{largest['vector_only_k10']['vector index']['p50']} ms",
                 f"{_ratio(largest['vector_only_k10']['adaptive']['p50'], min(ex[-1], ix[-1]))}x of the faster"),
        Headline(f"hybrid search k=10, session of {sz[-1]:,} turns, p50",
                 f"{largest['modes_k10_adaptive']['hybrid']['p50']} ms",
                 f"vector only {largest['modes_k10_adaptive']['vector only']['p50']} ms / text only "
                 f"{largest['modes_k10_adaptive']['text only']['p50']} ms", ""),
    ]
    return PartResult("retrieval", "Retrieval: exact scan vs vector index vs adaptive; hybrid vs vector vs text",
                      figures, "\n".join(md), plots, headline, notes)
