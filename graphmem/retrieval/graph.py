"""The graph as a retrieval source: candidates reached from the best vector and full-text hits.

The best ``graph_seeds`` fused candidates of the two other sources are the seeds. From them one
statement (``search/graph_<scope kind>``) follows the memory's edges: the turns around a turn
(NEXT), what a summary covers down to its turns (SUMMARIZES), the turns whose tool calls touched the
same files (TOUCHED) and the turns that facts about the same subjects came from (EXTRACTED_FROM,
ABOUT). The facts nearest to the query seed it too (``fact_seeds``): the turns they were extracted
from (EXTRACTED_FROM) climb. Each candidate scores the sum of its seeds' scaled scores times the
edge's weight; ranked, they enter the fusion as a third list (weight ``graph_weight``), so evidence
that sits next to, under or beside a strong hit, or that a remembered fact points at, climbs even
when its own words match the query poorly.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..db import Database
from .hits import Candidate, SearchRun, ms_since
from .models import RetrievalConfig
from .scopes import Scope

__all__ = ["FACT_SEED_FILES", "GRAPH_EDGES", "fact_seeds", "graph_candidates", "plan_graph_shapes"]

GRAPH_EDGES = ("next", "covers", "file", "subject", "fact")
"""The edge kinds the graph source follows (``RetrievalConfig.graph_edge_weights`` keys)."""
FACT_SEED_FILES = ("search/fact_seeds_exact_session", "search/fact_seeds_exact_cwd", "search/fact_seeds_exact_project")
"""The exact fact-seed statements chosen at run time (``search/fact_seeds_exact_<scope kind>``)."""


def _scaled(seeds: Sequence[tuple[str, str, float]]) -> list[tuple[str, str, float]]:
    top = max((s for _, _, s in seeds), default=0.0)
    return [(d, kind, s / top) for d, kind, s in seeds if s > 0] if top > 0 else []


def fact_seeds(db: Database, config: RetrievalConfig, vector: Sequence[float], scope: Scope,
               run: SearchRun, scope_size: Callable[[Scope], tuple[int, int]] | None = None,
               ) -> list[tuple[str, str, float]]:
    """The ``graph_fact_seeds`` current facts nearest to the query ``vector`` that were extracted
    from turns of ``scope`` (``(id, "fact", cosine)``, best first); none when the ``fact`` edge is off.
    The ``graph_fact_fetch`` facts nearest to the query over every scope are read from the fact index
    and the scope's kept. When fewer than ``graph_fact_seeds`` remain while the index holds more facts
    than it gave (other scopes' facts may have crowded the scope's out), and the scope holds at most
    ``exact_scan_max`` turns (``scope_size`` gives its turns and summaries), its facts are scanned
    exactly instead."""
    if config.graph_fact_seeds <= 0 or config.graph_edge_weights.get("fact", 0.0) <= 0:
        return []
    t0 = time.perf_counter()
    fetch = max(config.graph_fact_fetch, config.graph_fact_seeds)
    found = db.read("search/fact_seeds", vector=list(vector), kind=scope.file_kind, value=scope.value,
                    k=config.graph_fact_seeds, fetch=fetch)
    rows = [r for r in found if r["id"] is not None]
    crowded = bool(found) and int(found[0]["fetched"] or 0) >= fetch  # the index holds more facts than it gave
    if len(rows) < config.graph_fact_seeds and crowded and scope.value is not None and scope_size is not None \
            and scope_size(scope)[0] <= config.exact_scan_max:
        rows = db.read(f"search/fact_seeds_exact_{scope.file_kind}", vector=list(vector), value=scope.value,
                       k=config.graph_fact_seeds)
    run.timings["fact_seeds"] = ms_since(t0)
    return [(str(r["id"]), "fact", float(r["cosine"])) for r in rows]


def graph_candidates(
    db: Database,
    config: RetrievalConfig,
    seeds: Sequence[tuple[str, str, float]],
    scope: Scope,
    levels: Sequence[int],
    run: SearchRun,
    *,
    summary_seeds: Sequence[tuple[str, str, float]] = (),
    facts: Sequence[tuple[str, str, float]] = (),
    asker_ids: Sequence[str] = (),
) -> tuple[list[Candidate], list[dict[str, Any]] | None]:
    """The graph list for ``seeds`` (``(id, kind, fused score)``, best first), best first, at most
    ``graph_depth``, and the asking turns among ``asker_ids`` that the same statement read (rows
    ``{id, next, last}`` for :func:`graphmem.retrieval.answers.askers_of`; ``None`` when no statement
    ran because nothing seeds the graph). ``summary_seeds``: summaries found for the query although
    the search's levels leave summaries out (their full-text scores), so that what they cover can
    still climb. ``facts``: the facts nearest to the query (:func:`fact_seeds`), whose source turns
    climb. Each list's scores are scaled by its best, so the edge weights mean the same for every
    fusion."""
    t0 = time.perf_counter()
    scaled = _scaled(seeds) + _scaled(summary_seeds) + _scaled(facts)
    info: dict[str, Any] = {"seeds": len(scaled), "summary_seeds": len(summary_seeds), "fact_seeds": len(facts)}
    run.strategy["graph"] = info
    if not scaled:
        info["candidates"] = 0
        run.timings["graph"] = ms_since(t0)
        return [], None
    params = _graph_params(config, scaled, levels, asker_ids, scope)
    found = db.read(f"search/graph_{scope.file_kind}", **params)
    row = found[0] if found else {"rows": [], "askers": []}
    cands = [Candidate(r["id"], r["kind"], float(r["score"])) for r in row["rows"]]
    info["candidates"] = len(cands)
    run.timings["graph"] = ms_since(t0)
    return cands, list(row["askers"])


def _graph_params(config: RetrievalConfig, scaled: Sequence[tuple[str, str, float]], levels: Sequence[int],
                  asker_ids: Sequence[str], scope: Scope) -> dict[str, Any]:
    params: dict[str, Any] = {
        "turnSeeds": [{"id": d, "score": s} for d, kind, s in scaled if kind == "turn"],
        "summarySeeds": [{"id": d, "score": s} for d, kind, s in scaled if kind not in ("turn", "fact")],
        "factSeeds": [{"id": d, "score": s} for d, kind, s in scaled if kind == "fact"],
        "longTurnChars": config.long_turn_chars,
        "weights": {e: float(config.graph_edge_weights.get(e, 0.0)) for e in GRAPH_EDGES},
        "perSeed": config.graph_per_seed,
        "includeTurns": 0 in levels,
        "levels": [x for x in levels if x >= 1],
        "limit": config.graph_depth,
        "askerIds": list(asker_ids),
        "textChars": config.max_chars,
    }
    if scope.value is not None:
        params["value"] = scope.value
    return params


def plan_graph_shapes(db: Database, config: RetrievalConfig, scope: Scope) -> int:
    """Run the graph statement of ``scope`` once per shape of its parameters (summary seeds, fact
    seeds, summary levels and asking turns, each empty or not), with ids that match nothing: the
    server plans each shape now rather than inside a search. The number of statements run."""
    n = 0
    for summaries, facts, above, askers in itertools.product((False, True), repeat=4):
        scaled = [("", "turn", 1.0)] + ([("", "summary", 1.0)] if summaries else []) + (
            [("", "fact", 1.0)] if facts else [])
        db.read(f"search/graph_{scope.file_kind}",
                **_graph_params(config, scaled, (0, 1) if above else (0,), [""] if askers else [], scope))
        n += 1
    return n
