"""Cosine calibration between the bundled embedders: the e5 cosine that means what a USE cosine means.

Every fact of LoCoMo (its 2,541 observations) and every question is embedded with both models (facts on
the passage side, questions on the query side). Over the pairs within a conversation (fact-fact, and
question-fact), for each USE threshold t the share of pairs at or above t is found, and the e5 cosine
above which the same share lies is printed: the knots of ``graphmem.embedding.calibration``.

    python benchmarks/embedder/calibrate_cosines.py --out benchmarks/embedder/cosine-calibration.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.embedding import E5Embedder, LocalEmbedder, query_vector

ROOT = Path(__file__).resolve().parents[2]
THRESHOLDS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)


def _unit(rows: list[list[float]]) -> np.ndarray[Any, Any]:
    m: np.ndarray[Any, Any] = np.asarray(rows, dtype=np.float64)
    unit: np.ndarray[Any, Any] = m / np.linalg.norm(m, axis=1, keepdims=True)
    return unit


def _pairs(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any], ca: np.ndarray[Any, Any], cb: np.ndarray[Any, Any],
           same: bool) -> np.ndarray[Any, Any]:
    out = []
    for c in sorted(set(ca.tolist())):
        m = a[ca == c] @ b[cb == c].T
        out.append(m[np.triu_indices(len(m), 1)] if same else m.ravel())
    return np.concatenate(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared/benchmarks/locomo/locomo10.json")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    data = json.loads(args.data.read_text(encoding="utf-8"))
    facts = [(ci, it[0]) for ci, s in enumerate(data) for per in s["observation"].values()
             for items in per.values() for it in items]
    questions = [(ci, q["question"]) for ci, s in enumerate(data) for q in s["qa"]]
    fc = np.asarray([c for c, _ in facts])
    qc = np.asarray([c for c, _ in questions])
    sides: dict[str, tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = {}
    for name, emb in (("use", LocalEmbedder()), ("e5", E5Embedder())):
        f = _unit(emb.embed([t for _, t in facts]))
        q = _unit([query_vector(emb, t) for _, t in questions])
        sides[name] = (_pairs(f, f, fc, fc, True), _pairs(q, f, qc, fc, False))
    table: dict[str, list[dict[str, float]]] = {}
    for i, kind in enumerate(("passages", "query")):
        use, e5 = sides["use"][i], sides["e5"][i]
        table[kind] = []
        for t in THRESHOLDS:
            share = float((use >= t).mean())
            if share > 0:
                table[kind].append({"use": t, "share": round(share, 6), "pairs": int((use >= t).sum()),
                                    "e5": round(float(np.quantile(e5, 1 - share)), 3)})
    out = {"command": "python " + " ".join(sys.argv), "commit": commit, "cores": os.cpu_count(),
           "load_average": {"before": load_before, "after": [round(x, 2) for x in os.getloadavg()]},
           "facts": len(facts), "questions": len(questions),
           "pairs": {"passages": int(sides["use"][0].size), "query": int(sides["use"][1].size)}, "knots": table}
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
