"""The ``graphmem bench`` and ``graphmem reliability`` command groups (``graphmem.commands`` entry points)."""

from __future__ import annotations

__all__: list[str] = []
