"""graphmem's development tools, kept out of the graphmem wheel: the benchmarks (``graphmem bench``),
the reliability runs (``graphmem reliability``), their Cypher statements, the local OpenAI-compatible
test server and the managed test servers' specs.

Installed from a checkout next to graphmem (``make`` does ``pip install -e ".[dev]" -e ./devtools``);
the ``graphmem`` command finds the two command groups through the ``graphmem.commands`` entry points.
"""

from __future__ import annotations

__all__: list[str] = []
