"""``graphmem reliability``: scripted fault, hostile-input, isolation and load runs with figures."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["register"]

# Each part module defines ``register(verbs)`` adding its verb(s) with ``set_defaults(handler=...)``.
_PARTS = (
    "graphmem_devtools.reliability.faults",
    "graphmem_devtools.reliability.hostile",
    "graphmem_devtools.reliability.isolation",
    "graphmem_devtools.reliability.load",
)


def register(sub: Any) -> None:
    p = sub.add_parser("reliability", help="scripted fault, hostile-input, isolation and load runs (figures)")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")
    for name in _PARTS:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:
                continue  # that part is not built yet
            raise
        mod.register(verbs)
