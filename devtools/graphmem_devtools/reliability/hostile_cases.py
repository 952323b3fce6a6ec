"""The hostile run's cases: what each one does, the outcomes it declares, and the runner that
records them in a :class:`HostileReport` (see :mod:`.hostile`)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.chat import GOAL_CATEGORIES, SELF_CATEGORIES, TOOL_SPECS
from graphmem.errors import CypherError, DatabaseError, GraphMemError, InvalidInput, NotFound
from graphmem.memory import GraphMemory
from graphmem.models import clean_text

__all__ = ["CLI_EXPECTED", "CLI_LOOKUP", "INVALID", "LOOKUP", "SERVER_SIDE", "CaseRunner", "HostileReport", "Rejects", "api_case", "cli_case", "subprocess_case"]


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


class CaseRunner:
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


def api_case(r: CaseRunner, draw: Any, hs: Any, st: Any, in_ns: Callable[[str], bool], tracked: list[str],
              scope_t: str) -> None:
    mem, target = r.mem, r.target
    op = draw(st.sampled_from([
        "store_turn", "store_turn", "store_turn_bad_session", "create_session", "create_session_cwd",
        "load_session", "recent_turns", "search", "search", "build_context", "remember", "search_facts",
        "facts_about", "forget", "delete_session", "import_turns", "get_turn", "sessions_for",
        "chat_open", "chat_observe", "chat_tool", "chat_search", "notes_sync", "notes_search",
    ]))
    if op.startswith("notes_"):
        notes_case(r, op, draw, hs, st)
        return
    if op.startswith("chat_"):
        chat_case(r, op, draw, hs, st, in_ns)
        return
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


def chat_rooms(ns: str) -> list[str]:
    """The rooms a run observes (named after its namespace, cleared at the end)."""
    return [f"hostile-{ns.rsplit('/', 1)[-1]}-{i}" for i in range(3)]


CHAT_TOOLS = ("search_memories", "get_recent_memories", "store_memory", "search_memories_text", "forget",
              "search_self", "store_self", "search_goals", "store_goal")


def chat_case(r: CaseRunner, op: str, draw: Any, hs: Any, st: Any, in_ns: Callable[[str], bool]) -> None:
    """Chat-agent calls: conversations filed under the run's chat root, live messages in the run's
    rooms, the memory tools with what a model may send (any JSON, malformed text, wrong names)."""
    mem = r.mem
    name = hs.hostile_text(max_size=30, huge=False)
    if op == "chat_open":
        agent, channel, user = draw(name), draw(name), draw(name)
        title = draw(st.one_of(st.none(), hs.hostile_text(max_size=50, huge=False), st.integers()))

        def filed(c: Any) -> str | None:
            return None if in_ns(c.session.cwd) else f"a conversation filed outside its root: {c.session.cwd!r}"

        r.api(op, lambda: mem.open_conversation(agent, channel, user, title=title), filed)
    elif op == "chat_observe":
        room = draw(st.sampled_from(chat_rooms(r.ns)))
        author, text = draw(name), draw(st.one_of(hs.hostile_text(), st.none(), st.integers()))
        r.api(op, lambda: mem.observe(room, author, text))
    elif op == "chat_tool":
        tool = draw(st.one_of(st.sampled_from(CHAT_TOOLS), hs.hostile_text(max_size=20, huge=False)))
        spec = next((t for t in TOOL_SPECS if t.name == tool), None)
        value = st.one_of(hs.hostile_text(max_size=200, huge=False), hs.hostile_json_value())
        plausible = {"category": st.sampled_from(SELF_CATEGORIES + GOAL_CATEGORIES), "ttl": st.sampled_from([None, "7d"]),
                     "subjects": st.lists(hs.hostile_text(max_size=20, huge=False), max_size=3),
                     "limit": st.integers(-2, 30)}
        fitting = (st.fixed_dictionaries({k: st.one_of(value, plausible.get(k, value))
                                          for k in spec.parameters["properties"]})
                   if spec is not None else st.nothing())
        args = draw(st.one_of(
            fitting, fitting,  # the tool's own arguments, hostile values: most cases reach the tool
            st.dictionaries(st.sampled_from(["query", "content", "subjects", "ttl", "topic", "category", "limit"]),
                            hs.hostile_json_value(), max_size=4),
            hs.hostile_text(max_size=200, huge=False), st.none()))
        r.api(op, lambda: mem.chat_tools("hostile").call(tool, args), rejects=LOOKUP)
    elif op == "chat_search":
        q = draw(hs.hostile_query())
        channel, user = draw(st.one_of(st.none(), name)), draw(st.one_of(st.none(), name))
        k = draw(st.integers(-3, 500))
        r.api(op, lambda: mem.search_conversations(q, "hostile", channel=channel, user=user, k=k, mode="text"))


def notes_case(r: CaseRunner, op: str, draw: Any, hs: Any, st: Any) -> None:
    """Notes of the run's own vault (``r.mem.notes``): files with names and bytes of any kind (not
    UTF-8, NUL, huge), synced, searched and listed."""
    mem = r.mem
    assert mem.notes is not None
    if op == "notes_sync":
        name = draw(st.binary(min_size=1, max_size=40)).replace(b"/", b"_").replace(b"\x00", b"_")
        if name in (b".", b".."):
            return
        body = b"#memory " + draw(hs.hostile_bytes())
        (mem.notes.vault / os.fsdecode(name + b".md")).write_bytes(body)
        r.api(op, mem.sync_notes)
    else:
        q, k = draw(hs.hostile_query()), draw(st.integers(-3, 150))
        r.api(op, lambda: (mem.search_notes(q, k=k), mem.list_notes(limit=max(1, k))))


def _exists(mem: GraphMemory, sid: str) -> bool:
    try:
        mem.get_session(sid)
    except GraphMemError:
        return False
    return True


def cli_case(r: CaseRunner, draw: Any, hs: Any, st: Any) -> None:
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


def subprocess_case(r: CaseRunner, i: int, target: str, ns: str, env: dict[str, str]) -> None:
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
