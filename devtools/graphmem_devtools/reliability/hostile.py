"""Hostile input: property-based cases over the public API and the CLI.

``graphmem reliability hostile --cases 10000`` draws cases with hypothesis (a ``dev``
dependency, imported lazily) and runs each against a throw-away namespace: hostile session ids,
cwd paths, messages, tool arguments, search queries (Lucene syntax, huge strings, control
characters, NUL, lone surrogates, invalid UTF-8 read from files), through :class:`GraphMemory`
and through ``graphmem.cli.main.main(argv)`` in-process (plus a few real subprocesses).

A case passes when it returns normally or raises a :class:`~graphmem.errors.GraphMemError`
(for the CLI: any exit code, a usage error from argparse included, and never a traceback on
stderr). Any other exception is a failure. Stored text must read back as written (lone
surrogates become U+FFFD, the documented text rule). A control namespace, built before the
run, must be byte-for-byte identical afterwards (every property of every node and relationship),
and the target session's turn indexes must stay 1..n. Everything the run creates is deleted.
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
from graphmem.errors import GraphMemError, SessionNotFound
from graphmem.memory import GraphMemory
from graphmem.models import clean_text

from ..statements import dev_db

__all__ = [
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
    by_kind: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    """``ok`` (returned), ``rejected`` (a GraphMemError), ``usage`` (argparse), ``exit:<n>`` (CLI)."""
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
    def rate(self) -> float:
        return round(self.cases / self.seconds, 1) if self.seconds else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
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

    def api(self, kind: str, fn: Callable[[], Any], check: Callable[[Any], str | None] | None = None) -> None:
        self.report.cases += 1
        self.report.by_kind[kind] += 1
        t0 = time.perf_counter()
        try:
            result = fn()
        except GraphMemError:
            self.report.outcomes["rejected"] += 1
            return
        except Exception as e:  # the property under test: nothing else escapes
            self.report.outcomes["failure"] += 1
            self.report.failures.append(f"{kind}: {type(e).__name__}: {str(e)[:300]} "
                                        f"{traceback.format_exc(limit=3)[-600:]}")
            return
        finally:
            self.report.add_seconds(kind, time.perf_counter() - t0)
        problem = check(result) if check is not None else None
        if problem:
            self.report.outcomes["failure"] += 1
            self.report.failures.append(f"{kind}: {problem}")
        else:
            self.report.outcomes["ok"] += 1

    def cli(self, kind: str, argv: list[str]) -> str:
        """Run ``graphmem <argv>`` in-process; returns stdout."""
        from graphmem.cli.main import main

        self.report.cases += 1
        self.report.by_kind[kind] += 1
        code: int | str | None
        t0 = time.perf_counter()
        with _captured() as (out, err):
            try:
                code = main(argv)
            except SystemExit as e:  # argparse usage errors
                code = "usage" if e.code == 2 else f"exit:{e.code}"
            except Exception as e:
                self.report.outcomes["failure"] += 1
                self.report.failures.append(f"{kind}: {type(e).__name__}: {str(e)[:300]} argv={argv!r:.300}")
                return ""
            finally:
                self.report.add_seconds("cli:" + kind, time.perf_counter() - t0)
        if "Traceback (most recent call last)" in err.getvalue():
            self.report.outcomes["failure"] += 1
            self.report.failures.append(f"{kind}: traceback on stderr: {err.getvalue()[-500:]}")
            return out.getvalue()
        self.report.outcomes["usage" if code == "usage" else ("ok" if code == 0 else f"exit:{code}")] += 1
        return out.getvalue()

    def subprocess_cli(self, kind: str, argv: list[bytes], env: dict[str, str]) -> None:
        self.report.cases += 1
        self.report.subprocess_cases += 1
        self.report.by_kind[kind] += 1
        proc = subprocess.run([sys.executable.encode(), b"-c", b"import sys; from graphmem.cli import main; sys.exit(main())",
                               *argv],
                              capture_output=True, timeout=300, env=env)
        err = proc.stderr.decode("utf-8", "replace")
        if "Traceback (most recent call last)" in err or proc.returncode < 0:
            self.report.outcomes["failure"] += 1
            self.report.failures.append(f"{kind}: exit {proc.returncode}: {err[-500:]}")
        else:
            self.report.outcomes["ok" if proc.returncode == 0 else f"exit:{proc.returncode}"] += 1


def _roundtrip(expected_user: str, expected_assistant: str, mem: GraphMemory) -> Callable[[Any], str | None]:
    want_user, want_assistant = clean_text(expected_user), clean_text(expected_assistant)
    if getattr(mem, "redact", False):
        from graphmem.redaction import redact

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

            def one(data: st.DataObject) -> None:
                if out_of_time():
                    return  # no draw, not counted: hypothesis runs out its remaining examples quickly
                draw = data.draw
                use_cli = draw(st.floats(min_value=0, max_value=1)) < cli_share
                if use_cli:
                    _cli_case(runner, draw, hs, st)
                else:
                    _api_case(runner, draw, hs, st, in_ns, tracked, scope_t)
                if progress is not None:
                    progress(report.cases)

            rounds = 0
            while report.cases < cases and rounds < 20:
                todo = cases - report.cases
                test = settings(max_examples=todo, database=None, deadline=None, derandomize=False,
                                suppress_health_check=list(HealthCheck), phases=[Phase.generate])(
                    given(st.data())(one))
                test = _seeded(test, seed + rounds)
                try:
                    test()
                except Exception:
                    # hypothesis calls an example that stopped drawing at the time limit "flaky"
                    if not out_of_time():
                        raise
                if out_of_time():
                    report.stopped_by_time_limit = True
                    break
                rounds += 1
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
              lambda t: None if known or t.session_id == target else f"stored into an unknown session {sid!r}")
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
        r.api(op, lambda: mem.load_session(sid))
    elif op == "recent_turns":
        sid = draw(st.one_of(hs.hostile_id(), st.just(target)))
        mx, lim = draw(st.integers(-(2**40), 2**40)), draw(st.integers(-5, 2**31))
        r.api(op, lambda: mem.recent_turns(sid, max_chars=mx, limit=lim))
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
        r.api(op, lambda: mem.search_facts(q, scopes=[scope_t], limit=draw(st.one_of(st.none(), st.integers(-2, 200)))))
    elif op == "facts_about":
        subj = draw(hs.hostile_text(max_size=30, huge=False))
        r.api(op, lambda: mem.facts_about(subj, scopes=[scope_t]))
    elif op == "forget":
        topic = draw(hs.hostile_query())
        r.api(op, lambda: mem.forget(topic, scopes=[scope_t], reason=draw(hs.hostile_text(max_size=40, huge=False)),
                                     dry_run=draw(st.booleans())))
    elif op == "delete_session":
        sid = draw(hs.hostile_id())
        if sid == target:
            return
        r.api(op, lambda: mem.delete_session(sid))
    elif op == "import_turns":
        turns = draw(st.lists(st.fixed_dictionaries(
            {"user_message": hs.hostile_text(huge=False), "assistant_message": hs.hostile_text(huge=False),
             "source_id": st.one_of(st.none(), hs.hostile_id())}), max_size=5))
        r.api(op, lambda: mem.import_turns(target, turns))
    elif op == "get_turn":
        tid = draw(hs.hostile_id())
        r.api(op, lambda: mem.get_turn(tid))
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
        r.cli(op, ["sessions", "show", draw(st.one_of(hs.hostile_id(), st.just(target))), "--json"])
    elif op == "sessions_list":
        r.cli(op, ["sessions", "list", "--cwd", ns + "/" + draw(hs.hostile_path_suffix())])
    elif op == "turns_list":
        r.cli(op, ["turns", "list", draw(st.one_of(hs.hostile_id(), st.just(target))), "--limit",
                   str(draw(st.integers(-3, 1000)))])
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
    kinds = [
        [b"turns", b"add", b"--session", target.encode(), b"--user", arg, b"--assistant", b"ok"],
        [b"search", arg, b"--scope", b"session", b"--session", target.encode(), b"--mode", b"text"],
        [b"sessions", b"show", arg],
        [b"sessions", b"list", b"--cwd", ns.encode() + b"/" + arg[:200].replace(b"/", b"_")],
    ]
    r.subprocess_cli("subprocess", kinds[i % len(kinds)], env)


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
    p.set_defaults(handler=_main)


def _merge(reports: list[dict[str, Any]]) -> HostileReport:
    total = HostileReport()
    for d in reports:
        total.cases += d["cases"]
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

    from ..bench.common import BenchResult, machine_info, write_results

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
        res = BenchResult(RESULT_NAME, cmd, machine_info(version), figures=figures, notes=[
            "A case passes when it returns, raises a GraphMemError, or (CLI) exits with any code without a "
            "traceback; stored turns must read back as written (lone surrogates -> U+FFFD).",
            "The control namespace (a session with turns, tool calls, a session and a project fact) is compared "
            "property by property before and after the run.",
            f"Embedder for the run: {os.environ.get('GRAPHMEM_EMBEDDER')} (CLI cases open a connection per call).",
            "The machine is shared (2 cores, other helpers running): the case rate is indicative only.",
        ])
        js, md = write_results(res, Path(args.out))
        print(f"wrote {md} and {js}", file=sys.stderr)
    return 0 if not report.failures else 1
