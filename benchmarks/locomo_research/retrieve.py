"""Configurable retrievers over LoCoMo turns: lexical (Lucene-like BM25, multi-field), dense (cached
embeddings), and their fusion. Every knob maps to something Neo4j can do; see FINDINGS.md."""
from __future__ import annotations

import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import QUERY_STOP, QUERY_STOP_MIN, BM25Field, analyze, combsum, rank, rrf
from embed import cache_path

DEFAULT_LEX = dict(
    analyzer="english",      # Neo4j analyzer emulated: baseline | standard-no-stop-words | standard | english
    variant="lucene",        # lucene (k1=1.2,b=.75, Lucene idf) | okapi (rank_bm25 defaults, BASELINES.md)
    speaker_in_text=True,    # text field = "{speaker}: {text}" (+caption) vs. just text (+caption)
    ctx_window=0,            # neighbours (+-w, same session) put in a separate "context" field
    ctx_weight=0.0,          # field boost of the context field (0 = not queried)
    ctx_prev_only=False,     # context = previous w turns only
    date_weight=0.0,         # field boost of a "date" field (session date string)
    qstop=False,             # drop question words / filler from the query before analysis:
                             # True = common.QUERY_STOP, "min" = common.QUERY_STOP_MIN (wh-words + auxiliaries)
    name_boost=1.0,          # per-term boost for the conversation's speaker (first) names in the query
    ring_weights=(),         # alternative to ctx_*: one field per distance d=1,2,.. holding the turns at
                             # exactly +-d (same session), with these field boosts
    sess_weight=0.0,         # add sess_weight * BM25(query, whole-session document) to each turn
    prf_docs=0,              # RM3-style pseudo-relevance feedback: top docs used (0 = off)
    prf_terms=10,            # expansion terms added to the second query
    prf_weight=0.3,          # total boost mass of the expansion terms (original terms keep boost 1)
)


class LexIndex:
    """One conversation's Lucene-like index with fields text / context / date."""

    def __init__(self, conv, cfg):
        self.conv = conv
        self.cfg = cfg
        an = cfg["analyzer"]

        def body(t):
            s = t.text + (f" [shares {t.caption}]" if t.caption else "")
            return f"{t.speaker}: {s}" if cfg["speaker_in_text"] else s

        self.text_tokens = [analyze(body(t), an) for t in conv.turns]
        self.fields = {"text": BM25Field(self.text_tokens, cfg["variant"])}
        if cfg["ctx_weight"] > 0 and cfg["ctx_window"] > 0:
            ctx = []
            for t in conv.turns:
                nb = conv.neighbours(t.idx, cfg["ctx_window"])
                if cfg["ctx_prev_only"]:
                    nb = [i for i in nb if conv.turns[i].pos < t.pos]
                ctx.append([tok for i in nb for tok in self.text_tokens[i]])
            self.fields["context"] = BM25Field(ctx, cfg["variant"])
        for d, _wgt in enumerate(cfg["ring_weights"], start=1):
            ring = []
            for t in conv.turns:
                nb = [i for i in conv.neighbours(t.idx, d) if abs(conv.turns[i].pos - t.pos) == d]
                ring.append([tok for i in nb for tok in self.text_tokens[i]])
            self.fields[f"ring{d}"] = BM25Field(ring, cfg["variant"])
        if cfg["sess_weight"] > 0:
            sids = sorted(conv.sessions)
            self.sess_of = np.array([sids.index(t.session) for t in conv.turns])
            self.sess_field = BM25Field([[tok for i in conv.sessions[s] for tok in self.text_tokens[i]] for s in sids],
                                        cfg["variant"])
        if cfg["date_weight"] > 0:
            self.fields["date"] = BM25Field([analyze(t.date, an) for t in conv.turns], cfg["variant"])
        self.names = set()
        for sp in conv.speakers:
            self.names |= set(analyze(sp.split()[0], an))

    def query_terms(self, question):
        cfg = self.cfg
        q = question
        if cfg["qstop"]:
            words = re.findall(r"\w+(?:['\u2019]\w+)*", q)
            stop = QUERY_STOP_MIN if cfg["qstop"] == "min" else QUERY_STOP
            q = " ".join(w for w in words if w.lower() not in stop)
        terms = analyze(q, cfg["analyzer"])
        boosts = [cfg["name_boost"] if t in self.names else 1.0 for t in terms]
        return terms, boosts

    def scores(self, question):
        terms, boosts = self.query_terms(question)
        s = self._scores(terms, boosts)
        if self.cfg["prf_docs"] > 0 and s.max() > 0:
            top = rank(s, self.cfg["prf_docs"])
            w = s[top] / s[top].sum()
            tf = {}
            for d, wd in zip(top, w, strict=True):
                toks = self.text_tokens[d]
                for t in set(toks):
                    tf[t] = tf.get(t, 0.0) + wd * toks.count(t) / len(toks) * self.fields["text"].idf[t]
            qs = set(terms)
            exp = sorted(((v, t) for t, v in tf.items() if t not in qs and t not in self.names), reverse=True)
            exp = exp[: self.cfg["prf_terms"]]
            if exp:
                tot = sum(v for v, _ in exp)
                terms2 = list(terms) + [t for _, t in exp]
                boosts2 = list(boosts) + [self.cfg["prf_weight"] * v / tot * len(terms) for v, _ in exp]
                s = self._scores(terms2, boosts2)
        return s

    def _scores(self, terms, boosts):
        s = self.fields["text"].scores(terms, boosts)
        if "context" in self.fields:
            s = s + self.cfg["ctx_weight"] * self.fields["context"].scores(terms, boosts)
        if "date" in self.fields:
            s = s + self.cfg["date_weight"] * self.fields["date"].scores(terms, boosts)
        for d, wgt in enumerate(self.cfg["ring_weights"], start=1):
            s = s + wgt * self.fields[f"ring{d}"].scores(terms, boosts)
        if self.cfg["sess_weight"] > 0:
            s = s + self.cfg["sess_weight"] * self.sess_field.scores(terms, boosts)[self.sess_of]
        return s


class DenseIndex:
    def __init__(self, convs, model, variants=("base",), combine="max"):
        Q = np.load(cache_path(model, "questions"))
        Ts = [self._load(convs, model, v) for v in variants]
        self.per_conv = []
        for c in convs:
            nq, nt, qo, to = len(c.questions), len(c.turns), c.q_off, c.turn_off
            sims = [Q[qo:qo + nq] @ T[to:to + nt].T for T in Ts]
            S = np.max(sims, axis=0) if combine == "max" else np.mean(sims, axis=0)
            self.per_conv.append(S)

    @staticmethod
    def _load(convs, model, v):
        if v.startswith("navg"):  # e.g. navg1_0.5 -> +-1 neighbours, alpha 0.5, from the base vectors
            w, alpha = v[4:].split("_")
            from common import load
            return neighbour_avg(load(), np.load(cache_path(model, "turns_base")), int(w), float(alpha))
        return np.load(cache_path(model, f"turns_{v}"))



def neighbour_avg(convs, T, w, alpha):
    """Embedding-level context: normalise(v_i + alpha * sum of v_j for the +-w neighbours in the session).
    Computable at ingest from the turns' own vectors (no extra model calls); stored as a 2nd vector property."""
    out = np.empty_like(T)
    off = 0
    for c in convs:
        for t in c.turns:
            v = T[off + t.idx].copy()
            for j in c.neighbours(t.idx, w):
                v += alpha * T[off + j]
            out[off + t.idx] = v / np.linalg.norm(v)
        off += len(c.turns)
    return out


# DenseIndex per (dense config, conversations), kept for the process: run()'s default cache.
_DENSE_CACHE: dict = {}


def run(convs, lex_cfg=None, dense=None, fusion="rrf", weights=(1.0, 1.0), depths=(100, 100), rrf_k=60,
        smooth=0.0, out_depth=100, dense_cache=None):
    """Returns rankings[ci][qi] (list of turn indices).

    lex_cfg: dict (see DEFAULT_LEX) or None (no lexical side).
    dense:   (model, variants tuple, combine) or None.
    fusion:  rrf | combsum.
    smooth:  after fusion, add smooth * (fused score of the +-1 neighbours) to each candidate (0 = off).
    """
    if dense_cache is None:
        dense_cache = _DENSE_CACHE
    dense_idx = None
    if dense is not None:
        key = (tuple(dense), tuple(c.sample_id for c in convs))
        if key not in dense_cache:
            dense_cache[key] = DenseIndex(convs, *dense)
        dense_idx = dense_cache[key]
    out = []
    for ci, conv in enumerate(convs):
        lex = LexIndex(conv, {**DEFAULT_LEX, **lex_cfg}) if lex_cfg is not None else None
        conv_out = []
        for qi, q in enumerate(conv.questions):
            srcs = []
            if lex is not None:
                srcs.append(lex.scores(q["question"]))
            if dense_idx is not None:
                srcs.append(dense_idx.per_conv[ci][qi])
            if len(srcs) == 1:
                fused_scores = srcs[0]
                ranked = list(rank(fused_scores))
            elif fusion == "rrf":
                ranked = rrf([rank(s, d) for s, d in zip(srcs, depths, strict=False)], list(weights), k=rrf_k)
            else:
                ranked = combsum(srcs, list(weights), list(depths))
            if smooth > 0:
                ranked = smooth_ranking(conv, ranked, smooth, rrf_k)
            conv_out.append(ranked[:out_depth])
        out.append(conv_out)
    return out


def smooth_ranking(conv, ranked, alpha, k=60):
    """Neighbour smoothing on a rank list: score(i) = 1/(k+r_i) + alpha * sum_{j in +-1} 1/(k+r_j)."""
    base = {d: 1.0 / (k + r + 1) for r, d in enumerate(ranked[:100])}
    acc = dict(base)
    for d, s in base.items():
        for n in conv.neighbours(d, 1):
            acc[n] = acc.get(n, 0.0) + alpha * s
    return [d for d, _ in sorted(acc.items(), key=lambda x: (-x[1], x[0]))]
