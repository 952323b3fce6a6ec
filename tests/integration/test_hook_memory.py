"""The hook experience end to end (the real hook command as a subprocess, a real Neo4j): the project's
facts reach the prompt (logged as a Retrieval), ``remember:``/``#forget`` in a prompt store and forget
project facts, SessionEnd and PreCompact store the turns whose Stop never came, and an installed hook
command carries the install's settings.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from graphmem import GraphMemory
from graphmem.facts import get_retrieval, list_retrievals
from graphmem.integrations import parse_claude_code
from graphmem.runtime.spool import Spool
from tests.conftest import Neo4jTarget
from tests.data import codex_rollout, gemini_chat
from tests.integration.test_hooks import (
    claude_file,
    closed_port,
    graphmem,
    home,  # noqa: F401  (a fixture)
    hook_env,
    prompt_payload,
    run_hook,
    source_ids,
    stop_payload,
    write_lines,
)

pytestmark = pytest.mark.integration


def context_of(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 0, r.stderr
    assert r.stdout, f"no context printed; stderr: {r.stderr}"
    out = json.loads(r.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "UserPromptSubmit"
    return str(out["additionalContext"])


def event_payload(event: str, sid: str, path: Path, cwd: str, **extra: Any) -> dict[str, Any]:
    """A Claude Code hook input for ``event`` as Claude Code sends it."""
    return {"session_id": sid, "transcript_path": str(path), "cwd": cwd, "permission_mode": "default",
            "hook_event_name": event, **extra}


# ----------------------------------------------------------------------------------------------
# UserPromptSubmit: the project's facts reach the prompt


def test_project_facts_reach_the_prompt_and_the_injection_is_logged(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, home: Path, tmp_path: Path  # noqa: F811
) -> None:
    env = hook_env(neo4j_target, home, GRAPHMEM_HOOK_BUDGET="120")
    cwd = f"{namespace}/billing-api"
    r = graphmem(env, "facts", "add", "Invoices are rounded half-up to the cent, never truncated",
                 "--type", "decision", "--scope", f"project:{cwd}", "--json")
    assert r.returncode == 0, r.stderr
    decision = json.loads(r.stdout)["fact"]["id"]
    r = graphmem(env, "facts", "add", "another project's convention: tabs", "--type", "decision",
                 "--scope", f"project:{namespace}/other-project", "--json")
    assert r.returncode == 0, r.stderr

    sid = str(uuid.uuid4())
    ctx = context_of(run_hook(env, "claude-code",
                              prompt_payload(sid, tmp_path / "t.jsonl", cwd, "fix the invoice total test")))
    assert "Known Facts" in ctx and "rounded half-up to the cent" in ctx
    assert "tabs" not in ctx  # another project's facts stay there
    logs = list_retrievals(memory.db, session_id=sid)
    assert len(logs) == 1  # logged like build_context's injection
    detail = get_retrieval(memory.db, logs[0]["id"])
    assert detail is not None and decision in [i["id"] for i in detail["items"]]


# ----------------------------------------------------------------------------------------------
# remember: / #forget in a prompt


def test_remember_and_forget_in_the_prompt(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, home: Path, tmp_path: Path  # noqa: F811
) -> None:
    env = hook_env(neo4j_target, home, GRAPHMEM_HOOK_BUDGET="120")
    cwd = f"{namespace}/shop"
    scope = f"project:{cwd}"
    sid = str(uuid.uuid4())
    path = tmp_path / f"{sid}.jsonl"

    def prompt(text: str) -> str:
        return context_of(run_hook(env, "claude-code", prompt_payload(sid, path, cwd, text)))

    line = prompt("  Remember: releases are cut with `make release` from the main branch")
    assert "project fact stored" in line and "make release" in line and line.count("\n") == 2  # tags + one line
    line = prompt("retiens : les migrations de schéma sont numérotées")
    assert "project fact stored" in line
    line = prompt("#remember the staging database is reset every Monday")
    assert "project fact stored" in line
    facts = {f.content: f for f in memory.list_facts(scopes=[scope])}
    assert set(facts) == {"releases are cut with `make release` from the main branch",
                          "les migrations de schéma sont numérotées",
                          "the staging database is reset every Monday"}
    assert {f.type for f in facts.values()} == {"decision"}

    assert "nothing was stored" in prompt("remember:   ")
    assert "nothing was forgotten" in prompt("#forget")
    assert "nothing was forgotten" in prompt("#forget kubernetes")
    assert len(memory.list_facts(scopes=[scope])) == 3

    # an ordinary prompt of the project gets what was remembered
    other = str(uuid.uuid4())
    ctx = context_of(run_hook(env, "claude-code", prompt_payload(other, path, cwd, "how do I ship this?")))
    assert "make release" in ctx

    line = prompt("#forget staging database")
    assert "forgot 1 project fact(s)" in line and "reset every Monday" in line
    assert {f.content for f in memory.list_facts(scopes=[scope])} == {
        "releases are cut with `make release` from the main branch", "les migrations de schéma sont numérotées"}
    # a fact id of another scope is not forgotten from here
    glob = memory.remember("the person prefers short answers", scope="global")
    try:
        line = prompt(f"#forget {glob.fact.id}")
        assert "nothing was forgotten" in line and "not a fact of this project" in line
        assert [f.id for f in memory.list_facts(scopes=["global"]) if f.id == glob.fact.id] == [glob.fact.id]
    finally:
        memory.forget(glob.fact.id)
    # #nomem wins: nothing stored
    r = run_hook(env, "claude-code", prompt_payload(sid, path, cwd, "remember: a secret plan #nomem"))
    assert r.returncode == 0 and r.stdout == ""
    assert len(memory.list_facts(scopes=[scope])) == 2


# ----------------------------------------------------------------------------------------------
# SessionEnd and PreCompact: no lost last turn


def test_session_end_stores_the_last_turn_whose_stop_never_came(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, home: Path, tmp_path: Path  # noqa: F811
) -> None:
    t, lines, sid, cwd = claude_file(tmp_path, namespace)
    expected = [e.source_id for e in t.kept_turns()]
    path = tmp_path / f"{sid}.jsonl"
    env = hook_env(neo4j_target, home)

    write_lines(path, lines[: len(lines) // 2])
    # Claude Code before 2.1.47: a Stop without last_assistant_message
    r = run_hook(env, "claude-code", stop_payload(sid, path, cwd))
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert 0 < len(source_ids(memory, sid)) < len(expected)

    write_lines(path, lines)  # the session went on; its last Stop never came
    # nothing in the transcript marks the last turn as finished
    assert len(parse_claude_code(path, include_incomplete=False).turns) == len(expected) - 1
    r = run_hook(env, "claude-code", event_payload("SessionEnd", sid, path, cwd, reason="prompt_input_exit"))
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert source_ids(memory, sid) == expected

    # a second SessionEnd (or a late Stop) adds nothing
    r = run_hook(env, "claude-code", event_payload("SessionEnd", sid, path, cwd, reason="other"))
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert source_ids(memory, sid) == expected
    # a session that wrote no transcript ends quietly
    r = run_hook(env, "claude-code", event_payload("SessionEnd", str(uuid.uuid4()), tmp_path / "none.jsonl", cwd,
                                                   reason="clear"))
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""


def test_session_end_flushes_the_spool(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, home: Path, tmp_path: Path  # noqa: F811
) -> None:
    t, lines, sid, cwd = claude_file(tmp_path, namespace)
    expected = [e.source_id for e in t.kept_turns()]
    path = tmp_path / f"{sid}.jsonl"
    write_lines(path, lines)
    down = hook_env(neo4j_target, home, GRAPHMEM_NEO4J_URI=f"bolt://127.0.0.1:{closed_port()}")
    r = run_hook(down, "claude-code", stop_payload(sid, path, cwd))  # Neo4j unreachable: spooled
    assert r.returncode == 0 and "spooled" in r.stderr
    assert Spool(home).pending() and memory.sessions_for(cwd) == []

    r = run_hook(hook_env(neo4j_target, home), "claude-code",
                 event_payload("SessionEnd", sid, path, cwd, reason="prompt_input_exit"))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert source_ids(memory, sid) == expected
    assert not Spool(home).pending()


def test_pre_compact_stores_the_turns_before_the_compaction(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, home: Path, tmp_path: Path  # noqa: F811
) -> None:
    t, lines, sid, cwd = claude_file(tmp_path, namespace)
    expected = [e.source_id for e in t.kept_turns()]
    path = tmp_path / f"{sid}.jsonl"
    env = hook_env(neo4j_target, home)
    write_lines(path, lines)  # no Stop hook ran at all

    # an automatic compaction may come in the middle of a turn: the finished turns are stored, the
    # last one waits for its Stop
    r = run_hook(env, "claude-code", event_payload("PreCompact", sid, path, cwd, trigger="auto",
                                                   custom_instructions=""))
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert source_ids(memory, sid) == expected[:-1]
    # /compact runs between turns: everything is stored
    r = run_hook(env, "claude-code", event_payload("PreCompact", sid, path, cwd, trigger="manual",
                                                   custom_instructions="keep the invoice work"))
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert source_ids(memory, sid) == expected


# ----------------------------------------------------------------------------------------------
# the installed command carries the install's settings


def test_installed_hook_command_carries_the_install_settings(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, tmp_path: Path
) -> None:
    install_home = tmp_path / "install-home"
    env = hook_env(neo4j_target, install_home)
    settings = tmp_path / "claude" / "settings.json"
    r = graphmem(env, "hooks", "install", "claude-code", "--settings", str(settings), "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    command = res["command"]
    assert command.startswith("env ") and f"GRAPHMEM_HOME={install_home}" in command
    assert set(res["added"]) == {"UserPromptSubmit", "Stop", "SessionStart", "SessionEnd", "PreCompact",
                                "PreToolUse"}
    assert res["secrets_left_out"] == ["GRAPHMEM_NEO4J_PASSWORD"]
    text = settings.read_text()
    assert neo4j_target.password not in text  # the password never reaches the hook file
    data = json.loads(text)
    assert {h["command"] for e in data["hooks"].values() for g in e for h in g["hooks"]} == {command}

    # the CLI's environment: no GRAPHMEM_* but the password, another HOME
    fake_home = tmp_path / "fake-home"
    fake_home.mkdir()
    cli_env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_"))}
    cli_env.update({"HOME": str(fake_home), "GRAPHMEM_NEO4J_PASSWORD": neo4j_target.password})
    t, lines, sid, cwd = claude_file(tmp_path, namespace, n_turns=4)
    path = tmp_path / f"{sid}.jsonl"
    write_lines(path, lines)
    last = t.kept_turns()[-1].texts[-1]
    r = subprocess.run(command, shell=True, input=json.dumps(stop_payload(sid, path, cwd, last_assistant_message=last)),
                       capture_output=True, text=True, env=cli_env, timeout=120)
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert source_ids(memory, sid) == [e.source_id for e in t.kept_turns()]
    assert any((install_home / "cursors").iterdir())  # the install's home, not the default one
    assert not (fake_home / ".local" / "share" / "graphmem").exists()

    # --no-env writes the bare command (replacing ours)
    r = graphmem(env, "hooks", "install", "claude-code", "--settings", str(settings), "--no-env", "--json")
    assert r.returncode == 0, r.stderr
    bare = json.loads(r.stdout)["command"]
    assert not bare.startswith("env ") and command.endswith(" " + bare)
    data = json.loads(settings.read_text())
    assert {h["command"] for e in data["hooks"].values() for g in e for h in g["hooks"]} == {bare}


def test_codex_pre_compact_and_gemini_session_end_store_every_turn(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, home: Path, tmp_path: Path  # noqa: F811
) -> None:
    env = hook_env(neo4j_target, home)
    # Codex: no Stop ran; /compact stores the rollout (Codex has no SessionEnd hook)
    rollout = codex_rollout.generate(n_turns=6)
    csid = str(uuid.uuid4())
    ccwd = f"{namespace}/weather-service"
    cpath = tmp_path / f"rollout-2025-06-02T09-00-00-{csid}.jsonl"
    cpath.write_text(rollout.text(with_partial=False).replace(codex_rollout.SESSION_ID, csid)
                     .replace(codex_rollout.CWD, ccwd), encoding="utf-8")
    r = run_hook(env, "codex", {"session_id": csid, "transcript_path": str(cpath), "cwd": ccwd,
                                "hook_event_name": "PreCompact", "trigger": "manual", "turn_id": "t-9",
                                "model": "gpt-5-codex"})
    assert r.returncode == 0 and r.stdout == "", r.stderr
    stored = memory.load_session(csid).turns
    assert [t.user_message for t in stored] == [e.user_message for e in rollout.kept_turns()]

    # Gemini: no AfterAgent ran; SessionEnd stores the chat file
    chat = gemini_chat.generate(n_turns=6)
    gsid = str(uuid.uuid4())
    gcwd = f"{namespace}/orders"
    gpath = tmp_path / "session-2025-06-02T09-00-gemini.json"
    gpath.write_text(chat.legacy_json().replace(gemini_chat.SESSION_ID, gsid), encoding="utf-8")
    r = run_hook(env, "gemini", {"session_id": gsid, "transcript_path": str(gpath), "cwd": gcwd,
                                 "hook_event_name": "SessionEnd", "reason": "exit",
                                 "timestamp": "2025-06-02T10:00:00Z"})
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert source_ids(memory, gsid) == [e.source_id for e in chat.kept_turns()]
