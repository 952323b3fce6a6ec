"""The fault runs' results file: each part updates its own section of
``reliability-faults.{md,json}``."""

from __future__ import annotations

import contextlib
import fcntl
import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ._fault_common import load_avg

__all__ = ["RESULTS_NAME", "write_fault_results"]


RESULTS_NAME = "reliability-faults"


# ---------------------------------------------------------------------------------------------
# results


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def write_fault_results(out_dir: Path, parts: dict[str, Any], *, command: str, notes: Sequence[str] = (),
                        name: str = RESULTS_NAME, commit: str | None = None) -> Path:
    """Merge ``parts`` into ``reliability-faults.json`` (other parts' sections are kept) and
    rewrite the markdown from the merged figures. ``commit`` is the code measured (default: the
    checkout's commit now; a run passes the one it started from)."""
    from ..bench.common import machine_info

    js = out_dir / f"{name}.json"
    with _locked(js):
        data: dict[str, Any] = {}
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(js.read_text())
        data.setdefault("parts", {})
        for part, figures in parts.items():
            machine = machine_info(figures.get("neo4j"))
            if commit is not None:
                machine["commit"] = commit
            data["parts"][part] = {"command": command, "machine": machine,
                                   "load_avg": load_avg(), "figures": figures, "notes": list(notes)}
        data["name"] = name
        data["updated"] = datetime.now(UTC).isoformat(timespec="seconds")
        js.write_text(json.dumps(data, indent=2, default=str) + "\n")
        (out_dir / f"{name}.md").write_text(_markdown(data))
    with contextlib.suppress(OSError):
        js.with_suffix(".lock").unlink()
    return js


_TITLES = {
    "neo4j_kill": "1. Neo4j SIGKILLed under writers, restarted by `graphmem db up`",
    "neo4j_kill_2": "1b. The same, a second run side by side with the first (its own server, writers and seed)",
    "worker_kill": "2. Summarizer workers SIGKILLed at random points",
    "openai_faults": "3. OpenAI-compatible server failing requests (429 / 500 / stall)",
    "disk": "4. Disk full / read-only `$GRAPHMEM_HOME` for the spool (Stop hook, Neo4j down)",
}


def _markdown(data: dict[str, Any]) -> str:
    lines = ["# Reliability: faults", "",
             "Produced by `graphmem reliability faults` (`devtools/graphmem_devtools/reliability/faults.py`); each part "
             "records its own command, machine, commit and load average, and its result: PASS only when its pass "
             "condition (below each table) holds. The test suite (`tests/integration/test_reliability_faults.py`) "
             "runs the same code at tiny sizes.", ""]
    for name in _TITLES:
        part = data.get("parts", {}).get(name)
        if part is None:
            continue
        m = part["machine"]
        fig = part["figures"]
        lines += [f"## {_TITLES[name]}", "",
                  f"Result: **{'PASS' if fig.get('ok') else 'FAIL'}**", "",
                  f"Command: `{part['command']}`", "",
                  f"Machine: {m.get('cpu')} ({m.get('cores')} cores, {m.get('memory_gb')} GB), Python "
                  f"{m.get('python')}, Neo4j {m.get('neo4j')}, {m.get('date')}, commit {m.get('commit')}; "
                  "load average at the end "
                  f"{part['load_avg']} (shared machine: timings are noisy)", "",
                  "| figure | value |", "|---|---|"]
        for k, v in fig.items():
            if k == "ok":
                continue
            if isinstance(v, dict) and "p50" in v:
                v = f"p50 {v['p50']}, p95 {v['p95']}, p99 {v['p99']}, max {v['max']} (n {v['n']})"
            text = json.dumps(v, default=str) if not isinstance(v, str) else v
            lines.append(f"| {k} | {text.replace('|', '/')} |")
        for n in part.get("notes", []):
            lines.append(f"\n- {n}")
        lines.append("")
    return "\n".join(lines) + "\n"
