"""Where the gold turns of LoCoMo's multi-hop questions rank in a kept haystack load (hybrid, k=50).

Usage (the namespace a ``graphmem bench haystack --keep`` run printed, and its ``--replies``)::

    python benchmarks/diversity/multihop_ranks.py /graphmem-bench/haystack-assistant-<hash> assistant

Writes ``multihop-ranks-<replies>.json`` beside this file (per question: the gold turns' ranks, 99 =
not in the top 50) and prints how many questions have how many gold turns in the top 5, 10 and 50.
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

from category_ranks import gold_ranks  # this folder's own script (the folder is on sys.path when run)


def main(ns: str, replies: str) -> None:
    out = [{"q": o["q"], "half": o["half"], "ranks": o["ranks"]} for o in gold_ranks(ns, replies, frozenset({1}))]
    Path(__file__).with_name(f"multihop-ranks-{replies}.json").write_text(json.dumps(out, indent=1) + "\n")
    counts: collections.Counter[tuple[int, int, int, int]] = collections.Counter()
    for o in out:
        r = list(o["ranks"])  # type: ignore[call-overload]
        counts[(len(r), sum(x <= 5 for x in r), sum(x <= 10 for x in r), sum(x <= 50 for x in r))] += 1
    print("gold turns | in top 5 | in top 10 | in top 50 | questions")
    for key in sorted(counts):
        print(" | ".join(str(x) for x in key), "|", counts[key])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
