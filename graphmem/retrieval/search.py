"""Hybrid retrieval over turns (level 0) and summaries (levels 1+), scoped, in Neo4j.

One search is at most four round trips: the scope's size (cached, it only chooses a strategy),
the vector candidates of turns **and** summaries in one statement (which also counts what still
waits for an embedding), the full-text candidates, and the details of the final hits. Long turns
among the full-text candidates add one: their request field's share of the score
(:mod:`.longturns`); a turn search without the graph source adds one more to lift the turns that
answer a question the best hits ask (:mod:`.answers`; the graph statement reads them otherwise).
Candidates come back in one row per statement. Fusion is a weighted CombSUM of normalised scores
(``fusion="rrf"``: weighted Reciprocal Rank Fusion).

How the vector side is run (``SearchResult.strategy["vector"]``):

* ``exact`` -- the scope holds at most ``exact_scan_max_filtered`` (2026.01+) or ``exact_scan_max``
  (5.26) turns + summaries (or the over-fetch a
  5.26 server would need exceeds ``max_fetch``): brute-force ``vector.similarity.cosine`` over the
  scope's nodes, found through the scope's property index. Exact, and faster than an index search
  for small scopes (a session, a directory).
* ``index-filtered`` -- Neo4j 2026.01+: the Cypher 25 ``SEARCH`` clause filters the scope inside
  the vector indexes (they declare ``sessionId``, ``cwd``, ``projectPath`` and ``level``).
* ``index-overfetch`` -- older servers (5.26): ``db.index.vector.queryNodes`` asks for
  ``k * (nodes in the database / nodes in the scope) * overfetch`` neighbours and filters them; if
  fewer than ``k`` survive while more exist, the fetch grows fourfold (up to ``max_fetch``, then
  the exact scan).

With ``graph_weight`` > 0 a third list joins the fusion: the candidates the best fused hits reach
through the graph (:mod:`.graph`), one more round trip.

The full-text side puts the scope into the Lucene query as a required zero-weight clause (Lucene
filters, BM25 scores are unchanged) and re-checks the scope and levels exactly in Cypher; a full
page that filtering thinned out is fetched again, larger. Every hydrated hit is checked against the
scope once more before it is returned.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..arguments import score
from ..db import Database
from ..db.concurrency import LazyPool, pool_for
from ..embedding import Embedder
from ..errors import DatabaseError, InvalidInput, quoted
from ..models import reference_time
from .answers import askers_of, lift_answers, read_askers
from .fusion import combsum, rrf
from .graph import fact_seeds, graph_candidates
from .hits import Candidate, SearchRun, hydrate, ms_since, pending_warning, query_embedding, vector_rows
from .longturns import cap_context, joined_counts, joined_params, reweigh_long_turns, session_prior_share, vector_shares
from .lucene import build_query, fields_for, query_terms
from .models import RetrievalConfig, SearchMode, SearchResult
from .queryparts import merge_parts, parts_apply, split_parts
from .rerank import rerank_fused, reranks
from .scopes import Scope, check_levels, parse_scope

__all__ = ["DEFAULT_LEVELS", "Candidate", "Searcher"]

log = logging.getLogger("graphmem.retrieval")

_FALLBACK_WARNING = ("the server's filtered vector index search failed: the semantic side scanned an over-fetch "
                     "instead (same hits, slower; details in strategy['vector']['fallback'])")

DEFAULT_LEVELS: tuple[int, ...] = (0, 1, 2, 3)

QUERY_FILES = (
    "search/count_session", "search/count_cwd", "search/count_project", "search/count_all", "search/pending_in_scope",
    "search/vector_session@search", "search/vector_cwd@search", "search/vector_project@search", "search/vector_all@search",
    "search/vector_session", "search/vector_cwd", "search/vector_project", "search/vector_all",
    "search/exact_session", "search/exact_cwd", "search/exact_project", "search/exact_all",
    "search/text_session", "search/text_cwd", "search/text_project", "search/text_all",
    "search/graph_session", "search/graph_cwd", "search/graph_project", "search/graph_all",
    "search/reindex_reset_turns", "search/reindex_reset_summaries",
)
"""The per-scope statement files chosen at run time (``search/<source>_<scope kind>``)."""
MAX_K = 1000
SESSION_DOC_SCOPE_FIELD: dict[str, str | None] = {
    "session": "id", "directory": "cwd", "project": "projectPath", "everything": None,
}
"""The ``session_search`` index property each scope filters on (a Session's own id is ``id``)."""


@dataclass
class _Counts:
    turns: int
    summaries: int
    at: float


_pool = LazyPool(8, "graphmem-search")
"""Threads for the text half of hybrid searches (its own pool: a search may itself run inside
another pool's thread, e.g. build_context's)."""
_parts_pool = LazyPool(4, "graphmem-parts")
"""Threads for the searches of a question's events, beside the whole question's (their own pool:
each waits on the search pool's threads in turn)."""


class Searcher:
    """Runs searches for one database; thread-safe (the scope-size cache is locked)."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder | None = None,
        config: RetrievalConfig | None = None,
        *,
        dimensions: int | None = None,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.config = config or RetrievalConfig()
        self.dimensions = dimensions
        self._counts: dict[tuple[str, str | None], _Counts] = {}
        self._filter_broken: dict[tuple[str, str | None, bool], float] = {}
        """(scope kind, value, turn side) -> monotonic time until which the in-index filtered search
        is not tried again for it (2026.08.1 fails on some index states; see _vector)."""
        self._lock = threading.Lock()

    # -- public ----------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        scope: Scope | str | None = None,
        levels: Sequence[int] = DEFAULT_LEVELS,
        k: int = 10,
        mode: SearchMode = "hybrid",
        min_score: float | None = None,
        locale: str = "en",
        with_embeddings: bool = False,
        vector: Sequence[float] | None = None,
        now: datetime | None = None,
    ) -> SearchResult:
        """Search; see :meth:`graphmem.GraphMemory.search`. ``vector`` skips embedding the query. A
        question comparing two events is also searched once per event (:mod:`.queryparts`)."""
        t0 = time.perf_counter()
        now = reference_time(now)
        args: dict[str, Any] = {"scope": scope, "levels": levels, "k": k, "mode": mode, "min_score": min_score,
                                "locale": locale, "with_embeddings": with_embeddings, "now": now}
        parts = split_parts(self.config, query)
        ahead = [pool_for(self.db, _parts_pool).submit(self._search_one, p, vector=None, **args)
                 for p in (parts.parts if parts else ())]
        result = self._search_one(query, vector=vector, **args)
        if parts is None or not parts_apply(result):
            return result
        found = [f.result() for f in ahead]
        return merge_parts(result, parts, found, k, self.config.part_rounds, total_ms=ms_since(t0))

    def _search_one(
        self, query: str, *, scope: Scope | str | None, levels: Sequence[int], k: int, mode: SearchMode,
        min_score: float | None, locale: str, with_embeddings: bool, vector: Sequence[float] | None,
        now: datetime | None,
    ) -> SearchResult:
        t_start = time.perf_counter()
        if not isinstance(query, str):
            raise InvalidInput("query must be a string")
        if mode not in ("hybrid", "semantic", "text"):
            raise InvalidInput(f"unknown search mode {quoted(mode)}: hybrid, semantic or text")
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
            raise InvalidInput(f"k must be an integer between 1 and {MAX_K}")
        if min_score is not None:
            min_score = score(min_score, "min_score")
        if not isinstance(locale, str):
            raise InvalidInput(f"locale must be a string such as 'en' or 'fr', not {type(locale).__name__}")
        if not isinstance(with_embeddings, bool):
            raise InvalidInput(f"with_embeddings must be True or False, not {type(with_embeddings).__name__}")
        sc = parse_scope(scope)
        lv = check_levels(levels)
        run = SearchRun()
        result = SearchResult(query=query, mode=mode, effective_mode=mode, scope=str(sc), levels=lv)
        if not query_terms(query):
            return result  # nothing searchable (empty, only punctuation or control characters)
        effective: SearchMode = mode
        qvec: list[float] | None = None
        if mode != "text":
            qvec, warning = query_embedding(self.embedder, self.dimensions, query, vector, run)
            if qvec is None:
                effective = "text"
                run.warnings.append(warning or "no embedder: text-only search")
        cfg = self.config
        lists: dict[str, list[Candidate]] = {}
        text_future: Future[list[Candidate]] | None = None
        if effective in ("hybrid", "text"):
            # the session prior and the re-ranking reorder the page, so text-only mode reads a full page too
            full = effective == "hybrid" or cfg.session_weight > 0 or reranks(cfg, query, now)
            depth = cfg.text_depth if full else k
            if effective == "hybrid" and qvec is not None:
                # the two candidate queries are independent: the text one runs beside the vector one
                text_future = pool_for(self.db, _pool).submit(self._text, query, sc, lv, max(depth, k), run)
            else:
                lists["text"] = self._text(query, sc, lv, max(depth, k), run)
        summary_seeds: Future[list[Candidate]] | None = None
        if effective == "hybrid" and cfg.graph_weight > 0 and cfg.graph_summary_levels and not any(x >= 1 for x in lv):
            # a turn search still starts the graph from the summaries that match: what they cover climbs
            summary_seeds = pool_for(self.db, _pool).submit(
                self._text, query, sc, sorted(set(cfg.graph_summary_levels)), cfg.graph_seeds, run, "graph_summaries",
                False)
        facts: Future[list[tuple[str, str, float]]] | None = None
        if effective == "hybrid" and cfg.graph_weight > 0 and qvec is not None and 0 in lv:
            facts = pool_for(self.db, _pool).submit(fact_seeds, self.db, cfg, qvec, sc, run, self.scope_size)
        waiting: dict[str, int] | None = None
        if effective in ("hybrid", "semantic") and qvec is not None:
            full = effective == "hybrid" or reranks(cfg, query, now)
            waiting = {}  # the vector statements also count what waits for an embedding
            vec_c = self._vector(qvec, sc, lv, cfg.vector_depth if full else max(k, 1), run, waiting)
            if min_score is not None:
                vec_c = [c for c in vec_c if c.score >= min_score]
            lists["vector"] = vec_c
        if text_future is not None:
            lists["text"] = text_future.result()
        answers = effective != "semantic" and 0 in lv and cfg.answer_lift > 0 and cfg.answer_seeds > 0
        askers: dict[str, tuple[str, str]] | None = None
        if effective == "hybrid" and cfg.graph_weight > 0:
            early = self._fuse(lists, effective, max(cfg.graph_seeds, 4 * cfg.answer_seeds if answers else 0))
            # the graph statement also reads the asking turns among the best 2 x answer_seeds
            asking = [d for d, kind, _, _ in early if kind == "turn"][: 2 * cfg.answer_seeds] if answers else []
            seeds = early[: cfg.graph_seeds]
            by_summary = [(c.id, c.kind, c.score) for c in summary_seeds.result()] if summary_seeds else []
            lists["graph"], asked = graph_candidates(
                self.db, cfg, [(d, kind, s) for d, kind, s, _ in seeds], sc, lv, run,
                summary_seeds=by_summary, facts=facts.result() if facts else (), asker_ids=asking)
            if answers and asked is not None:
                askers = askers_of(asked)
        if effective == "text" and min_score is not None:
            lists["text"] = [c for c in lists["text"] if c.score >= min_score]
        ranked, window = rerank_fused(self.db, lambda n: self._fuse(lists, effective, n), query, now, cfg,
                                      max(k, cfg.answer_seeds) if answers else k, run.strategy, sc,
                                      lambda e: [c.id for c in self._text(e, sc, [0], 5, run, "event", False)])
        if answers:
            top = [d for d, kind, _, _ in ranked if kind == "turn"][: cfg.answer_seeds]
            read = askers if askers is not None else read_askers(self.db, top, cfg)
            ranked = lift_answers(ranked, query, cfg, read, run.strategy)[:k]
        result.time_window = window.as_dict() if window is not None else None
        hits = hydrate(self.db, cfg, ranked, lists, sc, effective, with_embeddings, locale, now, run)
        if waiting is not None:  # no vector statement ran on an empty scope: the count is read alone
            note = pending_warning(sum(waiting.values())) if waiting else self._pending_warning(sc, lv)
            if note is not None:
                run.warnings.append(note)
        result.effective_mode = effective
        result.hits = hits
        result.warnings = run.warnings
        result.strategy = run.strategy
        run.timings["total"] = ms_since(t_start)
        result.timings_ms = run.timings
        return result

    def _pending_warning(self, scope: Scope, levels: list[int]) -> str | None:
        """The warning of a vector search whose scope holds items still waiting for an embedding."""
        rows = self.db.read("search/pending_in_scope", kind=scope.file_kind, value=scope.value, levels=levels)
        return pending_warning(sum(int(r.get("turns") or 0) + int(r.get("summaries") or 0) for r in rows))

    def scope_size(self, scope: Scope) -> tuple[int, int]:
        """(turns, summaries) in the scope, cached for ``count_cache_seconds``."""
        key = (scope.file_kind, scope.value)
        now = time.monotonic()
        with self._lock:
            hit = self._counts.get(key)
            if hit is not None and now - hit.at < self.config.count_cache_seconds:
                return hit.turns, hit.summaries
        params: dict[str, Any] = {} if scope.value is None else {"value": scope.value}
        rows = self.db.read(f"search/count_{scope.file_kind}", **params)
        turns = int(rows[0]["turns"] or 0) if rows else 0
        summaries = int(rows[0]["summaries"] or 0) if rows else 0
        with self._lock:
            self._counts[key] = _Counts(turns, summaries, now)
            if len(self._counts) > 4096:
                self._counts.clear()
        return turns, summaries

    def forget_counts(self) -> None:
        with self._lock:
            self._counts.clear()
            self._filter_broken.clear()

    # -- pieces ----------------------------------------------------------------------------
    def _vector(self, vec: list[float], scope: Scope, levels: list[int], depth: int, run: SearchRun,
                pending: dict[str, int]) -> list[Candidate]:
        """The vector candidates; ``pending`` gets what the statements saw waiting for an embedding."""
        t0 = time.perf_counter()
        cfg = self.config
        summary_levels = [x for x in levels if x >= 1]
        turn_k = depth if 0 in levels else 0
        summary_k = depth if summary_levels else 0
        n_turns, n_summaries = self.scope_size(scope)
        size = (n_turns if turn_k else 0) + (n_summaries if summary_k else 0)
        info: dict[str, Any] = {"scope_turns": n_turns, "scope_summaries": n_summaries}
        run.strategy["vector"] = info
        if size == 0:
            info["strategy"] = "empty-scope"
            run.timings["vector"] = ms_since(t0)
            return []
        base: dict[str, Any] = {"vector": vec, "turnK": turn_k, "summaryK": summary_k}
        if scope.value is not None:
            base["value"] = scope.value
        rows: list[dict[str, Any]]
        filtered = self.db.server_info().vector_search_clause
        if size <= (cfg.exact_scan_max_filtered if filtered else cfg.exact_scan_max):
            info["strategy"] = "exact"
            rows = self._exact(scope, base, levels, pending)
        elif filtered:
            info["strategy"] = "index-filtered"
            threshold = cfg.exact_scan_max_filtered

            def half(turns: bool) -> list[dict[str, Any]]:
                b = {**base, "turnK": turn_k if turns else 0, "summaryK": 0 if turns else summary_k}
                if (n_turns if turns else n_summaries) <= threshold:
                    # a small side is scanned exactly (this also keeps the index away from scopes with
                    # fewer matching nodes than its LIMIT, where 2026.08.1 fails: see below)
                    info["exact_side"] = "turns" if turns else "summaries"
                    return self._exact(scope, b, levels, pending)
                key = (scope.file_kind, scope.value, turns)
                with self._lock:
                    broken_until = self._filter_broken.get(key, 0.0)
                if time.monotonic() < broken_until:
                    info["fallback"] = "index-filtered failed recently for this scope: over-fetch"
                    run.warnings.append(_FALLBACK_WARNING)
                    return self._overfetch(scope, b, levels, n_turns, n_summaries, info, pending)
                try:
                    return vector_rows(self.db, f"search/vector_{scope.file_kind}@search", {
                        **b, "levels": levels, "minLevel": min(summary_levels, default=1),
                        "maxLevel": max(summary_levels, default=1)}, pending)
                except DatabaseError as e:
                    if not e.server_failure:
                        raise  # a bad statement, a transient error or an outage is not the index's failure
                    with self._lock:  # do not pay the failing round trip on every search of this scope
                        if len(self._filter_broken) > 4096:
                            self._filter_broken.clear()
                        self._filter_broken[key] = time.monotonic() + self.config.count_cache_seconds
                    # Neo4j 2026.08.1: the SEARCH clause's in-index filter fails with an internal
                    # "Index ... out of bounds" when fewer nodes than its LIMIT match the filter (seen on
                    # the summary index's scope + level range; `graphmem reliability isolation` found it).
                    # The over-fetch + post-filter statements are correct on every server: use them instead.
                    log.warning("in-index filtered vector search failed (%s): over-fetch + post-filter instead", e)
                    info["fallback"] = f"index-filtered failed: {e}"[:300]
                    run.warnings.append(_FALLBACK_WARNING)
                    return self._overfetch(scope, b, levels, n_turns, n_summaries, info, pending)

            if turn_k and summary_k:
                # the two indexes are searched concurrently (one statement would search them in turn)
                summaries = pool_for(self.db, _pool).submit(half, False)
                rows = half(True) + summaries.result()
            else:
                rows = half(bool(turn_k))
        else:
            rows = self._overfetch(scope, base, levels, n_turns, n_summaries, info, pending)
        run.timings["vector"] = ms_since(t0)
        cands = [Candidate(r["id"], r["kind"], float(r["cosine"]), r.get("chars")) for r in rows]
        cands.sort(key=lambda c: -c.score)
        info["candidates"] = len(cands)
        return cands

    def _exact(self, scope: Scope, base: dict[str, Any], levels: list[int], pending: dict[str, int]) -> list[dict[str, Any]]:
        return vector_rows(self.db, f"search/exact_{scope.file_kind}", {**base, "levels": levels}, pending)

    def _overfetch(
        self, scope: Scope, base: dict[str, Any], levels: list[int], n_turns: int, n_summaries: int,
        info: dict[str, Any], pending: dict[str, int],
    ) -> list[dict[str, Any]]:
        cfg = self.config
        turn_k, summary_k = int(base["turnK"]), int(base["summaryK"])
        if scope.kind == "everything":
            tot_t, tot_s = n_turns, n_summaries
        else:
            tot_t, tot_s = self.scope_size(Scope.everything())

        def want(k: int, in_scope: int, total: int) -> int:
            if k == 0:
                return 0
            ratio = total / max(1, in_scope)
            return max(k, min(total, math.ceil(k * ratio * (cfg.overfetch if scope.kind != "everything" else 1))))

        fetch_t, fetch_s = want(turn_k, n_turns, tot_t), want(summary_k, n_summaries, tot_s)
        name = f"search/vector_{scope.file_kind}"
        info["strategy"] = "index-overfetch"
        got: dict[str, list[dict[str, Any]]] = {"turn": [], "summary": []}
        need = {"turn": turn_k, "summary": summary_k}
        rounds = 0
        while True:
            if max(fetch_t, fetch_s) > cfg.max_fetch:
                info["strategy"] = "exact"
                info["reason"] = f"over-fetch {max(fetch_t, fetch_s)} > max_fetch {cfg.max_fetch}"
                return self._exact(scope, base, levels, pending)
            rounds += 1
            rows = vector_rows(self.db, name, {**base, "turnK": need["turn"], "summaryK": need["summary"],
                                               "levels": levels, "turnFetch": max(fetch_t, 1),
                                               "summaryFetch": max(fetch_s, 1)}, pending)
            for r in rows:
                got[r["kind"]].append(r)
            info["fetch"] = {"turns": fetch_t, "summaries": fetch_s, "rounds": rounds}
            short_t = need["turn"] > 0 and len(got["turn"]) < turn_k and fetch_t < tot_t
            short_s = need["summary"] > 0 and len(got["summary"]) < summary_k and fetch_s < tot_s
            if not (short_t or short_s):
                return got["turn"] + got["summary"]
            # widen only the short side(s); the other keeps what it found
            if short_t:
                got["turn"] = []
                fetch_t = min(tot_t, fetch_t * 4)
            else:
                need["turn"] = 0
            if short_s:
                got["summary"] = []
                fetch_s = min(tot_s, fetch_s * 4)
            else:
                need["summary"] = 0

    def _text(self, query: str, scope: Scope, levels: list[int], depth: int, run: SearchRun,
              label: str = "text", prior: bool = True) -> list[Candidate]:
        """Full-text candidates; ``label`` names the run's strategy and timing entries; ``prior``
        adds the whole-session prior (when ``session_weight`` > 0)."""
        t0 = time.perf_counter()
        cfg = self.config
        fields = fields_for(cfg.field_weights, turns=0 in levels, summaries=any(x >= 1 for x in levels))
        lucene = build_query(
            query, fields=fields, scope_field=scope.property, scope_value=scope.value,
            drop_stopwords=cfg.drop_query_stopwords, pairs=cfg.proximity_weight, slop=cfg.proximity_slop,
        )
        info: dict[str, Any] = {}
        run.strategy[label] = info
        if lucene is None:
            info["strategy"] = "no-terms"
            run.timings[label] = ms_since(t0)
            return []
        session_query = None
        if prior and cfg.session_weight > 0:
            session_query = build_query(
                query, fields={"sessionText": 1.0}, scope_field=SESSION_DOC_SCOPE_FIELD[scope.kind],
                scope_value=scope.value, drop_stopwords=cfg.drop_query_stopwords,
            )
        ask_joined, joined_args = joined_params(cfg, query, scope, fields, lucene)
        params: dict[str, Any] = {
            "query": lucene, "limit": depth, "includeTurns": 0 in levels, "levels": [x for x in levels if x >= 1],
            "sessionQuery": session_query or lucene, "sessionFetch": cfg.session_depth if session_query else 0,
            **joined_args,
        }
        if scope.value is not None:
            params["value"] = scope.value
        fetch = max(depth, 2 * depth if scope.kind != "everything" else depth)
        rounds = 0
        while True:
            rounds += 1
            rows = self.db.read(f"search/text_{scope.file_kind}", **params, fetch=fetch,
                                joinedFetch=fetch if ask_joined else 0)
            fetched = int(rows[0]["fetched"]) if rows else 0
            hits = list(rows[0]["hits"]) if rows else []
            joined = list(rows[0]["joined"]) if rows else []
            if len(hits) + len(joined) >= depth or fetched < fetch or fetch >= cfg.max_fetch:
                break
            fetch = min(cfg.max_fetch, fetch * 4)
        hits += joined
        sessions = {r["sessionId"]: float(r["score"]) for r in (rows[0]["sessions"] if rows else [])}
        shift = reweigh_long_turns(self.db, cfg, query, scope, fields, hits, fetch)
        capped = cap_context(cfg, fields, joined, rows[0]["own"] if rows else [], fetch)
        info.update({"strategy": "lucene", "fetch": fetch, "rounds": rounds, "candidates": len(hits),
                     "sessions": len(sessions), "long_turns_reweighed": len(shift),
                     "contexts_capped": len(capped), **joined_counts(joined, cfg)})
        shift.update(capped)
        run.timings[label] = ms_since(t0)
        cands = [
            Candidate(h["id"], h["kind"], float(h["score"]) + shift.get(h["id"], 0.0)
                      + cfg.session_weight * sessions.get(h["sessionId"], 0.0)
                      * session_prior_share(h.get("chars"), cfg.long_turn_chars))
            for h in hits
        ]
        if sessions or shift or joined:  # the prior, the reweighing and the joined turns reorder the page
            cands.sort(key=lambda c: -c.score)  # (stable: BM25 order breaks ties)
        return cands[:depth]

    def _fuse(self, lists: dict[str, list[Candidate]], mode: SearchMode, k: int) -> list[tuple[str, str, float, dict[str, int]]]:
        """(id, kind, score, ranks) best first, at most k."""
        kinds = {c.id: c.kind for lst in lists.values() for c in lst}
        if mode == "hybrid" and self.config.fusion == "combsum":
            cfg = self.config
            fused = combsum(
                {"vector": [(c.id, c.score) for c in lists.get("vector", [])][: 2 * cfg.vector_depth],
                 "text": [(c.id, c.score) for c in lists.get("text", [])][: cfg.text_depth],
                 "graph": [(c.id, c.score) for c in lists.get("graph", [])]},
                weights={"vector": cfg.vector_weight, "text": cfg.text_weight, "graph": cfg.graph_weight},
                min_spans={"vector": cfg.vector_min_span},
                item_weights={"vector": vector_shares(lists.get("vector", []), cfg)},
            )
            return [(d, kinds[d], s, r) for d, s, r in fused[:k]]
        if mode == "hybrid":
            cfg = self.config
            fused = rrf(
                {s: [c.id for c in lst] for s, lst in lists.items()}, k=cfg.rrf_k,
                weights={"vector": cfg.vector_weight, "text": cfg.text_weight, "graph": cfg.graph_weight},
                depths={"vector": 2 * cfg.vector_depth, "text": cfg.text_depth},
            )
            return [(d, kinds[d], s, r) for d, s, r in fused[:k]]
        source = "vector" if mode == "semantic" else "text"
        lst = lists.get(source, [])
        return [(c.id, c.kind, c.score, {source: i}) for i, c in enumerate(lst[:k], start=1)]
