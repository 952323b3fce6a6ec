"""Lexical-only ablations (Lucene BM25 emulation). Prints one markdown row per config:
overall / excl.5 / cat1..5 at R@5/10/25, plus R@10 on the tune half (conv 0-4) and test half (conv 5-9).

Usage: python sweep_lexical.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import fmt_row, load, recall_table
from retrieve import run

CONFIGS = [
    ("baseline tokens, rank_bm25 Okapi (BASELINES.md)", dict(analyzer="baseline", variant="okapi")),
    ("standard-no-stop-words, Lucene BM25", dict(analyzer="standard-no-stop-words")),
    ("standard (stop words)", dict(analyzer="standard")),
    ("english (possessive+stop+Porter)", dict(analyzer="english")),
    ("english + qstop", dict(analyzer="english", qstop=True)),
    ("english + names^0.5", dict(analyzer="english", name_boost=0.5)),
    ("english + text without speaker", dict(analyzer="english", speaker_in_text=False)),
    ("english + ctx+-1 ^0.3", dict(analyzer="english", ctx_window=1, ctx_weight=0.3)),
    ("english + ctx+-1 ^0.5", dict(analyzer="english", ctx_window=1, ctx_weight=0.5)),
    ("english + ctx+-2 ^0.3", dict(analyzer="english", ctx_window=2, ctx_weight=0.3)),
    ("english + ctx prev1 ^0.5", dict(analyzer="english", ctx_window=1, ctx_weight=0.5, ctx_prev_only=True)),
    ("english + date ^0.5", dict(analyzer="english", date_weight=0.5)),
    # combinations
    ("english + qstop + ctx+-1 ^0.3", dict(analyzer="english", qstop=True, ctx_window=1, ctx_weight=0.3)),
    ("english + qstop + ctx+-1 ^0.5", dict(analyzer="english", qstop=True, ctx_window=1, ctx_weight=0.5)),
    ("english + qstop + ctx+-1 ^0.7", dict(analyzer="english", qstop=True, ctx_window=1, ctx_weight=0.7)),
    ("english + qstop + ctx+-1 ^1.0", dict(analyzer="english", qstop=True, ctx_window=1, ctx_weight=1.0)),
    ("english + qstop + ctx+-2 ^0.3", dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.3)),
    ("english + qstop + ctx+-2 ^0.5", dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.5)),
    ("english + qstop + ctx+-1 ^0.5 + date ^0.5", dict(analyzer="english", qstop=True, ctx_window=1, ctx_weight=0.5, date_weight=0.5)),
    ("english + qstop + ctx+-1 ^0.5 + names^0.5", dict(analyzer="english", qstop=True, ctx_window=1, ctx_weight=0.5, name_boost=0.5)),
    ("english + qstop + ctx+-2 ^0.7", dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.7)),
    ("english + qstop + ctx+-3 ^0.5", dict(analyzer="english", qstop=True, ctx_window=3, ctx_weight=0.5)),
    ("english + qstop + rings ^0.6/^0.4", dict(analyzer="english", qstop=True, ring_weights=(0.6, 0.4))),
    ("english + qstop + rings ^0.7/^0.3", dict(analyzer="english", qstop=True, ring_weights=(0.7, 0.3))),
    ("english + qstop + rings ^0.5/^0.5", dict(analyzer="english", qstop=True, ring_weights=(0.5, 0.5))),
    ("english + qstop + rings ^0.5/^0.3/^0.2", dict(analyzer="english", qstop=True, ring_weights=(0.5, 0.3, 0.2))),
    ("english + qstop + ctx+-2 ^0.5 + session ^0.1", dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.5, sess_weight=0.1)),
    ("english + qstop + ctx+-2 ^0.5 + session ^0.3", dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.5, sess_weight=0.3)),
    ("english + qstop + ctx+-2 ^0.5 + date ^0.3", dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.5, date_weight=0.3)),
    ("english + qstop(min list)", dict(analyzer="english", qstop="min")),
    ("english + qstop(min list) + ctx+-2 ^0.7", dict(analyzer="english", qstop="min", ctx_window=2, ctx_weight=0.7)),
    ("english + qstop + ctx+-2 ^0.6", dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.6)),
    ("english + qstop + ctx+-2 ^0.85", dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.85)),
    ("english + qstop + ctx+-2 ^1.0", dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=1.0)),
    ("english + qstop + rings ^0.8/^0.5", dict(analyzer="english", qstop=True, ring_weights=(0.8, 0.5))),
    ("english + qstop + ctx+-2 ^0.7 + session ^0.3", dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.7, sess_weight=0.3)),
    ("english + qstop + ctx+-2 ^0.7 + session ^0.5", dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.7, sess_weight=0.5)),
    ("english + qstop + ctx+-2 ^0.7 + RM3(5 docs, 10 terms, 0.3)", dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.7, prf_docs=5)),
    ("english + qstop + ctx+-2 ^0.7 + RM3(10 docs, 10 terms, 0.5)", dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.7, prf_docs=10, prf_weight=0.5)),
    ("standard-no-stop-words + qstop + ctx+-1 ^0.5", dict(analyzer="standard-no-stop-words", qstop=True, ctx_window=1, ctx_weight=0.5)),
]


def split_r10(convs, R):
    a, _ = recall_table(convs[:5], R[:5])
    b, _ = recall_table(convs[5:], R[5:])
    return a["overall"][10], b["overall"][10]


if __name__ == "__main__":
    convs = load()
    only = sys.argv[1:]
    print("| config | " + " | ".join(f"{g} R@{k}" for g in ["all", "excl5", "c1", "c2", "c3", "c4", "c5"] for k in (5, 10, 25))
          + " | tune R@10 | test R@10 |")
    for name, cfg in CONFIGS:
        if only and not any(o in name for o in only):
            continue
        R = run(convs, cfg)
        res, _ = recall_table(convs, R)
        a, b = split_r10(convs, R)
        print(fmt_row(name, res) + f" {a:.1f} | {b:.1f} |", flush=True)
