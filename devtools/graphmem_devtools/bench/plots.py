"""Matplotlib (Agg) plots for the benchmark report: small, labelled, log axes where sizes grow."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["bar_plot", "cdf_plot", "line_plot"]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    _pyplot().close(fig)
    return path


def cdf_plot(path: Path, series: Mapping[str, Sequence[float]], *, title: str, xlabel: str = "latency, ms (log)") -> Path:
    """Empirical CDFs of latency samples, log x axis, with p50/p95/p99 guide lines."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name, values in series.items():
        s = sorted(values)
        if not s:
            continue
        ys = [(i + 1) / len(s) for i in range(len(s))]
        ax.plot(s, ys, label=name, linewidth=1.8)
    for q in (0.5, 0.95, 0.99):
        ax.axhline(q, color="grey", linewidth=0.6, linestyle=":")
        ax.text(0.0, q, f" p{round(q * 100)}", va="bottom", ha="left", fontsize=7,
                color="grey", transform=ax.get_yaxis_transform())
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of calls")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="lower right", fontsize=8)
    return _save(fig, path)


def line_plot(
    path: Path,
    xs: Sequence[float],
    series: Mapping[str, Sequence[float]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    logx: bool = True,
    logy: bool = True,
    vline: tuple[float, str] | None = None,
) -> Path:
    """One line per series over the same x values (markers on the measured points)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name, ys in series.items():
        ax.plot(list(xs), list(ys), marker="o", label=name, linewidth=1.8)
    if vline is not None:
        ax.axvline(vline[0], color="grey", linestyle="--", linewidth=1)
        ax.text(vline[0], 0.98, f" {vline[1]}", rotation=90, va="top", ha="right", fontsize=8, color="grey",
                transform=ax.get_xaxis_transform())
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8)
    return _save(fig, path)


def bar_plot(
    path: Path,
    groups: Sequence[str],
    series: Mapping[str, Sequence[float]],
    *,
    title: str,
    ylabel: str,
    ylim: tuple[float, float] | None = None,
    hline: tuple[float, str] | None = None,
) -> Path:
    """Grouped bars: one group per label in ``groups``, one bar per series; ``hline`` a labelled reference."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(groups) + 2), 4.5))
    n = max(1, len(series))
    width = 0.8 / n
    for i, (name, ys) in enumerate(series.items()):
        pos = [g + (i - (n - 1) / 2) * width for g in range(len(groups))]
        bars = ax.bar(pos, list(ys), width=width, label=name)
        ax.bar_label(bars, fmt="%.0f", fontsize=6, padding=1)
    if hline is not None:
        ax.axhline(hline[0], color="black", linestyle="--", linewidth=1, label=hline[1])
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(list(groups), fontsize=8)
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.25)
    ax.legend(fontsize=7, ncol=min(3, n + (hline is not None)), loc="upper center", bbox_to_anchor=(0.5, -0.14))
    return _save(fig, path)
