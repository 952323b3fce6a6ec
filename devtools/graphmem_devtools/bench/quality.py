"""The **quality** part of ``graphmem bench all``: LoCoMo evidence recall beside BM25 and DRAGON.

graphmem's modes come from :func:`graphmem_devtools.bench.locomo.run_locomo_bench` (its tuned default
configuration in hybrid, text and semantic modes), run here on the same conversations, or read from
a ``locomo.json`` written by ``graphmem bench locomo``. Beside them: a plain BM25 baseline
(``rank_bm25.BM25Okapi`` defaults over the same turns, the recipe of
``shared/benchmarks/locomo/BASELINES.md``) computed here on exactly the same conversations, and the
LoCoMo paper's DRAGON figures (overall only; the paper gives no per-category recall).
"""

from __future__ import annotations

import json
import os
import re
import statistics
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphmem.memory import GraphMemory

from .coding import FULL_HAYSTACKS, run_coding_bench
from .haystack import run_haystack_bench
from .haystack_core import quality_table_lines
from .locomo import CATEGORIES, DRAGON, HALVES, KS, load_locomo, recall, run_locomo_bench, tuned_runs
from .parts import Headline, PartResult
from .plots import bar_plot

__all__ = ["bm25_baseline", "run_quality_part"]


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def bm25_baseline(data: Path, limit_convs: int | None = None) -> dict[str, dict[str, float]]:
    """rank_bm25 BM25Okapi (defaults) per conversation; recall@5/10/25 per category, as locomo.py groups them."""
    from rank_bm25 import BM25Okapi

    per_q: list[tuple[int, list[float]]] = []
    conv_of: list[int] = []
    for ci, conv in enumerate(load_locomo(data)[:limit_convs]):
        turns = [t for n in sorted(conv.sessions) for t in conv.sessions[n]]
        if not turns:
            continue
        bm = BM25Okapi([_tokens(t.text) for t in turns])
        for q in conv.questions:
            scores = bm.get_scores(_tokens(q.question))
            order = sorted(range(len(turns)), key=lambda i: -scores[i])[: max(KS)]
            ranked = [turns[i].dia_id for i in order]
            per_q.append((q.category, [recall(q.evidence, ranked, k) for k in KS]))
            conv_of.append(ci)
    groups: dict[str, list[list[float]]] = defaultdict(list)
    for (cat, rs), ci in zip(per_q, conv_of, strict=True):
        groups["overall"].append(rs)
        if cat != 5:
            groups["excl. adversarial"].append(rs)
        groups[f"{cat} {CATEGORIES[cat]}"].append(rs)
        groups[HALVES[0] if ci < 5 else HALVES[1]].append(rs)
    out: dict[str, dict[str, float]] = {}
    for g in ["overall", "excl. adversarial"] + [f"{c} {n}" for c, n in CATEGORIES.items()] + list(HALVES):
        if g in groups:
            rows = groups[g]
            out[g] = {f"R@{k}": round(100 * statistics.fmean(r[i] for r in rows), 1) for i, k in enumerate(KS)}
            out[g]["n"] = len(rows)
    return out


def _haystack_section(
    title: str, bench: str, results: Path | None, measure: Callable[[], dict[str, Any]] | None,
) -> tuple[dict[str, Any] | None, list[str]]:
    """A haystack benchmark's figures (read from ``results``, else measured when ``measure`` is
    given) and its lines of the quality section."""
    if results is not None:
        figures = json.loads(results.read_text(encoding="utf-8"))["figures"]
        source = f"read from `{results}`"
    elif measure is not None:
        figures = measure()
        source = f"measured in this run (`run_{bench}_bench`, default configuration)"
    else:
        return None, ["", f"{title}: not in this run (measured with the LoCoMo figures when an embedder is "
                      f"configured, or read with `--{bench}-results`)."]
    return figures, ["", f"{title} (`graphmem bench {bench}`; figures {source}):", "", *quality_table_lines(figures)]


def run_quality_part(
    mem: GraphMemory | None,
    *,
    out_dir: Path,
    data: Path,
    limit_convs: int | None = None,
    results_json: Path | None = None,
    haystack_results: Path | None = None,
    coding_results: Path | None = None,
    log: Any = None,
) -> PartResult:
    """LoCoMo recall per category for graphmem's modes, BM25 and DRAGON; context characters per mode.

    With ``results_json`` the graphmem figures are read from that file (written by ``graphmem bench
    locomo``) instead of being measured; ``mem`` may then be None. The LoCoMo haystacks and the
    coding-assistant haystacks are read from ``haystack_results`` / ``coding_results`` (written by
    ``graphmem bench haystack`` / ``bench coding``), else measured when ``mem`` has an embedder and
    the LoCoMo figures are measured too."""
    load_start = os.getloadavg()
    source: str
    if results_json is not None:
        loaded = json.loads(results_json.read_text(encoding="utf-8"))
        figs: dict[str, Any] = loaded["figures"]
        source = f"read from `{results_json}` (command there: `{loaded.get('command')}`)"
        total_q = sum(len(c.questions) for c in load_locomo(data))
        if int(figs.get("questions", 0)) != total_q and limit_convs is None:
            source += f"; it covers {figs.get('questions')} of {total_q} questions"
    else:
        if mem is None:
            raise ValueError("the quality part needs a GraphMemory (or results_json)")
        runs, window = tuned_runs()
        res = run_locomo_bench(mem, data, runs=runs, expansion_window=window, limit_convs=limit_convs,
                               command="graphmem bench all (quality part)",
                               log=log or (lambda m: None))
        figs = res.figures
        source = "measured in this run (`run_locomo_bench`, the tuned default configuration in three modes)"
    bm25 = bm25_baseline(data, limit_convs)
    runs_f: list[dict[str, Any]] = list(figs.get("runs", []))
    groups = [g for g in bm25 if g not in HALVES]
    retrievers: list[tuple[str, dict[str, dict[str, float]]]] = [
        (f"graphmem {r['name']}", r["recall"]) for r in runs_f
    ] + [("BM25 only (rank_bm25, same turns)", bm25)]
    if figs.get("dense_raw_baseline"):
        retrievers.append(("dense only (raw turn vectors, cosine)", figs["dense_raw_baseline"]))
    md = [
        f"LoCoMo ({figs.get('questions')} questions over {figs.get('turns')} turns; embedder "
        f"{figs.get('embedder')}). graphmem figures {source}. Metric: the paper's recall accuracy (fraction of a "
        "question's evidence turns in the top k), mean per category.",
        "",
        "| retriever | R@5 | R@10 | R@25 | R@10 tune (conv 0-4) | R@10 test (conv 5-9) | context chars top 5 / 10 / 25 |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    chars = {f"graphmem {r['name']}": r.get("context_chars", {}) for r in runs_f}
    for name, table in retrievers:
        o = table.get("overall", {})
        c = chars.get(name)
        cc = f"{c.get('top5', 0):.0f} / {c.get('top10', 0):.0f} / {c.get('top25', 0):.0f}" if c else ""
        tune, test = (table.get(h, {}).get("R@10", "") for h in HALVES)
        md.append(f"| {name} | {o.get('R@5')} | {o.get('R@10')} | {o.get('R@25')} | {tune} | {test} | {cc} |")
    md.append(f"| DRAGON (LoCoMo paper, Table 3) | {DRAGON[5]} | {DRAGON[10]} | {DRAGON[25]} | | | |")
    md += [
        "",
        "Per category, R@5 / R@10 / R@25 (DRAGON is published overall only):",
        "",
        "| retriever | " + " | ".join(f"{g} ({bm25[g]['n']:.0f})" for g in groups[1:]) + " |",
        "|---|" + "---|" * (len(groups) - 1),
    ]
    for name, table in retrievers:
        cells = [" / ".join(str(table[g][f"R@{k}"]) for k in KS) if g in table else "" for g in groups[1:]]
        md.append(f"| {name} | " + " | ".join(cells) + " |")
    md += [
        "",
        "Search latency per mode in that run:",
        "",
        "| mode | context chars top 5 | top 10 | top 25 | search p50 / p95 ms |",
        "|---|---:|---:|---:|---|",
    ]
    for r in runs_f:
        c = r.get("context_chars", {})
        lat = r.get("search_latency_ms", {})
        md.append(f"| graphmem {r['name']} | {c.get('top5', 0):.0f} | {c.get('top10', 0):.0f} | "
                  f"{c.get('top25', 0):.0f} | {lat.get('p50')} / {lat.get('p95')} |")
    first_per_mode: dict[str, str] = {}
    for r in runs_f:
        first_per_mode.setdefault(str(r.get("mode")), f"graphmem {r['name']}")
    plotted = [(n, t) for n, t in retrievers if n in first_per_mode.values() or not n.startswith("graphmem ")]
    bar_series = {name: [table.get(g, {}).get("R@10", 0.0) for g in groups] for name, table in plotted}
    plot = bar_plot(out_dir / "quality_recall10.png", [g.replace(" ", "\n", 1) for g in groups], bar_series,
                    title="LoCoMo evidence recall@10 per category", ylabel="recall@10, %", ylim=(0, 105),
                    hline=(DRAGON[10], f"DRAGON (LoCoMo paper), overall only: {DRAGON[10]}"))
    md += ["", f"![LoCoMo recall@10]({plot.name})"]
    measure = mem is not None and mem.embedder is not None and results_json is None
    quiet = log or (lambda m: None)
    hay, hay_md = _haystack_section(
        "LoCoMo haystacks", "haystack", haystack_results,
        (lambda: run_haystack_bench(mem, data, per_conv=1 if limit_convs else 2, log=quiet,
                                    command="graphmem bench all (quality part)").figures) if measure and mem else None)
    coding, coding_md = _haystack_section(
        "Coding-assistant haystacks", "coding", coding_results,
        (lambda: run_coding_bench(mem, haystacks=4 if limit_convs else FULL_HAYSTACKS, log=quiet,
                                  command="graphmem bench all (quality part)").figures) if measure and mem else None)
    md += hay_md + coding_md
    hybrid = next((r for r in runs_f if r.get("mode") == "hybrid"), None)
    text = next((r for r in runs_f if r.get("mode") == "text"), None)
    headline: list[Headline] = []
    if hybrid is not None:
        o = hybrid["recall"]["overall"]
        headline.append(Headline("LoCoMo recall@10, hybrid (local USE embedder)", f"{o['R@10']}",
                                 f"BM25 only {bm25['overall']['R@10']}; DRAGON (paper) {DRAGON[10]}",
                                 f"{round(o['R@10'] / bm25['overall']['R@10'], 2)}x BM25"
                                 if bm25['overall']['R@10'] else ""))
        if text is not None:
            headline.append(Headline("LoCoMo recall@10, graphmem text-only mode", f"{text['recall']['overall']['R@10']}",
                                     f"graphmem hybrid {o['R@10']}", ""))
    figures: dict[str, Any] = {
        "source": source,
        "questions": figs.get("questions"),
        "turns": figs.get("turns"),
        "embedder": figs.get("embedder"),
        "graphmem_runs": runs_f,
        "bm25_rank_bm25": bm25,
        "dragon_paper_overall": {f"R@{k}": v for k, v in DRAGON.items()},
        "haystack": hay,
        "coding": coding,
        "load_average_start": list(load_start),
        "load_average_end": list(os.getloadavg()),
    }
    notes = [
        "DRAGON is the LoCoMo paper's retriever (Table 3, dialog unit); the paper reports it overall only, over "
        "all 10 conversations, so in a run over fewer conversations it is not directly comparable.",
        "BM25 only: rank_bm25 BM25Okapi with default parameters over the same turn texts, one index per "
        "conversation, query = the question (the BASELINES.md recipe), computed in this run.",
        "Context characters: the text of the top-k hits as search returns them (user + assistant text for turns).",
    ]
    return PartResult("quality", "Quality: LoCoMo recall beside BM25 and DRAGON", figures, "\n".join(md), [plot],
                      headline, notes)
