"""Shared pieces of the LoCoMo retrieval research harness (pure Python, no Neo4j).

- loads locomo10.json into turn documents (one utterance per turn, as graphmem stores them);
- the metric of shared/benchmarks/locomo/BASELINES.md (recall accuracy per question);
- Lucene-like analyzers and a BM25 that matches Lucene's BM25Similarity (k1=1.2, b=0.75),
  plus the rank_bm25.BM25Okapi variant used by BASELINES.md (to validate the harness);
- rank fusion helpers (weighted RRF, normalised CombSUM).
"""
from __future__ import annotations

import json
import math
import os
import re
from collections import Counter, defaultdict

import numpy as np

DATA = os.environ.get("LOCOMO_JSON", "/work/shared/benchmarks/locomo/locomo10.json")
CACHE = os.environ.get("LOCOMO_CACHE", "/tmp/locomo_research_cache")
KS = (5, 10, 25, 50)
CAT_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


# --------------------------------------------------------------------------- data
class Turn:
    __slots__ = ("caption", "conv", "date", "dia_id", "idx", "pos", "session", "speaker", "text")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)

    def base_text(self) -> str:
        """BASELINES.md unit: "{speaker}: {text}" plus " [shares {blip_caption}]"."""
        s = f"{self.speaker}: {self.text}"
        if self.caption:
            s += f" [shares {self.caption}]"
        return s


class Conversation:
    def __init__(self, sample):
        self.sample_id = sample["sample_id"]
        c = sample["conversation"]
        self.speakers = (c["speaker_a"], c["speaker_b"])
        self.turns: list[Turn] = []
        self.sessions: dict[int, list[int]] = {}
        keys = [k for k in c if re.fullmatch(r"session_\d+", k)]
        for k in sorted(keys, key=lambda k: int(k.split("_")[1])):
            sn = int(k.split("_")[1])
            date = c.get(f"{k}_date_time", "")
            self.sessions[sn] = []
            for pos, t in enumerate(c[k]):
                tr = Turn(conv=self.sample_id, idx=len(self.turns), dia_id=t["dia_id"], session=sn, pos=pos,
                          speaker=t["speaker"], text=t["text"], caption=t.get("blip_caption"), date=date)
                self.sessions[sn].append(tr.idx)
                self.turns.append(tr)
        self.id2idx = {t.dia_id: t.idx for t in self.turns}
        self.questions = []
        for q in sample["qa"]:
            ev = set()
            for e in q.get("evidence", []):
                for tok in re.split(r"[;,\s]+", str(e)):
                    if tok in self.id2idx:
                        ev.add(self.id2idx[tok])
            self.questions.append({"question": q["question"], "category": q["category"], "evidence": ev})

    def neighbours(self, i: int, w: int) -> list[int]:
        """Indices of the turns within +-w of turn i in the same session (excluding i)."""
        t = self.turns[i]
        sess = self.sessions[t.session]
        lo, hi = max(0, t.pos - w), min(len(sess), t.pos + w + 1)
        return [sess[p] for p in range(lo, hi) if p != t.pos]


def load(path: str = DATA) -> list[Conversation]:
    with open(path) as f:
        convs = [Conversation(s) for s in json.load(f)]
    to = qo = 0
    for c in convs:  # global offsets into the embedding caches (turns / questions in file order)
        c.turn_off, c.q_off = to, qo
        to += len(c.turns)
        qo += len(c.questions)
    return convs


# --------------------------------------------------------------------------- metric
def recall_table(convs, rankings, ks=KS):
    """rankings[ci][qi] -> list of turn indices (best first). Returns {group: {k: pct}} and counts."""
    acc = defaultdict(lambda: defaultdict(list))
    for ci, conv in enumerate(convs):
        for qi, q in enumerate(conv.questions):
            ranked = rankings[ci][qi]
            for k in ks:
                if not q["evidence"]:
                    r = 1.0
                else:
                    top = set(ranked[:k])
                    r = len(q["evidence"] & top) / len(q["evidence"])
                groups = ["overall", f"cat{q['category']}"]
                if q["category"] != 5:
                    groups.append("excl5")
                for g in groups:
                    acc[g][k].append(r)
    return {g: {k: 100.0 * float(np.mean(v)) for k, v in d.items()} for g, d in acc.items()}, \
           {g: len(d[ks[0]]) for g, d in acc.items()}


GROUP_ORDER = ["overall", "excl5", "cat1", "cat2", "cat3", "cat4", "cat5"]
GROUP_LABEL = {"overall": "overall", "excl5": "excl. adversarial", **{f"cat{c}": f"{c} {n}" for c, n in CAT_NAMES.items()}}


# --------------------------------------------------------------------------- analyzers
# Lucene EnglishAnalyzer.ENGLISH_STOP_WORDS_SET (also StandardAnalyzer's set in "standard").
LUCENE_STOP = {
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of",
    "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with"
}

# StandardTokenizer (UAX#29) approximation: letters/digits, keeping inner apostrophes ("don't", "caroline's")
# and inner periods/commas between digits ("3.5").
_STD_RE = re.compile(r"\w+(?:['\u2019]\w+)*(?:[.,]\d+)*")

_stemmer = None


def _porter():
    global _stemmer
    if _stemmer is None:
        import Stemmer  # PyStemmer; "porter" = original Porter algorithm, as Lucene's PorterStemFilter
        _stemmer = Stemmer.Stemmer("porter")
    return _stemmer


def analyze(text: str, analyzer: str) -> list[str]:
    text = text.lower()
    if analyzer == "baseline":  # BASELINES.md tokens
        return re.findall(r"\w+", text)
    toks = [t.replace("\u2019", "'") for t in _STD_RE.findall(text)]
    if analyzer == "standard-no-stop-words":
        return toks
    if analyzer == "standard":
        return [t for t in toks if t not in LUCENE_STOP]
    if analyzer == "english":
        # EnglishPossessiveFilter -> LowerCase -> StopFilter -> PorterStemFilter
        toks = [t[:-2] if t.endswith("'s") else t for t in toks]
        toks = [t for t in toks if t not in LUCENE_STOP]
        return _porter().stemWords(toks)
    raise ValueError(analyzer)


# Extra query-side stop list (question words and chat filler), applied only to the query.
QUERY_STOP = {
    "what", "when", "where", "who", "whom", "whose", "which", "why", "how", "did", "does", "do", "done", "doing",
    "has", "have", "had", "having", "was", "were", "is", "are", "am", "be", "been", "being", "would", "could",
    "should", "can", "may", "might", "will", "shall", "must", "the", "a", "an", "of", "to", "in", "on", "at", "for",
    "from", "by", "with", "about", "as", "into", "than", "then", "that", "this", "these", "those", "it", "its",
    "they", "them", "their", "there", "here", "i", "you", "he", "she", "we", "his", "her", "our", "your", "my", "me",
    "him", "us", "and", "or", "but", "if", "so", "not", "no", "any", "some", "many", "much", "more", "most", "also",
    "too", "very", "just", "ever", "likely", "kind", "sort", "type", "thing", "things", "yes", "something",
    "anything", "someone", "anyone", "according", "mentioned", "mention", "say", "said", "tell", "told"
}


# Minimal alternative (wh-words + auxiliaries only), to show the gain is not from a tuned list.
QUERY_STOP_MIN = {
    "what", "when", "where", "who", "whom", "whose", "which", "why", "how", "did", "does", "do", "has", "have", "had",
    "was", "were", "is", "are"
}


# --------------------------------------------------------------------------- BM25
class BM25Field:
    """BM25 over one field of a per-conversation document set.

    variant="lucene": Lucene 9 BM25Similarity, idf = ln(1 + (N - df + 0.5)/(df + 0.5)), k1=1.2, b=0.75
                      (Lucene drops the (k1+1) factor; that does not change rankings).
    variant="okapi":  rank_bm25.BM25Okapi defaults (k1=1.5, b=0.75, idf floor eps=0.25*mean idf).
    """

    def __init__(self, docs_tokens: list[list[str]], variant="lucene", k1=None, b=0.75):
        self.variant = variant
        self.k1 = k1 if k1 is not None else (1.2 if variant == "lucene" else 1.5)
        self.b = b
        self.N = len(docs_tokens)
        lens = np.array([len(d) for d in docs_tokens], dtype=float)
        self.avgdl = lens.mean() if self.N else 1.0
        post = defaultdict(lambda: ([], []))
        for i, d in enumerate(docs_tokens):
            for t, c in Counter(d).items():
                post[t][0].append(i)
                post[t][1].append(c)
        self.norm = self.k1 * (1 - self.b + self.b * lens / self.avgdl)
        self.post = {t: (np.array(a), np.array(c, dtype=float)) for t, (a, c) in post.items()}
        if variant == "lucene":
            self.idf = {t: math.log(1 + (self.N - len(a) + 0.5) / (len(a) + 0.5)) for t, (a, _) in self.post.items()}
        else:
            idf = {t: math.log(self.N - len(a) + 0.5) - math.log(len(a) + 0.5) for t, (a, _) in self.post.items()}
            eps = 0.25 * (sum(idf.values()) / len(idf))
            self.idf = {t: (v if v >= 0 else eps) for t, v in idf.items()}

    def scores(self, q_terms, boosts=None) -> np.ndarray:
        s = np.zeros(self.N)
        for j, t in enumerate(q_terms):
            if t not in self.post:
                continue
            a, c = self.post[t]
            w = self.idf[t] * (1.0 if boosts is None else boosts[j])
            if self.variant == "lucene":
                s[a] += w * c / (c + self.norm[a])
            else:
                s[a] += w * c * (self.k1 + 1) / (c + self.norm[a])
        return s


# --------------------------------------------------------------------------- fusion
def rank(scores: np.ndarray, depth: int | None = None) -> np.ndarray:
    """Indices sorted by descending score (stable: ties broken by document order)."""
    order = np.argsort(-scores, kind="stable")
    return order if depth is None else order[:depth]


def rrf(rank_lists, weights=None, k=60, depths=None):
    weights = weights or [1.0] * len(rank_lists)
    depths = depths or [None] * len(rank_lists)
    acc = defaultdict(float)
    for rl, w, d in zip(rank_lists, weights, depths, strict=False):
        for r, doc in enumerate(rl[:d] if d else rl):
            acc[int(doc)] += w / (k + r + 1)
    return [d for d, _ in sorted(acc.items(), key=lambda x: (-x[1], x[0]))]


def combsum(score_lists, weights, depths=None):
    """Min-max normalised CombSUM over each source's top-`depth` (others get 0)."""
    n = len(score_lists[0])
    tot = np.zeros(n)
    for s, w, d in zip(score_lists, weights, depths or [None] * len(score_lists), strict=False):
        s = np.asarray(s, dtype=float)
        idx = rank(s, d)
        v = s[idx]
        lo, hi = v.min(), v.max()
        tot[idx] += w * ((v - lo) / (hi - lo) if hi > lo else np.ones_like(v))
    return list(rank(tot))


def fmt_row(name, res, groups=("overall", "excl5", "cat1", "cat2", "cat3", "cat4", "cat5"), ks=(5, 10, 25)):
    cells = []
    for g in groups:
        cells += [f"{res[g][k]:.1f}" for k in ks]
    return f"| {name} | " + " | ".join(cells) + " |"
