"""Two loads of one haystack benchmark, paired question by question.

Some changes act when a history is stored, not when it is searched (what a turn's vector reads, for
one): the two sides then need two loads, two runs of ``graphmem bench haystack`` or ``graphmem bench
coding`` on the same haystacks, one per side. This reads the two results files (each run's per-question
outcomes are in them) and prints, for every run name the two share, each side's all@5 / all@10 and
session all@5 per half, and the questions the second load wins and loses against the first with the
sign test's p.

    python benchmarks/long_turns/pair_loads.py BASE.json OTHER.json [--out pair.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from graphmem_devtools.bench.common import write_script_results
from graphmem_devtools.bench.haystack_core import HALF_NAMES
from graphmem_devtools.bench.paired import PAIRED_METRICS as METRICS
from graphmem_devtools.bench.paired import paired_cells


def _figures(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return dict(data.get("figures", data))


def _halves(base: dict[str, Any], other: dict[str, Any]) -> dict[str, str]:
    """Question key -> half, from either results file (both loads hold the same haystacks); a file
    written before the halves were recorded needs a partner that records them."""
    halves = other.get("halves") or base.get("halves")
    if halves:
        return dict(halves)
    raise SystemExit("pair_loads: neither results file records its questions' halves")


def pair(base: dict[str, Any], other: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per run name in both: the two sides' overall figures and the paired cells."""
    rows: list[dict[str, Any]] = []
    halves = _halves(base, other)
    others = {r["name"]: r for r in other.get("runs", [])}
    for b in base.get("runs", []):
        o = others.get(b["name"])
        if o is None or not b.get("outcomes") or not o.get("outcomes"):
            continue
        rows.append({
            "name": b["name"],
            "base": {h: b["table"].get(h, {}).get("overall") for h in (*HALF_NAMES, "all")},
            "other": {h: o["table"].get(h, {}).get("overall") for h in (*HALF_NAMES, "all")},
            "paired": paired_cells(b["outcomes"], o["outcomes"], halves, METRICS),
        })
    return rows


def _fmt(overall: dict[str, float] | None) -> str:
    if not overall:
        return "—"
    return " / ".join(f"{overall.get(m, 0.0):.3f}" for m in (*METRICS, "session all@5"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base", type=Path)
    ap.add_argument("other", type=Path)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    load = os.getloadavg()
    base, other = _figures(args.base), _figures(args.other)
    rows = pair(base, other)
    if not rows:
        print("pair_loads: no run with per-question outcomes in both files", file=sys.stderr)
        return 2
    print(f"all@5 / all@10 / session all@5; base {args.base}, other {args.other}\n")
    print("| run | half | base | other | other won / lost at 5 (p) | at 10 (p) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        for h in (*HALF_NAMES, "all"):
            cells = r["paired"].get(h, {})
            at = [f"+{int(c['gained'])} / −{int(c['lost'])} ({c['p']:.2f})" if c else "—"
                  for c in (cells.get(m) for m in METRICS)]
            print(f"| {r['name']} | {h} | {_fmt(r['base'][h])} | {_fmt(r['other'][h])} | {at[0]} | {at[1]} |")
    if args.out is not None:
        write_script_results(args.out, __file__, load, base=str(args.base), other=str(args.other), rows=rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
