"""``graphmem check``: verify the summary hierarchy's invariants with networkx.

Each session's summary forest is exported (``cypher/check/forest.cypher``) into a
``networkx.DiGraph`` whose edges are ``SUMMARIZES`` (parent -> child) and checked:

* ``turn-uncovered``: a turn without a level-1 summary although it is marked summarized (or, with
  ``complete=True``, i.e. "the worker has caught up", any turn without one);
* ``multiple-parents``: a turn or summary covered by more than one summary;
* ``parent-level``: a turn covered by a summary whose level is not 1, or a level-n summary covered
  by one whose level is not n + 1;
* ``cycle``: ``SUMMARIZES`` edges that loop;
* ``char-count`` / ``turn-count``: a summary's charCount / turnCount differ from the sums over the
  turns of its subtree;
* ``timestamp``: a summary's timestamp is not its latest covered turn's timestamp;
* ``index-range``: ``fromIndex`` / ``toIndex`` are not the subtree's first and last turn indexes;
* ``no-children``, ``cross-session``, ``has-summary``, ``turn-state``: a summary covering nothing,
  an edge between two sessions, a missing or wrong ``HAS_SUMMARY {level}``, a covered turn still
  marked ``summaryState: 'pending'``.

Warnings (not failures): ``not-contiguous`` subtrees, and failed summary jobs.

Neo4j reads are read-committed: one export statement can read a session's turns before a worker's
commit and its summaries after it (a turn still ``pending`` that a new summary already covers). A
session whose export shows an error is therefore read again at once (up to twice) and judged
on the last read; an error in the data persists across reads, a race does not.
``CheckReport.rereads`` counts the extra reads.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from .db import Database
from .db.rows import native

__all__ = ["CheckReport", "Problem", "check_forest", "check_hierarchy"]

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One broken invariant."""

    session_id: str
    code: str
    node_id: str
    message: str
    severity: Severity = "error"

    def line(self) -> str:
        return f"[{self.severity}] {self.code}: {self.message} (session {self.session_id}, node {self.node_id})"


@dataclass
class CheckReport:
    """What :func:`check_hierarchy` found."""

    sessions: int = 0
    turns: int = 0
    summaries: Counter[int] = field(default_factory=Counter)
    """Summaries by level."""
    awaiting: int = 0
    """Turns not summarized yet (fine while the worker is catching up, unless ``complete``)."""
    queued_jobs: int = 0
    failed_jobs: int = 0
    complete: bool = False
    problems: list[Problem] = field(default_factory=list)
    rereads: int = 0
    """Sessions exported again because the first read showed an error (see the module docstring)."""

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def codes(self) -> set[str]:
        return {p.code for p in self.errors}

    def text(self, *, max_lines: int = 200) -> str:
        """The human-readable report ``graphmem check`` prints."""
        levels = ", ".join(f"L{lvl}: {n}" for lvl, n in sorted(self.summaries.items())) or "none"
        lines = [
            f"checked {self.sessions} session(s): {self.turns} turns, summaries {levels}",
            f"turns awaiting a summary: {self.awaiting}; jobs queued: {self.queued_jobs}, failed: {self.failed_jobs}",
        ]
        if self.rereads:
            lines.append(f"re-read {self.rereads} time(s): a first read showed an error (judged on the last read; "
                         "a read racing a worker's commit is not an error, a broken invariant persists)")
        errors, warnings = self.errors, [p for p in self.problems if p.severity == "warning"]
        if errors:
            by_code = Counter(p.code for p in errors)
            lines.append(f"FAILED: {len(errors)} error(s): " + ", ".join(f"{c} x{n}" for c, n in sorted(by_code.items())))
        else:
            lines.append("OK: every invariant holds" + (" (worker caught up)" if self.complete else ""))
        shown = (errors + warnings)[:max_lines]
        lines += ["  " + p.line() for p in shown]
        if len(errors) + len(warnings) > len(shown):
            lines.append(f"  ... and {len(errors) + len(warnings) - len(shown)} more")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "sessions": self.sessions,
            "turns": self.turns,
            "summaries_by_level": {str(k): v for k, v in sorted(self.summaries.items())},
            "awaiting": self.awaiting,
            "queued_jobs": self.queued_jobs,
            "failed_jobs": self.failed_jobs,
            "complete": self.complete,
            "rereads": self.rereads,
            "problems": [p.__dict__ for p in self.problems],
        }


def _same_time(a: Any, b: Any) -> bool:
    a, b = native(a), native(b)
    if isinstance(a, datetime) and isinstance(b, datetime):
        return a == b
    return bool(a == b)


def check_forest(forest: Mapping[str, Any], *, complete: bool = False, report: CheckReport | None = None) -> CheckReport:
    """Check one session's exported forest (a row of ``check/forest.cypher``) into ``report``."""
    import networkx as nx

    report = report or CheckReport(complete=complete)
    sid = str(forest["sessionId"])
    turns = {t["id"]: t for t in forest["turns"]}
    summaries = {m["id"]: m for m in forest["summaries"]}
    report.sessions += 1
    report.turns += len(turns)
    for m in summaries.values():
        report.summaries[int(m["level"])] += 1
    jobs = list(forest.get("jobs") or [])
    report.queued_jobs += sum(1 for j in jobs if j.get("state") != "failed")
    report.failed_jobs += sum(1 for j in jobs if j.get("state") == "failed")

    def add(code: str, node: str, message: str, severity: Severity = "error") -> None:
        report.problems.append(Problem(sid, code, node, message, severity))

    graph: Any = nx.DiGraph()
    for tid in turns:
        graph.add_node(tid, kind="turn")
    for mid, m in summaries.items():
        graph.add_node(mid, kind="summary", level=int(m["level"]))
    edges: list[Mapping[str, Any]] = list(forest["outgoing"]) + list(forest.get("incoming") or [])
    multi: Counter[tuple[str, str]] = Counter()
    for e in edges:
        if e["parent"] not in graph:
            graph.add_node(e["parent"], kind="external")
        if e["child"] not in graph:
            graph.add_node(e["child"], kind="external")
        multi[(e["parent"], e["child"])] += 1
        graph.add_edge(e["parent"], e["child"])
        if e.get("parentSession") is not None or (e["child"] not in turns and e["child"] not in summaries):
            add("cross-session", e["child"], f"summary {e['parent']} (another session) summarizes {e['child']}")
    for (p, c), n in multi.items():
        if n > 1:
            add("multiple-parents", c, f"{c} is summarized {n} times by the same summary {p}")

    def level_of(node: str) -> int | None:
        if node in turns:
            return 0
        m = summaries.get(node)
        return int(m["level"]) if m is not None else None

    # -- coverage and levels ---------------------------------------------------------------
    for node, kind in ((t, "turn") for t in turns):
        _check_parents(graph, node, kind, level_of, add)
    for node in summaries:
        _check_parents(graph, node, "summary", level_of, add)
    for tid, t in turns.items():
        parents = list(graph.predecessors(tid))
        if not parents:
            if t.get("summaryState") == "done" or complete:
                add("turn-uncovered", tid, f"turn {t['index']} has no level-1 summary"
                    + (" although it is marked summarized" if t.get("summaryState") == "done" else ""))
            else:
                report.awaiting += 1
        elif t.get("summaryState") != "done":
            add("turn-state", tid, f"turn {t['index']} is summarized but marked summaryState={t.get('summaryState')!r}")

    # -- cycles ----------------------------------------------------------------------------
    in_cycle: set[str] = set()
    for comp in nx.strongly_connected_components(graph):
        if len(comp) > 1:
            in_cycle |= set(comp)
            add("cycle", sorted(comp)[0], "SUMMARIZES loops through " + ", ".join(sorted(comp)))
    for node in nx.nodes_with_selfloops(graph):
        in_cycle.add(node)
        add("cycle", node, f"{node} summarizes itself")

    # -- sums, timestamps, ranges ----------------------------------------------------------
    for mid, m in summaries.items():
        hs = list(m.get("hasSummary") or [])
        if not any(h["session"] == sid and h["level"] == m["level"] for h in hs):
            add("has-summary", mid, f"level-{m['level']} summary lacks (:Session {{id: {sid}}})-[:HAS_SUMMARY "
                f"{{level: {m['level']}}}]; found {hs}")
        children = list(graph.successors(mid))
        if not children:
            add("no-children", mid, f"level-{m['level']} summary summarizes nothing")
            continue
        reach = nx.descendants(graph, mid)
        if reach & in_cycle or mid in in_cycle:
            continue
        covered = [turns[n] for n in reach if n in turns]
        chars = sum(int(t["charCount"] or 0) for t in covered)
        if int(m.get("charCount") or 0) != chars:
            add("char-count", mid, f"level-{m['level']} summary has charCount {m.get('charCount')}, "
                f"its {len(covered)} turns have {chars}")
        if int(m.get("turnCount") or 0) != len(covered):
            add("turn-count", mid, f"level-{m['level']} summary has turnCount {m.get('turnCount')}, "
                f"it covers {len(covered)} turns")
        if covered:
            latest = max(native(t["timestamp"]) for t in covered)
            if not _same_time(m.get("timestamp"), latest):
                add("timestamp", mid, f"level-{m['level']} summary has timestamp {native(m.get('timestamp'))}, "
                    f"its latest turn {latest}")
            indexes = sorted(int(t["index"]) for t in covered)
            if m.get("fromIndex") is not None and (m["fromIndex"], m["toIndex"]) != (indexes[0], indexes[-1]):
                add("index-range", mid, f"level-{m['level']} summary says turns {m['fromIndex']}..{m['toIndex']}, "
                    f"covers {indexes[0]}..{indexes[-1]}")
            if indexes[-1] - indexes[0] + 1 != len(indexes):
                add("not-contiguous", mid, f"level-{m['level']} summary covers non-consecutive turns "
                    f"({len(indexes)} turns in {indexes[0]}..{indexes[-1]})", "warning")
    for j in jobs:
        if j.get("state") == "failed":
            add("failed-job", str(j["id"]), f"level-{j['level']} summary job over {len(j.get('childIds') or [])} "
                f"children failed: {j.get('lastError')}", "error" if complete else "warning")
    return report


def _check_parents(
    graph: Any, node: str, kind: str, level_of: Any, add: Any
) -> None:
    parents = list(graph.predecessors(node))
    own = level_of(node)
    if len(parents) > 1:
        add("multiple-parents", node, f"{kind} {node} is summarized by {len(parents)} summaries: {sorted(parents)}")
    for p in parents:
        pl = level_of(p)
        if own is not None and pl is not None and pl != own + 1:
            what = "turn" if own == 0 else f"level-{own} summary"
            add("parent-level", node, f"{what} {node} is summarized by a level-{pl} summary {p} (expected level {own + 1})")


def check_hierarchy(
    db: Database,
    session_ids: Sequence[str] | None = None,
    *,
    path: str | None = None,
    complete: bool = False,
) -> CheckReport:
    """Check the given sessions (default: those under ``path``, or every session)."""
    report = CheckReport(complete=complete)
    ids: Iterable[str]
    if session_ids is not None:
        ids = session_ids
    else:
        rows = db.read("check/sessions", path=path, prefix=(path.rstrip("/") + "/") if path else None)
        ids = [r["id"] for r in rows]
    for sid in ids:
        one: CheckReport | None = None
        for attempt in range(1 + FOREST_REREADS):
            if attempt:
                report.rereads += 1
                time.sleep(REREAD_PAUSE_S)
            rows = db.read("check/forest", sessionId=sid)
            if not rows:
                one = None
                break
            one = check_forest(rows[0], complete=complete)
            if one.ok:
                break
        if one is not None:
            _merge(report, one)
    return report


FOREST_REREADS = 2
REREAD_PAUSE_S = 0.02
"""A racing commit was already visible in part, so it is complete by the time the first read ends;
a short pause is enough (and keeps ``check --complete`` on many sessions behind the worker fast)."""


def _merge(into: CheckReport, one: CheckReport) -> None:
    into.sessions += one.sessions
    into.turns += one.turns
    into.summaries.update(one.summaries)
    into.awaiting += one.awaiting
    into.queued_jobs += one.queued_jobs
    into.failed_jobs += one.failed_jobs
    into.problems += one.problems
