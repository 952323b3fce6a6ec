"""Offline emulation of graphmem's full-text side against plain BM25 on the long-turn benchmarks:
how long turns are scored (field by field, or request and reply joined as one document) decides
most of the gap to plain BM25. Pure Python, no Neo4j: Lucene's ``english`` analyzer and BM25
(k1 1.2, b 0.75) as emulated in ``benchmarks/locomo_research/common.py``; one index over every
haystack of a benchmark, as one Neo4j full-text index holds them all.

    .venv/bin/pip install PyStemmer      # the Porter stemmer of the emulated analyzer
    .venv/bin/python benchmarks/long_turns/text_emulation.py [assistant coding coding-request coding29 mixed]

Emulated per turn (short turns as graphmem scores them: request, reply and ±2 context fields, the
whole-session prior; long turns as below), text side only, turn all@5 / all@10 per half:

* ``field by field``: a long turn's request and reply as two fields, a short request (under 150
  characters) counting half (graphmem before the joined documents);
* ``joined``: request and reply as one document (``turnText``), plus ``w`` times the request's own
  field when the request is at least 150 characters long;
* ``plain BM25``: ``rank_bm25`` defaults over each haystack's turn texts (the benchmarks' baseline).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "locomo_research"))
from common import BM25Field, analyze  # noqa: E402

from graphmem.retrieval.lucene import query_terms  # noqa: E402
from graphmem_devtools.bench.coding_data import build_coding_haystacks  # noqa: E402
from graphmem_devtools.bench.haystack import build_haystacks  # noqa: E402
from graphmem_devtools.bench.haystack_core import Haystack, score_ranking  # noqa: E402
from graphmem_devtools.bench.mixed import build_mixed_haystacks  # noqa: E402

DATA = ROOT.parent / "shared" / "benchmarks" / "locomo" / "locomo10.json"
LONG, SHORT_REQUEST, SESSION_DOC_TURNS, SESSION_DOC_CHARS, CONTEXT_CHARS = 1000, 150, 200, 1000, 2000


def load(name: str) -> list[Haystack]:
    if name == "assistant":
        return build_haystacks(DATA, replies="assistant")
    if name == "coding":
        return build_coding_haystacks(20, seed=11)
    if name == "coding-request":
        return build_coding_haystacks(20, seed=11, evidence_in="request")
    if name == "coding29":
        return build_coding_haystacks(20, seed=29)
    if name == "mixed":
        return build_mixed_haystacks(DATA)
    raise SystemExit(f"unknown benchmark {name!r}")


def english(text: str) -> list[str]:
    return analyze(text, "english")


class Scores:
    """Every field of every turn of one benchmark, scored per query."""

    def __init__(self, hs: list[Haystack]) -> None:
        self.hs = hs
        self.turns = [t for h in hs for s in h.sessions for t in s.turns]
        self.span: list[tuple[int, int]] = []
        n = 0
        for h in hs:
            k = sum(len(s.turns) for s in h.sessions)
            self.span.append((n, n + k))
            n += k
        user = [english(t.user) for t in self.turns]
        reply = [english(t.assistant) for t in self.turns]
        chars = np.array([len(t.user) + len(t.assistant) for t in self.turns])
        self.long = chars > LONG
        self.short_request = self.long & (np.array([len(t.user) for t in self.turns]) < SHORT_REQUEST)
        context: list[list[str]] = []
        session_of: list[int] = []
        docs: list[list[str]] = []
        i = 0
        for h in hs:
            for s in h.sessions:
                capped = [english(t.user[:CONTEXT_CHARS]) + english(t.assistant[:CONTEXT_CHARS]) for t in s.turns]
                for j in range(len(s.turns)):
                    near = range(max(0, j - 2), min(len(s.turns), j + 3))
                    context.append([] if self.long[i + j] else [w for k in near if k != j for w in capped[k]])
                    session_of.append(len(docs))
                docs.append([w for t in s.turns[-SESSION_DOC_TURNS:]
                             for w in english(t.user[:SESSION_DOC_CHARS]) + english(t.assistant[:SESSION_DOC_CHARS])])
                i += len(s.turns)
        self.session_of = np.array(session_of)
        self.user, self.reply, self.context = BM25Field(user), BM25Field(reply), BM25Field(context)
        self.session = BM25Field(docs)
        self.long_ids = np.flatnonzero(self.long)
        self.joined = BM25Field([user[i] + reply[i] for i in self.long_ids]) if len(self.long_ids) else None
        self.plain = [BM25Field([analyze(f"{t.user} {t.assistant}", "baseline") for t in self.turns[a:b]],
                                variant="okapi") for a, b in self.span]

    def parts(self, question: str) -> dict[str, np.ndarray]:
        terms = [w for t in query_terms(question, drop_stopwords=True) for w in english(t)]
        joined = np.zeros(len(self.turns))
        if self.joined is not None:
            joined[self.long_ids] = self.joined.scores(terms)
        return {"user": self.user.scores(terms), "reply": self.reply.scores(terms),
                "context": self.context.scores(terms), "session": self.session.scores(terms)[self.session_of],
                "joined": joined}

    def short_turns(self, p: dict[str, np.ndarray]) -> np.ndarray:
        return p["user"] + p["reply"] + 0.7 * p["context"] + 0.5 * p["session"]

    def field_by_field(self, p: dict[str, np.ndarray]) -> np.ndarray:
        long = np.where(self.short_request, 0.5, 1.0) * p["user"] + p["reply"]
        return np.where(self.long, long, self.short_turns(p))

    def joined_turns(self, p: dict[str, np.ndarray], w: float) -> np.ndarray:
        long = p["joined"] + w * np.where(self.short_request, 0.0, 1.0) * p["user"]
        return np.where(self.long, long, self.short_turns(p))


def evaluate(sc: Scores, label: str, rank: object) -> None:
    rows = []
    for hi, h in enumerate(sc.hs):
        a, b = sc.span[hi]
        for q in h.questions:
            s = rank(hi, q.question, a, b)  # type: ignore[operator]
            order = np.argsort(-s, kind="stable")[:30]
            rows.append((h.half, score_ranking(q, [sc.turns[a + i].source_id for i in order])))
    cells = []
    for half in ("tune", "test"):
        ms = [m for hh, m in rows if hh == half]
        cells.append(f"{statistics.fmean(m['turn all@5'] for m in ms):.3f} / "
                     f"{statistics.fmean(m['turn all@10'] for m in ms):.3f}")
    print(f"| {label} | {cells[0]} | {cells[1]} |", flush=True)


def main(names: list[str]) -> None:
    import os
    import subprocess
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    print(f"Command: `.venv/bin/python benchmarks/long_turns/text_emulation.py {' '.join(names)}`".rstrip("` ") + "`")
    print(f"Commit {commit}, load average {os.getloadavg()}. Text side only, no Neo4j, no vectors.")
    for name in names or ["assistant", "coding", "coding-request", "coding29", "mixed"]:
        with np.errstate(invalid="ignore", divide="ignore"):  # a field no turn has (context, all long)
            sc = Scores(load(name))
        print(f"\n{name}: {len(sc.turns)} turns, {sc.long.mean():.0%} long\n")
        print("| text side | tune all@5 / all@10 | test all@5 / all@10 |\n|---|---|---|")
        cache: dict[str, dict[str, np.ndarray]] = {}

        def parts(q: str, cache: dict[str, dict[str, np.ndarray]] = cache, sc: Scores = sc) -> dict[str, np.ndarray]:
            if q not in cache:
                cache[q] = sc.parts(q)
            return cache[q]

        evaluate(sc, "plain BM25 (rank_bm25, per haystack)",
                 lambda hi, q, a, b, sc=sc: sc.plain[hi].scores(analyze(q, "baseline")))
        evaluate(sc, "field by field (short request 0.5)", lambda hi, q, a, b, sc=sc: sc.field_by_field(parts(q))[a:b])
        for w in (0.0, 0.5, 1.0):
            evaluate(sc, f"joined + {w} x long request", lambda hi, q, a, b, w=w, sc=sc: sc.joined_turns(parts(q), w)[a:b])


if __name__ == "__main__":
    main(sys.argv[1:])
