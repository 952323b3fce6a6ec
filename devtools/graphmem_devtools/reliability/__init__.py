"""Scripted reliability and security runs: faults, hostile input, isolation and load.

Each module registers its verbs under ``graphmem reliability`` and writes its figures to
``benchmarks/results/reliability-<part>.{md,json}``. The test suite runs each at tiny sizes.
"""

from __future__ import annotations

__all__: list[str] = []
