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
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from graphmem.memory import GraphMemory
from graphmem.retrieval import RetrievalConfig

from .assistant_replies import assistant_reply
from .common import BenchResult, machine_info
from .haystack_core import (
    HALF_NAMES,
    Haystack,
    HaystackQuestion,
    HaystackRun,
    HaystackSession,
    HaystackTurn,
    default_haystack_runs,
    haystack_tables_markdown,
    measure_haystacks,
    quality_table_lines,
    score_ranking,
    summaries_sentence,
)
from .locomo import CATEGORIES, _date

__all__ = [
    "Haystack", "HaystackQuestion", "HaystackRun", "UnknownHaystackError", "build_haystacks", "default_haystack_runs",
    "haystack_markdown", "haystack_quality_lines", "pick_haystacks", "run_haystack_bench", "score_ranking", "sweep_haystack_runs",
]

NAMES = ("Alex", "Sam")
GROUPS = [f"{c} {n}" for c, n in CATEGORIES.items()]


def _renamer(a: str, b: str) -> Callable[[str], str]:
    pat = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted({a, b}, key=len, reverse=True)) + r")\b")
    names = {a: NAMES[0], b: NAMES[1]}
    return lambda text: pat.sub(lambda m: names[m.group(1)], text)


REPLIES = ("locomo", "assistant")
"""How utterances become turns: ``locomo`` pairs them (user = one utterance, reply = the next);
``assistant`` makes each utterance a user message answered by a long generated assistant reply."""


def _utterance(u: dict[str, Any]) -> str:
    """An utterance's text, with the caption of the image it shares."""
    return str(u["text"]) + (f" [shares {u['blip_caption']}]" if u.get("blip_caption") else "")


def _conversation_sessions(sample: dict[str, Any], replies: str = "locomo", seed: int = 7,
                           ) -> tuple[dict[int, HaystackSession], dict[str, str]]:
    """Sessions of one LoCoMo sample as turns shaped by ``replies``; dia_id -> source id of its turn."""
    c = sample["conversation"]
    rename = _renamer(str(c["speaker_a"]), str(c["speaker_b"]))
    sid = sample["sample_id"]
    sessions: dict[int, HaystackSession] = {}
    dia2turn: dict[str, str] = {}
    for key in sorted((k for k in c if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1])):
        n = int(key.split("_")[1])
        utts = c[key]
        turns: list[HaystackTurn] = []
        if replies == "assistant":
            for i, u in enumerate(utts):
                text = rename(_utterance(u))
                source = f"{sid}/s{n}/u{i}"
                turns.append(HaystackTurn(source, text, assistant_reply(text, random.Random(f"{seed}:{source}"))))
                dia2turn[str(u["dia_id"])] = source
        else:
            for i in range(0, len(utts), 2):
                pair = utts[i:i + 2]
                texts = [rename(_utterance(u)) for u in pair]
                source = f"{sid}/s{n}/t{i // 2}"
                turns.append(HaystackTurn(source, texts[0], texts[1] if len(texts) > 1 else ""))
                for u in pair:
                    dia2turn[str(u["dia_id"])] = source
        sessions[n] = HaystackSession(f"{sid}/s{n}", turns, _date(str(c.get(f"{key}_date_time", "")),
                                                                  datetime(2023, 1, 1, tzinfo=UTC) + timedelta(days=n)))
    return sessions, dia2turn


class UnknownHaystackError(ValueError):
    """A haystack name asked for that the benchmark does not build."""


def pick_haystacks(haystacks: list[Haystack], only: Sequence[str]) -> list[Haystack]:
    """The haystacks named in ``only`` (all of them when it is empty); an unknown name raises
    :class:`UnknownHaystackError` naming the haystacks there are."""
    if not only:
        return haystacks
    names = [h.name for h in haystacks]
    wanted = set(only)
    unknown = sorted(wanted - set(names))
    if unknown:
        raise UnknownHaystackError(f"unknown haystack {', '.join(unknown)}; the haystacks are {', '.join(names)}")
    return [h for h in haystacks if h.name in wanted]


def build_haystacks(
    data: Path, *, sessions: int = 50, needles: int = 10, per_conv: int = 2, seed: int = 7,
    margin_days: int = 60, replies: str = "locomo",
) -> list[Haystack]:
    """The haystacks of every conversation (at most ``per_conv`` each), deterministic for ``seed``;
    ``replies`` shapes the turns (:data:`REPLIES`)."""
    if replies not in REPLIES:
        raise ValueError(f"replies must be one of {', '.join(REPLIES)}, got {replies!r}")
    samples = json.loads(data.read_text(encoding="utf-8"))
    convs = [_conversation_sessions(s, replies, seed) for s in samples]
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
                cat = int(q["category"])
                questions.append(HaystackQuestion(rename(str(q["question"])), cat, gold,
                                                  {g.rsplit("/", 1)[0] for g in gold}, f"{cat} {CATEGORIES[cat]}"))
            if not questions:
                continue
            distractors = rng.sample(pool, min(len(pool), sessions - len(needle)))
            first, last = needle[0].timestamp, needle[-1].timestamp
            lo = first - timedelta(days=margin_days)
            minutes = int((last - first).total_seconds() // 60) + 2 * margin_days * 24 * 60
            hay = sorted([*needle, *(HaystackSession(d.key, d.turns, lo + timedelta(minutes=rng.randrange(minutes)))
                                     for d in distractors)], key=lambda x: x.timestamp)
            out.append(Haystack(f"{sample['sample_id']}-h{hi}", hay, questions, hay[-1].timestamp + timedelta(days=1),
                                HALF_NAMES[0] if ci < 5 else HALF_NAMES[1]))
    return out


def sweep_haystack_runs() -> list[HaystackRun]:
    """Variants of the default (``--sweep``): the time window (and questions asked without their date:
    the window then follows the scope's last turn, or today), session diversity, the vector side's
    span floor, a long turn's vector share, the context field, the whole-session prior, the long-turn rule (0: every turn gets
    its neighbours and the prior), long turns scored field by field instead of joined (and, so scored,
    the weight of a short request), the weight of a joined turn's long request and the graph source
    (off, stronger, without the summaries a turn search seeds it from)."""
    best = RetrievalConfig()
    no_ctx = {**best.field_weights, "contextText": 0.0}
    return [
        HaystackRun("hybrid: no graph source", "hybrid", replace(best, graph_weight=0.0)),
        HaystackRun("hybrid: graph source 0.4", "hybrid", replace(best, graph_weight=0.4)),
        HaystackRun("hybrid: graph source without summary seeds", "hybrid", replace(best, graph_summary_levels=())),
        HaystackRun("hybrid: no time window", "hybrid", replace(best, time_boost=0.0)),
        HaystackRun("hybrid: time-window boost 0.6", "hybrid", replace(best, time_boost=0.6)),
        HaystackRun("hybrid: time-window boost 1.0", "hybrid", replace(best, time_boost=1.0)),
        HaystackRun("hybrid: no calendar dates", "hybrid", replace(best, calendar_dates=False)),
        HaystackRun("hybrid: no seasons nor parts of months", "hybrid", replace(best, calendar_periods=False)),
        HaystackRun("hybrid: no event windows", "hybrid", replace(best, event_boost=0.0)),
        HaystackRun("hybrid: no query parts", "hybrid", replace(best, query_parts=False)),
        HaystackRun("hybrid: no when boost", "hybrid", replace(best, when_boost=0.0)),
        HaystackRun("hybrid: event boost 0.6", "hybrid", replace(best, event_boost=0.6)),
        HaystackRun("hybrid: time-window boost 0.3", "hybrid", replace(best, time_boost=0.3)),
        HaystackRun("hybrid: questions asked without their date", "hybrid", best, dated=False),
        HaystackRun("hybrid: without their date and windows relative to today", "hybrid",
                    replace(best, anchor_to_last_turn=False), dated=False),
        HaystackRun("hybrid: session decay 0.7 after 2", "hybrid", replace(best, session_decay=0.7, session_free=2)),
        HaystackRun("hybrid: session decay 0.5", "hybrid", replace(best, session_decay=0.5)),
        HaystackRun("hybrid: vector span floor 0.1", "hybrid", replace(best, vector_min_span=0.1)),
        HaystackRun("hybrid: vector span floor 0.2", "hybrid", replace(best, vector_min_span=0.2)),
        HaystackRun("hybrid: long turns' vector weight 1 (as short turns)", "hybrid",
                    replace(best, long_turn_vector_weight=1.0)),
        HaystackRun("hybrid: long turns' vector weight 0.25", "hybrid", replace(best, long_turn_vector_weight=0.25)),
        HaystackRun("hybrid: long turns' vector weight 0", "hybrid", replace(best, long_turn_vector_weight=0.0)),
        HaystackRun("hybrid: no context field", "hybrid", replace(best, field_weights=no_ctx)),
        HaystackRun("hybrid: no context field nor session prior", "hybrid",
                    replace(best, field_weights=no_ctx, session_weight=0.0)),
        HaystackRun("hybrid: long turns get context and session prior too", "hybrid", replace(best, long_turn_chars=0)),
        HaystackRun("hybrid: long turns scored field by field (not joined)", "hybrid",
                    replace(best, join_long_turns=False)),
        HaystackRun("hybrid: short turns scored field by field (not joined)", "hybrid",
                    replace(best, join_short_turns=False)),
        HaystackRun("hybrid: neighbours' context not capped", "hybrid", replace(best, context_cap=None)),
        HaystackRun("hybrid: no proximity pairs", "hybrid", replace(best, proximity_weight=0.0)),
        HaystackRun("hybrid: no answer lift", "hybrid", replace(best, answer_lift=0.0)),
        HaystackRun("hybrid: joined long turns' long request weight 0.5", "hybrid", replace(best, long_request_weight=0.5)),
        HaystackRun("hybrid: joined long turns alone (long request weight 0)", "hybrid",
                    replace(best, long_request_weight=0.0)),
        HaystackRun("hybrid: field by field with the short request at full weight", "hybrid",
                    replace(best, join_long_turns=False, long_turn_user_weight=1.0)),
        HaystackRun("hybrid: field by field with short request and reply: the better + 0.3 of the other", "hybrid",
                    replace(best, join_long_turns=False, long_turn_field_tie=0.3)),
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
    summarize: bool = False,
    replies: str = "locomo",
    haystacks: list[Haystack] | None = None,
    command: str = "graphmem bench haystack",
    log: Callable[[str], None] = print,
) -> BenchResult:
    """Build the haystacks, load them into a fresh namespace (or re-score a kept one), run each
    configuration and the two baselines; tables per half and per LoCoMo category. With
    ``replies="assistant"`` the results are named ``haystack-assistant``. ``haystacks`` measures those
    instead of every one built (a sample from :func:`pick_haystacks`, where embedding them all costs
    hours)."""
    if mem.embedder is None:
        raise ValueError("the haystack benchmark needs an embedder")
    if haystacks is None:
        haystacks = build_haystacks(data, sessions=sessions, needles=needles, per_conv=per_conv, seed=seed,
                                    replies=replies)
    name = "haystack" if replies == "locomo" else f"haystack-{replies}"
    result = BenchResult(name, command, machine_info(mem.db.server_info().version))
    figures, notes = measure_haystacks(mem, haystacks, runs=runs if runs is not None else default_haystack_runs(),
                                       groups=GROUPS, label=name, expansion_window=expansion_window,
                                       keep=keep, reuse=reuse, summarize=summarize, log=log)
    result.figures = {**figures, "sessions_per_haystack": sessions, "needle_sessions": needles, "seed": seed,
                      "replies": replies}
    result.notes += notes
    return result


def haystack_quality_lines(figures: dict[str, Any]) -> list[str]:
    """The overall table of a haystack result (every retriever, tune and test halves side by side)."""
    return quality_table_lines(figures)


def haystack_markdown(result: BenchResult) -> str:
    f: dict[str, Any] = result.figures
    m = result.machine
    lines = [
        "# Benchmark: LoCoMo haystacks (long multi-session memories, graphmem search in Neo4j)"
        + (" told to an assistant (each utterance a user message, long generated replies)"
           if f.get("replies") == "assistant" else ""), "",
        f"Command: `{result.command}`", "",
        f"Machine: {m.get('cpu')} ({m.get('cores')} cores), Neo4j {m.get('neo4j')}, graphmem {m.get('graphmem')}, "
        f"{m.get('date')}, commit {m.get('commit')}, load before {m.get('load_before')}. Embedder: "
        f"{f.get('embedder')}. Haystacks {f.get('haystacks')} of "
        f"{f.get('sessions_per_haystack')} sessions ({f.get('needle_sessions')} from the question's conversation), "
        f"{f.get('turns')} turns ({f.get('long_turns')} long: user + assistant over {f.get('long_turn_chars')} "
        f"characters), questions {f.get('questions')}, seed {f.get('seed')}. {summaries_sentence(f)}", "",
        "Share of questions whose gold turns are all in the top k (session all@5: all gold sessions among the "
        "first 5 distinct sessions).", "",
        *haystack_tables_markdown(f, "LoCoMo category"),
    ]
    lines += ["", *[f"- {n}" for n in result.notes]]
    return "\n".join(lines).rstrip() + "\n"
