"""LoCoMo evidence recall in Neo4j (``graphmem bench locomo``).

Each LoCoMo conversation is stored as one directory, each LoCoMo session as a graphmem session, each
utterance as a turn (``"{speaker}: {text}"`` plus ``" [shares {blip_caption}]"``, the unit of
``shared/benchmarks/locomo/BASELINES.md``). Every question is searched in its conversation's
directory scope with ``graphmem``'s own search (hybrid, BM25-only ``text`` and vector-only
``semantic`` modes) and scored with the paper's recall accuracy: per question, the fraction of its
distinct evidence dia_ids among the top k; a question with no resolvable evidence counts as 1;
means per category. Everything runs against the real server; the namespace is deleted afterwards.
"""

from __future__ import annotations

import json
import re
import statistics
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from graphmem.embedding import query_vector
from graphmem.memory import GraphMemory
from graphmem.models import TurnIn
from graphmem.retrieval import RetrievalConfig, Scope, Searcher
from graphmem.retrieval.models import SearchMode

from ..statements import dev_db
from .common import BenchResult, machine_info
from .paired import paired_cells, paired_markdown
from .store import cleanup_bench_namespace

__all__ = ["DRAGON", "LocomoQuestion", "load_locomo", "recall", "run_locomo_bench"]

KS = (5, 10, 25)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
DRAGON = {5: 56.7, 10: 66.2, 25: 76.7}
"""The LoCoMo paper's DRAGON retriever, dialog unit, overall (Table 3)."""
BASELINES = {"bm25 (rank_bm25, BASELINES.md)": {5: 45.4, 10: 52.7, 25: 63.0},
             "USE dense (BASELINES.md)": {5: 21.6, 10: 29.7, 25: 42.9},
             "naive RRF (BASELINES.md)": {5: 34.9, 10: 46.3, 25: 58.6}}


@dataclass
class LocomoQuestion:
    conv: str
    question: str
    category: int
    evidence: set[str]


@dataclass
class LocomoTurn:
    dia_id: str
    session: int
    text: str
    timestamp: datetime


@dataclass
class LocomoObservation:
    """One of the dataset's observations: a fact about a speaker, written from one turn (``dia_id``)."""

    speaker: str
    text: str
    dia_id: str


@dataclass
class LocomoConv:
    sample_id: str
    sessions: dict[int, list[LocomoTurn]] = field(default_factory=dict)
    questions: list[LocomoQuestion] = field(default_factory=list)
    observations: list[LocomoObservation] = field(default_factory=list)


def _date(text: str, fallback: datetime) -> datetime:
    try:
        return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        return fallback


def load_locomo(path: Path) -> list[LocomoConv]:
    data = json.loads(path.read_text(encoding="utf-8"))
    convs = []
    base = datetime(2023, 1, 1, tzinfo=UTC)
    for sample in data:
        c = sample["conversation"]
        conv = LocomoConv(sample["sample_id"])
        keys = sorted((k for k in c if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1]))
        ids: set[str] = set()
        for k in keys:
            n = int(k.split("_")[1])
            start = _date(str(c.get(f"{k}_date_time", "")), base + timedelta(days=n))
            turns = []
            for i, t in enumerate(c[k]):
                text = f"{t['speaker']}: {t['text']}"
                if t.get("blip_caption"):
                    text += f" [shares {t['blip_caption']}]"
                turns.append(LocomoTurn(t["dia_id"], n, text, start + timedelta(seconds=30 * i)))
                ids.add(t["dia_id"])
            conv.sessions[n] = turns
        for q in sample["qa"]:
            ev = {tok for e in q.get("evidence", []) for tok in re.split(r"[;,\s]+", str(e)) if tok in ids}
            conv.questions.append(LocomoQuestion(conv.sample_id, q["question"], int(q["category"]), ev))
        conv.observations = _observations(sample.get("observation") or {}, ids)
        convs.append(conv)
    return convs


def _observations(per_session: dict[str, Any], ids: set[str]) -> list[LocomoObservation]:
    """The observations of one conversation, session by session; each is tied to the first turn it
    cites (15 of the 2,541 cite more than one)."""
    out: list[LocomoObservation] = []
    for key in sorted(per_session, key=lambda k: int(re.sub(r"\D", "", k) or 0)):
        for speaker, items in (per_session[key] or {}).items():
            for text, evidence in items:
                cited = evidence if isinstance(evidence, list) else re.split(r"[;,\s]+", str(evidence))
                first = next((str(e) for e in cited if str(e) in ids), None)
                if first is not None and str(text).strip():
                    out.append(LocomoObservation(speaker, str(text), first))
    return out


def recall(evidence: set[str], ranked: Sequence[str], k: int) -> float:
    """The paper's recall accuracy for one question (no resolvable evidence counts as 1)."""
    if not evidence:
        return 1.0
    return len(evidence & set(ranked[:k])) / len(evidence)


HALVES = ("conv 0-4 (tuning half)", "conv 5-9 (held-out half)")
"""The research (benchmarks/locomo_research) tuned on conversations 0-4; 5-9 are held out."""
PAIRED_METRICS = ("R@5", "R@10")


def _table(per_q: list[tuple[int, list[float]]], conv_of: list[int] | None = None) -> dict[str, dict[str, float]]:
    groups: dict[str, list[list[float]]] = defaultdict(list)
    for n, (cat, rs) in enumerate(per_q):
        groups["overall"].append(rs)
        if cat != 5:
            groups["excl. adversarial"].append(rs)
        groups[f"{cat} {CATEGORIES[cat]}"].append(rs)
        if conv_of is not None:
            groups[HALVES[0] if conv_of[n] < 5 else HALVES[1]].append(rs)
    out: dict[str, dict[str, float]] = {}
    for g, rows in groups.items():
        out[g] = {f"R@{k}": round(100 * statistics.fmean(r[i] for r in rows), 1) for i, k in enumerate(KS)}
        out[g]["n"] = len(rows)
    order = ["overall", "excl. adversarial"] + [f"{c} {n}" for c, n in CATEGORIES.items()] + list(HALVES)
    return {g: out[g] for g in order if g in out}


def _store(mem: GraphMemory, convs: list[LocomoConv], ns: str, log: Callable[[str], None]) -> dict[str, str]:
    """Store every conversation; returns turn id -> dia_id."""
    id2dia: dict[str, str] = {}
    for conv in convs:
        cwd = f"{ns}/{conv.sample_id}"
        for n, turns in conv.sessions.items():
            s = mem.create_session(cwd, project_path=cwd, agent="locomo", title=f"{conv.sample_id} session {n}",
                                   started_at=turns[0].timestamp if turns else None)
            mem.import_turns(s.id, [TurnIn(user_message=t.text, assistant_message="", timestamp=t.timestamp,
                                           source_id=t.dia_id) for t in turns])
            for t in mem.load_session(s.id).turns:
                if t.source_id:
                    id2dia[t.id] = t.source_id
        log(f"stored {conv.sample_id}")
    return id2dia


def _load_facts(mem: GraphMemory, convs: list[LocomoConv], ns: str, log: Callable[[str], None]) -> dict[str, Any]:
    """The observations as facts, unless the (reused) namespace holds some already."""
    dev = dev_db(mem.db)
    held = int(dev.read("bench/facts_under", prefix=ns + "/")[0]["facts"])
    if held:
        log(f"reusing {held} facts under {ns}")
        return {"source": "LoCoMo observations", "current": held}
    rows = dev.read("bench/turn_sources", prefix=ns + "/")
    t0 = time.perf_counter()
    outcomes = remember_observations(mem, convs, ns, {(r["cwd"], r["sourceId"]): r["id"] for r in rows}, log)
    held = int(dev.read("bench/facts_under", prefix=ns + "/")[0]["facts"])
    log(f"remembered {sum(outcomes.values())} observations in {time.perf_counter() - t0:.0f} s: {outcomes}")
    return {"source": "LoCoMo observations", "current": held, "remembered": outcomes}


def remember_observations(mem: GraphMemory, convs: list[LocomoConv], ns: str,
                          turn_of: dict[tuple[str, str], str], log: Callable[[str], None]) -> dict[str, int]:
    """Remember every observation as a fact of its conversation's project, about its speaker and
    extracted from the turn it cites (``turn_of``: (cwd, dia_id) -> turn id), as the fact extractor
    would; returns the count of each remember outcome (similar observations update one another)."""
    outcomes: dict[str, int] = {}
    for conv in convs:
        cwd = f"{ns}/{conv.sample_id}"
        for o in conv.observations:
            turn = turn_of.get((cwd, o.dia_id))
            if turn is None:
                continue
            res = mem.remember(o.text, [o.speaker], scope=f"project:{cwd}", source="locomo-observation", turn_id=turn)
            outcomes[res.action] = outcomes.get(res.action, 0) + 1
        log(f"remembered the observations of {conv.sample_id}")
    mem.deferred.wait_all(timeout=None)
    return outcomes


@dataclass
class LocomoRun:
    name: str
    mode: SearchMode
    config: RetrievalConfig
    table: dict[str, dict[str, float]] = field(default_factory=dict)
    context_chars: dict[str, float] = field(default_factory=dict)
    latency_ms: dict[str, float] = field(default_factory=dict)
    outcomes: dict[str, dict[str, float]] = field(default_factory=dict)
    """Question key (``<sample>#<n>``) -> its R@k, for the paired comparison between runs."""


def _evaluate(mem: GraphMemory, run: LocomoRun, convs: list[LocomoConv], qvecs: dict[str, list[float]],
              id2dia: dict[str, str], ns: str) -> None:
    searcher = Searcher(mem.db, mem.embedder, run.config, dimensions=mem.embedding_dimensions)
    per_q: list[tuple[int, list[float]]] = []
    chars: dict[int, list[int]] = {k: [] for k in KS}
    lat: list[float] = []
    conv_of: list[int] = []
    for ci, conv in enumerate(convs):
        scope = Scope("directory", f"{ns}/{conv.sample_id}")
        # the questions are asked the day after the conversation's last session
        now = max(t.timestamp for ts in conv.sessions.values() for t in ts) + timedelta(days=1)
        for n, q in enumerate(conv.questions):
            t0 = time.perf_counter()
            res = searcher.search(q.question, scope=scope, levels=[0], k=max(KS), mode=run.mode,
                                  vector=qvecs.get(q.question) if run.mode != "text" else None, now=now)
            lat.append((time.perf_counter() - t0) * 1000)
            ranked = [id2dia.get(h.id, "") for h in res.hits]
            per_q.append((q.category, [recall(q.evidence, ranked, k) for k in KS]))
            run.outcomes[f"{conv.sample_id}#{n}"] = {f"R@{k}": r for k, r in zip(KS, per_q[-1][1], strict=True)}
            conv_of.append(ci)
            for k in KS:
                chars[k].append(sum(len(h.body()) for h in res.hits[:k]))
    run.table = _table(per_q, conv_of)
    run.context_chars = {f"top{k}": round(statistics.fmean(v), 0) for k, v in chars.items()}
    s = sorted(lat)
    run.latency_ms = {"p50": round(s[len(s) // 2], 2), "p95": round(s[int(len(s) * 0.95)], 2)}


def dense_baseline(mem: GraphMemory, convs: list[LocomoConv], ns: str,
                   qvecs: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """Dense-only baseline: cosine of the question with each turn's raw stored vector (no neighbour
    averaging, no index), per conversation."""
    import numpy as np

    per_q: list[tuple[int, list[float]]] = []
    conv_of: list[int] = []
    for ci, conv in enumerate(convs):
        rows = [r for r in dev_db(mem.db).read("bench/turn_vectors", cwd=f"{ns}/{conv.sample_id}") if r["embedding"]]
        if not rows:
            continue
        mat = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-9)
        for q in conv.questions:
            v = np.asarray(qvecs[q.question], dtype=np.float32)
            order = np.argsort(-(mat @ v), kind="stable")[: max(KS)]
            ranked = [str(rows[int(i)]["sourceId"]) for i in order]
            per_q.append((q.category, [recall(q.evidence, ranked, k) for k in KS]))
            conv_of.append(ci)
    return _table(per_q, conv_of)


def default_runs(best: RetrievalConfig) -> list[LocomoRun]:
    return [LocomoRun("hybrid", "hybrid", best), LocomoRun("text (BM25 only)", "text", best),
            LocomoRun("semantic (vector only)", "semantic", best)]


def run_locomo_bench(
    mem: GraphMemory,
    data: Path,
    *,
    runs: list[LocomoRun] | None = None,
    expansion_window: int = 0,
    limit_convs: int | None = None,
    keep: bool = False,
    reuse: str | None = None,
    facts: bool = False,
    command: str = "graphmem bench locomo",
    log: Callable[[str], None] = print,
) -> BenchResult:
    """Load LoCoMo into a fresh namespace, run each configuration, write the recall tables.

    ``facts``: also remember the dataset's observations as facts, each extracted from the turn it
    cites (the graph source's ``fact`` and ``subject`` edges then have something to follow)."""
    if mem.embedder is None:
        raise ValueError("the LoCoMo benchmark needs an embedder")
    convs = load_locomo(data)[:limit_convs]
    runs = runs or default_runs(RetrievalConfig())
    ns = reuse.rstrip("/") if reuse else f"/graphmem-bench/locomo-{uuid.uuid4().hex[:12]}"
    mem.init_schema()
    result = BenchResult("locomo", command, machine_info(mem.db.server_info().version))
    t0 = time.perf_counter()
    try:
        if reuse:  # a load kept by an earlier --keep run: re-score only
            id2dia = {r["id"]: r["sourceId"] for r in dev_db(mem.db).read("bench/turn_sources", prefix=ns + "/")}
            log(f"reusing {len(id2dia)} turns under {ns}")
        else:
            id2dia = _store(mem, convs, ns, log)
            t_store = time.perf_counter() - t0
            t1 = time.perf_counter()
            stats = mem.embed_pending(batch=256, expansion_window=expansion_window)
            t_embed = time.perf_counter() - t1
            log(f"stored {len(id2dia)} turns in {t_store:.0f} s, embedded {stats.total} in {t_embed:.0f} s")
        fact_info = _load_facts(mem, convs, ns, log) if facts else None
        mem.await_text_index()
        questions = sorted({q.question for c in convs for q in c.questions})
        qvecs = {q: query_vector(mem.embedder, q) for q in questions}
        for run in runs:
            t2 = time.perf_counter()
            _evaluate(mem, run, convs, qvecs, id2dia, ns)
            log(f"{run.name}: R@10 {run.table['overall']['R@10']} ({time.perf_counter() - t2:.0f} s)")
        halves = {f"{c.sample_id}#{n}": HALVES[0] if ci < 5 else HALVES[1]
                  for ci, c in enumerate(convs) for n in range(len(c.questions))}
        result.figures = {
            "dense_raw_baseline": dense_baseline(mem, convs, ns, qvecs),
            "turns": len(id2dia),
            "questions": sum(len(c.questions) for c in convs),
            "embedder": mem.embedder.model,
            "expansion_window": expansion_window,
            "facts": fact_info,
            "runs": [{"name": r.name, "mode": r.mode, "config": asdict(r.config), "recall": r.table,
                      "context_chars": r.context_chars, "search_latency_ms": r.latency_ms,
                      "paired": paired_cells(runs[0].outcomes, r.outcomes, halves, PAIRED_METRICS) if i else {}}
                     for i, r in enumerate(runs)],
            "dragon_paper": {f"R@{k}": v for k, v in DRAGON.items()},
            "baselines_md": {n: {f"R@{k}": v for k, v in d.items()} for n, d in BASELINES.items()},
        }
    finally:
        if not keep and not reuse:  # a reused namespace stays for the next --reuse
            cleanup_bench_namespace(mem, ns)
        elif not reuse:
            log(f"kept the load: --reuse {ns}")
    return result


def _facts_line(info: dict[str, Any] | None) -> list[str]:
    if not info:
        return []
    made = info.get("remembered")
    how = (f" ({', '.join(f'{n} {a}' for a, n in sorted(made.items()))} by `remember`: similar observations "
           "update one another)") if made else ""
    return [f"Facts: the dataset's observations, remembered as facts of each conversation's project, about their "
            f"speaker and extracted from the turn they cite; {info.get('current')} current facts{how}."]


def locomo_markdown(result: BenchResult) -> str:
    f: dict[str, Any] = result.figures
    m = result.machine
    lines = [
        "# Benchmark: LoCoMo evidence recall (graphmem search in Neo4j)", "",
        f"Command: `{result.command}`", "",
        f"Machine: {m.get('cpu')} ({m.get('cores')} cores), Neo4j {m.get('neo4j')}, graphmem {m.get('graphmem')}, "
        f"{m.get('date')}, commit {m.get('commit')}, load average before {m.get('load_before')}. Embedder: "
        f"{f.get('embedder')}. {f.get('turns')} turns, {f.get('questions')} questions; "
        "each conversation is one directory scope, each LoCoMo session one session, each utterance one turn.",
        *_facts_line(f.get("facts")), "",
        "Metric: the paper's recall accuracy (fraction of a question's distinct evidence dia_ids in the top k; "
        "no resolvable evidence = 1), mean per category.", "",
        "## Overall", "",
        "| retriever | R@5 | R@10 | R@25 | context chars top5 / top10 / top25 | search p50 / p95 ms |",
        "|---|---:|---:|---:|---|---|",
    ]
    for r in f.get("runs", []):
        o = r["recall"]["overall"]
        c = r["context_chars"]
        lines.append(f"| graphmem {r['name']} | {o['R@5']} | {o['R@10']} | {o['R@25']} | "
                     f"{c['top5']:.0f} / {c['top10']:.0f} / {c['top25']:.0f} | "
                     f"{r['search_latency_ms']['p50']} / {r['search_latency_ms']['p95']} |")
    d = f.get("dragon_paper", {})
    lines.append(f"| DRAGON (LoCoMo paper, Table 3) | {d.get('R@5')} | {d.get('R@10')} | {d.get('R@25')} | | |")
    for name, v in f.get("baselines_md", {}).items():
        lines.append(f"| {name} | {v['R@5']} | {v['R@10']} | {v['R@25']} | | |")
    lines += ["", "## Per category", ""]
    runs = f.get("runs", [])
    header = "| category (n) | " + " | ".join(f"{r['name']} R@{k}" for r in runs for k in KS) + " |"
    lines += [header, "|---|" + "---:|" * (len(runs) * len(KS))]
    if runs:
        for g, row in runs[0]["recall"].items():
            cells = [f"{r['recall'][g][f'R@{k}']}" for r in runs for k in KS]
            lines.append(f"| {g} ({row['n']}) | " + " | ".join(cells) + " |")
    lines += ["", *paired_markdown(runs, (*HALVES, "all"), PAIRED_METRICS), "## Configurations", ""]
    for r in runs:
        lines.append(f"- **{r['name']}** ({r['mode']}): `{json.dumps(r['config'], sort_keys=True)}`")
    lines.append(f"- document expansion window: {f.get('expansion_window')}")
    lines += ["", *[f"- {n}" for n in result.notes]]
    return "\n".join(lines).rstrip() + "\n"


def tuned_runs() -> tuple[list[LocomoRun], int]:
    """The default configuration (``RetrievalConfig()``) in the three modes, and the document
    expansion window the defaults assume."""
    return default_runs(RetrievalConfig()), 2


def sweep_runs() -> list[LocomoRun]:
    """Ablations of the default (``--sweep``): the time window, session diversity, the whole-session
    prior, the fusion and its weights, the context field, the graph source and its fact edges."""
    best = RetrievalConfig()
    no_ctx = {**best.field_weights, "contextText": 0.0}
    edges = best.graph_edge_weights
    return [
        LocomoRun("hybrid: no graph source", "hybrid", replace(best, graph_weight=0.0)),
        LocomoRun("hybrid: no fact edge", "hybrid", replace(best, graph_edge_weights={**edges, "fact": 0.0})),
        LocomoRun("hybrid: fact edge 1", "hybrid", replace(best, graph_edge_weights={**edges, "fact": 1.0})),
        LocomoRun("hybrid: no subject edge", "hybrid", replace(best, graph_edge_weights={**edges, "subject": 0.0})),
        LocomoRun("hybrid: graph source 0.4", "hybrid", replace(best, graph_weight=0.4)),
        LocomoRun("hybrid: no time window", "hybrid", replace(best, time_boost=0.0)),
        LocomoRun("hybrid: time-window boost 0.6", "hybrid", replace(best, time_boost=0.6)),
        LocomoRun("hybrid: time-window boost 1.0", "hybrid", replace(best, time_boost=1.0)),
        LocomoRun("hybrid: no calendar dates", "hybrid", replace(best, calendar_dates=False)),
        LocomoRun("hybrid: no seasons nor parts of months", "hybrid", replace(best, calendar_periods=False)),
        LocomoRun("hybrid: no event windows", "hybrid", replace(best, event_boost=0.0)),
        LocomoRun("hybrid: no query parts", "hybrid", replace(best, query_parts=False)),
        LocomoRun("hybrid: no when boost", "hybrid", replace(best, when_boost=0.0)),
        LocomoRun("hybrid: event boost 0.6", "hybrid", replace(best, event_boost=0.6)),
        LocomoRun("hybrid: session decay 0.7 after 2", "hybrid", replace(best, session_decay=0.7, session_free=2)),
        LocomoRun("hybrid: no session prior", "hybrid", replace(best, session_weight=0.0)),
        LocomoRun("text: no session prior", "text", replace(best, session_weight=0.0)),
        LocomoRun("hybrid: session prior 0.3", "hybrid", replace(best, session_weight=0.3)),
        LocomoRun("hybrid: session prior 1.0", "hybrid", replace(best, session_weight=1.0)),
        LocomoRun("hybrid combsum 0.6/0.4", "hybrid", replace(best, text_weight=0.6, vector_weight=0.4)),
        LocomoRun("hybrid combsum 0.8/0.2", "hybrid", replace(best, text_weight=0.8, vector_weight=0.2)),
        LocomoRun("hybrid combsum 0.5/0.5", "hybrid", replace(best, text_weight=0.5, vector_weight=0.5)),
        LocomoRun("hybrid rrf 1/0.3", "hybrid", replace(best, fusion="rrf", text_weight=1.0, vector_weight=0.3)),
        LocomoRun("hybrid: depth 100", "hybrid", replace(best, text_depth=100, vector_depth=100)),
        LocomoRun("hybrid: vector span floor 0.1", "hybrid", replace(best, vector_min_span=0.1)),
        LocomoRun("hybrid: vector span floor 0.2", "hybrid", replace(best, vector_min_span=0.2)),
        LocomoRun("hybrid: no context field", "hybrid", replace(best, field_weights=no_ctx)),
        LocomoRun("hybrid: no context field nor session prior", "hybrid",
                  replace(best, field_weights=no_ctx, session_weight=0.0)),
        LocomoRun("hybrid: short turns scored field by field (not joined)", "hybrid",
                  replace(best, join_short_turns=False)),
        LocomoRun("hybrid: neighbours' context not capped", "hybrid", replace(best, context_cap=None)),
        LocomoRun("hybrid: no proximity pairs", "hybrid", replace(best, proximity_weight=0.0)),
        LocomoRun("hybrid: no answer lift", "hybrid", replace(best, answer_lift=0.0)),
    ]
