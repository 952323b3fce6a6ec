"""Long multi-session haystacks built from LoCoMo (``graphmem bench haystack``).

A second development benchmark shaped like long personal-assistant memories rather than one
two-person chat: each haystack is one directory holding ``sessions`` sessions (50 by default), of
which ``needles`` consecutive sessions come from one LoCoMo conversation and the rest are sessions
of the *other* conversations, drawn as distractors. Everything is reproducible from
``locomo10.json`` and ``seed``:

* Utterances are paired into turns (user message = one utterance, assistant reply = the next one in
  the session), so a turn has the user + assistant shape of a real transcript.
* Both speakers are renamed to the same two names in every conversation (speaker A -> ``Alex``,
  speaker B -> ``Sam``, in texts, image captions and questions), so a name never tells the needle
  sessions from the distractors.
* The needle sessions keep their LoCoMo dates (questions name them: "in July 2023"); the
  distractors get random times from ``margin_days`` before the first needle session to
  ``margin_days`` after the last, so the haystack spans months; the question's own date ("now") is
  the day after the haystack's last session.
* A question is kept when all its evidence lies in the needle sessions; its gold turns are the pairs
  holding its evidence utterances. Adversarial questions (category 5) are left out: they ask about
  the other speaker, which the renaming makes ill-posed.

Every search is given the haystack's date as ``now``. Metrics (those of the held-out benchmark): turn ``all@k`` (every gold turn in the top k) and session
``all@5`` (every gold session among the first 5 distinct sessions of the ranking), per LoCoMo
category, on a tuning half (conversations 0-4) and a test half (5-9). Baselines run by this module
on the same turn texts: BM25 (``rank_bm25`` defaults) and dense-only (cosine over the raw turn
vectors graphmem stored, without neighbour averaging).
"""

from __future__ import annotations

import json
import random
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

from graphmem.memory import GraphMemory
from graphmem.models import TurnIn
from graphmem.retrieval import RetrievalConfig, Scope, Searcher
from graphmem.retrieval.models import SearchMode

from ..statements import dev_db
from .common import BenchResult, machine_info
from .locomo import CATEGORIES, _date
from .store import cleanup_bench_namespace

__all__ = [
    "Haystack", "HaystackRun", "build_haystacks", "default_haystack_runs", "haystack_markdown", "haystack_quality_lines",
    "run_haystack_bench",
    "score_ranking", "sweep_haystack_runs",
]

KS = (5, 10, 30)
HALF_NAMES = ("tune", "test")
NAMES = ("Alex", "Sam")


@dataclass
class HaystackTurn:
    source_id: str
    user: str
    assistant: str


@dataclass
class HaystackSession:
    key: str
    """``<conversation>/s<n>``."""
    turns: list[HaystackTurn]
    timestamp: datetime = field(default_factory=lambda: datetime(2024, 1, 1, tzinfo=UTC))


@dataclass
class HaystackQuestion:
    question: str
    category: int
    gold_turns: set[str]
    """Source ids of the turns holding the evidence."""
    gold_sessions: set[str]


@dataclass
class Haystack:
    name: str
    conv_index: int
    sessions: list[HaystackSession]
    questions: list[HaystackQuestion]
    now: datetime

    @property
    def half(self) -> str:
        return HALF_NAMES[0] if self.conv_index < 5 else HALF_NAMES[1]


def _renamer(a: str, b: str) -> Callable[[str], str]:
    pat = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted({a, b}, key=len, reverse=True)) + r")\b")
    names = {a: NAMES[0], b: NAMES[1]}
    return lambda text: pat.sub(lambda m: names[m.group(1)], text)


def _conversation_sessions(sample: dict[str, Any]) -> tuple[dict[int, HaystackSession], dict[str, str]]:
    """Sessions of one LoCoMo sample as paired turns; dia_id -> source id of its turn."""
    c = sample["conversation"]
    rename = _renamer(str(c["speaker_a"]), str(c["speaker_b"]))
    sid = sample["sample_id"]
    sessions: dict[int, HaystackSession] = {}
    dia2turn: dict[str, str] = {}
    for key in sorted((k for k in c if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1])):
        n = int(key.split("_")[1])
        utts = c[key]
        turns: list[HaystackTurn] = []
        for i in range(0, len(utts), 2):
            pair = utts[i:i + 2]
            texts = []
            for u in pair:
                t = str(u["text"])
                if u.get("blip_caption"):
                    t += f" [shares {u['blip_caption']}]"
                texts.append(rename(t))
            source = f"{sid}/s{n}/t{i // 2}"
            turns.append(HaystackTurn(source, texts[0], texts[1] if len(texts) > 1 else ""))
            for u in pair:
                dia2turn[str(u["dia_id"])] = source
        sessions[n] = HaystackSession(f"{sid}/s{n}", turns, _date(str(c.get(f"{key}_date_time", "")),
                                                                  datetime(2023, 1, 1, tzinfo=UTC) + timedelta(days=n)))
    return sessions, dia2turn


def build_haystacks(
    data: Path, *, sessions: int = 50, needles: int = 10, per_conv: int = 2, seed: int = 7,
    margin_days: int = 60,
) -> list[Haystack]:
    """The haystacks of every conversation (at most ``per_conv`` each), deterministic for ``seed``."""
    samples = json.loads(data.read_text(encoding="utf-8"))
    convs = [_conversation_sessions(s) for s in samples]
    rng = random.Random(seed)
    out: list[Haystack] = []
    for ci, (sample, (conv_sessions, dia2turn)) in enumerate(zip(samples, convs, strict=True)):
        rename = _renamer(str(sample["conversation"]["speaker_a"]), str(sample["conversation"]["speaker_b"]))
        order = sorted(conv_sessions)
        chunks = [order[i:i + needles] for i in range(0, len(order), needles)]
        chunks = [ch for ch in chunks if len(ch) >= needles // 2][:per_conv]
        pool = [s for cj, (other, _) in enumerate(convs) if cj != ci for s in other.values()]
        for hi, chunk in enumerate(chunks):
            needle = [conv_sessions[n] for n in chunk]
            in_needle = {t.source_id for s in needle for t in s.turns}
            questions: list[HaystackQuestion] = []
            for q in sample["qa"]:
                if int(q["category"]) == 5:
                    continue  # adversarial: asks about the other speaker, ill-posed once both are renamed
                ev = [tok for e in q.get("evidence", []) for tok in re.split(r"[;,\s]+", str(e)) if tok]
                gold = {dia2turn[d] for d in ev if d in dia2turn}
                if not gold or not gold <= in_needle:
                    continue
                questions.append(HaystackQuestion(rename(str(q["question"])), int(q["category"]), gold,
                                                  {g.rsplit("/", 1)[0] for g in gold}))
            if not questions:
                continue
            distractors = rng.sample(pool, min(len(pool), sessions - len(needle)))
            first, last = needle[0].timestamp, needle[-1].timestamp
            lo = first - timedelta(days=margin_days)
            minutes = int((last - first).total_seconds() // 60) + 2 * margin_days * 24 * 60
            hay = sorted([*needle, *(HaystackSession(d.key, d.turns, lo + timedelta(minutes=rng.randrange(minutes)))
                                     for d in distractors)], key=lambda x: x.timestamp)
            out.append(Haystack(f"{sample['sample_id']}-h{hi}", ci, hay, questions,
                                hay[-1].timestamp + timedelta(days=1)))
    return out


def score_ranking(q: HaystackQuestion, ranked_turns: Sequence[str]) -> dict[str, float]:
    """turn all@k for k in KS and session all@5 of one ranking (source ids, best first)."""
    out = {f"turn all@{k}": float(q.gold_turns <= set(ranked_turns[:k])) for k in KS}
    sessions = list(dict.fromkeys(t.rsplit("/", 1)[0] for t in ranked_turns))
    out["session all@5"] = float(q.gold_sessions <= set(sessions[:5]))
    return out


def _table(rows: list[tuple[Haystack, HaystackQuestion, dict[str, float]]]) -> dict[str, dict[str, dict[str, float]]]:
    """half -> group -> metric -> mean (0..1)."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for half in (*HALF_NAMES, "all"):
        groups: dict[str, list[dict[str, float]]] = defaultdict(list)
        for h, q, m in rows:
            if half != "all" and h.half != half:
                continue
            groups["overall"].append(m)
            groups[f"{q.category} {CATEGORIES[q.category]}"].append(m)
        table: dict[str, dict[str, float]] = {}
        for g in ["overall"] + [f"{c} {n}" for c, n in CATEGORIES.items()]:
            if groups.get(g):
                ms = groups[g]
                table[g] = {key: round(statistics.fmean(m[key] for m in ms), 3) for key in ms[0]}
                table[g]["n"] = len(ms)
        out[half] = table
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
    table: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    latency_ms: dict[str, float] = field(default_factory=dict)


def _store(mem: GraphMemory, haystacks: Sequence[Haystack], ns: str, log: Callable[[str], None]) -> None:
    for h in haystacks:
        cwd = f"{ns}/{h.name}"
        for s in h.sessions:
            sess = mem.create_session(cwd, project_path=cwd, agent="haystack", title=s.key, started_at=s.timestamp)
            mem.import_turns(sess.id, [
                TurnIn(user_message=t.user, assistant_message=t.assistant, source_id=t.source_id,
                       timestamp=s.timestamp + timedelta(seconds=60 * i))
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


def _evaluate(mem: GraphMemory, run: HaystackRun, haystacks: Sequence[Haystack], ns: str,
              qvecs: dict[str, list[float]], id2src: dict[str, str]) -> None:
    searcher = Searcher(mem.db, mem.embedder, run.config, dimensions=mem.embedding_dimensions)
    rows: list[tuple[Haystack, HaystackQuestion, dict[str, float]]] = []
    lat: list[float] = []
    for h in haystacks:
        scope = Scope("directory", f"{ns}/{h.name}")
        for q in h.questions:
            t0 = time.perf_counter()
            res = searcher.search(q.question, scope=scope, levels=[0], k=50, mode=run.mode,
                                  vector=qvecs.get(q.question) if run.mode != "text" else None,
                                  now=h.now)
            lat.append((time.perf_counter() - t0) * 1000)
            rows.append((h, q, score_ranking(q, [id2src.get(x.id, "") for x in res.hits])))
    run.table = _table(rows)
    s = sorted(lat)
    run.latency_ms = {"p50": round(s[len(s) // 2], 2), "p95": round(s[int(len(s) * 0.95)], 2)}


def default_haystack_runs(config: RetrievalConfig | None = None) -> list[HaystackRun]:
    cfg = config or RetrievalConfig()
    return [HaystackRun("hybrid", "hybrid", cfg), HaystackRun("text (BM25 only)", "text", cfg),
            HaystackRun("semantic (vector only)", "semantic", cfg)]


def sweep_haystack_runs() -> list[HaystackRun]:
    """Variants of the default (``--sweep``): the time window, session diversity, the context field."""
    best = RetrievalConfig()
    no_ctx = {**best.field_weights, "contextText": 0.0}
    return [
        HaystackRun("hybrid: no time window", "hybrid", replace(best, time_boost=0.0)),
        HaystackRun("hybrid: time-window boost 0.3", "hybrid", replace(best, time_boost=0.3)),
        HaystackRun("hybrid: session decay 0.7 after 2", "hybrid", replace(best, session_decay=0.7, session_free=2)),
        HaystackRun("hybrid: session decay 0.5", "hybrid", replace(best, session_decay=0.5)),
        HaystackRun("hybrid: no context field", "hybrid", replace(best, field_weights=no_ctx)),
    ]


def run_haystack_bench(
    mem: GraphMemory,
    data: Path,
    *,
    runs: list[HaystackRun] | None = None,
    per_conv: int = 2,
    sessions: int = 50,
    needles: int = 10,
    seed: int = 7,
    expansion_window: int = 2,
    keep: bool = False,
    reuse: str | None = None,
    command: str = "graphmem bench haystack",
    log: Callable[[str], None] = print,
) -> BenchResult:
    """Build the haystacks, load them into a fresh namespace (or re-score a kept one), run each
    configuration and the two baselines; tables per half and per LoCoMo category."""
    if mem.embedder is None:
        raise ValueError("the haystack benchmark needs an embedder")
    haystacks = build_haystacks(data, sessions=sessions, needles=needles, per_conv=per_conv, seed=seed)
    runs = runs if runs is not None else default_haystack_runs()
    ns = reuse.rstrip("/") if reuse else f"/graphmem-bench/haystack-{uuid.uuid4().hex[:12]}"
    mem.init_schema()
    result = BenchResult("haystack", command, machine_info(mem.db.server_info().version))
    try:
        if not reuse:
            t0 = time.perf_counter()
            _store(mem, haystacks, ns, log)
            t1 = time.perf_counter()
            stats = mem.embed_pending(batch=256, expansion_window=expansion_window)
            log(f"stored in {t1 - t0:.0f} s, embedded {stats.total} ({stats.reused} reused) "
                f"in {time.perf_counter() - t1:.0f} s")
        mem.await_text_index()
        id2src = _id_map(mem, ns)
        questions = sorted({q.question for h in haystacks for q in h.questions})
        qvecs = dict(zip(questions, mem.embedder.embed(questions), strict=True))
        for run in runs:
            t2 = time.perf_counter()
            _evaluate(mem, run, haystacks, ns, qvecs, id2src)
            o = run.table["all"]["overall"]
            log(f"{run.name}: all@5 {o['turn all@5']} all@10 {o['turn all@10']} "
                f"session all@5 {o['session all@5']} ({time.perf_counter() - t2:.0f} s)")
        baselines = {
            "BM25 (rank_bm25 defaults, same turn texts)": _table(
                [(h, q, score_ranking(q, r)) for h, q, r in bm25_rankings(haystacks)]),
            "dense only (raw turn vectors, cosine)": _table(
                [(h, q, score_ranking(q, r)) for h, q, r in dense_rankings(mem, haystacks, ns, qvecs)]),
        }
        result.figures = {
            "haystacks": {half: sum(1 for h in haystacks if h.half == half) for half in HALF_NAMES},
            "turns": len(id2src),
            "questions": {half: sum(len(h.questions) for h in haystacks if h.half == half) for half in HALF_NAMES},
            "sessions_per_haystack": sessions, "needle_sessions": needles, "seed": seed,
            "embedder": mem.embedder.model,
            "expansion_window": expansion_window,
            "runs": [{"name": r.name, "mode": r.mode, "config": asdict(r.config),
                      "table": r.table, "search_latency_ms": r.latency_ms} for r in runs],
            "baselines": baselines,
        }
        if keep:
            result.notes.append(f"data kept under {ns}")
    finally:
        if not keep:
            cleanup_bench_namespace(mem, ns)
    return result


METRICS = ("turn all@5", "turn all@10", "turn all@30", "session all@5")


def haystack_rows(figures: dict[str, Any]) -> list[tuple[str, dict[str, dict[str, dict[str, float]]]]]:
    """(retriever name, table) for every graphmem run and baseline of a result."""
    rows = [(f"graphmem {r['name']}", r["table"]) for r in figures.get("runs", [])]
    rows += list(figures.get("baselines", {}).items())
    return rows


def haystack_quality_lines(figures: dict[str, Any]) -> list[str]:
    """The overall table of a haystack result (every retriever, tune and test halves side by side)."""
    cols = [f"{half} {m}" for half in HALF_NAMES for m in METRICS]
    q, h = figures.get("questions", {}), figures.get("haystacks", {})
    halves = ", ".join(f"{half}: {q.get(half)} questions in {h.get(half)} haystacks" for half in HALF_NAMES)
    lines = [f"{halves}; {figures.get('sessions_per_haystack')} sessions per haystack, {figures.get('turns')} "
             "turns. Share of questions with every gold turn in the top k (session all@5: every gold session "
             "among the first 5 distinct sessions).", "",
             "| retriever | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    for name, table in haystack_rows(figures):
        cells = [f"{table.get(half, {}).get('overall', {}).get(m, 0):.3f}" for half in HALF_NAMES for m in METRICS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def haystack_markdown(result: BenchResult) -> str:
    f: dict[str, Any] = result.figures
    m = result.machine
    lines = [
        "# Benchmark: LoCoMo haystacks (long multi-session memories, graphmem search in Neo4j)", "",
        f"Command: `{result.command}`", "",
        f"Machine: {m.get('cpu')} ({m.get('cores')} cores), Neo4j {m.get('neo4j')}, graphmem {m.get('graphmem')}, "
        f"{m.get('date')}. Embedder: {f.get('embedder')}. Haystacks {f.get('haystacks')} of "
        f"{f.get('sessions_per_haystack')} sessions ({f.get('needle_sessions')} from the question's conversation), "
        f"{f.get('turns')} turns, questions {f.get('questions')}, seed {f.get('seed')}.", "",
        "Share of questions whose gold turns are all in the top k (session all@5: all gold sessions among the "
        "first 5 distinct sessions).", "",
    ]
    rows = haystack_rows(f)
    for half in (*HALF_NAMES, "all"):
        lines += [f"## {half}", "", "| retriever | " + " | ".join(METRICS) + " |", "|---|" + "---:|" * len(METRICS)]
        for name, table in rows:
            o = table.get(half, {}).get("overall", {})
            lines.append(f"| {name} | " + " | ".join(f"{o.get(k, 0):.3f}" for k in METRICS) + " |")
        lines.append("")
    lines += ["## turn all@5 per category (both halves)", ""]
    groups = [g for g in rows[0][1]["all"] if g != "overall"] if rows else []
    lines += ["| retriever | " + " | ".join(f"{g} ({rows[0][1]['all'][g]['n']:.0f})" for g in groups) + " |",
              "|---|" + "---:|" * len(groups)]
    for name, table in rows:
        lines.append(f"| {name} | " + " | ".join(f"{table['all'].get(g, {}).get('turn all@5', 0):.3f}"
                                                 for g in groups) + " |")
    lines += ["", "## Configurations", ""]
    for r in f.get("runs", []):
        lines.append(f"- **{r['name']}** ({r['mode']}): "
                     f"`{json.dumps(r['config'], sort_keys=True)}`; search p50/p95 "
                     f"{r['search_latency_ms'].get('p50')} / {r['search_latency_ms'].get('p95')} ms")
    lines += ["", *[f"- {n}" for n in result.notes]]
    return "\n".join(lines).rstrip() + "\n"
