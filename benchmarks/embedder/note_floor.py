"""The cosine floor of the notes a context block carries by meaning alone (``NOTE_MIN_COSINE``).

Every LoCoMo question is embedded on the query side against its evidence turns (relevant pairs),
and small talk that asks nothing ("thanks!", "ok", "see you tomorrow") against every turn of the
same conversations (pairs a context block should not be filled by). For each floor on the USE scale
the share of each kind of pair at or above it is printed and written with the command, the commit
and the load.

    python benchmarks/embedder/note_floor.py --out benchmarks/embedder/note-floor.json
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

from graphmem.embedding import LocalEmbedder, query_vector

ROOT = Path(__file__).resolve().parents[2]
FLOORS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
SMALL_TALK = ("thanks!", "ok", "okay, got it", "hello", "hi there", "good morning", "see you tomorrow",
              "thanks, see you tomorrow!", "lol", "nice", "cool, thanks", "yes please", "no", "bye",
              "sounds good", "great, thank you", "hmm", "sure", "perfect", "let's go")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared/benchmarks/locomo/locomo10.json")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    emb = LocalEmbedder()
    relevant: list[float] = []
    chatter: list[float] = []
    talk = np.asarray([query_vector(emb, t) for t in SMALL_TALK], dtype=np.float64)
    for conv in json.loads(args.data.read_text(encoding="utf-8")):
        c = conv["conversation"]
        turns = {t["dia_id"]: f"{t['speaker']}: {t['text']}" for k, v in c.items()
                 if k.startswith("session_") and isinstance(v, list) for t in v}
        ids = list(turns)
        vecs = dict(zip(ids, np.asarray(emb.embed([turns[i] for i in ids]), dtype=np.float64), strict=True))
        for qa in conv["qa"]:
            evidence = [d for d in qa.get("evidence", []) if d in vecs]
            if evidence:
                q = np.asarray(query_vector(emb, str(qa["question"])), dtype=np.float64)
                relevant += [float(q @ vecs[d]) for d in evidence]
        chatter += (talk @ np.stack([vecs[i] for i in ids]).T).ravel().tolist()
    rel, chat = np.asarray(relevant), np.asarray(chatter)
    rows: dict[str, Any] = {}
    for f in FLOORS:
        rows[f"{f:.2f}"] = {"question-evidence pairs kept": round(float((rel >= f).mean()), 3),
                            "small-talk pairs kept": round(float((chat >= f).mean()), 4)}
        print(f"floor {f:.2f}: question-evidence kept {rows[f'{f:.2f}']['question-evidence pairs kept']:.3f}, "
              f"small talk kept {rows[f'{f:.2f}']['small-talk pairs kept']:.4f}")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    result = {"command": " ".join(["python", *sys.argv]), "commit": commit.strip(), "load": os.getloadavg(),
              "embedder": emb.model, "question-evidence pairs": len(rel), "small-talk pairs": len(chat),
              "question-evidence percentiles": {p: round(float(np.percentile(rel, p)), 3) for p in (5, 10, 25, 50)},
              "small-talk percentiles": {p: round(float(np.percentile(chat, p)), 3) for p in (50, 90, 99, 99.9)},
              "floors": rows}
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
