"""The coding-CLI hooks end to end: the real hook command as a subprocess, a real Neo4j.

Stop hooks ingest only what a transcript gained (exactly once, the tail completed from the hook's
``last_assistant_message``); prompt hooks print ``hookSpecificOutput.additionalContext`` through
the daemon and nothing on any failure; Neo4j unreachable → the turns are spooled (redacted, 0600
in a 0700 folder) and replayed exactly once; a full disk or an unwritable home is a clear error
on stderr with exit code 0; ``graphmem hooks install/uninstall`` keep other hooks.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem import GraphMemory
from graphmem.runtime import client
from graphmem.runtime.daemon import stop_daemon
from graphmem.runtime.spool import Spool
from tests.conftest import Neo4jTarget
from tests.data import claude_transcript, codex_rollout, gemini_chat

pytestmark = pytest.mark.integration

CLIENT = str(Path(client.__file__).resolve())
GRAPHMEM = [sys.executable, "-c", "import sys; from graphmem.cli import main; sys.exit(main())"]
SECRET = "AKIAZ7QWERTYUIOP3XYZ"  # an AWS access key id shape: redacted before storage


# ----------------------------------------------------------------------------------------------
# helpers (also used by test_import.py, test_spool*.py, test_mcp.py)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def hook_env(target: Neo4jTarget | None, home: Path, **extra: str) -> dict[str, str]:
    """The environment of a hook process: this test's Neo4j (or none) and a private home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_"))}
    if target is not None:
        env.update(target.env())
    env.update({
        "GRAPHMEM_HOME": str(home),
        "GRAPHMEM_DAEMON_WORKER": "0",
        "GRAPHMEM_DAEMON_IDLE": "180",
        "GRAPHMEM_EMBEDDER": "none",
        "GRAPHMEM_HOOK_DAEMON": "0",
    })
    env.update(extra)
    return env


def run_hook(env: dict[str, str], tool: str, payload: dict[str, Any] | str, *,
             console: bool = False, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the hook command the way the CLIs do (``python -S client.py <tool>``, or ``graphmem hook``)."""
    cmd = [*GRAPHMEM, "hook", tool] if console else [sys.executable, "-S", CLIENT, tool]
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(cmd, input=data, capture_output=True, text=True, env=env, timeout=timeout)


def graphmem(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GRAPHMEM, *args], capture_output=True, text=True, env=env, timeout=timeout)


def claude_file(path: Path, ns: str, *, n_turns: int = 12, secret: bool = False) -> tuple[
        claude_transcript.ClaudeTranscript, list[str], str, str]:
    """A generated Claude Code transcript moved into the namespace: (transcript, lines, session id, cwd)."""
    t = claude_transcript.generate(n_turns=n_turns)
    sid = str(uuid.uuid4())
    cwd = f"{ns}/billing-api"
    text = t.text(with_partial=False).replace(claude_transcript.SESSION_ID, sid).replace(claude_transcript.CWD, cwd)
    if secret:
        text = text.replace("Can you look at why `test_invoice_total` fails?",
                            f"Can you look at why `test_invoice_total` fails? my key is {SECRET}")
    lines = text.rstrip("\n").split("\n")
    return t, lines, sid, cwd


def write_lines(path: Path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def stop_payload(sid: str, path: Path, cwd: str, **extra: Any) -> dict[str, Any]:
    return {"session_id": sid, "transcript_path": str(path), "cwd": cwd, "hook_event_name": "Stop",
            "stop_hook_active": False, "permission_mode": "default", **extra}


def prompt_payload(sid: str, path: Path, cwd: str, prompt: str) -> dict[str, Any]:
    return {"session_id": sid, "transcript_path": str(path), "cwd": cwd, "hook_event_name": "UserPromptSubmit",
            "prompt": prompt, "permission_mode": "default"}


def source_ids(memory: GraphMemory, sid: str) -> list[str | None]:
    return [t.source_id for t in memory.load_session(sid).turns]


def _daemon_processes(h: Path) -> list[int]:
    """The ``graphmem daemon run`` processes whose GRAPHMEM_HOME is ``h`` (one a hook spawned that
    is still starting up included: it has written no pid file yet)."""
    home = f"GRAPHMEM_HOME={h}".encode()
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            args = (d / "cmdline").read_bytes().split(b"\0")
            if b"daemon" in args and b"run" in args and home in (d / "environ").read_bytes().split(b"\0"):
                pids.append(int(d.name))
        except OSError:  # gone, or not ours
            continue
    return pids


def stop_test_daemon(h: Path) -> None:
    """Stop the daemon a hook of this test started: asked the usual way; one still starting up (or
    not answering) is sent SIGTERM and waited for on a pidfd (readable once it has exited)."""
    stop_daemon(h)
    for pid in _daemon_processes(h):
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(fd, sig)
                if select.select([fd], [], [], 60)[0]:  # (the timeout only ends a hung shutdown)
                    break
        finally:
            os.close(fd)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    h = tmp_path / "gh"
    yield h
    stop_test_daemon(h)


# ----------------------------------------------------------------------------------------------
# Stop: incremental ingest, exactly once


def test_stop_hook_ingests_only_new_records_exactly_once(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, home: Path, tmp_path: Path
) -> None:
    t, lines, sid, cwd = claude_file(tmp_path, namespace, secret=True)
    expected = [e.source_id for e in t.kept_turns()]
    path = tmp_path / f"{sid}.jsonl"
    env = hook_env(neo4j_target, home)

    write_lines(path, lines[: len(lines) // 2])
    r = run_hook(env, "claude-code", stop_payload(sid, path, cwd))
    assert r.returncode == 0 and r.stdout == "", r.stderr
    first = source_ids(memory, sid)
    assert 0 < len(first) < len(expected)
    assert first == expected[: len(first)]

    write_lines(path, lines)  # the session went on
    last = t.kept_turns()[-1].texts[-1]
    r = run_hook(env, "claude-code", stop_payload(sid, path, cwd, last_assistant_message=last))
    assert r.returncode == 0, r.stderr
    assert source_ids(memory, sid) == expected  # the tail completed from last_assistant_message

    r = run_hook(env, "claude-code", stop_payload(sid, path, cwd, last_assistant_message=last))
    assert r.returncode == 0
    detail = memory.load_session(sid)
    assert [x.source_id for x in detail.turns] == expected  # nothing stored twice
    assert [x.index for x in detail.turns] == list(range(1, len(expected) + 1))
    assert detail.cwd == cwd and detail.agent == "claude-code"
    assert detail.turns[-1].assistant_message.endswith(last)
    everything = json.dumps([x.model_dump(mode="json") for x in detail.turns])
    assert SECRET not in everything and "[REDACTED:" in everything
    assert sum(len(x.tool_calls) for x in detail.turns) > 5
    # the cursor is a 0600 file in a 0700 folder of the private home
    cursors = home / "cursors"
    assert stat.S_IMODE(cursors.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in cursors.iterdir())


def test_import_after_hooks_adds_nothing(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, home: Path, tmp_path: Path
) -> None:
    t, lines, sid, cwd = claude_file(tmp_path, namespace)
    path = tmp_path / f"{sid}.jsonl"
    write_lines(path, lines)
    env = hook_env(neo4j_target, home)
    last = t.kept_turns()[-1].texts[-1]
    assert run_hook(env, "claude-code", stop_payload(sid, path, cwd, last_assistant_message=last)).returncode == 0
    n = len(source_ids(memory, sid))
    r = graphmem(env, "import", "claude-code", str(path), "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["created"] == 0 and summary["skipped"] == n
    assert len(source_ids(memory, sid)) == n


def test_codex_and_gemini_stop_hooks(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, home: Path, tmp_path: Path
) -> None:
    env = hook_env(neo4j_target, home)
    # Codex: rollout JSONL, Stop with last_assistant_message
    rollout = codex_rollout.generate(n_turns=10)
    csid = str(uuid.uuid4())
    ccwd = f"{namespace}/weather-service"
    cpath = tmp_path / f"rollout-2025-06-02T09-00-00-{csid}.jsonl"
    cpath.write_text(rollout.text(with_partial=False).replace(codex_rollout.SESSION_ID, csid)
                     .replace(codex_rollout.CWD, ccwd), encoding="utf-8")
    last = rollout.kept_turns()[-1].texts[-1] if rollout.kept_turns()[-1].texts else None
    payload = {"session_id": csid, "transcript_path": str(cpath), "cwd": ccwd, "hook_event_name": "Stop",
               "turn_id": "t-1", "model": "gpt-5-codex", "last_assistant_message": last}
    r = run_hook(env, "codex", payload)
    assert r.returncode == 0, r.stderr
    stored = memory.load_session(csid)
    assert stored.agent == "codex" and stored.cwd == ccwd
    assert [x.user_message for x in stored.turns] == [e.user_message for e in rollout.kept_turns()][: len(stored.turns)]
    assert len(stored.turns) >= len(rollout.kept_turns()) - 1
    assert run_hook(env, "codex", payload).returncode == 0
    assert len(memory.load_session(csid).turns) == len(stored.turns)

    # Gemini: chat file (AfterAgent, prompt_response)
    chat = gemini_chat.generate(n_turns=8)
    gsid = str(uuid.uuid4())
    gcwd = f"{namespace}/orders"
    gpath = tmp_path / "session-2025-06-02T09-00-gemini.json"
    gpath.write_text(chat.legacy_json().replace(gemini_chat.SESSION_ID, gsid), encoding="utf-8")
    payload = {"session_id": gsid, "transcript_path": str(gpath), "cwd": gcwd, "hook_event_name": "AfterAgent",
               "prompt": chat.kept_turns()[-1].user_message, "prompt_response": chat.kept_turns()[-1].texts[-1],
               "stop_hook_active": False, "timestamp": "2025-06-02T10:00:00Z"}
    r = run_hook(env, "gemini", payload)
    assert r.returncode == 0, r.stderr
    g = memory.load_session(gsid)
    assert g.agent == "gemini" and g.cwd == gcwd
    assert [x.source_id for x in g.turns] == [e.source_id for e in chat.kept_turns()]


# ----------------------------------------------------------------------------------------------
# prompt hooks through the daemon


def test_prompt_hook_prints_context_through_the_daemon(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, home: Path, tmp_path: Path
) -> None:
    _t, lines, sid, cwd = claude_file(tmp_path, namespace)
    path = tmp_path / f"{sid}.jsonl"
    write_lines(path, lines)
    env = hook_env(neo4j_target, home, GRAPHMEM_HOOK_DAEMON="1", GRAPHMEM_HOOK_BUDGET="20")
    # the first hook finds no daemon: a Stop is ingested in-process and a daemon is started
    r = run_hook(env, "claude-code", stop_payload(sid, path, cwd))
    assert r.returncode == 0, r.stderr
    r = graphmem(env, "daemon", "start", "--wait", "120")  # the one the hook started (or a fresh one)
    assert r.returncode == 0, r.stderr
    st = json.loads(graphmem(env, "daemon", "status", "--json").stdout)
    assert st["running"] and st["worker"] is False and st["env"] == client.env_key(env)
    memory.await_text_index()

    new_sid = str(uuid.uuid4())  # a new session in the same project: past sessions are the memory
    r = run_hook(env, "claude-code", prompt_payload(new_sid, path, cwd, "why does the invoice total test fail?"))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    ctx = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert ctx.startswith("<graphmem-context>") and ctx.endswith("</graphmem-context>")
    assert len(ctx) <= 10_000
    assert "invoice" in ctx.lower()
    assert memory.get_session(new_sid).cwd == cwd  # keyed on the CLI's own session id

    # opt-outs: #nomem in the prompt, .graphmem-ignore in the directory
    r = run_hook(env, "claude-code", prompt_payload(new_sid, path, cwd, "invoice total again #nomem"))
    assert r.returncode == 0 and r.stdout == ""
    ignored = tmp_path / "secret-project"
    ignored.mkdir()
    (ignored / ".graphmem-ignore").write_text("")
    other = str(uuid.uuid4())
    r = run_hook(env, "claude-code", prompt_payload(other, path, str(ignored), "invoice total?"))
    assert r.returncode == 0 and r.stdout == ""
    assert memory.sessions_for(str(ignored)) == []

    # session start: a short brief of the project's earlier sessions
    r = run_hook(env, "claude-code", {"session_id": str(uuid.uuid4()), "transcript_path": str(path), "cwd": cwd,
                                      "hook_event_name": "SessionStart", "source": "startup"})
    assert r.returncode == 0, r.stderr
    brief = json.loads(r.stdout)["hookSpecificOutput"]
    assert brief["hookEventName"] == "SessionStart"
    assert "claude-code" in brief["additionalContext"]

    # the console entry point takes the same fast path
    r = run_hook(env, "claude-code", prompt_payload(new_sid, path, cwd, "invoice rounding"), console=True)
    assert r.returncode == 0 and r.stdout.startswith('{"hookSpecificOutput"'), r.stderr

    # garbage on stdin, an unknown tool: nothing printed, exit 0
    for payload in ("not json", "[1, 2]", '{"hook_event_name": "UserPromptSubmit"}'):
        r = run_hook(env, "claude-code", payload)
        assert r.returncode == 0 and r.stdout == ""
    r = subprocess.run([sys.executable, "-S", CLIENT, "vim"], input="{}", capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout == ""


def test_prompt_hook_without_daemon_prints_nothing_and_starts_one(
    neo4j_target: Neo4jTarget, home: Path, tmp_path: Path, namespace: str
) -> None:
    env = hook_env(neo4j_target, home, GRAPHMEM_HOOK_DAEMON="1")
    r = run_hook(env, "claude-code", prompt_payload(str(uuid.uuid4()), tmp_path / "x.jsonl", f"{namespace}/p", "hi"))
    assert r.returncode == 0 and r.stdout == ""
    assert (home / "daemon.starting").exists() or (home / "daemon.pid").exists()


# ----------------------------------------------------------------------------------------------
# Neo4j unreachable: spool, replay exactly once


def test_unreachable_neo4j_spools_and_replay_stores_exactly_once(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, home: Path, tmp_path: Path
) -> None:
    t, lines, sid, cwd = claude_file(tmp_path, namespace, secret=True)
    expected = [e.source_id for e in t.kept_turns()]
    path = tmp_path / f"{sid}.jsonl"
    down = hook_env(None, home, GRAPHMEM_NEO4J_URI=f"bolt://127.0.0.1:{closed_port()}",
                    GRAPHMEM_NEO4J_PASSWORD="x", GRAPHMEM_HOOK_BUDGET="1.5")
    up = hook_env(neo4j_target, home)

    # a session starts: one line says memory is degraded and why (a budget that covers importing the
    # library in this hook process; the daemon answers within the default one)
    r = run_hook({**down, "GRAPHMEM_HOOK_BUDGET": "60"}, "claude-code", {"session_id": sid, "transcript_path": str(path), "cwd": cwd,
                                       "hook_event_name": "SessionStart", "source": "startup"})
    assert r.returncode == 0 and r.stdout, r.stderr
    notice = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "graphmem memory is degraded" in notice and "graphmem db up" in notice
    assert len(notice.strip().splitlines()) <= 3  # the line, inside the context tags

    # a prompt: nothing printed, exit 0
    r = run_hook(down, "claude-code", prompt_payload(sid, path, cwd, "why does the invoice total test fail?"))
    assert r.returncode == 0 and r.stdout == ""

    # two Stops while Neo4j is down: both spooled, in order
    write_lines(path, lines[: len(lines) // 2])
    r = run_hook(down, "claude-code", stop_payload(sid, path, cwd))
    assert r.returncode == 0 and r.stdout == "" and "spooled" in r.stderr, r.stderr
    write_lines(path, lines)
    last = t.kept_turns()[-1].texts[-1]
    r = run_hook(down, "claude-code", stop_payload(sid, path, cwd, last_assistant_message=last))
    assert r.returncode == 0 and "spooled" in r.stderr
    spool = Spool(home)
    st = spool.status()
    assert st.entries == 2 and st.turns == len(expected) and st.sessions == [sid]
    assert stat.S_IMODE(spool.dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(spool.path.stat().st_mode) == 0o600
    raw = spool.path.read_text()
    assert SECRET not in raw and "REDACTED" in raw  # only redacted text reaches the disk
    with pytest.raises(Exception):  # noqa: B017 - nothing in the database yet
        memory.get_session(sid)

    # a crash after the commit but before the spool was emptied: replaying twice stores once
    backup = raw
    r = graphmem(up, "spool", "replay", "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["entries"] == 2 and res["turns_created"] == len(expected) and res["remaining"] == 0
    assert not spool.pending()
    spool.dir.joinpath("spool.jsonl").write_text(backup)
    os.chmod(spool.path, 0o600)
    r = graphmem(up, "spool", "replay", "--json")
    res = json.loads(r.stdout)
    assert res["turns_created"] == 0 and res["turns_skipped"] == len(expected)
    detail = memory.load_session(sid)
    assert [x.source_id for x in detail.turns] == expected
    assert [x.index for x in detail.turns] == list(range(1, len(expected) + 1))

    # the next Stop with Neo4j up finds nothing new
    r = run_hook(up, "claude-code", stop_payload(sid, path, cwd, last_assistant_message=last))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert len(memory.load_session(sid).turns) == len(expected)


def test_spool_replayed_by_the_next_successful_hook(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, home: Path, tmp_path: Path
) -> None:
    t, lines, sid, cwd = claude_file(tmp_path, namespace)
    expected = [e.source_id for e in t.kept_turns()]
    path = tmp_path / f"{sid}.jsonl"
    down = hook_env(None, home, GRAPHMEM_NEO4J_URI=f"bolt://127.0.0.1:{closed_port()}", GRAPHMEM_NEO4J_PASSWORD="x")
    up = hook_env(neo4j_target, home)
    write_lines(path, lines[: len(lines) // 2])
    assert "spooled" in run_hook(down, "claude-code", stop_payload(sid, path, cwd)).stderr
    write_lines(path, lines)
    last = t.kept_turns()[-1].texts[-1]
    r = run_hook(up, "claude-code", stop_payload(sid, path, cwd, last_assistant_message=last))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert source_ids(memory, sid) == expected  # spooled turns first, then the new ones: order kept
    assert not Spool(home).pending()


def test_disk_full_or_unwritable_home_is_a_clear_error_and_exit_0(
    home: Path, tmp_path: Path, namespace: str
) -> None:
    _t, lines, sid, cwd = claude_file(tmp_path, namespace)
    path = tmp_path / f"{sid}.jsonl"
    write_lines(path, lines)
    dead = {"GRAPHMEM_NEO4J_URI": f"bolt://127.0.0.1:{closed_port()}", "GRAPHMEM_NEO4J_PASSWORD": "x"}

    # disk full: the spool file is /dev/full
    (home / "spool").mkdir(parents=True, mode=0o700)
    (home / "spool" / "spool.jsonl").symlink_to("/dev/full")
    r = run_hook(hook_env(None, home, **dead), "claude-code", stop_payload(sid, path, cwd))
    assert r.returncode == 0 and r.stdout == ""
    assert "disk is full" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not list((home / "cursors").glob("*.json"))  # the cursor did not move: nothing is lost

    # a home that cannot be created (a path under a regular file)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    r = run_hook(hook_env(None, blocker / "home", **dead), "claude-code", stop_payload(sid, path, cwd))
    assert r.returncode == 0 and r.stdout == ""
    assert "graphmem:" in r.stderr and "not a directory" in r.stderr, r.stderr


# ----------------------------------------------------------------------------------------------
# hooks install / uninstall


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``graphmem ARGS`` in this process (same code path as the command, without its start-up)."""
    from graphmem.cli.main import main

    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_hooks_install_merges_and_uninstall_removes_only_ours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = hook_env(None, tmp_path / "gh")
    settings = tmp_path / "claude" / "settings.json"
    settings.parent.mkdir()
    theirs = {"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
                                         "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                                                       "command": "audit.sh"}]}]}}
    settings.write_text(json.dumps(theirs))
    r = graphmem(env, "hooks", "install", "claude-code", "--settings", str(settings), "--json")  # the real command
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["changed"] and set(res["added"]) == {"UserPromptSubmit", "Stop", "SessionStart", "SessionEnd",
                                                    "PreCompact", "PreToolUse"}
    assert " -S " in res["command"] and res["command"].endswith("client.py claude-code")
    assert res["command"].startswith("env ")  # the install's GRAPHMEM_* settings ride along
    data = json.loads(settings.read_text())
    assert data["model"] == "opus" and data["hooks"]["PreToolUse"][:1] == theirs["hooks"]["PreToolUse"]
    # our PreToolUse (the file's history before Read/Edit/Write) is a group of its own, with its matcher
    assert data["hooks"]["PreToolUse"][1]["matcher"] == "Read|Edit|Write|MultiEdit|NotebookEdit"
    assert [h["command"] for h in data["hooks"]["PreToolUse"][1]["hooks"]] == [res["command"]]
    stop_cmds = [h["command"] for g in data["hooks"]["Stop"] for h in g["hooks"]]
    assert "notify-send done" in stop_cmds and res["command"] in stop_cmds
    # the installed command really runs as a hook
    r = subprocess.run(res["command"], shell=True, input='{"hook_event_name": "Notification"}',
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0 and r.stdout == ""

    r = graphmem(env, "hooks", "install", "claude-code", "--settings", str(settings), "--json")
    assert r.returncode == 0 and not json.loads(r.stdout)["changed"]
    # another path to graphmem replaces ours instead of adding a second entry
    code, out, _ = cli(capsys, "hooks", "install", "claude-code", "--settings", str(settings), "--portable", "--json")
    data = json.loads(settings.read_text())
    ours = [h["command"] for g in data["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert len(ours) == 1 and ours[0].endswith("hook claude-code")

    code, out, _ = cli(capsys, "hooks", "uninstall", "claude-code", "--settings", str(settings), "--json")
    assert code == 0 and json.loads(out)["changed"]
    assert json.loads(settings.read_text()) == theirs

    for tool, name, events in (("codex", "hooks.json", {"UserPromptSubmit", "Stop", "SessionStart", "PreCompact"}),
                               ("gemini", "settings.json", {"BeforeAgent", "AfterAgent", "SessionStart", "SessionEnd",
                                                            "PreCompress"})):
        p = tmp_path / tool / name
        code, out, err = cli(capsys, "hooks", "install", tool, "--settings", str(p), "--json")
        assert code == 0, err
        assert set(json.loads(p.read_text())["hooks"]) == events
        code, out, _ = cli(capsys, "hooks", "uninstall", tool, "--settings", str(p), "--json")
        assert json.loads(out)["changed"]
        assert "hooks" not in json.loads(p.read_text())

    bad = tmp_path / "bad.json"
    bad.write_text("{ // comment\n}")
    code, out, err = cli(capsys, "hooks", "install", "claude-code", "--settings", str(bad))
    assert code != 0 and err.startswith("graphmem: error:") and err.count("\n") == 1
    assert bad.read_text() == "{ // comment\n}"


def test_stats_and_daemon_cli(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, home: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    s = memory.create_session(f"{namespace}/stats", agent="claude-code")
    memory.store_turn(s.id, "hello", "world", tool_calls=[{"name": "Read", "args": {"p": 1}, "result": "x",
                                                          "success": True}])
    for k, v in hook_env(neo4j_target, home).items():
        if k.startswith("GRAPHMEM_"):
            monkeypatch.setenv(k, v)
    code, out, err = cli(capsys, "stats", "--json")
    assert code == 0, err
    st = json.loads(out)
    assert st["sessions"] >= 1 and st["turns"] >= 1 and st["toolCalls"] >= 1
    assert {"summaries_by_level", "facts", "pendingTurnEmbeddings", "store", "spool"} <= set(st)
    assert {"auto_retrieval", "llm"} <= set(st) and st["llm"]["purposes"][0]["purpose"] == "summaries"
    code, out, _ = cli(capsys, "stats")
    assert code == 0 and "tool calls" in out
    assert "auto-retrieval: " in out and "LLM calls" in out and "fact extraction" in out
    code, out, _ = cli(capsys, "daemon", "status", "--json")
    assert code == 1 and json.loads(out)["running"] is False
    code, out, _ = cli(capsys, "spool", "status", "--json")
    assert code == 0 and json.loads(out)["entries"] == 0


def test_hook_bench_smoke(neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, tmp_path: Path) -> None:
    from graphmem_devtools.bench.hooks import run_hooks_bench

    if shutil.which("true") is None:  # pragma: no cover
        pytest.skip("no /bin/true")
    result = run_hooks_bench(memory, namespace=namespace, prompts=3, warmup=1, stop_records=10, stop_runs=1,
                             home=tmp_path / "bench-home", env=hook_env(neo4j_target, tmp_path / "bench-home"),
                             command="pytest smoke")
    f = result.figures
    assert f["prompt_hook_ms"]["n"] == 3 and f["stop_hook_ms"]["n"] == 1 and f["pre_tool_hook_ms"]["n"] == 3
    assert f["pre_tool_outputs_nonempty"] == 3  # the earlier turns edited the file it reads
    assert f["import_10_turns_files_ms"]["n"] == f["import_10_turns_no_files_ms"]["n"] == 10
    assert f["prompt_outputs_nonempty"] == 3
    assert "interpreter_start_ms" in f and isinstance(f["client_import_ms"], float)
    assert result.markdown().startswith("#")
