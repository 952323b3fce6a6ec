"""How much memory the managed Neo4j takes: sized from its store and the machine at each start.

A personal memory starts small and grows. With ``auto`` (the default of ``GRAPHMEM_HEAP`` and
``GRAPHMEM_PAGECACHE``):

* the Java heap starts at 128 MiB and may grow to an eighth of the machine's memory, at least
  512 MiB and at most 2 GiB;
* the page cache holds twice the store plus 64 MiB (room to grow until the next start), at least
  128 MiB and at most a quarter of the machine's memory or 2 GiB, whichever is smaller.

An explicit size (``512m``, ``1g``, ``1500000k``, a number of bytes) is taken as it is: for the heap it
is the maximum (the heap still starts at 128 MiB or less).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "AUTO",
    "MemoryPlan",
    "format_size",
    "machine_memory",
    "parse_size",
    "plan_memory",
    "store_bytes",
]

AUTO = "auto"
KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

HEAP_INITIAL = 128 * MiB
HEAP_FLOOR = 512 * MiB
HEAP_CEILING = 2 * GiB
PAGECACHE_FLOOR = 128 * MiB
PAGECACHE_CEILING = 2 * GiB
PAGECACHE_HEADROOM = 64 * MiB

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": KiB, "m": MiB, "g": GiB, "t": 1024 * GiB}


def parse_size(text: str) -> int:
    """Bytes of a size as Neo4j and the JVM spell it (``512m``, ``2g``, ``2GiB``, ``1048576``)."""
    m = _SIZE.match(text)
    if m is None:
        raise ValueError(f"not a size: {text!r} (expected e.g. 512m, 2g or {AUTO!r})")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def format_size(n: int) -> str:
    """``n`` bytes as whole MiB, rounded up (``512m``): a spelling both the JVM and Neo4j accept."""
    return f"{max(1, math.ceil(n / MiB))}m"


def machine_memory() -> int | None:
    """Bytes of memory this process may use: the machine's, or its cgroup's limit when lower."""
    total: int | None = None
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        total = None
    for limit_file in (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes")):
        try:
            raw = limit_file.read_text().strip()
        except OSError:
            continue
        if raw.isdigit() and (total is None or int(raw) < total):
            total = int(raw)
        break
    return total


def store_bytes(data_dir: Path) -> int:
    """Bytes of the store files under ``data_dir/databases`` (what the page cache maps)."""
    total = 0
    root = data_dir / "databases"
    if not root.is_dir():
        return 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                continue
    return total


@dataclass(frozen=True)
class MemoryPlan:
    """The memory settings of one start (each spelled as the JVM and ``neo4j.conf`` want it)."""

    heap_initial: str
    heap_max: str
    pagecache: str


def plan_memory(heap: str, pagecache: str, *, store: int, machine: int | None) -> MemoryPlan:
    """The heap and page cache for a store of ``store`` bytes on a machine of ``machine`` bytes
    (None: unknown, the ceilings apply). ``heap``/``pagecache`` are ``auto`` or explicit sizes."""
    if heap.strip().lower() == AUTO:
        share = machine // 8 if machine else HEAP_CEILING
        heap_max = min(HEAP_CEILING, max(HEAP_FLOOR, share))
    else:
        heap_max = parse_size(heap)
    if pagecache.strip().lower() == AUTO:
        ceiling = min(PAGECACHE_CEILING, machine // 4) if machine else PAGECACHE_CEILING
        cache = min(max(PAGECACHE_FLOOR, 2 * store + PAGECACHE_HEADROOM), max(PAGECACHE_FLOOR, ceiling))
    else:
        cache = parse_size(pagecache)
    return MemoryPlan(
        heap_initial=format_size(min(HEAP_INITIAL, heap_max)),
        heap_max=format_size(heap_max),
        pagecache=format_size(cache),
    )
