"""``graphmem bench quality``: every retrieval-quality benchmark side by side.

Runs ``graphmem bench locomo``, ``graphmem bench haystack``, ``graphmem bench coding``,
``graphmem bench mixed``, ``graphmem bench two-events`` and ``graphmem bench haystack --replies
assistant`` (each one's results file is written as its own verb writes it), or with ``--reuse-results``
reads their JSON files (mixed.json, two-events.json and haystack-assistant.json only when they are there), and prints one table: rows graphmem hybrid / text / semantic (each benchmark's default
configuration), BM25 (``rank_bm25`` defaults, same turn texts) and dense-only (raw turn vectors);
columns, per benchmark, the tuning and the test half at k = 5 and 10. The table goes to stdout and
into ``quality.md`` between two markers, so the file's other sections (the decision history) stay.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .common import read_part_results, write_results
from .haystack_core import BASELINE_NAMES, HALF_NAMES

__all__ = ["BEGIN", "END", "register", "side_by_side", "update_section"]

BEGIN = "<!-- graphmem bench quality: begin -->"
END = "<!-- graphmem bench quality: end -->"
ROWS = ("graphmem hybrid", "graphmem text (BM25 only)", "graphmem semantic (vector only)",
        "BM25 (rank_bm25 defaults, same turns)", "dense only (raw turn vectors, cosine)")
MODES = ("hybrid", "text", "semantic")
Cells = dict[str, dict[tuple[str, int], float]]
"""row -> (half, k) -> figure in %."""


def _first_of_mode(runs: list[dict[str, Any]], mode: str) -> dict[str, Any] | None:
    return next((r for r in runs if r.get("mode") == mode), None)


def locomo_cells(figures: dict[str, Any], bm25: dict[str, dict[str, float]] | None) -> Cells:
    """LoCoMo recall accuracy (%) per half from a locomo.json's figures and the BM25 baseline."""
    from .locomo import HALVES

    def cells(recall: dict[str, dict[str, float]]) -> dict[tuple[str, int], float]:
        return {(half, k): float(recall[h][f"R@{k}"]) for half, h in zip(HALF_NAMES, HALVES, strict=True)
                for k in (5, 10) if h in recall and f"R@{k}" in recall[h]}

    out: Cells = {}
    for row, mode in zip(ROWS, MODES, strict=False):
        r = _first_of_mode(figures.get("runs", []), mode)
        if r is not None:
            out[row] = cells(r["recall"])
    if bm25:
        out[ROWS[3]] = cells(bm25)
    if figures.get("dense_raw_baseline"):
        out[ROWS[4]] = cells(figures["dense_raw_baseline"])
    return out


def haystack_cells(figures: dict[str, Any]) -> Cells:
    """turn all@5 / all@10 (%) per half of a haystack.json or coding.json's figures."""
    def cells(t: dict[str, dict[str, dict[str, float]]]) -> dict[tuple[str, int], float]:
        return {(half, k): 100 * float(t[half]["overall"][f"turn all@{k}"]) for half in HALF_NAMES for k in (5, 10)
                if "overall" in t.get(half, {})}

    out: Cells = {}
    for row, mode in zip(ROWS, MODES, strict=False):
        r = _first_of_mode(figures.get("runs", []), mode)
        if r is not None:
            out[row] = cells(r["table"])
    for row, name in zip(ROWS[3:], BASELINE_NAMES, strict=True):
        if name in figures.get("baselines", {}):
            out[row] = cells(figures["baselines"][name])
    return out


def side_by_side(benches: list[tuple[str, Cells]]) -> list[str]:
    """The markdown table: one row per retriever, tune/test x k=5/10 columns per benchmark."""
    cols = [(b, half, k) for b, _ in benches for half in HALF_NAMES for k in (5, 10)]
    lines = ["| retriever | " + " | ".join(f"{b} {half} @{k}" for b, half, k in cols) + " |",
             "|---|" + "---:|" * len(cols)]
    data = dict(benches)
    for row in ROWS:
        cells = [data[b].get(row, {}).get((half, k)) for b, half, k in cols]
        lines.append(f"| {row} | " + " | ".join("" if c is None else f"{c:.1f}" for c in cells) + " |")
    return lines


def _describe(name: str, loaded: dict[str, Any]) -> str:
    f = loaded.get("figures", {})
    m = loaded.get("machine", {})
    q = f.get("questions")
    size = (f"{q} questions" if not isinstance(q, dict) else
            ", ".join(f"{h} {q.get(h)} questions in {f.get('haystacks', {}).get(h)} haystacks" for h in HALF_NAMES))
    small = [n for n in loaded.get("notes", []) if str(n).startswith("SMALL RUN")]
    return (f"- {name}: {size}; commit {m.get('commit') or '(not recorded)'}, {m.get('date')}; command `{loaded.get('command')}`"
            + (f". **{small[0]}**" if small else ""))


def update_section(path: Path, section: str) -> None:
    """Put ``section`` between the markers of ``path`` (after the title when the file has none yet);
    everything else in the file stays."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    block = f"{BEGIN}\n{section.rstrip()}\n{END}\n"
    if BEGIN in old and END in old:
        new = old[: old.index(BEGIN)] + block + "\n" + old[old.index(END) + len(END):].lstrip("\n")
    elif old.startswith("# "):
        title, _, rest = old.partition("\n")
        new = f"{title}\n\n{block}\n{rest.lstrip()}"
    else:
        new = "# Retrieval quality\n\n" + block + ("\n" + old if old else "")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new, encoding="utf-8")


def _measure(args: argparse.Namespace, log: Callable[[str], None]) -> dict[str, dict[str, Any]]:
    """Run the six benchmarks; write each one's results into ``args.out``; their loaded JSON."""
    from graphmem.cli.common import open_memory

    from .coding import coding_markdown, run_coding_bench
    from .haystack import haystack_markdown, run_haystack_bench
    from .locomo import locomo_markdown, run_locomo_bench, tuned_runs
    from .mixed import mixed_markdown, run_mixed_bench
    from .two_events import run_two_events_bench, two_events_markdown

    out: dict[str, dict[str, Any]] = {}
    with open_memory(start=True) as mem:
        runs, window = tuned_runs()
        loc = run_locomo_bench(mem, args.data, runs=runs, expansion_window=window, limit_convs=args.locomo_convs,
                               command="graphmem bench quality (locomo)", log=log)
        hay = run_haystack_bench(mem, args.data, per_conv=args.haystack_per_conv, log=log,
                                 command="graphmem bench quality (haystack)")
        cod = run_coding_bench(mem, haystacks=args.coding_haystacks, log=log,
                               command=f"graphmem bench quality (coding --haystacks {args.coding_haystacks})")
        mix = run_mixed_bench(mem, args.data, log=log, command="graphmem bench quality (mixed)")
        two = run_two_events_bench(mem, args.data, log=log, command="graphmem bench quality (two-events)")
        ast = run_haystack_bench(mem, args.data, per_conv=args.haystack_per_conv, replies="assistant", log=log,
                                 command="graphmem bench quality (haystack --replies assistant)")
    for res, md in ((loc, locomo_markdown(loc)), (hay, haystack_markdown(hay)), (cod, coding_markdown(cod)),
                    (mix, mixed_markdown(mix)), (two, two_events_markdown(two)), (ast, haystack_markdown(ast))):
        _, mdp = write_results(res, args.out)
        mdp.write_text(md, encoding="utf-8")
        out[res.name] = {"name": res.name, "command": res.command, "machine": res.machine, "figures": res.figures,
                         "notes": res.notes}
    return out


def register(verbs: Any) -> None:
    p = verbs.add_parser("quality", help="LoCoMo, LoCoMo haystacks (chat and told to an assistant), coding histories, "
                                         "the mixed benchmark and two-event questions side by side "
                                         "with BM25 and dense-only baselines (tune/test, k=5/10)")
    p.add_argument("--reuse-results", action="store_true",
                   help="read locomo.json, haystack.json, coding.json, mixed.json, two-events.json and "
                        "haystack-assistant.json from "
                        "--results-dir instead of measuring")
    p.add_argument("--results-dir", type=Path, default=Path("benchmarks/results"))
    p.add_argument("--data", type=Path, default=Path("../shared/benchmarks/locomo/locomo10.json"),
                   help="LoCoMo data (the LoCoMo and haystack benchmarks, and LoCoMo's BM25 baseline)")
    p.add_argument("--locomo-convs", type=int, default=None, help="only the first N LoCoMo conversations")
    p.add_argument("--haystack-per-conv", type=int, default=2, help="LoCoMo haystacks per conversation")
    p.add_argument("--coding-haystacks", type=int, default=20, help="coding haystacks (default 20)")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"),
                   help="where quality.md (its side-by-side section) and, when measuring, each result go")
    p.set_defaults(handler=_quality)


def _quality(args: argparse.Namespace) -> int:
    from .quality import bm25_baseline

    def log(m: str) -> None:
        print(m, file=sys.stderr, flush=True)

    try:
        if args.reuse_results:
            loaded = {n: read_part_results(args.results_dir / f"{n}.json", n) for n in ("locomo", "haystack", "coding")}
            for optional in ("mixed", "two-events", "haystack-assistant"):
                if (args.results_dir / f"{optional}.json").exists():
                    loaded[optional] = read_part_results(args.results_dir / f"{optional}.json", optional)
        else:
            loaded = _measure(args, log)
    except ValueError as e:
        print(f"graphmem: error: {e}", file=sys.stderr)
        return 2
    bm25 = bm25_baseline(args.data, args.locomo_convs) if args.data.exists() else None
    benches = [("LoCoMo", locomo_cells(loaded["locomo"]["figures"], bm25)),
               ("haystack", haystack_cells(loaded["haystack"]["figures"])),
               ("coding", haystack_cells(loaded["coding"]["figures"]))]
    benches += [(label, haystack_cells(loaded[name]["figures"]))
                for label, name in (("mixed", "mixed"), ("two-events", "two-events"), ("assistant", "haystack-assistant"))
                if name in loaded]
    source = f"read from `{args.results_dir}`" if args.reuse_results else "measured by this command"
    section = [
        "## All benchmarks side by side (`graphmem bench quality`)", "",
        f"Command: `graphmem {' '.join(sys.argv[1:]) if sys.argv[1:2] == ['bench'] else 'bench quality'}`; "
        f"figures {source}. All in %: LoCoMo = the paper's recall accuracy (share of a question's evidence turns in "
        "the top k); haystack and coding = turn all@k (share of questions with every gold turn in the top k). "
        "tune/test: LoCoMo conversations 0-4 / 5-9, haystacks of conversations 0-4 / 5-9, coding haystacks even / "
        "odd, mixed (a LoCoMo and a coding haystack in one directory) 0-4 with even / 5-9 with odd, two-events "
        "(questions comparing two events, composed in the LoCoMo haystacks) 0-4 / 5-9, assistant (the LoCoMo haystacks "
        "told to an assistant: each utterance a user message answered by a long generated reply) 0-4 / 5-9. graphmem rows are each benchmark's default configuration; the baselines run in the same script on the "
        "same turn texts" + ("" if bm25 is not None else f" (LoCoMo BM25 left out: {args.data} not found)") + ".", "",
        *side_by_side(benches), "",
        "Sources:", "",
        *[_describe(n, loaded[k]) for n, k in (("LoCoMo", "locomo"), ("haystack", "haystack"), ("coding", "coding"),
                                                ("mixed", "mixed"), ("two-events", "two-events"),
                                                ("assistant", "haystack-assistant")) if k in loaded],
    ]
    text = "\n".join(section) + "\n"
    print(text)
    update_section(args.out / "quality.md", text)
    print(f"written: {args.out / 'quality.md'}", file=sys.stderr)
    return 0
