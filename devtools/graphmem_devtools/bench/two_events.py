"""Questions that compare two events, in the LoCoMo haystacks (``graphmem bench two-events``).

"How many days passed between the day I X and the day I Y?", "Which happened first, X or Y?": the
answer needs the turn that tells each event, so a question scores only when both are in the top k.
LoCoMo holds eight that the parser reads, too few to measure, so this benchmark composes them reproducibly
from the haystack benchmark's own (:func:`graphmem_devtools.bench.haystack.build_haystacks`): two
"When did <event>?" questions of one haystack, each with one evidence turn, in different sessions,
make one question in one of four forms (:data:`FORMS`). Its gold turns are both evidence turns.

The forms are ones graphmem's query splitting reads (``graphmem.retrieval.queryparts``): the
benchmark measures what searching each event on its own brings once the events are found, not how
many ways of asking the parser knows. Scored like the haystack benchmark (turn all@k, session all@5,
tune = conversations 0-4, test = 5-9), per form, with BM25 and dense-only on the same turn texts.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from graphmem.memory import GraphMemory
from graphmem.retrieval import RetrievalConfig

from .common import BenchResult, machine_info
from .haystack import build_haystacks
from .haystack_core import (
    Haystack,
    HaystackQuestion,
    HaystackRun,
    default_haystack_runs,
    haystack_tables_markdown,
    measure_haystacks,
    summaries_sentence,
)

__all__ = ["FORMS", "compose_two_event_questions", "run_two_events_bench", "two_events_markdown",
           "two_events_runs"]

FORMS = {
    "days between": "How many days passed between the day {a} and the day {b}?",
    "which first": "Which happened first, {a} or {b}?",
    "how long after": "How long after {a} did {b}?",
    "did before": "Did {a} before {b}?",
}
"""Form name -> template; ``{a}`` and ``{b}`` are the events as the "When did ..." questions say them."""

_WHEN = re.compile(r"^when (?:did|was|were) (?P<event>.+?)\??$", re.IGNORECASE)


def compose_two_event_questions(haystacks: list[Haystack], *, rounds: int = 3, seed: int = 11) -> list[Haystack]:
    """The haystacks with their questions replaced by two-event questions: in each of ``rounds``
    shuffles, consecutive "When did ..." questions (one evidence turn each, different sessions) are
    paired; each pair once; the forms in turn ("how long after" names the earlier event first, the
    other forms either first). Deterministic for ``seed``."""
    rng = random.Random(seed)
    names = list(FORMS)
    out: list[Haystack] = []
    for h in haystacks:
        singles = [(m.group("event").strip(), q) for q in h.questions
                   if len(q.gold_turns) == 1 and (m := _WHEN.match(q.question.strip()))]
        when = {s.key: s.timestamp for s in h.sessions}
        questions: list[HaystackQuestion] = []
        seen: set[frozenset[str]] = set()
        for _ in range(rounds):
            rng.shuffle(singles)
            for i in range(0, len(singles) - 1, 2):
                (a, qa), (b, qb) = singles[i], singles[i + 1]
                if qa.gold_sessions == qb.gold_sessions or frozenset((a, b)) in seen:
                    continue
                seen.add(frozenset((a, b)))
                form = names[len(questions) % len(names)]
                if form == "how long after" and when[next(iter(qb.gold_sessions))] < when[next(iter(qa.gold_sessions))]:
                    (a, qa), (b, qb) = (b, qb), (a, qa)  # asked of events in the order they happened
                questions.append(HaystackQuestion(FORMS[form].format(a=a, b=b), 2, qa.gold_turns | qb.gold_turns,
                                                  qa.gold_sessions | qb.gold_sessions, form, evidence=[a, b]))
        if questions:
            out.append(replace(h, questions=questions))
    return out


def two_events_runs(sweep: bool = False) -> list[HaystackRun]:
    """graphmem's three modes, each paired with query splitting off; with ``sweep`` also fewer
    of each event's hits in turn (``part_rounds``), the graph source off, the time windows off and short
    turns scored field by field."""
    best = RetrievalConfig()
    off = replace(best, query_parts=False)
    runs = [*default_haystack_runs(best), HaystackRun("hybrid: no query parts", "hybrid", off),
            HaystackRun("text: no query parts", "text", off)]
    if sweep:
        runs += [HaystackRun(f"hybrid: each event's first {n} in turn", "hybrid", replace(best, part_rounds=n))
                 for n in (1, 2, 3) if n != best.part_rounds]
        if best.part_rounds != 0:
            runs.append(HaystackRun("hybrid: every hit of each event in turn", "hybrid", replace(best, part_rounds=0)))
        runs += [HaystackRun("hybrid: no graph source", "hybrid", replace(best, graph_weight=0.0)),
                 HaystackRun("hybrid: no time window", "hybrid", replace(best, time_boost=0.0, event_boost=0.0)),
                 HaystackRun("hybrid: time-window boost 0.6", "hybrid", replace(best, time_boost=0.6)),
                 HaystackRun("hybrid: time-window boost 1.0", "hybrid", replace(best, time_boost=1.0)),
                 HaystackRun("hybrid: short turns scored field by field (not joined)", "hybrid",
                             replace(best, join_short_turns=False)),
                 HaystackRun("hybrid: neighbours' context not capped", "hybrid", replace(best, context_cap=None)),
                 HaystackRun("hybrid: no proximity pairs", "hybrid", replace(best, proximity_weight=0.0)),
                 HaystackRun("hybrid: no answer lift", "hybrid", replace(best, answer_lift=0.0))]
    return runs


def run_two_events_bench(
    mem: GraphMemory, data: Path, *, runs: list[HaystackRun] | None = None, rounds: int = 3, seed: int = 11,
    keep: bool = False, reuse: str | None = None, summarize: bool = False,
    command: str = "graphmem bench two-events", log: Callable[[str], None] = print,
) -> BenchResult:
    """Build the haystack benchmark's haystacks (its defaults), compose the two-event questions,
    load (or re-score a kept haystack load: ``graphmem bench haystack --keep`` loads the same
    sessions) and score every run and the two baselines."""
    haystacks = compose_two_event_questions(build_haystacks(data), rounds=rounds, seed=seed)
    result = BenchResult("two-events", command, machine_info(mem.db.server_info().version))
    figures, notes = measure_haystacks(mem, haystacks, runs=runs if runs is not None else two_events_runs(),
                                       groups=list(FORMS), label="haystack", keep=keep, reuse=reuse,
                                       summarize=summarize, log=log)
    result.figures = {**figures, "rounds": rounds, "seed": seed, "forms": FORMS}
    result.notes += notes
    return result


def two_events_markdown(result: BenchResult) -> str:
    f: dict[str, Any] = result.figures
    m = result.machine
    forms = "; ".join(f"{name}: \"{t}\"" for name, t in f.get("forms", FORMS).items())
    lines = [
        "# Benchmark: questions comparing two events, in the LoCoMo haystacks", "",
        f"Command: `{result.command}`", "",
        f"Machine: {m.get('cpu')} ({m.get('cores')} cores), Neo4j {m.get('neo4j')}, graphmem {m.get('graphmem')}, "
        f"{m.get('date')}, commit {m.get('commit')}, load before {m.get('load_before')}. Embedder: "
        f"{f.get('embedder')}. The haystack benchmark's haystacks {f.get('haystacks')}, {f.get('turns')} turns; "
        f"questions {f.get('questions')}, each composed of two \"When did ...\" questions of one haystack whose "
        f"evidence lies in different sessions ({f.get('rounds')} pairings, seed {f.get('seed')}). "
        f"{summaries_sentence(f)}", "",
        f"Forms ({{a}}, {{b}}: the events as the LoCoMo questions say them): {forms}.", "",
        "Share of questions whose two gold turns are both in the top k (session all@5: both gold sessions among "
        "the first 5 distinct sessions).", "",
        *haystack_tables_markdown(f, "form"),
    ]
    lines += ["", *[f"- {n}" for n in result.notes]]
    return "\n".join(lines).rstrip() + "\n"
