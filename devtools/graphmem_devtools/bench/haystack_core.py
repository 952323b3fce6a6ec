"""What every haystack benchmark shares: its shapes, loading, graphmem's runs, the baselines, the tables.

A haystack is one directory of sessions (user + assistant turns with source ids), questions with
gold turn ids, and the date the questions are asked (``now``; a question may carry its own). The
benchmarks built on it (``graphmem bench haystack`` from LoCoMo, ``graphmem bench coding`` from
generated coding-assistant histories) load their haystacks through ``import_turns``, embed them,
search each question in its haystack's directory scope (``levels=(0,)``, ``k=50``, its ``now``)
and score turn ``all@k`` (every gold turn in the top k) and session ``all@5`` (every gold session
among the first 5 distinct sessions), per question group, on a tuning and a test half. Beside
graphmem's modes, two baselines on the same turn texts: BM25 (``rank_bm25`` defaults) and
dense-only (cosine over each turn's raw stored vector, without neighbour averaging or an index).
"""

from __future__ import annotations

import json
import re
import statistics
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from graphmem.embedding import LONG_TURN_CHARS, expand_context, query_vector, refresh_context_vectors
from graphmem.memory import GraphMemory
from graphmem.models import ToolCallIn, TurnIn
from graphmem.retrieval import RetrievalConfig, Scope, Searcher
from graphmem.retrieval.models import SearchMode
from graphmem.worker import SummaryWorker, WorkerConfig

from ..statements import dev_db
from .paired import differing_questions, paired_cells, paired_markdown
from .store import cleanup_bench_namespace

__all__ = [
    "BASELINE_NAMES", "HALF_NAMES", "KS", "METRICS", "Haystack", "HaystackQuestion", "HaystackRun", "HaystackSession",
    "HaystackTurn", "bm25_rankings", "default_haystack_runs", "dense_rankings", "haystack_rows",
    "haystack_tables_markdown", "long_turns", "measure_haystacks", "quality_table_lines", "score_ranking",
    "summaries_sentence", "table",
]

KS = (5, 10, 30)
HALF_NAMES = ("tune", "test")
METRICS = ("turn all@5", "turn all@10", "turn all@30", "session all@5")
BASELINE_NAMES = ("BM25 (rank_bm25 defaults, same turn texts)", "dense only (raw turn vectors, cosine)")


@dataclass
class HaystackTurn:
    source_id: str
    """``<session key>/t<n>``: the session key is everything before the last ``/``."""
    user: str
    assistant: str
    files: tuple[str, ...] = ()
    """Files the turn edited (coding haystacks), stored as ``Edit`` tool calls when asked to."""


@dataclass
class HaystackSession:
    key: str
    turns: list[HaystackTurn]
    timestamp: datetime = field(default_factory=lambda: datetime(2024, 1, 1, tzinfo=UTC))


@dataclass
class HaystackQuestion:
    question: str
    category: int
    gold_turns: set[str]
    """Source ids of the turns holding the evidence."""
    gold_sessions: set[str]
    group: str = ""
    """The table row the question counts in (its category or kind)."""
    now: datetime | None = None
    """The date the question is asked (default: its haystack's)."""
    evidence: list[str] = field(default_factory=list)
    """The evidence texts planted in the gold turns (generated data only)."""


@dataclass
class Haystack:
    name: str
    sessions: list[HaystackSession]
    questions: list[HaystackQuestion]
    now: datetime
    half: str
    """``tune`` or ``test``."""


def score_ranking(q: HaystackQuestion, ranked_turns: Sequence[str]) -> dict[str, float]:
    """turn all@k for k in KS and session all@5 of one ranking (source ids, best first)."""
    out = {f"turn all@{k}": float(q.gold_turns <= set(ranked_turns[:k])) for k in KS}
    sessions = list(dict.fromkeys(t.rsplit("/", 1)[0] for t in ranked_turns))
    out["session all@5"] = float(q.gold_sessions <= set(sessions[:5]))
    return out


def table(rows: Sequence[tuple[Haystack, HaystackQuestion, dict[str, float]]],
          groups: Sequence[str]) -> dict[str, dict[str, dict[str, float]]]:
    """half (and ``all``) -> group (``overall`` first, then ``groups`` in order) -> metric -> mean (0..1)."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for half in (*HALF_NAMES, "all"):
        by_group: dict[str, list[dict[str, float]]] = defaultdict(list)
        for h, q, m in rows:
            if half != "all" and h.half != half:
                continue
            by_group["overall"].append(m)
            by_group[q.group].append(m)
        t: dict[str, dict[str, float]] = {}
        for g in ["overall", *groups]:
            if by_group.get(g):
                ms = by_group[g]
                t[g] = {key: round(statistics.fmean(m[key] for m in ms), 3) for key in ms[0]}
                t[g]["n"] = len(ms)
        out[half] = t
    return out


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def bm25_rankings(haystacks: Sequence[Haystack]) -> list[tuple[Haystack, HaystackQuestion, list[str]]]:
    """rank_bm25 BM25Okapi (defaults) over each haystack's turn texts (user + assistant)."""
    from rank_bm25 import BM25Okapi

    out = []
    for h in haystacks:
        turns = [t for s in h.sessions for t in s.turns]
        bm = BM25Okapi([_tokens(f"{t.user} {t.assistant}") for t in turns])
        for q in h.questions:
            scores = bm.get_scores(_tokens(q.question))
            order = sorted(range(len(turns)), key=lambda i: -scores[i])[: max(KS)]
            out.append((h, q, [turns[i].source_id for i in order]))
    return out


@dataclass
class HaystackRun:
    name: str
    mode: SearchMode
    config: RetrievalConfig
    dated: bool = True
    """Each question is searched with its date as ``now``; False: with none, as a caller that does not
    pass one (the time window then follows the current time or the scope's last turn)."""
    table: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    latency_ms: dict[str, float] = field(default_factory=dict)
    outcomes: dict[str, dict[str, float]] = field(default_factory=dict)
    """Question key (``<haystack>#<n>``) -> its metrics, for the paired comparison between runs."""


def default_haystack_runs(config: RetrievalConfig | None = None) -> list[HaystackRun]:
    cfg = config or RetrievalConfig()
    return [HaystackRun("hybrid", "hybrid", cfg), HaystackRun("text (BM25 only)", "text", cfg),
            HaystackRun("semantic (vector only)", "semantic", cfg)]


def _store(mem: GraphMemory, haystacks: Sequence[Haystack], ns: str, agent: str, log: Callable[[str], None],
           tool_calls: bool = False) -> None:
    for h in haystacks:
        cwd = f"{ns}/{h.name}"
        for s in h.sessions:
            sess = mem.create_session(cwd, project_path=cwd, agent=agent, title=s.key, started_at=s.timestamp)
            mem.import_turns(sess.id, [
                TurnIn(user_message=t.user, assistant_message=t.assistant, source_id=t.source_id,
                       timestamp=s.timestamp + timedelta(seconds=60 * i),
                       tool_calls=[ToolCallIn(name="Edit", args={"file_path": f}, result="ok")
                                   for f in (t.files if tool_calls else ())])
                for i, t in enumerate(s.turns)
            ])
        log(f"stored {h.name}")


def _id_map(mem: GraphMemory, ns: str) -> dict[str, str]:
    return {r["id"]: r["sourceId"] for r in dev_db(mem.db).read("bench/turn_sources", prefix=ns + "/")}


def dense_rankings(mem: GraphMemory, haystacks: Sequence[Haystack], ns: str,
                   qvecs: dict[str, list[float]]) -> list[tuple[Haystack, HaystackQuestion, list[str]]]:
    """Cosine of the question vector with each turn's raw stored vector (no neighbour averaging)."""
    import numpy as np

    out = []
    for h in haystacks:
        rows = dev_db(mem.db).read("bench/turn_vectors", cwd=f"{ns}/{h.name}")
        rows = [r for r in rows if r["embedding"] is not None]
        mat = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-9)
        for q in h.questions:
            v = np.asarray(qvecs[q.question], dtype=np.float32)
            sims = mat @ (v / max(float(np.linalg.norm(v)), 1e-9))
            order = np.argsort(-sims, kind="stable")[: max(KS)]
            out.append((h, q, [str(rows[int(i)]["sourceId"]) for i in order]))
    return out


class Expansion:
    """The loaded turns' neighbour context (``contextText``, ``ctxEmbedding``) as the long-turn rule
    of the run being scored writes it: the load uses graphmem's default; a run whose
    ``long_turn_chars`` differs rewrites both for every turn first (and :meth:`restore` puts the
    default back, so a kept namespace is left as a fresh load would be)."""

    def __init__(self, mem: GraphMemory, ids: Sequence[str], window: int) -> None:
        self.mem, self.ids, self.window, self.stored = mem, list(ids), window, LONG_TURN_CHARS

    def apply(self, long_turn_chars: int) -> None:
        if long_turn_chars == self.stored or self.window <= 0:
            return
        expand_context(self.mem.db, self.window, ids=self.ids, long_turn_chars=long_turn_chars)
        for start in range(0, len(self.ids), 1000):
            refresh_context_vectors(self.mem.db, self.ids[start:start + 1000], long_turn_chars=long_turn_chars)
        self.mem.await_text_index()
        self.stored = long_turn_chars

    def restore(self) -> None:
        self.apply(LONG_TURN_CHARS)


def long_turns(haystacks: Sequence[Haystack]) -> int:
    """How many of the haystacks' turns are long turns by graphmem's default rule."""
    return sum(1 for h in haystacks for s in h.sessions for t in s.turns
               if len(t.user) + len(t.assistant) > LONG_TURN_CHARS)


def _evaluate(mem: GraphMemory, run: HaystackRun, haystacks: Sequence[Haystack], ns: str,
              qvecs: dict[str, list[float]], id2src: dict[str, str], groups: Sequence[str]) -> None:
    searcher = Searcher(mem.db, mem.embedder, run.config, dimensions=mem.embedding_dimensions)
    rows: list[tuple[Haystack, HaystackQuestion, dict[str, float]]] = []
    lat: list[float] = []
    for h in haystacks:
        scope = Scope("directory", f"{ns}/{h.name}")
        for n, q in enumerate(h.questions):
            t0 = time.perf_counter()
            res = searcher.search(q.question, scope=scope, levels=[0], k=50, mode=run.mode,
                                  vector=qvecs.get(q.question) if run.mode != "text" else None,
                                  now=(q.now or h.now) if run.dated else None)
            lat.append((time.perf_counter() - t0) * 1000)
            rows.append((h, q, score_ranking(q, [id2src.get(x.id, "") for x in res.hits])))
            run.outcomes[f"{h.name}#{n}"] = rows[-1][2]
    run.table = table(rows, groups)
    s = sorted(lat)
    run.latency_ms = {"p50": round(s[len(s) // 2], 2), "p95": round(s[int(len(s) * 0.95)], 2)} if s else {}


def _summarize(mem: GraphMemory, ns: str, log: Callable[[str], None]) -> dict[str, int]:
    """Run the summary worker (extractive, with the memory's embedder) to idle over ``ns``; the
    summaries per level."""
    t0 = time.perf_counter()
    stats = SummaryWorker(mem.db, embedder=mem.embedder, config=WorkerConfig(scope=ns)).run_until_idle()
    per_level = {str(r["level"]): int(r["n"]) for r in dev_db(mem.db).read("bench/summary_levels", prefix=ns + "/")}
    log(f"summarized to idle in {time.perf_counter() - t0:.0f} s: {per_level} ({stats.errors} errors, "
        f"{stats.jobs_failed} failed jobs)")
    return per_level


def summaries_sentence(figures: dict[str, Any]) -> str:
    """What the results say about summaries: none, or the worker's per level."""
    per_level = figures.get("summaries") or {}
    if not per_level:
        return "No summaries (the worker did not run: turns only)."
    return ("Summaries written by the worker run to idle (extractive summarizer): "
            + ", ".join(f"level {k} {v}" for k, v in sorted(per_level.items())) + ".")


def measure_haystacks(
    mem: GraphMemory,
    haystacks: Sequence[Haystack],
    *,
    runs: Sequence[HaystackRun],
    groups: Sequence[str],
    label: str,
    expansion_window: int = 2,
    keep: bool = False,
    reuse: str | None = None,
    summarize: bool = False,
    tool_calls: bool = False,
    log: Callable[[str], None] = print,
) -> tuple[dict[str, Any], list[str]]:
    """Load ``haystacks`` into a fresh namespace (or re-score a kept one), run each configuration and
    the two baselines. With ``summarize`` the summary worker (offline extractive summarizer, the
    embedder) first runs to idle over the namespace, as a deployment's worker would have; with
    ``tool_calls`` a fresh load stores each turn's ``files`` as ``Edit`` tool calls. Returns
    (figures, notes); a fresh namespace is deleted unless ``keep``."""
    if mem.embedder is None:
        raise ValueError(f"the {label} benchmark needs an embedder")
    ns = reuse.rstrip("/") if reuse else f"/graphmem-bench/{label}-{uuid.uuid4().hex[:12]}"
    mem.init_schema()
    notes: list[str] = []
    try:
        if not reuse:
            t0 = time.perf_counter()
            _store(mem, haystacks, ns, label, log, tool_calls)
            t1 = time.perf_counter()
            stats = mem.embed_pending(batch=256, expansion_window=expansion_window)
            log(f"stored in {t1 - t0:.0f} s, embedded {stats.total} ({stats.reused} reused) "
                f"in {time.perf_counter() - t1:.0f} s")
        summaries = _summarize(mem, ns, log) if summarize else {}
        mem.await_text_index()
        id2src = _id_map(mem, ns)
        questions = sorted({q.question for h in haystacks for q in h.questions})
        qvecs = {q: query_vector(mem.embedder, q) for q in questions}
        expansion = Expansion(mem, sorted(id2src), expansion_window)
        try:
            for run in runs:
                t2 = time.perf_counter()
                expansion.apply(run.config.long_turn_chars)
                _evaluate(mem, run, haystacks, ns, qvecs, id2src, groups)
                o = run.table["all"]["overall"]
                log(f"{run.name}: all@5 {o['turn all@5']} all@10 {o['turn all@10']} "
                    f"session all@5 {o['session all@5']} ({time.perf_counter() - t2:.0f} s)")
        finally:
            expansion.restore()
        halves = {f"{h.name}#{n}": h.half for h in haystacks for n in range(len(h.questions))}
        texts = {f"{h.name}#{n}": q.question for h in haystacks for n, q in enumerate(h.questions)}
        baselines = {
            BASELINE_NAMES[0]: table([(h, q, score_ranking(q, r)) for h, q, r in bm25_rankings(haystacks)], groups),
            BASELINE_NAMES[1]: table([(h, q, score_ranking(q, r))
                                      for h, q, r in dense_rankings(mem, haystacks, ns, qvecs)], groups),
        }
        figures: dict[str, Any] = {
            "haystacks": {half: sum(1 for h in haystacks if h.half == half) for half in HALF_NAMES},
            "turns": len(id2src),
            "long_turns": long_turns(haystacks),
            "long_turn_chars": LONG_TURN_CHARS,
            "questions": {half: sum(len(h.questions) for h in haystacks if h.half == half) for half in HALF_NAMES},
            "embedder": mem.embedder.model,
            "halves": halves,
            "expansion_window": expansion_window,
            "summaries": summaries,
            "tool_calls": tool_calls,
            "runs": [{"name": r.name, "mode": r.mode, "config": asdict(r.config), "dated": r.dated,
                      "table": r.table, "search_latency_ms": r.latency_ms,
                      "paired": paired_cells(runs[0].outcomes, r.outcomes, halves) if i else {},
                      "differing": differing_questions(runs[0].outcomes, r.outcomes, texts) if i else [],
                      "outcomes": r.outcomes}
                     for i, r in enumerate(runs)],
            "baselines": baselines,
        }
        if keep:
            notes.append(f"data kept under {ns}")
    finally:
        if not keep and not reuse:  # a reused namespace stays for the next --reuse
            cleanup_bench_namespace(mem, ns)
    return figures, notes


def haystack_rows(figures: dict[str, Any]) -> list[tuple[str, dict[str, dict[str, dict[str, float]]]]]:
    """(retriever name, table) for every graphmem run and baseline of a result."""
    rows = [(f"graphmem {r['name']}", r["table"]) for r in figures.get("runs", [])]
    rows += list(figures.get("baselines", {}).items())
    return rows


def _cell(t: dict[str, Any], half: str, metric: str) -> str:
    """One figure of a half's overall row; a dash when the half had no question (a one-half sample)."""
    overall = t.get(half, {}).get("overall")
    return f"{overall.get(metric, 0):.3f}" if overall else "—"


def quality_table_lines(figures: dict[str, Any]) -> list[str]:
    """The overall table of a haystack result (every retriever, tune and test halves side by side)."""
    cols = [f"{half} {m}" for half in HALF_NAMES for m in METRICS]
    q, h = figures.get("questions", {}), figures.get("haystacks", {})
    halves = ", ".join(f"{half}: {q.get(half)} questions in {h.get(half)} haystacks" for half in HALF_NAMES)
    lines = [f"{halves}; {figures.get('sessions_per_haystack')} sessions per haystack, {figures.get('turns')} "
             "turns. Share of questions with every gold turn in the top k (session all@5: every gold session "
             "among the first 5 distinct sessions).", "",
             "| retriever | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    for name, t in haystack_rows(figures):
        cells = [_cell(t, half, m) for half in HALF_NAMES for m in METRICS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def haystack_tables_markdown(figures: dict[str, Any], group_title: str) -> list[str]:
    """Per half (tune, test, all) the overall table; then turn all@5 per group per half; then the configurations."""
    rows = haystack_rows(figures)
    lines: list[str] = []
    for half in (*HALF_NAMES, "all"):
        lines += [f"## {half}", "", "| retriever | " + " | ".join(METRICS) + " |", "|---|" + "---:|" * len(METRICS)]
        for name, t in rows:
            lines.append(f"| {name} | " + " | ".join(_cell(t, half, k) for k in METRICS) + " |")
        lines.append("")
    for half in ("all", *HALF_NAMES) if rows else ():
        groups = [g for g in rows[0][1].get(half, {}) if g != "overall"]
        lines += [f"## turn all@5 per {group_title} ({half})", "",
                  "| retriever | " + " | ".join(f"{g} ({rows[0][1][half][g]['n']:.0f})" for g in groups) + " |",
                  "|---|" + "---:|" * len(groups)]
        for name, t in rows:
            lines.append(f"| {name} | " + " | ".join(f"{t.get(half, {}).get(g, {}).get('turn all@5', 0):.3f}"
                                                     for g in groups) + " |")
        lines.append("")
    lines += paired_markdown(figures.get("runs", []), (*HALF_NAMES, "all"))
    lines += ["## Configurations", ""]
    for r in figures.get("runs", []):
        lat = r.get("search_latency_ms", {})
        lines.append(f"- **{r['name']}** ({r['mode']}): `{json.dumps(r['config'], sort_keys=True)}`; search p50/p95 "
                     f"{lat.get('p50')} / {lat.get('p95')} ms")
    return lines
