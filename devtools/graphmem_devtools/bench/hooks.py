"""``graphmem bench hooks``: hook latency, process start to output, with the daemon and Neo4j warm.

* ``prompt_hook_ms``: a ``UserPromptSubmit`` hook exactly as installed (``python -S
  .../runtime/client.py claude-code``), from spawning the process to its exit with the context
  printed, against a project with earlier sessions (a realistic Claude Code transcript ingested
  through the Stop hook);
* the split: ``interpreter_start_ms`` (``python -S -c pass``), ``client_import_ms`` (the hook
  client's own imports and argument handling: ``client.py --help`` minus the interpreter),
  ``daemon_round_trip_ms`` (the same request sent from a warm process: socket + daemon work) and
  the daemon-side ``search`` time; plus ``site_start_ms`` (``python -c pass``: what ``-S`` saves)
  and ``console_script_hook_ms`` (``graphmem hook claude-code``, the portable form);
* ``pre_tool_hook_ms``: a ``PreToolUse`` hook (a ``Read`` of a file the earlier sessions edited,
  with failures), process start to the file's history printed;
* ``stop_hook_ms``: a ``Stop`` hook ingesting ``stop_records`` new transcript records (JSONL
  lines: prompts, assistant texts, tool calls and results) through the daemon.

The hooks run with a private ``GRAPHMEM_HOME`` (its own daemon, no summarizer worker) against
the configured Neo4j; the bench's sessions are deleted at the end.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from graphmem.embedding import LONG_TURN_CHARS
from graphmem.memory import GraphMemory

from .common import BenchResult, machine_info, percentiles

__all__ = ["run_hooks_bench", "synthetic_claude_transcript"]

_PROMPTS = [
    "Why does test_invoice_total fail after the rounding change?",
    "Add a migration for the invoices.currency column with default EUR.",
    "The CI is slow: step 2 runs the integration suite serially, can you fix it?",
    "Rename calc_tax to compute_vat everywhere and keep a deprecated alias.",
    "What does the @retry(backoff=2) decorator do in payments/client.py?",
    "Make the date parser raise a clear error on 2025-02-30.",
    "Explain the difference between ROUND_HALF_UP and ROUND_HALF_EVEN for invoices.",
    "Bump the dependencies and run the full test suite.",
]
_ANSWERS = [
    "Fixed: the total now uses Decimal with ROUND_HALF_UP; all 42 tests pass.",
    "The migration is in migrations/0042_currency.py and backfills existing rows with EUR.",
    "I enabled pytest -n auto for step 2 and cached the wheels; CI went from 12 to 5 minutes.",
    "Renamed in 17 files; calc_tax stays as an alias that emits a DeprecationWarning.",
    "It retries failed HTTP calls with exponential backoff (2 s, 4 s, 8 s), three attempts.",
    "The parser now raises InvalidDate('2025-02-30: day out of range').",
    "ROUND_HALF_EVEN is banker's rounding; invoices must use ROUND_HALF_UP.",
    "Dependencies bumped; 318 passed, 2 skipped.",
]


EDITED_FILE = "billing/invoice.py"
"""The file the synthetic sessions edit (the ``PreToolUse`` hook looks up its history)."""


class _Transcript:
    """A Claude Code JSONL transcript written record by record (prompt, tool use, result, answer)."""

    def __init__(self, path: Path, session_id: str, cwd: str) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self.parent: str | None = None
        self.t = datetime.now(UTC) - timedelta(days=3)
        self.n = 0
        path.write_text("")

    def _rec(self, rtype: str, message: dict[str, Any]) -> dict[str, Any]:
        self.t += timedelta(seconds=2)
        u = str(uuid.uuid4())
        rec = {"parentUuid": self.parent, "isSidechain": False, "userType": "external", "cwd": self.cwd,
               "sessionId": self.session_id, "version": "2.0.14", "gitBranch": "main", "type": rtype,
               "uuid": u, "timestamp": self.t.isoformat().replace("+00:00", "Z"), "message": message}
        self.parent = u
        return rec

    def turn(self, i: int) -> list[dict[str, Any]]:
        """One turn: 5 records (prompt, tool use, tool result, answer, end-of-turn marker). Odd turns
        edit :data:`EDITED_FILE` (one in three of those edits fails), even ones run its tests."""
        tid = f"toolu_{uuid.uuid4().hex[:20]}"
        mid = f"msg_{uuid.uuid4().hex[:20]}"
        if i % 2:
            name, args = "Edit", {"file_path": f"{self.cwd}/{EDITED_FILE}", "old_string": "ROUND_DOWN",
                                  "new_string": "ROUND_HALF_UP"}
            failed = i % 6 == 1
            result = "String to replace not found in file" if failed else "The file has been updated."
        else:
            name, args = "Bash", {"command": "pytest -q tests/test_invoice.py"}
            failed, result = False, "....F\n1 failed, 4 passed"
        recs = [
            self._rec("user", {"role": "user", "content": f"{_PROMPTS[i % len(_PROMPTS)]} (round {i})"}),
            self._rec("assistant", {"id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                                    "content": [{"type": "tool_use", "id": tid, "name": name, "input": args}]}),
            self._rec("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid,
                                                            "content": result, "is_error": failed}]}),
            self._rec("assistant", {"id": f"msg_{uuid.uuid4().hex[:20]}", "type": "message", "role": "assistant",
                                    "model": "claude-sonnet-4-5",
                                    "content": [{"type": "text", "text": _ANSWERS[i % len(_ANSWERS)]}]}),
        ]
        end = self._rec("system", {})
        end.pop("message")
        end.update({"subtype": "turn_duration", "durationMs": 4200, "isMeta": False})
        recs.append(end)
        return recs

    def append(self, records: int) -> None:
        """Append about ``records`` records (whole turns of 5)."""
        lines: list[str] = []
        while len(lines) < records:
            lines.extend(json.dumps(r) for r in self.turn(self.n))
            self.n += 1
        with open(self.path, "a", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")


def synthetic_claude_transcript(path: Path, session_id: str, cwd: str, records: int) -> None:
    """Write a Claude Code transcript of about ``records`` records (for benchmarks and demos)."""
    _Transcript(path, session_id, cwd).append(records)


def _embed_session(mem: GraphMemory, session_id: str) -> None:
    """Embed one session's turns (only the bench's own: the database may be shared)."""
    from graphmem.embedding import embedding_hash, long_reply_head, turn_embedding_text

    assert mem.embedder is not None
    turns = mem.load_session(session_id).turns
    for start in range(0, len(turns), 128):
        batch = turns[start : start + 128]
        texts = [turn_embedding_text(t.user_message, t.assistant_message, [c.name for c in t.tool_calls],
                                     reply_head_chars=long_reply_head(mem.embedder))
                 for t in batch]
        vectors = mem.embedder.embed(texts)
        rows = [{"id": t.id, "hash": embedding_hash(x, mem.embedder.model), "embedding": v}
                for t, x, v in zip(batch, texts, vectors, strict=True)]
        mem.db.write("embeddings/set_turn_embeddings", rows=rows, model=mem.embedder.model, longTurnChars=LONG_TURN_CHARS)


def _files_write_ab(mem: GraphMemory, cwd: str, runs: int, session_ids: list[str]) -> dict[str, Any]:
    """``import_turns`` of 10 turns (one tool call each) into a new session, ``runs`` times each way,
    interleaved: tool calls naming a file (every other one an Edit of :data:`EDITED_FILE`, the others
    a test run naming one) against the same number naming none."""
    from graphmem.models import ToolCallIn, TurnIn

    base = datetime.now(UTC) - timedelta(days=2)
    times: dict[str, list[float]] = {"with": [], "without": []}
    for run in range(runs):
        for mode in (("with", "without") if run % 2 else ("without", "with")):
            s = mem.create_session(cwd, agent="claude-code")
            session_ids.append(s.id)
            turns = []
            for i in range(10):
                if mode == "without":
                    call = ToolCallIn(name="WebFetch", args={"url": "https://docs.example.org/decimal"}, result="ok")
                elif i % 2:
                    call = ToolCallIn(name="Edit", args={"file_path": f"{cwd}/{EDITED_FILE}", "old_string": "a",
                                                         "new_string": "b"}, result="ok", success=i % 6 != 1)
                else:
                    call = ToolCallIn(name="Bash", args={"command": "pytest -q tests/test_invoice.py"}, result="ok")
                turns.append(TurnIn(user_message=_PROMPTS[i % len(_PROMPTS)], assistant_message=_ANSWERS[i % len(_ANSWERS)],
                                    tool_calls=[call], timestamp=base + timedelta(minutes=run * 20 + i),
                                    source_id=str(uuid.uuid4())))
            t0 = time.perf_counter()
            mem.import_turns(s.id, turns)
            times[mode].append((time.perf_counter() - t0) * 1000)
    return {"import_10_turns_files_ms": percentiles(times["with"]),
            "import_10_turns_no_files_ms": percentiles(times["without"])}


def _wall(cmd: list[str], *, env: dict[str, str], stdin: str | None = None) -> tuple[float, str, str]:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env, timeout=120)
    return (time.perf_counter() - t0) * 1000, p.stdout, p.stderr


def _neo4j_env(mem: GraphMemory) -> dict[str, str]:
    """GRAPHMEM_NEO4J_* for the memory's own server (so the hooks can use a private home)."""
    from graphmem.config import Settings

    settings = Settings.load()
    if settings.neo4j_uri:
        pw = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
        return {"GRAPHMEM_NEO4J_URI": settings.neo4j_uri, "GRAPHMEM_NEO4J_USER": settings.neo4j_user,
                "GRAPHMEM_NEO4J_PASSWORD": pw, "GRAPHMEM_NEO4J_DATABASE": settings.neo4j_database}
    from graphmem.db import managed_server

    return {"GRAPHMEM_NEO4J_URI": mem.db.uri, "GRAPHMEM_NEO4J_USER": "neo4j",
            "GRAPHMEM_NEO4J_PASSWORD": managed_server(settings).password()}


def run_hooks_bench(
    mem: GraphMemory,
    *,
    prompts: int = 200,
    warmup: int = 20,
    stop_records: int = 50,
    stop_runs: int = 20,
    past_turns: int = 200,
    namespace: str | None = None,
    home: Path | None = None,
    env: dict[str, str] | None = None,
    command: str = "graphmem bench hooks",
    log: Any = None,
) -> BenchResult:
    """Measure the hooks (see the module doc); ``env``/``home`` override the hooks' environment."""
    from graphmem.runtime import client
    from graphmem.runtime.client import env_key, hook_request
    from graphmem.runtime.daemon import daemon_status, stop_daemon

    def say(msg: str) -> None:
        if log is not None:
            log(msg)

    own_tmp = None
    if home is None:
        own_tmp = tempfile.mkdtemp(prefix="graphmem-bench-hooks-")
        home = Path(own_tmp) / "home"
    if env is None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_"))}
        env.update({k: v for k, v in os.environ.items() if k.startswith("GRAPHMEM_") and "NEO4J" not in k})
        env.update(_neo4j_env(mem))
        env.update({"GRAPHMEM_HOME": str(home), "GRAPHMEM_DAEMON_WORKER": "0"})
    env = {**env, "GRAPHMEM_HOME": str(home), "GRAPHMEM_HOOK_DAEMON": "1", "GRAPHMEM_HOOK_TIMING": "1"}
    ns = namespace or f"/graphmem-bench/hooks-{uuid.uuid4().hex[:12]}"
    cwd = f"{ns}/billing-api"
    work = Path(tempfile.mkdtemp(prefix="graphmem-bench-transcripts-"))
    client_py = str(Path(client.__file__).resolve())
    hook = [sys.executable, "-S", client_py, "claude-code"]
    figures: dict[str, Any] = {}
    notes: list[str] = []
    load_before = os.getloadavg()[0]
    session_ids: list[str] = []
    try:
        # 1. the daemon, warm (embedder loaded, first queries done)
        say("starting the daemon ...")
        subprocess.run([sys.executable, "-c", "import sys; from graphmem.cli import main; sys.exit(main())",
                        "daemon", "start", "--wait", "180"], env=env, check=True, capture_output=True, timeout=240)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            st = daemon_status(home)
            d = st.details or {}
            if st.running and (d.get("embedder") is None or d.get("embedder_ready") or d.get("embedder_error")):
                break
            time.sleep(0.2)
        figures["embedder"] = (st.details or {}).get("embedder") or "none (text-only search)"

        # 2. the memory: earlier sessions of the project, ingested through the Stop hook
        say(f"ingesting {past_turns} past turns ...")
        past_sid = str(uuid.uuid4())
        session_ids.append(past_sid)
        past = work / f"{past_sid}.jsonl"
        synthetic_claude_transcript(past, past_sid, cwd, past_turns * 5)
        p = subprocess.run(hook, input=json.dumps({"session_id": past_sid, "transcript_path": str(past), "cwd": cwd,
                                                   "hook_event_name": "Stop"}),
                           capture_output=True, text=True, env=env, timeout=300)
        if p.returncode != 0 or "spooled" in p.stderr:
            raise RuntimeError(f"the Stop hook failed: {p.stderr}")
        if mem.embedder is not None:
            say("embedding them ...")
            _embed_session(mem, past_sid)
        mem.await_text_index()

        # 3. UserPromptSubmit, as installed (the warm-up hooks may take their time: on a cold or busy
        # server the first statements are planned then, and a hook past its budget prints nothing)
        warm_env = {**env, "GRAPHMEM_HOOK_BUDGET": "30"}
        sid = str(uuid.uuid4())
        session_ids.append(sid)
        cur = work / f"{sid}.jsonl"
        cur.write_text("")
        walls: list[float] = []
        starts: list[float] = []
        trips: list[float] = []
        nonempty = 0
        say(f"{warmup} + {prompts} prompt hooks ...")
        for i in range(warmup + prompts):
            payload = json.dumps({"session_id": sid, "transcript_path": str(cur), "cwd": cwd,
                                  "hook_event_name": "UserPromptSubmit", "prompt": _PROMPTS[i % len(_PROMPTS)]})
            ms, out, err = _wall(hook, env=warm_env if i < warmup else env, stdin=payload)
            if i < warmup:
                continue
            walls.append(ms)
            nonempty += bool(out.strip())
            for part in err.split():
                if part.startswith("client_start_ms="):
                    starts.append(float(part.split("=", 1)[1]))
                elif part.startswith("round_trip_ms="):
                    trips.append(float(part.split("=", 1)[1]))
        figures["prompt_hook_ms"] = percentiles(walls)
        figures["prompt_outputs_nonempty"] = nonempty
        figures["prompt_client_start_ms"] = percentiles(starts)
        figures["prompt_client_round_trip_ms"] = percentiles(trips)

        # 3b. PreToolUse before a Read of the file the past session edited, as installed
        pre_walls: list[float] = []
        pre_nonempty = 0
        say(f"{warmup} + {prompts} PreToolUse hooks ...")
        for i in range(warmup + prompts):
            payload = json.dumps({"session_id": sid, "transcript_path": str(cur), "cwd": cwd,
                                  "hook_event_name": "PreToolUse", "tool_name": "Read",
                                  "tool_input": {"file_path": f"{cwd}/{EDITED_FILE}"}, "tool_use_id": f"toolu_{i}"})
            ms, out, _err = _wall(hook, env=warm_env if i < warmup else env, stdin=payload)
            if i < warmup:
                continue
            pre_walls.append(ms)
            pre_nonempty += bool(out.strip())
        figures["pre_tool_hook_ms"] = percentiles(pre_walls)
        figures["pre_tool_outputs_nonempty"] = pre_nonempty

        # 4. the split
        n = max(5, min(50, prompts))
        floor = [_wall([sys.executable, "-S", "-c", "pass"], env=env)[0] for _ in range(n)]
        site = [_wall([sys.executable, "-c", "pass"], env=env)[0] for _ in range(n)]
        helped = [_wall([sys.executable, "-S", client_py, "--help"], env=env)[0] for _ in range(n)]
        figures["interpreter_start_ms"] = percentiles(floor)
        figures["site_start_ms"] = percentiles(site)
        figures["client_import_ms"] = round(statistics.median(helped) - statistics.median(floor), 1)
        key = env_key(env)
        rts: list[float] = []
        for i in range(n):
            payload = json.dumps({"session_id": sid, "transcript_path": str(cur), "cwd": cwd,
                                  "hook_event_name": "UserPromptSubmit", "prompt": _PROMPTS[i % len(_PROMPTS)]})
            t0 = time.perf_counter()
            hook_request(str(home), "claude-code", payload.encode(), timeout=10, env=key)
            rts.append((time.perf_counter() - t0) * 1000)
        figures["daemon_round_trip_ms"] = percentiles(rts)
        console = [_wall([sys.executable, "-c", "import sys; from graphmem.cli import main; sys.exit(main())",
                          "hook", "claude-code"], env=env,
                         stdin=json.dumps({"session_id": sid, "transcript_path": str(cur), "cwd": cwd,
                                           "hook_event_name": "UserPromptSubmit", "prompt": _PROMPTS[0]}))[0]
                   for _ in range(max(3, n // 5))]
        figures["console_script_hook_ms"] = percentiles(console)

        # 5. Stop: stop_records new records per run, through the daemon
        say(f"{stop_runs} Stop hooks of {stop_records} new records ...")
        ssid = str(uuid.uuid4())
        session_ids.append(ssid)
        spath = work / f"{ssid}.jsonl"
        tr = _Transcript(spath, ssid, cwd)
        tr.append(10)
        stop_payload = json.dumps({"session_id": ssid, "transcript_path": str(spath), "cwd": cwd,
                                   "hook_event_name": "Stop"})
        _wall(hook, env=env, stdin=stop_payload)
        stops: list[float] = []
        before = len(mem.load_session(ssid).turns)
        for _ in range(stop_runs):
            tr.append(stop_records)
            ms, _out, err = _wall(hook, env=env, stdin=stop_payload)
            if "spooled" in err or "error" in err:
                raise RuntimeError(f"the Stop hook failed: {err}")
            stops.append(ms)
        after = len(mem.load_session(ssid).turns)
        figures["stop_hook_ms"] = percentiles(stops)
        figures["stop_records_per_run"] = stop_records
        figures["stop_turns_stored"] = after - before
        # 6. what linking the files costs the Stop hook's write: the same import of 10 turns whose tool
        # calls name a file (Edit, Bash) or none (WebFetch), interleaved
        figures.update(_files_write_ab(mem, cwd, max(10, stop_runs * 2), session_ids))
        server = mem.db.server_info()
        notes += [
            "prompt_hook_ms: process spawn to exit of `python -S .../graphmem/runtime/client.py claude-code` "
            "(the command `graphmem hooks install` writes) with the context printed; daemon and Neo4j warm.",
            "split: interpreter_start_ms (python -S -c pass) + client_import_ms (client.py --help minus the "
            "interpreter) + daemon_round_trip_ms (socket + parse + project search and facts + render, from a warm "
            "process) "
            "≈ prompt_hook_ms.",
            "site_start_ms is `python -c pass`: what -S saves (site-packages and .pth processing); "
            "console_script_hook_ms is the portable `graphmem hook claude-code` (site + console script).",
            "pre_tool_hook_ms: the same command with a PreToolUse payload (Read of the file the earlier turns "
            "edited): the file's latest edits with their requests, its failed calls and the summaries naming it.",
            "stop_hook_ms includes linking each tool call to the files it names ((:File), TOUCHED) in the "
            "same statement; import_10_turns_files_ms against import_10_turns_no_files_ms (the same import, "
            "in-process, whose tool calls name no file; interleaved) is what that linking costs.",
            f"{past_turns} earlier turns (1 tool call each, every other one an Edit of {EDITED_FILE}) in the project; "
            f"Neo4j {server.version}.",
            "the daemon answers with a project search and the fact injection, the prompt embedded once for both "
            "(the CLI already holds the current session); hits "
            "collapse on equal text unless GRAPHMEM_HOOK_VECTOR_DEDUP=1 (fetching the vectors cost ~40-80 ms).",
            f"1-minute load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after (the machine is shared).",
        ]
        return BenchResult("hooks", command, machine_info(server.version), figures, notes)
    finally:
        stop_daemon(home)
        for s in session_ids:
            try:
                mem.delete_session(s)
            except Exception:
                continue
        import shutil

        shutil.rmtree(work, ignore_errors=True)
        if own_tmp:
            shutil.rmtree(own_tmp, ignore_errors=True)
