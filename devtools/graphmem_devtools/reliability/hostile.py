"""Hostile input: property-based cases over the public API and the CLI.

``graphmem reliability hostile --cases 10000`` draws cases with hypothesis (a ``dev``
dependency, imported lazily) and runs each against a throw-away namespace: hostile session ids,
cwd paths, messages, tool arguments, search queries (Lucene syntax, huge strings, control
characters, NUL, lone surrogates, invalid UTF-8 read from files), through :class:`GraphMemory`
and through ``graphmem.cli.main.main(argv)`` in-process (plus a few real subprocesses).

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
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.db import Database
from graphmem.errors import CypherError, DatabaseError, GraphMemError, InvalidInput, NotFound, SessionNotFound
from graphmem.memory import GraphMemory
from graphmem.models import clean_text

from ..statements import dev_db

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


@dataclass
class HostileReport:
    """What a hostile run did."""

    cases: int = 0
    """Cases that ran (API, in-process CLI and subprocess CLI)."""
    cli_cases: int = 0
    """In-process CLI cases among them."""
    by_kind: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    """``ok`` (returned), ``rejected:<error type>`` (an expected GraphMemError), ``exit:<n>`` (CLI,
    argparse usage errors included as ``exit:2``), ``failure``."""
    failures: list[str] = field(default_factory=list)
    kind_seconds: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    control_unchanged: bool = True
    target_indexes_contiguous: bool = True
    subprocess_cases: int = 0
    stopped_by_time_limit: bool = False

    def add_seconds(self, kind: str, seconds: float) -> None:
        self.kind_seconds[kind] = self.kind_seconds.get(kind, 0.0) + seconds

    @property
    def ok(self) -> bool:
        return not self.failures and self.control_unchanged and self.target_indexes_contiguous

    @property
    def cli_share(self) -> float:
        """The in-process CLI cases' share of the in-process cases."""
        in_process = self.cases - self.subprocess_cases
        return round(self.cli_cases / in_process, 3) if in_process else 0.0

    def record(self, kind: str, outcome: str, seconds: float, failure: str | None = None, *,
               timed_as: str | None = None) -> None:
        """Count one case that ran (its time under ``timed_as``, default ``kind``)."""
        self.cases += 1
        self.by_kind[kind] += 1
        self.outcomes["failure" if failure else outcome] += 1
        self.add_seconds(timed_as or kind, seconds)
        if failure:
            self.failures.append(f"{kind}: {failure}")

    @property
    def rate(self) -> float:
        return round(self.cases / self.seconds, 1) if self.seconds else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "result": "PASS" if self.ok else "FAIL",
            "cases": self.cases,
            "cli_cases": self.cli_cases,
            "cli_share": self.cli_share,
            "failures": len(self.failures),
            "failure_samples": self.failures[:20],
            "seconds": round(self.seconds, 1),
            "cases_per_second": self.rate,
            "by_kind": dict(sorted(self.by_kind.items())),
            "outcomes": dict(sorted(self.outcomes.items())),
            "seconds_by_kind": {k: round(v, 2) for k, v in sorted(self.kind_seconds.items())},
            "control_unchanged": self.control_unchanged,
            "target_indexes_contiguous": self.target_indexes_contiguous,
            "subprocess_cases": self.subprocess_cases,
            "stopped_by_time_limit": self.stopped_by_time_limit,
        }


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
                         "embeddingModel", "rollupState", "sessionText", "sessionTextTurns"})
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


# -- running cases ------------------------------------------------------------------------------
@contextlib.contextmanager
def _captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield out, err


Rejects = tuple[type[GraphMemError], ...]

LOOKUP: Rejects = (InvalidInput, NotFound)
"""What a call given a hostile id may raise: the id is invalid, or no such thing exists."""
INVALID: Rejects = (InvalidInput,)
"""What a call on existing things with hostile values may raise."""
SERVER_SIDE: tuple[type[GraphMemError], ...] = (DatabaseError, CypherError)
"""Never an expected rejection, whatever a case lists: the server or a statement failed."""

CLI_EXPECTED = frozenset({0, 2})
"""Exit codes of a CLI case on existing things: done, or usage / invalid input (2)."""
CLI_LOOKUP = frozenset({0, 2, 3})
"""Exit codes of a CLI case given a hostile id: also 3, not found."""


class _Runner:
    """Executes drawn cases and records outcomes in a report."""

    def __init__(self, mem: GraphMemory, ns: str, target: str, report: HostileReport, tmp: Path) -> None:
        self.mem = mem
        self.ns = ns
        self.target = target
        self.report = report
        self.tmp = tmp
        self.created: list[str] = []
        """Sessions created outside the namespace path (hostile cwd), deleted at the end."""

    def api(self, kind: str, fn: Callable[[], Any], check: Callable[[Any], str | None] | None = None, *,
            rejects: Rejects = INVALID) -> None:
        """Run one API case: ``fn`` must return (and pass ``check``) or raise one of ``rejects``.
        A ``BaseException`` that is not an ``Exception`` (hypothesis abandoning the example)
        propagates and the case is not counted."""
        t0 = time.perf_counter()
        try:
            result = fn()
        except Exception as e:  # the property under test: only the declared rejections
            seconds = time.perf_counter() - t0
            if isinstance(e, rejects) and not isinstance(e, SERVER_SIDE):
                self.report.record(kind, f"rejected:{type(e).__name__}", seconds)
            else:
                expected = ", ".join(t.__name__ for t in rejects)
                self.report.record(kind, "", seconds, f"{type(e).__name__} (expected a result or {expected}): "
                                   f"{str(e)[:300]} {traceback.format_exc(limit=3)[-600:]}")
            return
        seconds = time.perf_counter() - t0
        problem = check(result) if check is not None else None
        self.report.record(kind, "ok", seconds, problem)

    def cli(self, kind: str, argv: list[str], *, exits: frozenset[int] = CLI_EXPECTED) -> str:
        """Run ``graphmem <argv>`` in-process; it must exit with one of ``exits`` and print no
        traceback. Returns stdout."""
        from graphmem.cli.main import main

        code: int | str | None
        t0 = time.perf_counter()
        crash = ""
        with _captured() as (out, err):
            try:
                code = main(argv)
            except SystemExit as e:  # argparse usage errors (2)
                code = e.code
            except Exception as e:
                code = None
                crash = f"{type(e).__name__}: {str(e)[:300]}"
        seconds = time.perf_counter() - t0
        self.report.cli_cases += 1
        stderr = err.getvalue()
        failure = None
        if crash:
            failure = f"raised {crash} argv={argv!r:.300}"
        elif "Traceback (most recent call last)" in stderr:
            failure = f"traceback on stderr: {stderr[-500:]}"
        elif code not in exits:
            failure = (f"exit {code} (expected one of {sorted(exits)}): {stderr.strip()[-300:]!r} "
                       f"argv={argv!r:.200}")
        self.report.record(kind, f"exit:{code}", seconds, failure, timed_as="cli:" + kind)
        return out.getvalue()

    def subprocess_cli(self, kind: str, argv: list[bytes], env: dict[str, str],
                       exits: frozenset[int] = CLI_LOOKUP) -> None:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable.encode(), b"-c", b"import sys; from graphmem.cli import main; sys.exit(main())",
                               *argv],
                              capture_output=True, timeout=300, env=env)
        self.report.subprocess_cases += 1
        err = proc.stderr.decode("utf-8", "replace")
        failure = None
        if "Traceback (most recent call last)" in err:
            failure = f"exit {proc.returncode}, traceback: {err[-500:]}"
        elif proc.returncode not in exits:
            failure = f"exit {proc.returncode} (expected one of {sorted(exits)}): {err.strip()[-300:]!r}"
        self.report.record(kind, f"exit:{proc.returncode}", time.perf_counter() - t0, failure)


def _roundtrip(expected_user: str, expected_assistant: str, mem: GraphMemory) -> Callable[[Any], str | None]:
    want_user, want_assistant = clean_text(expected_user), clean_text(expected_assistant)
    if getattr(mem, "redact", False):
        from graphmem.integrations.redaction import redact

        want_user, want_assistant = redact(want_user)[0], redact(want_assistant)[0]

    def check(turn: Any) -> str | None:
        back = mem.get_turn(turn.id)
        if back.user_message != want_user or back.assistant_message != want_assistant:
            return f"stored text differs from the input (turn {turn.id})"
        return None

    return check


def _session_check(ns_check: Callable[[str], bool], track: list[str]) -> Callable[[Any], str | None]:
    def check(session: Any) -> str | None:
        if not ns_check(session.cwd):
            track.append(session.id)
        return None

    return check


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
    mem = GraphMemory(db)
    started = time.perf_counter()
    tracked: list[str] = []
    with tempfile.TemporaryDirectory(prefix="graphmem-hostile-") as tmpdir:
        tmp = Path(tmpdir)
        try:
            control_id = seed_control(mem, control_ns)
            before = namespace_snapshot(db, control_ns)
            target = mem.create_session(ns + "/target", agent="hostile").id
            runner = _Runner(mem, ns, target, report, tmp)

            def in_ns(p: str) -> bool:
                return p == ns or p.startswith(ns + "/")

            scope_t = f"session:{target}"

            def out_of_time() -> bool:
                return max_seconds is not None and time.perf_counter() - started > max_seconds

            def run_case(use_cli: bool, data: st.DataObject) -> None:
                if out_of_time():
                    return  # no draw, not counted: hypothesis runs out its remaining examples quickly
                if use_cli:
                    _cli_case(runner, data.draw, hs, st)
                else:
                    _api_case(runner, data.draw, hs, st, in_ns, tracked, scope_t)
                if progress is not None:
                    progress(report.cases)

            def api_case(data: st.DataObject) -> None:
                run_case(False, data)

            def cli_case(data: st.DataObject) -> None:
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
                for case, todo in ((api_case, min(chunk_api, want_api - api_done)),
                                   (cli_case, min(chunk_cli, want_cli - report.cli_cases))):
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
                _subprocess_case(runner, i, target, ns, subprocess_env or dict(os.environ))
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
    return report


def _seeded(test: Any, seed: int) -> Any:
    from hypothesis import seed as hseed

    return hseed(seed)(test)


def _api_case(r: _Runner, draw: Any, hs: Any, st: Any, in_ns: Callable[[str], bool], tracked: list[str],
              scope_t: str) -> None:
    mem, target = r.mem, r.target
    op = draw(st.sampled_from([
        "store_turn", "store_turn", "store_turn_bad_session", "create_session", "create_session_cwd",
        "load_session", "recent_turns", "search", "search", "build_context", "remember", "search_facts",
        "facts_about", "forget", "delete_session", "import_turns", "get_turn", "sessions_for",
    ]))
    if op == "store_turn":
        u, a = draw(hs.hostile_text()), draw(hs.hostile_text())
        calls = draw(st.lists(st.fixed_dictionaries(
            {"name": hs.hostile_text(max_size=30, huge=False), "args": hs.hostile_json_value(),
             "result": st.one_of(st.none(), hs.hostile_text(huge=False)),
             "success": st.one_of(st.none(), st.booleans())}), max_size=3))
        r.api(op, lambda: mem.store_turn(target, u, a, tool_calls=calls), _roundtrip(u, a, mem))
    elif op == "store_turn_bad_session":
        sid = draw(hs.hostile_id())
        known = _exists(mem, sid)  # an earlier create_session case may have used this very id

        r.api(op, lambda: mem.store_turn(sid, "x", "y"),
              lambda t: None if known or t.session_id == target else f"stored into an unknown session {sid!r}",
              rejects=LOOKUP)
    elif op == "create_session":
        sid = draw(hs.hostile_id())
        cwd = r.ns + "/" + draw(hs.hostile_path_suffix())
        title = draw(st.one_of(st.none(), hs.hostile_text(max_size=50, huge=False)))
        agent = draw(st.one_of(st.none(), hs.hostile_text(max_size=20, huge=False)))
        r.api(op, lambda: mem.create_session(cwd, agent=agent, title=title, session_id=sid or None),
              _session_check(in_ns, tracked))
    elif op == "create_session_cwd":  # fully hostile cwd: may land outside the namespace (tracked)
        cwd = draw(st.one_of(hs.hostile_id(), st.sampled_from(["~", ".", "..", "../../etc", "/", "//x", "~root/x"])))
        r.api(op, lambda: mem.create_session(cwd, agent="hostile"), _session_check(in_ns, tracked))
    elif op == "load_session":
        sid = draw(st.one_of(hs.hostile_id(), st.just(target)))
        r.api(op, lambda: mem.load_session(sid), rejects=LOOKUP)
    elif op == "recent_turns":
        sid = draw(st.one_of(hs.hostile_id(), st.just(target)))
        mx, lim = draw(st.integers(-(2**40), 2**40)), draw(st.integers(-5, 2**31))
        r.api(op, lambda: mem.recent_turns(sid, max_chars=mx, limit=lim), rejects=LOOKUP)
    elif op == "search":
        q = draw(hs.hostile_query())
        scope = draw(st.sampled_from([scope_t, f"directory:{r.ns}", f"project:{r.ns}"]))
        mode = draw(st.sampled_from(["text", "hybrid", "semantic"]))
        k = draw(st.integers(-3, 500))

        def check(res: Any) -> str | None:
            bad = [h.id for h in res.hits if not h.cwd.startswith(r.ns)]
            return f"search returned items outside the scope: {bad[:2]}" if bad else None

        r.api(op, lambda: mem.search(q, scope=scope, k=k, mode=mode), check)
    elif op == "build_context":
        msg = draw(hs.hostile_text())
        r.api(op, lambda: mem.build_context(target, msg))
    elif op == "remember":
        content = draw(hs.hostile_text(huge=False))
        subjects = draw(st.lists(hs.hostile_text(max_size=20, huge=False), max_size=3))
        ttl = draw(st.one_of(st.none(), st.sampled_from(["1h", "7d", "never", "0d", "-1h", "", "x", "99999999d"]),
                             st.text(max_size=6)))
        typ = draw(st.one_of(st.none(), st.sampled_from(["fact", "identity", "todo"]), st.text(max_size=8)))
        imp = draw(st.one_of(st.none(), st.floats(allow_nan=True)))
        r.api(op, lambda: mem.remember(content, subjects, scope=scope_t, ttl=ttl, type=typ, importance=imp))
    elif op == "search_facts":
        q = draw(hs.hostile_query())
        limit = draw(st.one_of(st.none(), st.integers(-2, 200)))  # drawn before the call, never inside it
        r.api(op, lambda: mem.search_facts(q, scopes=[scope_t], limit=limit))
    elif op == "facts_about":
        subj = draw(hs.hostile_text(max_size=30, huge=False))
        r.api(op, lambda: mem.facts_about(subj, scopes=[scope_t]))
    elif op == "forget":
        topic = draw(hs.hostile_query())
        reason, dry_run = draw(hs.hostile_text(max_size=40, huge=False)), draw(st.booleans())
        r.api(op, lambda: mem.forget(topic, scopes=[scope_t], reason=reason, dry_run=dry_run))
    elif op == "delete_session":
        sid = draw(hs.hostile_id())
        if sid == target:
            return
        r.api(op, lambda: mem.delete_session(sid), rejects=LOOKUP)
    elif op == "import_turns":
        turns = draw(st.lists(st.fixed_dictionaries(
            {"user_message": hs.hostile_text(huge=False), "assistant_message": hs.hostile_text(huge=False),
             "source_id": st.one_of(st.none(), hs.hostile_id())}), max_size=5))
        r.api(op, lambda: mem.import_turns(target, turns))
    elif op == "get_turn":
        tid = draw(hs.hostile_id())
        r.api(op, lambda: mem.get_turn(tid), rejects=LOOKUP)
    elif op == "sessions_for":
        cwd = r.ns + "/" + draw(hs.hostile_path_suffix())
        r.api(op, lambda: mem.sessions_for(cwd))


def _exists(mem: GraphMemory, sid: str) -> bool:
    try:
        mem.get_session(sid)
    except GraphMemError:
        return False
    return True


def _cli_case(r: _Runner, draw: Any, hs: Any, st: Any) -> None:
    target, ns = r.target, r.ns
    op = draw(st.sampled_from([
        "turns_add", "turns_add_cwd", "sessions_show", "sessions_list", "turns_list", "search", "context",
        "facts_add", "facts_search", "import_file",
    ]))
    if op == "turns_add":
        r.cli(op, ["turns", "add", "--session", target, "--user", draw(hs.hostile_text(huge=False)),
                   "--assistant", draw(hs.hostile_text(huge=False))])
    elif op == "turns_add_cwd":
        out = r.cli(op, ["turns", "add", "--cwd", ns + "/" + draw(hs.hostile_path_suffix()), "--user",
                         draw(hs.hostile_text(huge=False)), "--assistant", "ok", "--json"])
        with contextlib.suppress(ValueError, AttributeError, TypeError):
            sid = json.loads(out).get("session_id") or json.loads(out).get("sessionId")
            if isinstance(sid, str):
                r.created.append(sid)
    elif op == "sessions_show":
        r.cli(op, ["sessions", "show", draw(st.one_of(hs.hostile_id(), st.just(target))), "--json"], exits=CLI_LOOKUP)
    elif op == "sessions_list":
        r.cli(op, ["sessions", "list", "--cwd", ns + "/" + draw(hs.hostile_path_suffix())])
    elif op == "turns_list":
        r.cli(op, ["turns", "list", draw(st.one_of(hs.hostile_id(), st.just(target))), "--limit",
                   str(draw(st.integers(-3, 1000)))], exits=CLI_LOOKUP)
    elif op == "search":
        r.cli(op, ["search", draw(hs.hostile_query()), "--scope", "session", "--session", target, "--mode",
                   draw(st.sampled_from(["text", "hybrid"])), "--json"])
    elif op == "context":
        r.cli(op, ["context", target, draw(hs.hostile_text(huge=False)), "--mode", "text"])
    elif op == "facts_add":
        argv = ["facts", "add", draw(hs.hostile_text(huge=False)), "--scope", f"session:{target}"]
        for s in draw(st.lists(hs.hostile_text(max_size=15, huge=False), max_size=2)):
            argv += ["--subject", s]
        r.cli(op, argv)
    elif op == "facts_search":
        r.cli(op, ["facts", "search", draw(hs.hostile_query()), "--scope", f"session:{target}"])
    elif op == "import_file":  # invalid UTF-8 and garbage read from a file
        agent = draw(st.sampled_from(["claude-code", "codex", "gemini", "aider", "auto"]))
        suffix = {"gemini": ".json", "aider": ".md"}.get(agent, ".jsonl")
        path = r.tmp / f"t-{uuid.uuid4().hex}{suffix}"
        path.write_bytes(draw(hs.hostile_bytes()))
        r.cli(op, ["import", agent, str(path), "--cwd", ns + "/imported", "--json", "--quiet"])
        path.unlink()


def _subprocess_case(r: _Runner, i: int, target: str, ns: str, env: dict[str, str]) -> None:
    """Real processes: invalid UTF-8 in argv (surrogateescape in the child), control characters."""
    hostile: list[bytes] = [b"\xff\xfe bad utf-8 \xc3", b"ctrl \x01\x02\x1b[31m red \x7f", b"a" * 100_000,
                            b'title:"unterminated AND (', "\u202e rtl \ufeff bom".encode()]
    arg = hostile[i % len(hostile)]
    kinds: list[tuple[list[bytes], frozenset[int]]] = [
        ([b"turns", b"add", b"--session", target.encode(), b"--user", arg, b"--assistant", b"ok"], CLI_EXPECTED),
        ([b"search", arg, b"--scope", b"session", b"--session", target.encode(), b"--mode", b"text"], CLI_EXPECTED),
        ([b"sessions", b"show", arg], CLI_LOOKUP),
        ([b"sessions", b"list", b"--cwd", ns.encode() + b"/" + arg[:200].replace(b"/", b"_")], CLI_EXPECTED),
    ]
    argv, exits = kinds[i % len(kinds)]
    r.subprocess_cli("subprocess", argv, env, exits)


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
