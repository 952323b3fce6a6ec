"""Hostile input: property-based cases over the public API and the CLI.

``graphmem reliability hostile --cases 10000`` draws cases with hypothesis (a ``dev``
dependency, imported lazily) and runs each against a throw-away namespace: hostile session ids,
cwd paths, messages, tool arguments, search queries (Lucene syntax, huge strings, control
characters, NUL, lone surrogates, invalid UTF-8 read from files), through :class:`GraphMemory`
and through ``graphmem.cli.main.main(argv)`` in-process (plus a few real subprocesses); chat-agent
calls too (conversations under the run's chat root, live messages in the run's own rooms, the
memory tools with any JSON a model may send) and notes (a vault of its own: file names and bytes of
any kind).

Each case declares the outcomes it expects: the API call returns, or raises one of the listed
:class:`~graphmem.errors.GraphMemError` subclasses (``InvalidInput``, ``NotFound``); the CLI
exits with one of the listed codes (0, 2 usage/invalid input, 3 not found) and prints no
traceback. Anything else fails the run with its message recorded: a ``DatabaseError`` (Neo4j
refused or failed a statement), a ``CypherError``, any other error, an unexpected exit code.
Only the cases that ran are counted (a case hypothesis abandons while drawing is not); a share
``cli_share`` of the counted in-process cases goes through the CLI. Stored text must read back
as written (lone surrogates become U+FFFD, the documented text rule). A control namespace, built
before the run, must be byte-for-byte identical afterwards (every property of every node and
relationship), and the target session's turn indexes must stay 1..n. Everything the run creates
is deleted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphmem.chat import ChatConfig, clear_live
from graphmem.db import Database
from graphmem.errors import GraphMemError, SessionNotFound
from graphmem.memory import GraphMemory
from graphmem.notes.store import NotesConfig

from ..statements import dev_db
from .hostile_cases import (
    CLI_EXPECTED,
    CaseRunner,
    HostileReport,
    api_case,
    chat_rooms,
    cli_case,
    subprocess_case,
)

__all__ = [
    "CLI_EXPECTED",
    "HostileReport",
    "cleanup",
    "namespace_snapshot",
    "register",
    "run_hostile",
    "seed_control",
    "snapshot_diff",
]

RESULT_NAME = "reliability-hostile"


# -- namespaces ---------------------------------------------------------------------------------
def namespace_snapshot(db: Database, path: str, session_ids: list[str] | None = None) -> dict[str, Any]:
    """Every node of the namespace ``path`` (and of ``session_ids``) with its properties and
    outgoing relationships, keyed by labels and id, as JSON-comparable values."""
    rows = dev_db(db).read("reliability/namespace_snapshot", path=path, prefix=path.rstrip("/") + "/",
                   sessionIds=session_ids or [])
    out: dict[str, Any] = {}
    for r in rows:
        if WORKER_LABELS & set(r["labels"]):
            continue
        key = f"{':'.join(sorted(r['labels']))}/{r['key']}"
        rels = sorted(json.dumps(_plain(x), sort_keys=True) for x in r["rels"]
                      if x is not None and x["type"] not in WORKER_RELS)
        props = {k: v for k, v in r["props"].items() if k not in WORKER_KEYS and "mbedding" not in k}
        out[key] = {"props": _plain(props), "rels": rels}
    return out


# Written by the summarizer worker (anyone's, on a shared server) on every pending turn: not a
# change made by the cases, so snapshots leave them out (and every ``*embedding``/``*Embedding`` key).
WORKER_KEYS = frozenset({"embedState", "summaryState", "embedding", "contextText", "embeddedAt", "summarizedAt",
                         "embedModel", "embedError", "summaryError", "leaseUntil", "leasedBy", "embeddingHash",
                         "embeddingModel", "rollupState", "sessionText", "sessionTextTurns", "chars"})
WORKER_LABELS = frozenset({"Summary", "SummaryJob", "SummaryCursor"})
WORKER_RELS = frozenset({"SUMMARIZES", "HAS_SUMMARY"})


def snapshot_diff(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What differs between two snapshots: added/removed nodes, changed properties."""
    out = [f"added {k}" for k in after if k not in before] + [f"removed {k}" for k in before if k not in after]
    for k in before:
        if k in after and before[k] != after[k]:
            b, a = before[k]["props"], after[k]["props"]
            keys = sorted(x for x in set(a) | set(b) if a.get(x) != b.get(x))
            out.append(f"{k}: {keys or 'relationships'}")
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def seed_control(mem: GraphMemory, path: str) -> str:
    """A control namespace: a session with turns and tool calls, a session fact, a project fact."""
    s = mem.create_session(path + "/control", project_path=path, agent="control", title="control session")
    for i in range(3):
        mem.store_turn(s.id, f"control question {i} AND (timezone)", f"control answer {i} \x00 ok",
                       tool_calls=[{"name": "Bash", "args": {"command": f"pytest -k t{i}"}, "result": "1 passed",
                                    "success": True, "duration_ms": 12}])
    mem.remember("control fact: the staging database is shop_staging", ["control"], scope=f"session:{s.id}")
    mem.remember("control project decision: PostgreSQL 16", ["control"], scope=f"project:{path}", type="decision")
    return s.id


def cleanup(db: Database, path: str, session_ids: list[str] | tuple[str, ...] = ()) -> None:
    """Delete the sessions at or under ``path`` and the listed ones, and the namespace's facts."""
    from graphmem.facts import delete_facts_under_path

    mem = GraphMemory(db)
    ids = {row["id"] for row in db.read("maintenance/sessions_under_path", path=path, prefix=path + "/")}
    ids.update(session_ids)
    for sid in ids:
        with contextlib.suppress(SessionNotFound):
            mem.delete_session(sid)
    delete_facts_under_path(db, path)


def run_hostile(
    db: Database,
    *,
    cases: int = 10_000,
    seed: int = 0,
    subprocess_cases: int = 0,
    cli_share: float = 0.1,
    subprocess_env: dict[str, str] | None = None,
    progress: Callable[[int], None] | None = None,
    max_seconds: float | None = None,
) -> HostileReport:
    """Run at least ``cases`` hostile cases (API and in-process CLI, ``cli_share`` of them CLI)
    plus ``subprocess_cases`` real CLI processes; the in-process and subprocess CLI use the
    environment's settings (``subprocess_env`` for the latter), which must point at ``db``.
    ``max_seconds`` stops drawing cases after that long (the report says so)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    from . import _strategies as hs

    run_id = uuid.uuid4().hex[:12]
    ns = f"/graphmem-hostile/{run_id}"
    control_ns = f"/graphmem-hostile-control/{run_id}"
    report = HostileReport()
    started = time.perf_counter()
    tracked: list[str] = []
    with tempfile.TemporaryDirectory(prefix="graphmem-hostile-") as tmpdir:
        tmp = Path(tmpdir)
        (tmp / "vault").mkdir()
        mem = GraphMemory(db, chat=ChatConfig(root=ns + "/chat"), notes=NotesConfig(vault=tmp / "vault"))
        try:
            control_id = seed_control(mem, control_ns)
            before = namespace_snapshot(db, control_ns)
            target = mem.create_session(ns + "/target", agent="hostile").id
            runner = CaseRunner(mem, ns, target, report, tmp)

            def in_ns(p: str) -> bool:
                return p == ns or p.startswith(ns + "/")

            scope_t = f"session:{target}"

            def out_of_time() -> bool:
                return max_seconds is not None and time.perf_counter() - started > max_seconds

            def run_case(use_cli: bool, data: st.DataObject) -> None:
                if out_of_time():
                    return  # no draw, not counted: hypothesis runs out its remaining examples quickly
                if use_cli:
                    cli_case(runner, data.draw, hs, st)
                else:
                    api_case(runner, data.draw, hs, st, in_ns, tracked, scope_t)
                if progress is not None:
                    progress(report.cases)

            def one_api(data: st.DataObject) -> None:
                run_case(False, data)

            def one_cli(data: st.DataObject) -> None:
                run_case(True, data)

            # The CLI share is set by the counts, not drawn: hypothesis skews its draws toward edge
            # values. Rounds of API cases and of CLI cases alternate, each its own hypothesis run.
            want_cli = round(cases * cli_share)
            want_api = cases - want_cli
            chunk_api = 200
            chunk_cli = max(1, round(chunk_api * cli_share / max(1e-9, 1 - cli_share)))
            rounds = stalled = 0
            while report.cases < cases and stalled < 3:
                before_round = report.cases
                api_done = report.cases - report.cli_cases
                for case, todo in ((one_api, min(chunk_api, want_api - api_done)),
                                   (one_cli, min(chunk_cli, want_cli - report.cli_cases))):
                    if todo <= 0:
                        continue
                    test = settings(max_examples=todo, database=None, deadline=None, derandomize=False,
                                    suppress_health_check=list(HealthCheck), phases=[Phase.generate])(
                        given(st.data())(case))
                    test = _seeded(test, seed * 100_003 + rounds)
                    rounds += 1
                    try:
                        test()
                    except Exception:
                        # hypothesis calls an example that stopped drawing at the time limit "flaky"
                        if not out_of_time():
                            raise
                    if out_of_time():
                        break
                if out_of_time():
                    report.stopped_by_time_limit = True
                    break
                stalled = stalled + 1 if report.cases == before_round else 0
            for i in range(subprocess_cases):
                subprocess_case(runner, i, target, ns, subprocess_env or dict(os.environ))
            after = namespace_snapshot(db, control_ns)
            report.control_unchanged = before == after
            if not report.control_unchanged:
                report.failures.append(f"control namespace changed: {snapshot_diff(before, after)[:10]}")
            idx = [t.index for t in mem.load_session(target).turns]
            report.target_indexes_contiguous = idx == list(range(1, len(idx) + 1))
            if not report.target_indexes_contiguous:
                report.failures.append("target session turn indexes are not 1..n")
            _ = control_id
        finally:
            report.seconds = time.perf_counter() - started
            tracked.extend(runner.created if "runner" in locals() else [])
            cleanup(db, ns, tracked)
            cleanup(db, control_ns)
            dev_db(db).write("reliability/chat_cleanup", prefix=ns + "/")
            for room in chat_rooms(ns):
                clear_live(db, room)
            shutil.rmtree(tmp / "vault")
            (tmp / "vault").mkdir()
            mem.sync_notes()  # an empty vault: its notes leave the graph
    return report


def _seeded(test: Any, seed: int) -> Any:
    from hypothesis import seed as hseed

    return hseed(seed)(test)


# -- CLI verb -----------------------------------------------------------------------------------
def register(verbs: Any) -> None:
    p = verbs.add_parser("hostile", help="property-based hostile input over the API and the CLI (hypothesis)")
    p.add_argument("--cases", type=int, default=10_000, help="generated cases (default 10,000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--subprocess-cases", type=int, default=20, help="real CLI processes on top (default 20)")
    p.add_argument("--cli-share", type=float, default=0.1, help="share of in-process CLI cases (default 0.1)")
    p.add_argument("--workers", type=int, default=1,
                   help="run the cases in N processes (seeds seed..seed+N-1), figures merged (default 1)")
    p.add_argument("--max-minutes", type=float, default=None,
                   help="stop drawing cases after this long and report the count reached")
    p.add_argument("--report-json", default=None, help=argparse.SUPPRESS)  # one worker's report (internal)
    p.add_argument("--out", default="benchmarks/results", help="results folder ('-' to write nothing)")
    p.add_argument("--name", default=RESULT_NAME, help=f"results file name (default {RESULT_NAME})")
    p.set_defaults(handler=_main)


def _merge(reports: list[dict[str, Any]]) -> HostileReport:
    total = HostileReport()
    for d in reports:
        total.cases += d["cases"]
        total.cli_cases += d["cli_cases"]
        total.by_kind.update(d["by_kind"])
        total.outcomes.update(d["outcomes"])
        for k, v in d["seconds_by_kind"].items():
            total.add_seconds(k, v)
        total.failures.extend(d["all_failures"])
        total.control_unchanged &= d["control_unchanged"]
        total.target_indexes_contiguous &= d["target_indexes_contiguous"]
        total.subprocess_cases += d["subprocess_cases"]
        total.stopped_by_time_limit |= d["stopped_by_time_limit"]
    return total


def _run_workers(args: argparse.Namespace, tmp: Path) -> HostileReport:
    """``args.workers`` child processes of this verb, each with its share of the cases and its own
    namespaces; their reports are merged (the run's seconds are the wall-clock time of all)."""
    procs = []
    per = -(-args.cases // args.workers)
    sub_per = -(-args.subprocess_cases // args.workers)
    for i in range(args.workers):
        path = tmp / f"worker-{i}.json"
        argv = [sys.executable, "-c", "import sys; from graphmem.cli import main; sys.exit(main())", "reliability", "hostile", "--cases", str(per),
                "--seed", str(args.seed + i), "--subprocess-cases", str(sub_per), "--cli-share", str(args.cli_share),
                "--out", "-", "--report-json", str(path)]
        if args.max_minutes is not None:
            argv += ["--max-minutes", str(args.max_minutes)]
        procs.append((subprocess.Popen(argv, stdout=subprocess.DEVNULL), path))
    reports = []
    for proc, path in procs:
        proc.wait()
        if not path.exists():
            raise GraphMemError(f"a hostile worker exited with {proc.returncode} and no report")
        reports.append(json.loads(path.read_text()))
    return _merge(reports)


def _main(args: argparse.Namespace) -> int:
    from graphmem.cli.common import open_memory

    from ..bench.common import BenchResult, machine_info, source_commit, write_results

    commit = source_commit()  # the code this run measures (the checkout may change while it runs)
    os.environ.setdefault("GRAPHMEM_EMBEDDER", "none")  # in-process CLI cases: no model load per call
    load_before = os.getloadavg()
    last = [0.0]

    def progress(n: int) -> None:
        now = time.monotonic()
        if now - last[0] > 30:
            last[0] = now
            print(f"hostile (seed {args.seed}): {n} cases", file=sys.stderr, flush=True)

    started = time.perf_counter()
    with open_memory() as mem:
        version = mem.db.server_info().version
        if args.workers > 1:
            with tempfile.TemporaryDirectory(prefix="graphmem-hostile-") as tmp:
                report = _run_workers(args, Path(tmp))
            report.seconds = time.perf_counter() - started
        else:
            report = run_hostile(mem.db, cases=args.cases, seed=args.seed, subprocess_cases=args.subprocess_cases,
                                 cli_share=args.cli_share, subprocess_env=dict(os.environ), progress=progress,
                                 max_seconds=args.max_minutes * 60 if args.max_minutes is not None else None)
    if args.report_json:
        Path(args.report_json).write_text(json.dumps({**report.as_dict(), "all_failures": report.failures}))
        return 0
    load_after = os.getloadavg()
    figures = report.as_dict()
    figures["loadavg_before"] = [round(x, 2) for x in load_before]
    figures["loadavg_after"] = [round(x, 2) for x in load_after]
    print(json.dumps({k: v for k, v in figures.items() if k != "failure_samples"}, indent=2))
    for f in report.failures[:20]:
        print(f"FAILURE: {f}", file=sys.stderr)
    if args.out != "-":
        cmd = "graphmem reliability hostile " + " ".join(
            f"--{k.replace('_', '-')} {v}" for k, v in (("cases", args.cases), ("seed", args.seed),
                                                       ("subprocess_cases", args.subprocess_cases),
                                                       ("cli_share", args.cli_share), ("workers", args.workers)))
        if args.max_minutes is not None:
            cmd += f" --max-minutes {args.max_minutes}"
        if args.name != RESULT_NAME:
            cmd += f" --name {args.name}"
        res = BenchResult(args.name, cmd, {**machine_info(version), "commit": commit}, figures=figures, notes=[
            "Each case declares what it expects: an API call returns or raises InvalidInput (and NotFound "
            "when given a hostile id); a CLI case exits 0 or 2 (and 3 when given a hostile id) without a "
            "traceback. Anything else fails the run with its message: DatabaseError, CypherError, any other "
            "error, another exit code. Stored turns must read back as written (lone surrogates -> U+FFFD).",
            "Only cases that ran are counted; cli_share is the in-process CLI cases' share of the in-process "
            "cases.",
            "The control namespace (a session with turns, tool calls, a session and a project fact) is compared "
            "property by property before and after the run.",
            f"Embedder for the run: {os.environ.get('GRAPHMEM_EMBEDDER')} (CLI cases open a connection per call).",
            "The machine is shared (2 cores, other helpers running): the case rate is indicative only.",
        ])
        js, md = write_results(res, Path(args.out))
        print(f"wrote {md} and {js}", file=sys.stderr)
    return 0 if report.ok else 1
