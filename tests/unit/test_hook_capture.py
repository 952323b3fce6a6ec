"""The pure parts of the hook experience: memory commands typed in a prompt, which transcript reads
take the last turn as finished, the environment an installed hook command carries, the events
installed per CLI."""

from __future__ import annotations

import shlex

import pytest

from graphmem.cli.hooks_cmd import with_environment
from graphmem.config import hook_environment
from graphmem.integrations import PromptCommand, parse_hook_input, parse_prompt_command
from graphmem.integrations.hook_files import CLAUDE_EVENTS, CODEX_EVENTS, GEMINI_EVENTS, HOOK_FILES
from graphmem.runtime.client import event_kind
from graphmem.runtime.service import _reads_to_the_end


@pytest.mark.parametrize(("prompt", "expected"), [
    ("remember: we use tabs in Makefiles", PromptCommand("remember", "we use tabs in Makefiles")),
    ("  REMEMBER:   deploys go through staging  ", PromptCommand("remember", "deploys go through staging")),
    ("Remember : ports below 1024 need root", PromptCommand("remember", "ports below 1024 need root")),
    ("#remember the API is versioned in the URL", PromptCommand("remember", "the API is versioned in the URL")),
    ("#Remember: two spaces", PromptCommand("remember", "two spaces")),
    ("retiens : les migrations sont numérotées", PromptCommand("remember", "les migrations sont numérotées")),
    ("\n\tRetiens: multi\nline", PromptCommand("remember", "multi\nline")),
    ("remember:", PromptCommand("remember", "")),
    ("#remember   ", PromptCommand("remember", "")),
    ("#forget tabs", PromptCommand("forget", "tabs")),
    ("  #FORGET: the staging rule", PromptCommand("forget", "the staging rule")),
    ("#forget", PromptCommand("forget", "")),
])
def test_memory_commands_at_the_start_of_a_prompt(prompt: str, expected: PromptCommand) -> None:
    assert parse_prompt_command(prompt) == expected


@pytest.mark.parametrize("prompt", [
    "", None, "please remember: this is not a command", "do you remember what we did?",
    "#remembering things", "#forgetful", "remember the alamo", "retiens bien ceci",
])
def test_ordinary_prompts_are_not_commands(prompt: str | None) -> None:
    assert parse_prompt_command(prompt) is None


@pytest.mark.parametrize(("tool", "payload", "final"), [
    ("claude-code", '{"hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}', True),
    ("claude-code", '{"hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": ""}', True),
    ("claude-code", '{"hook_event_name": "PreCompact", "trigger": "auto"}', False),
    ("claude-code", '{"hook_event_name": "Stop", "stop_hook_active": false}', False),
    ("codex", '{"hook_event_name": "PreCompact", "trigger": "manual", "turn_id": "t"}', True),
    ("gemini", '{"hook_event_name": "PreCompress", "trigger": "manual"}', True),
    ("gemini", '{"hook_event_name": "SessionEnd", "reason": "exit"}', True),
    ("gemini", '{"hook_event_name": "AfterAgent"}', False),
])
def test_which_reads_take_the_last_turn_as_finished(tool: str, payload: str, final: bool) -> None:
    assert _reads_to_the_end(parse_hook_input(payload, tool)) is final


def test_the_client_routes_session_end_and_compaction_to_the_ingest_path() -> None:
    for name in ("SessionEnd", "PreCompact", "PreCompress", "Stop", "AfterAgent"):
        assert event_kind(f'{{"hook_event_name": "{name}"}}'.encode()) == "stop"


def test_events_installed_per_cli() -> None:
    assert CLAUDE_EVENTS == ("UserPromptSubmit", "Stop", "SessionStart", "SessionEnd", "PreCompact")
    assert CODEX_EVENTS == ("UserPromptSubmit", "Stop", "SessionStart", "PreCompact")  # Codex has no SessionEnd
    assert GEMINI_EVENTS == ("BeforeAgent", "AfterAgent", "SessionStart", "SessionEnd", "PreCompress")
    assert {t: f.events for t, f in HOOK_FILES.items()} == {
        "claude-code": (*CLAUDE_EVENTS, "PreToolUse"), "codex": CODEX_EVENTS, "gemini": GEMINI_EVENTS}
    # (PreToolUse, with its matcher group, comes from graphmem.integrations.tool_hooks)


def test_hook_environment_carries_settings_but_never_a_secret() -> None:
    env = {
        "GRAPHMEM_HOME": "~/gm home", "GRAPHMEM_NEO4J_URI": "bolt://db:7687", "NEO4J_USERNAME": "ops",
        "GRAPHMEM_NEO4J_PASSWORD": "hunter2", "NEO4J_PASSWORD": "hunter3", "OPENAI_API_KEY": "sk-x",
        "GRAPHMEM_EMBEDDER": "none", "GRAPHMEM_WORKTREES": "main", "GRAPHMEM_HOOK_TIMING": "1",
        "GRAPHMEM_TEST_HOME": "/t", "GRAPHMEM_WORKER_TEST_DELAY_SECONDS": "3", "PATH": "/bin", "GRAPHMEM_HEAP": "",
    }
    carried, left_out = hook_environment(env)
    assert carried["GRAPHMEM_HOME"].endswith("/gm home") and carried["GRAPHMEM_HOME"].startswith("/")
    assert {k: v for k, v in carried.items() if k != "GRAPHMEM_HOME"} == {
        "GRAPHMEM_EMBEDDER": "none", "GRAPHMEM_NEO4J_URI": "bolt://db:7687", "GRAPHMEM_WORKTREES": "main",
        "NEO4J_USERNAME": "ops"}
    assert list(carried) == sorted(carried)
    assert sorted(left_out) == ["GRAPHMEM_NEO4J_PASSWORD", "OPENAI_API_KEY"]
    assert "hunter" not in repr(carried)
    assert hook_environment({"PATH": "/bin"}) == ({}, [])


def test_installed_command_is_prefixed_with_env() -> None:
    cmd, left_out = with_environment("/py -S /c/client.py claude-code",
                                     {"GRAPHMEM_HOME": "/x y", "GRAPHMEM_NEO4J_PASSWORD": "pw"})
    assert cmd == "env 'GRAPHMEM_HOME=/x y' /py -S /c/client.py claude-code"
    assert shlex.split(cmd)[:2] == ["env", "GRAPHMEM_HOME=/x y"]
    assert left_out == ["GRAPHMEM_NEO4J_PASSWORD"] and "pw" not in cmd
    assert with_environment("graphmem hook codex", {}) == ("graphmem hook codex", [])
