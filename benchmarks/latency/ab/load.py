"""Keep a 100k-node load of the retrieval benchmark's synthetic data for A/B runs of search code.

Writes the namespace and its sessions to the JSON file given (default ``ns.json`` here); nothing is
deleted afterwards (delete the namespace with ``graphmem`` or drop the home when done). The database
must be indexed for 512-d vectors (``GRAPHMEM_EMBEDDER=local`` on a fresh ``GRAPHMEM_HOME``).

    GRAPHMEM_HOME=/tmp/lathome GRAPHMEM_EMBEDDER=local python benchmarks/latency/ab/load.py /tmp/ns.json
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from typing import Any

from graphmem.memory import GraphMemory
from graphmem_devtools.bench.retrieval import _load, _Synth


def main() -> int:
    out = sys.argv[1] if len(sys.argv) > 1 else "ns.json"
    mem = GraphMemory.from_settings(start=True)
    mem.init_schema()
    ns = f"/graphmem-bench/ab-{uuid.uuid4().hex[:8]}"
    sessions: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    _load(mem, _Synth(), ns, sessions, 100_000, {"n": 0}, print)
    mem.await_text_index()
    mem.db.write("meta/await_indexes", timeoutSeconds=600)
    print(f"loaded in {time.perf_counter() - t0:.0f} s")
    with open(out, "w") as f:
        json.dump({"ns": ns, "sessions": sessions}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
