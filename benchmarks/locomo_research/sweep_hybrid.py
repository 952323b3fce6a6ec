"""Dense-only and hybrid (lexical + dense) configurations. Needs the embeddings cached by embed.py.

Usage: python sweep_hybrid.py [substring ...]   (only configs whose name contains a substring)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import fmt_row, load, recall_table
from embed import cache_path
from retrieve import run

BASE_LEX = dict(analyzer="baseline", variant="okapi")  # BASELINES.md BM25
# recommended lexical side (see sweep_lexical.py): english analyzer, question-word stripping, +-2 context field
LEX = dict(analyzer="english", qstop=True, ctx_window=2, ctx_weight=0.7)
LEX_S = dict(LEX, sess_weight=0.5)

CONFIGS = []
for m in ("use", "e5", "minilm"):
    CONFIGS.append((f"dense {m} (base text)", dict(lex_cfg=None, dense=(m, ("base",), "max"))))
    CONFIGS.append((f"dense {m} (prev1 text)", dict(lex_cfg=None, dense=(m, ("prev1",), "max"))))
    CONFIGS.append((f"dense {m} (win1 text)", dict(lex_cfg=None, dense=(m, ("win1",), "max"))))
    CONFIGS.append((f"dense {m} max(base, win1)", dict(lex_cfg=None, dense=(m, ("base", "win1"), "max"))))
    CONFIGS.append((f"naive RRF: BASELINES bm25 + {m} base", dict(lex_cfg=BASE_LEX, dense=(m, ("base",), "max"))))
    for dv in (("base",), ("win1",), ("base", "win1")):
        dn = "+".join(dv)
        for w in (1.0, 0.5, 0.3):
            CONFIGS.append((f"RRF LEX + {m} {dn} (w_dense={w})",
                            dict(lex_cfg=LEX, dense=(m, dv, "max"), weights=(1.0, w))))
        CONFIGS.append((f"RRF LEX_S + {m} {dn} (w_dense=0.5)",
                        dict(lex_cfg=LEX_S, dense=(m, dv, "max"), weights=(1.0, 0.5))))
        CONFIGS.append((f"CombSUM LEX + {m} {dn} (0.7/0.3)",
                        dict(lex_cfg=LEX, dense=(m, dv, "max"), fusion="combsum", weights=(0.7, 0.3))))
        CONFIGS.append((f"CombSUM LEX + {m} {dn} (0.5/0.5)",
                        dict(lex_cfg=LEX, dense=(m, dv, "max"), fusion="combsum", weights=(0.5, 0.5))))


def available(cfg):
    d = cfg.get("dense")
    if d is None:
        return True
    m, vs, _ = d
    return all(os.path.exists(cache_path(m, "turns_base" if v.startswith("navg") else f"turns_{v}")) for v in vs) and os.path.exists(cache_path(m, "questions"))


if __name__ == "__main__":
    convs = load()
    only = sys.argv[1:]
    print("| config | " + " | ".join(f"{g} R@{k}" for g in ["all", "excl5", "c1", "c2", "c3", "c4", "c5"] for k in (5, 10, 25))
          + " | tune R@10 | test R@10 |")
    for name, cfg in CONFIGS:
        if only and not any(o in name for o in only):
            continue
        if not available(cfg):
            continue
        R = run(convs, **cfg)
        res, _ = recall_table(convs, R)
        a, _ = recall_table(convs[:5], R[:5])
        b, _ = recall_table(convs[5:], R[5:])
        print(fmt_row(name, res) + f" {a['overall'][10]:.1f} | {b['overall'][10]:.1f} |", flush=True)
