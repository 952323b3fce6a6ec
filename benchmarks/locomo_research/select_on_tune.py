"""Overfitting check: choose the hybrid's knobs on the tune half only (conversations 0-4, by overall R@10),
then report the chosen config on the test half (conversations 5-9) and on all 10.

Grid: context window {1,2} x context boost {0.3,0.5,0.7,1.0} x session-doc boost {0,0.3,0.5}
      x CombSUM lexical weight {0.6,0.7,0.8} (dense = 1 - that), dense = e5 with +-2 neighbour-averaged vectors.

Usage: python select_on_tune.py
"""
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import load, recall_table
from retrieve import run

if __name__ == "__main__":
    convs = load()
    tune, test = convs[:5], convs[5:]
    dense = ("e5", ("navg2_0.3",), "max")
    rows = []
    for w, cw, sw, lw in itertools.product((1, 2), (0.3, 0.5, 0.7, 1.0), (0.0, 0.3, 0.5), (0.6, 0.7, 0.8)):
        lex = dict(analyzer="english", qstop=True, ctx_window=w, ctx_weight=cw, sess_weight=sw)
        R = run(tune, lex, dense, fusion="combsum", weights=(lw, 1 - lw))
        r, _ = recall_table(tune, R)
        rows.append((r["overall"][10], (w, cw, sw, lw)))
        print(f"tune R@10 {r['overall'][10]:.1f}  ctx+-{w}^{cw} sess^{sw} combsum {lw}/{1 - lw:.1f}", flush=True)
    rows.sort(reverse=True)
    print("\ntop 5 on tune:")
    for score, cfg in rows[:5]:
        print(f"  {score:.1f} {cfg}")
    best = rows[0][1]
    w, cw, sw, lw = best
    lex = dict(analyzer="english", qstop=True, ctx_window=w, ctx_weight=cw, sess_weight=sw)
    for name, cs in (("tune", tune), ("test", test), ("all", convs)):
        R = run(cs, lex, dense, fusion="combsum", weights=(lw, 1 - lw))
        r, _ = recall_table(cs, R)
        print(f"chosen {best} on {name}: R@5 {r['overall'][5]:.1f} R@10 {r['overall'][10]:.1f} "
              f"R@25 {r['overall'][25]:.1f} excl5 R@10 {r['excl5'][10]:.1f}")
