"""Hook stdin models, context output rendering, opt-out rules and settings-file merging."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from graphmem.errors import InvalidInput
from graphmem.integrations import (
    CLAUDE_EVENTS,
    CONTEXT_CLOSE,
    CONTEXT_OPEN,
    MAX_CONTEXT_CHARS,
    ClaudeHookInput,
    CodexHookInput,
    GeminiHookInput,
    canonical_event,
    claude_settings_install,
    claude_settings_path,
    claude_settings_uninstall,
    codex_hooks_enabled,
    codex_hooks_install,
    codex_hooks_path,
    codex_hooks_uninstall,
    gemini_settings_install,
    gemini_settings_path,
    gemini_settings_uninstall,
    has_nomem_marker,
    is_ignored_dir,
    parse_hook_input,
    render_context,
    render_noop,
    should_capture,
)

CMD = "graphmem hook claude"

# --------------------------------------------------------------------------------------------
# stdin


def test_claude_user_prompt_submit_input() -> None:
    raw = json.dumps(
        {
            "session_id": "8c35adc1-0f1e-4a1b-9c2d-3e4f5a6b7c8d",
            "transcript_path": "/home/u/.claude/projects/-w-app/8c35adc1.jsonl",
            "cwd": "/w/app",
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "Corrige l'encodage 🙏",
            "prompt_id": "p-1",
        }
    )
    h = parse_hook_input(raw, "claude-code")
    assert isinstance(h, ClaudeHookInput)
    assert (h.session_id, h.cwd, h.prompt, h.event) == (
        "8c35adc1-0f1e-4a1b-9c2d-3e4f5a6b7c8d",
        "/w/app",
        "Corrige l'encodage 🙏",
        "prompt",
    )
    assert h.transcript_path is not None and h.transcript_path.endswith(".jsonl")
    assert h.model_extra == {"prompt_id": "p-1"}


def test_claude_stop_and_session_start_inputs() -> None:
    stop = parse_hook_input(
        b'{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"Stop","stop_hook_active":true,'
        b'"last_assistant_message":"Done."}',
        "claude",
    )
    assert stop.event == "stop" and stop.stop_hook_active is True
    assert (stop.model_extra or {})["last_assistant_message"] == "Done."
    start = parse_hook_input('{"session_id":"s","hook_event_name":"SessionStart","source":"compact","model":"opus"}')
    assert start.event == "session_start" and start.source == "compact"
    assert isinstance(start, ClaudeHookInput) and start.model == "opus"


def test_codex_inputs() -> None:
    prompt = parse_hook_input(
        json.dumps(
            {
                "cwd": "/w",
                "hook_event_name": "UserPromptSubmit",
                "model": "gpt-5-codex",
                "permission_mode": "default",
                "prompt": "hello",
                "session_id": "0199a1b2",
                "transcript_path": None,
                "turn_id": "019d036d-c7fa",
            }
        ),
        "codex",
    )
    assert isinstance(prompt, CodexHookInput)
    assert (prompt.turn_id, prompt.model, prompt.transcript_path, prompt.event) == (
        "019d036d-c7fa",
        "gpt-5-codex",
        None,
        "prompt",
    )
    stop = parse_hook_input(
        '{"hook_event_name":"Stop","session_id":"s","last_assistant_message":"ok","stop_hook_active":false}', "codex"
    )
    assert isinstance(stop, CodexHookInput) and stop.last_assistant_message == "ok" and stop.event == "stop"


def test_gemini_inputs() -> None:
    before = parse_hook_input(
        '{"session_id":"g1","transcript_path":"/h/.gemini/tmp/x/chats/session-1.jsonl","cwd":"/w",'
        '"hook_event_name":"BeforeAgent","timestamp":"2025-12-01T10:30:00Z","prompt":"Fix the auth bug"}',
        "gemini",
    )
    assert isinstance(before, GeminiHookInput) and before.event == "prompt" and before.prompt == "Fix the auth bug"
    after = parse_hook_input(
        '{"session_id":"g1","hook_event_name":"AfterAgent","prompt":"p","prompt_response":"r","stop_hook_active":false}',
        "gemini",
    )
    assert isinstance(after, GeminiHookInput) and after.event == "stop" and after.prompt_response == "r"


def test_hook_input_is_liberal() -> None:
    h = parse_hook_input(
        '\ufeff{"session_id": 12345, "cwd": null, "prompt": ["a", 1], "stop_hook_active": "true", "extra": {"x": 1}}'
    )
    assert h.session_id == "12345" and h.cwd == "" and h.prompt == '["a", 1]' and h.stop_hook_active is True
    assert h.hook_event_name == "" and h.event == ""
    assert (h.model_extra or {})["extra"] == {"x": 1}
    h = parse_hook_input(b'{"prompt": "caf\xe9 \\ud800"}')
    assert h.prompt == "caf\ufffd \ufffd"
    assert parse_hook_input("{}").session_id == ""


@pytest.mark.parametrize("raw", ["", "   ", "not json", "[1, 2]", '"text"', "null", "{", b"\xff\xfe"])
def test_hook_input_rejects_non_objects(raw: str | bytes) -> None:
    with pytest.raises(InvalidInput):
        parse_hook_input(raw)


def test_unknown_tool_is_rejected() -> None:
    with pytest.raises(InvalidInput):
        parse_hook_input("{}", "cursor")


@pytest.mark.parametrize(
    ("name", "event"),
    [
        ("UserPromptSubmit", "prompt"),
        ("BeforeAgent", "prompt"),
        ("Stop", "stop"),
        ("AfterAgent", "stop"),
        ("SessionStart", "session_start"),
        ("SessionEnd", "session_end"),
        ("PreCompact", "pre_compact"),
        ("PreCompress", "pre_compact"),
        ("user-prompt-submit", "prompt"),
        ("Whatever", "Whatever"),
        (None, ""),
    ],
)
def test_canonical_event(name: str | None, event: str) -> None:
    assert canonical_event(name) == event


# --------------------------------------------------------------------------------------------
# stdout


def _ctx(out: str) -> tuple[str, str]:
    data = json.loads(out)
    assert list(data) == ["hookSpecificOutput"]
    spec = data["hookSpecificOutput"]
    assert set(spec) == {"hookEventName", "additionalContext"}
    return spec["hookEventName"], spec["additionalContext"]


@pytest.mark.parametrize(
    ("tool", "event", "name"),
    [
        ("claude-code", "prompt", "UserPromptSubmit"),
        ("codex", "UserPromptSubmit", "UserPromptSubmit"),
        ("gemini", "prompt", "BeforeAgent"),
        ("gemini", "BeforeAgent", "BeforeAgent"),
        ("claude-code", "session_start", "SessionStart"),
        ("codex", "SessionStart", "SessionStart"),
        ("gemini", "session_start", "SessionStart"),
    ],
)
def test_render_context(tool: str, event: str, name: str) -> None:
    out = render_context("Earlier: rounding fixed with ROUND_HALF_UP ✅", tool=tool, event=event)
    got_name, text = _ctx(out)
    assert got_name == name
    assert text == f"{CONTEXT_OPEN}\nEarlier: rounding fixed with ROUND_HALF_UP ✅\n{CONTEXT_CLOSE}"
    assert "✅" in out  # not escaped


def test_render_context_is_capped() -> None:
    body = "\n".join(f"- memory line {i}: " + "x" * 80 for i in range(400))
    for wrap in (True, False):
        _, text = _ctx(render_context(body, wrap=wrap))
        assert len(text) <= MAX_CONTEXT_CHARS
        assert "truncated" in text
        assert text.startswith(CONTEXT_OPEN) == wrap
    _, text = _ctx(render_context(body, limit=500))
    assert len(text) <= 500 and text.endswith(CONTEXT_CLOSE)
    _, exact = _ctx(render_context("y" * (MAX_CONTEXT_CHARS - 40)))
    assert "truncated" not in exact


def test_render_context_edge_cases() -> None:
    assert render_context("   ") == render_noop() == "{}"
    _, text = _ctx(render_context("lone \ud800 surrogate"))
    assert "\ufffd" in text
    with pytest.raises(InvalidInput):
        render_context("x", event="stop")
    with pytest.raises(InvalidInput):
        render_context("x", tool="aider")


# --------------------------------------------------------------------------------------------
# opt-out


def test_ignore_file_up_to_git_root(tmp_path: Path) -> None:
    repo = tmp_path / "outer" / "repo"
    deep = repo / "src" / "pkg"
    deep.mkdir(parents=True)
    (repo / ".git").mkdir()
    assert not is_ignored_dir(deep)
    (repo / "src" / ".graphmem-ignore").touch()
    assert is_ignored_dir(deep) and is_ignored_dir(repo / "src")
    assert not is_ignored_dir(repo)
    (repo / "src" / ".graphmem-ignore").unlink()
    (tmp_path / "outer" / ".graphmem-ignore").touch()  # above the git root: not looked at
    assert not is_ignored_dir(deep)
    (repo / ".graphmem-ignore").touch()
    assert is_ignored_dir(deep)


def test_ignore_file_outside_git(tmp_path: Path) -> None:
    plain = tmp_path / "plain" / "sub"
    plain.mkdir(parents=True)
    (tmp_path / "plain" / ".graphmem-ignore").touch()
    assert not is_ignored_dir(plain)  # no git root: only the directory itself counts
    (plain / ".graphmem-ignore").touch()
    assert is_ignored_dir(plain)
    assert not is_ignored_dir(tmp_path / "does" / "not" / "exist")
    assert not is_ignored_dir(None) and not is_ignored_dir("") and not is_ignored_dir("a\x00b")


@pytest.mark.parametrize(
    ("prompt", "marked"),
    [
        ("keep this out #nomem", True),
        ("#nomem at start", True),
        ("#NOMEM shouting", True),
        ("(#nomem)", True),
        ("no marker", False),
        ("##nomem doubled", False),
        ("#nomemory is another word", False),
        ("issue#nomem", False),
        ("", False),
        (None, False),
    ],
)
def test_nomem_marker(prompt: str | None, marked: bool) -> None:
    assert has_nomem_marker(prompt) is marked


def test_should_capture(tmp_path: Path) -> None:
    assert should_capture(tmp_path, "normal prompt")
    assert not should_capture(tmp_path, "secret #nomem")
    (tmp_path / ".graphmem-ignore").touch()
    assert not should_capture(tmp_path, "normal prompt")


# --------------------------------------------------------------------------------------------
# settings files

FOREIGN: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
    "env": {"FOO": "bär"},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/guard.sh"}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo ctx", "timeout": 5}]}],
        "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
    "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
}


def _write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _ours(data: dict[str, Any], command: str = CMD) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for event, groups in data.get("hooks", {}).items():
        if not isinstance(groups, list):
            continue
        for g in groups:
            if not isinstance(g, dict):
                continue
            for h in g.get("hooks", []):
                if h.get("command", "").startswith(command):
                    out.setdefault(event, []).append(h)
    return out


def test_claude_install_preserves_foreign_settings(tmp_path: Path) -> None:
    path = _write_json(tmp_path / ".claude" / "settings.json", FOREIGN)
    res = claude_settings_install(path, CMD)
    assert res.changed and res.added == list(CLAUDE_EVENTS) and res.path == str(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert {k: v for k, v in data.items() if k != "hooks"} == {k: v for k, v in FOREIGN.items() if k != "hooks"}
    assert list(data) == list(FOREIGN)  # key order kept
    for event, groups in FOREIGN["hooks"].items():
        assert data["hooks"][event][: len(groups)] == groups  # foreign hooks untouched, first
    ours = _ours(data)
    assert set(ours) == set(CLAUDE_EVENTS)
    assert all(h == [{"type": "command", "command": CMD, "timeout": 30}] for h in ours.values())
    assert data["hooks"]["SessionStart"] == [{"hooks": [{"type": "command", "command": CMD, "timeout": 30}]}]


def test_claude_install_is_idempotent_and_updates_in_place(tmp_path: Path) -> None:
    path = _write_json(tmp_path / "settings.json", FOREIGN)
    claude_settings_install(path, CMD)
    before = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    res = claude_settings_install(path, CMD)
    assert not res.changed and res.added == []
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime
    res = claude_settings_install(path, CMD, timeout=60)
    assert res.changed
    data = json.loads(path.read_text())
    assert [h["timeout"] for hs in _ours(data).values() for h in hs] == [60] * len(CLAUDE_EVENTS)
    assert len(data["hooks"]["UserPromptSubmit"]) == 2  # updated in place, not appended again


def test_claude_install_merges_duplicates_of_ours(tmp_path: Path) -> None:
    data = {
        "hooks": {
            "Stop": [
                {"hooks": [{"type": "command", "command": CMD, "timeout": 5, "statusMessage": "saving"}]},
                {"hooks": [{"type": "command", "command": CMD + " --again"}, {"type": "command", "command": "other"}]},
            ]
        }
    }
    path = _write_json(tmp_path / "settings.json", data)
    claude_settings_install(path, CMD, events=["Stop"])
    stop = json.loads(path.read_text())["hooks"]["Stop"]
    assert stop == [
        {"hooks": [{"type": "command", "command": CMD, "timeout": 30, "statusMessage": "saving"}]},
        {"hooks": [{"type": "command", "command": "other"}]},
    ]


def test_claude_uninstall_removes_only_ours(tmp_path: Path) -> None:
    path = _write_json(tmp_path / "settings.json", FOREIGN)
    claude_settings_install(path, CMD)
    res = claude_settings_uninstall(path, CMD)
    assert res.changed and set(res.removed) == set(CLAUDE_EVENTS)
    assert json.loads(path.read_text()) == FOREIGN
    again = claude_settings_uninstall(path, CMD)
    assert not again.changed
    bare = _write_json(tmp_path / "bare.json", {"model": "opus"})
    claude_settings_install(bare, CMD)
    claude_settings_uninstall(bare, CMD)
    assert json.loads(bare.read_text()) == {"model": "opus"}
    missing = tmp_path / "none" / "settings.json"
    assert not claude_settings_uninstall(missing, CMD).changed and not missing.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"hooks": {', "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"hooks": []}', "'hooks'"),
        ('{"hooks": {"SessionStart": {"command": "x"}}}', "hooks.SessionStart"),
        ('{"a": 1, "a": 2}', "duplicate key"),
        ('{\n  // my comment\n  "model": "opus"\n}', "comments"),
        ("\xff\xfe{}", "UTF-8"),
    ],
)
def test_malformed_settings_are_left_untouched(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "settings.json"
    raw = content.encode("latin-1") if content.startswith("\xff") else content.encode()
    path.write_bytes(raw)
    for fn in (claude_settings_install, codex_hooks_install, gemini_settings_install):
        with pytest.raises(InvalidInput, match=message):
            fn(path, CMD)
        assert path.read_bytes() == raw
    if message != "hooks.SessionStart":
        with pytest.raises(InvalidInput):
            claude_settings_uninstall(path, CMD)
    assert path.read_bytes() == raw
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]  # no temp file left


def test_settings_file_creation_mode_and_symlink(tmp_path: Path) -> None:
    created = tmp_path / "new" / "dir" / "settings.json"
    res = claude_settings_install(created, CMD)
    assert res.changed and created.is_file()
    empty = tmp_path / "empty.json"
    empty.write_text("\n")
    claude_settings_install(empty, CMD)
    assert set(_ours(json.loads(empty.read_text()))) == set(CLAUDE_EVENTS)
    real = _write_json(tmp_path / "dotfiles" / "settings.json", FOREIGN)
    os.chmod(real, 0o600)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    claude_settings_install(link, CMD)
    assert link.is_symlink() and stat.S_IMODE(real.stat().st_mode) == 0o600
    assert set(_ours(json.loads(real.read_text()))) == set(CLAUDE_EVENTS)
    assert sorted(p.name for p in real.parent.iterdir()) == ["settings.json"]


def test_settings_warnings_and_bad_command(tmp_path: Path) -> None:
    path = _write_json(tmp_path / "s.json", {"disableAllHooks": True})
    assert any("disableAllHooks" in w for w in claude_settings_install(path, CMD).warnings)
    with pytest.raises(InvalidInput):
        claude_settings_install(path, "  ")
    with pytest.raises(InvalidInput):
        claude_settings_install(path, "graphmem\nrm -rf /")


def test_scope_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    proj = tmp_path / "proj"
    assert claude_settings_path("user") == tmp_path / "home" / ".claude" / "settings.json"
    assert claude_settings_path("project", proj) == proj / ".claude" / "settings.json"
    assert claude_settings_path("local", proj) == proj / ".claude" / "settings.local.json"
    assert codex_hooks_path("user") == tmp_path / "home" / ".codex" / "hooks.json"
    assert codex_hooks_path("project", proj) == proj / ".codex" / "hooks.json"
    assert gemini_settings_path("user") == tmp_path / "home" / ".gemini" / "settings.json"
    assert gemini_settings_path("project", proj) == proj / ".gemini" / "settings.json"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "cx"))
    assert claude_settings_path("user") == tmp_path / "cfg" / "settings.json"
    assert codex_hooks_path("user") == tmp_path / "cx" / "hooks.json"
    res = claude_settings_install(None, CMD, "project", project_dir=proj)
    assert res.path == str(proj / ".claude" / "settings.json") and res.changed
    with pytest.raises(InvalidInput):
        claude_settings_path("global")  # type: ignore[arg-type]


def test_codex_hooks_json(tmp_path: Path) -> None:
    cmd = "graphmem hook codex"
    path = _write_json(
        tmp_path / ".codex" / "hooks.json",
        {
            "hooks": {
                "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "python3 demo.py", "timeoutSec": 10}]}]
            }
        },
    )
    config = tmp_path / ".codex" / "config.toml"
    config.write_text("[features]\ncodex_hooks = false\n")
    res = codex_hooks_install(path, cmd, config_path=config)
    assert res.changed and any("disabled" in w for w in res.warnings)
    data = json.loads(path.read_text())
    assert data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == "python3 demo.py"
    assert _ours(data, cmd) == {
        e: [{"type": "command", "command": cmd, "timeout": 30}] for e in ("UserPromptSubmit", "Stop", "SessionStart", "PreCompact")
    }
    assert not codex_hooks_install(path, cmd, config_path=config).changed
    assert codex_hooks_uninstall(path, cmd).changed
    assert json.loads(path.read_text()) == {
        "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "python3 demo.py", "timeoutSec": 10}]}]
        }
    }
    assert codex_hooks_enabled(config) is False
    config.write_text("[features]\nhooks = true\n")
    assert codex_hooks_enabled(config) is True
    config.write_text("not = [toml")
    assert codex_hooks_enabled(config) is None
    assert codex_hooks_enabled(tmp_path / "missing.toml") is None


def test_gemini_settings(tmp_path: Path) -> None:
    cmd = "graphmem hook gemini"
    original = {
        "theme": "GitHub",
        "hooksConfig": {"enabled": False},
        "hooks": {
            "disabled": ["secret-scanner"],
            "BeforeTool": [
                {
                    "matcher": "write_file|replace",
                    "hooks": [{"name": "secret-scanner", "type": "command", "command": "scan.sh", "timeout": 5000}],
                }
            ],
        },
    }
    path = _write_json(tmp_path / ".gemini" / "settings.json", original)
    res = gemini_settings_install(path, cmd, timeout=20)
    assert res.changed and res.added == ["BeforeAgent", "AfterAgent", "SessionStart", "SessionEnd", "PreCompress"]
    assert any("hooksConfig.enabled" in w for w in res.warnings)
    data = json.loads(path.read_text())
    assert data["hooks"]["disabled"] == ["secret-scanner"] and data["hooksConfig"] == {"enabled": False}
    assert data["hooks"]["BeforeTool"] == original["hooks"]["BeforeTool"]  # type: ignore[index]
    for hooks in _ours(data, cmd).values():
        assert hooks == [
            {
                "name": "graphmem",
                "type": "command",
                "command": cmd,
                "timeout": 20000,
                "description": "graphmem long-term memory",
            }
        ]
    assert not gemini_settings_install(path, cmd, timeout=20).changed
    assert gemini_settings_uninstall(path, cmd).changed
    assert json.loads(path.read_text()) == original
