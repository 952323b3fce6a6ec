"""The rankings a checkout gives, for checking that a change meant to be faster ranks the same.

Samples 60 sessions of a kept benchmark namespace, builds three queries from each one's user
messages (six of their words) and searches each query in the session's directory, turns only,
k=10, in hybrid and text mode; writes ``[query, mode, hit ids, scores]`` rows to a JSON file. Run it
once per checkout (that checkout first on ``PYTHONPATH``, from outside both) and compare the files:

    PYTHONPATH=/tmp/before:/tmp/before/devtools python benchmarks/latency/ab/rankings.py <ns> /tmp/a.json
    PYTHONPATH=$PWD:$PWD/devtools python benchmarks/latency/ab/rankings.py <ns> /tmp/b.json
    python benchmarks/latency/ab/rankings.py --compare /tmp/a.json /tmp/b.json
"""

from __future__ import annotations

import json
import random
import re
import sys
from typing import Any

from graphmem.memory import GraphMemory


def dump(ns: str, out: str) -> int:
    mem = GraphMemory.from_settings(start=False)
    rows = mem.db.read("maintenance/sessions_under_path", path=ns, prefix=ns + "/")
    rnd = random.Random(5)
    res: list[list[Any]] = []
    for sid in rnd.sample(sorted(r["id"] for r in rows), min(60, len(rows))):
        s = mem.load_session(sid)
        for t in rnd.sample(s.turns, min(3, len(s.turns))):
            words = re.findall(r"[A-Za-z]+", t.user_message)
            if len(words) < 3:
                continue
            q = " ".join(rnd.sample(words, min(6, len(words))))
            for mode in ("hybrid", "text"):
                r = mem.search(q, scope=f"directory:{s.cwd}", levels=(0,), k=10, mode=mode)
                res.append([q, mode, [h.id for h in r.hits], [round(h.score, 6) for h in r.hits]])
    with open(out, "w") as f:
        json.dump(res, f)
    print(f"{len(res)} searches -> {out}")
    mem.close()
    return 0


def compare(a_path: str, b_path: str) -> int:
    with open(a_path) as f:
        a = json.load(f)
    with open(b_path) as f:
        b = json.load(f)
    same_ids = sum(x[:3] == y[:3] for x, y in zip(a, b, strict=True))
    same_scores = sum(x == y for x, y in zip(a, b, strict=True))
    print(f"{len(a)} searches: same hits in the same order {same_ids}, same scores too {same_scores}")
    return 0 if same_scores == len(a) else 1


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    sys.exit(dump(sys.argv[1], sys.argv[2]))
