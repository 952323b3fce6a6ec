"""The shape every part of ``graphmem bench all`` returns, so the report can assemble them.

A part is one comparison or measurement (writes side by side, retrieval strategies, LoCoMo quality,
growth, import throughput...). It measures, writes its own plots under ``out_dir`` and returns a
:class:`PartResult`; :mod:`graphmem_devtools.bench.report` turns a list of them into ``report.md`` (sections +
headline table), ``report.json`` (every figure) and links the PNG plots.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Headline", "PartResult"]


@dataclass(frozen=True)
class Headline:
    """One row of the report's (and the README's) headline table."""

    measure: str  # e.g. "store_turn p50 (3 tool calls)"
    graphmem: str  # e.g. "4.1 ms"
    other: str  # e.g. "langchain-neo4j add_messages 6.3 ms" ("" when there is no other side)
    ratio: str  # e.g. "0.65x" ("" when not a comparison)


@dataclass
class PartResult:
    """What one benchmark part measured."""

    name: str  # short machine name: "writes", "retrieval", "quality", "growth", "import"
    title: str  # section title in the report
    figures: dict[str, Any]  # every figure, JSON-serialisable
    markdown: str  # the section body: tables and prose (no top-level heading)
    plots: list[Path] = field(default_factory=list)  # PNG files written under the output directory
    headline: list[Headline] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # method notes, load average, caveats
