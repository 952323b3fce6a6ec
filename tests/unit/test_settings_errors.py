"""A bad GRAPHMEM_* value: one clear line per bad setting (variable, value unless secret, reason), exit
code 2, no traceback, in the CLI, the hooks run in-process, the daemon start and the MCP server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from graphmem.cli.main import EXIT_USAGE, main
from graphmem.config import Settings, is_settings_error, settings_problems
from graphmem.errors import ConfigError

PORT_PROBLEM = "GRAPHMEM_BOLT_PORT='abc': Input should be a valid integer, unable to parse string as an integer"


def _lines(text: str) -> list[str]:
    return text.splitlines()


def test_cli_bad_setting_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GRAPHMEM_BOLT_PORT", "abc")
    assert main(["sessions", "list", "--cwd", "/tmp"]) == EXIT_USAGE == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert _lines(err) == [f"graphmem: invalid setting {PORT_PROBLEM}"]
    assert "Traceback" not in err


def test_cli_one_line_per_bad_setting(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GRAPHMEM_BOLT_PORT", "abc")
    monkeypatch.setenv("GRAPHMEM_HOOK_REPLAY_SECONDS", "-1")
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "nope")
    assert main(["db", "status"]) == 2
    lines = _lines(capsys.readouterr().err)
    assert len(lines) == 3 and all(line.startswith("graphmem: invalid setting GRAPHMEM_") for line in lines)
    assert f"graphmem: invalid setting {PORT_PROBLEM}" in lines
    assert ("graphmem: invalid setting GRAPHMEM_HOOK_REPLAY_SECONDS='-1': must be "
            "a number of seconds >= 0 (0 = no limit)") in lines  # pydantic's "Value error, " prefix dropped
    assert any(line.startswith("graphmem: invalid setting GRAPHMEM_EMBEDDER='nope': Input should be 'auto'")
               for line in lines)


def test_cli_subprocess_no_traceback(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_", "OPENAI_"))}
    env.update(GRAPHMEM_HOME=str(tmp_path / "home"), GRAPHMEM_HOOK_REPLAY_SECONDS="-1")
    code = "import sys; from graphmem.cli import main; sys.exit(main())"  # as the console script does
    proc = subprocess.run([sys.executable, "-c", code, "sessions", "list", "--cwd", "/tmp"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert _lines(proc.stderr) == [
        "graphmem: invalid setting GRAPHMEM_HOOK_REPLAY_SECONDS='-1': must be "
        "a number of seconds >= 0 (0 = no limit)"
    ]


def test_long_value_is_truncated_and_env_name_kept_as_spelled(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("graphmem_bolt_port", "9" * 200 + "x")  # pydantic-settings ignores the case
    assert main(["sessions", "list"]) == 2
    (line,) = _lines(capsys.readouterr().err)
    assert line.startswith("graphmem: invalid setting graphmem_bolt_port='" + "9" * 80 + "'... (201 chars): ")
    assert "x" not in line.split(":")[1]


def test_secret_value_is_not_echoed() -> None:
    # no secret field can fail from the environment today (SecretStr takes any string): build the error
    error = ValidationError.from_exception_data("Settings", [
        {"type": "string_too_long", "loc": ("neo4j_password",), "input": "hunter2-secret", "ctx": {"max_length": 3}},
        {"type": "string_type", "loc": ("openai_api_key",), "input": ["sk-secret"]},
    ])
    problems = settings_problems(error, environ={"NEO4J_PASSWORD": "hunter2-secret", "OPENAI_API_KEY": "other"})
    assert problems == [
        "NEO4J_PASSWORD (value not shown): String should have at most 3 characters",
        "openai_api_key (value not shown): Input should be a valid string",  # an argument, not the env value
    ]
    assert not any("secret" in p for p in problems)


def test_argument_values_missing_fields_and_aliases() -> None:
    with pytest.raises(ValidationError) as info:
        Settings(bolt_port="abc", neo4j_uri=5)  # type: ignore[arg-type]
    assert settings_problems(info.value, environ={}) == [
        "neo4j_uri=5: Input should be a valid string",
        "bolt_port='abc': Input should be a valid integer, unable to parse string as an integer",
    ]
    missing = ValidationError.from_exception_data("Settings", [
        {"type": "missing", "loc": ("NEO4J_URI",), "input": {"neo4j_password": "hunter2"}},
    ])
    assert settings_problems(missing, environ={"NEO4J_URI": "x"}) == ["neo4j_uri: Field required"]


def test_only_settings_errors_are_recognised() -> None:
    class Other(BaseModel):
        n: int

    with pytest.raises(ValidationError) as info:
        Other(n="x")  # type: ignore[arg-type]
    assert not is_settings_error(info.value)
    assert not is_settings_error(ValueError("x"))
    with pytest.raises(ValidationError) as info2:
        Settings(bolt_port="x")  # type: ignore[arg-type]
    assert is_settings_error(info2.value)


def test_hook_in_process_reports_the_same_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphmem.runtime.service import run_direct

    monkeypatch.setenv("GRAPHMEM_BOLT_PORT", "abc")
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", "hunter2")
    out, err = run_direct("claude-code", b'{"hook_event_name": "Stop", "session_id": "s"}')
    assert out == ""
    assert err == f"graphmem: invalid setting {PORT_PROBLEM}"


def test_daemon_start_fails_at_once(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GRAPHMEM_BOLT_PORT", "abc")
    assert main(["daemon", "start", "--wait", "5"]) == 2  # before: spawned a daemon that died, waited 5 s
    assert _lines(capsys.readouterr().err) == [f"graphmem: invalid setting {PORT_PROBLEM}"]
    assert not (Path(os.environ["GRAPHMEM_HOME"]) / "daemon.log").exists()


def test_mcp_tool_call_gets_one_line_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphmem.mcp_server import _Memory

    monkeypatch.setenv("GRAPHMEM_BOLT_PORT", "abc")
    with pytest.raises(ConfigError) as info:
        _Memory().get()
    assert str(info.value) == f"invalid setting {PORT_PROBLEM}"


def test_load_and_from_settings_raise_one_line_invalid_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphmem import ConfigError, GraphMemError, GraphMemory, InvalidSettings

    monkeypatch.setenv("GRAPHMEM_BOLT_PORT", "abc")
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", "s3cret-value")
    with pytest.raises(InvalidSettings) as info:
        Settings.load()
    assert isinstance(info.value, ConfigError) and isinstance(info.value, GraphMemError)
    assert info.value.problems == [
        "GRAPHMEM_BOLT_PORT='abc': Input should be a valid integer, unable to parse string as an integer"
    ]
    assert str(info.value) == "invalid setting " + info.value.problems[0]
    assert "\n" not in str(info.value) and "s3cret" not in str(info.value)
    with pytest.raises(InvalidSettings):  # the library entry point says the same, no pydantic dump
        GraphMemory.from_settings()


def test_prompt_hook_without_daemon_reports_a_bad_setting_and_spawns_nothing(tmp_path: Path) -> None:
    import json

    import graphmem.runtime.client as client

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_"))}
    env.update(GRAPHMEM_HOME=str(tmp_path / "home"), GRAPHMEM_BOLT_PORT="abc", GRAPHMEM_HOOK_BUDGET="10")
    prompt = {"hook_event_name": "UserPromptSubmit", "session_id": "s-1", "cwd": str(tmp_path), "prompt": "hello"}
    # exactly as `graphmem hooks install` writes the hook command: python -S <client.py> <tool>
    proc = subprocess.run([sys.executable, "-S", client.__file__, "claude-code"], input=json.dumps(prompt).encode(),
                          env=env, capture_output=True, timeout=60, check=False)
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert proc.stderr.decode().strip() == f"graphmem: invalid setting {PORT_PROBLEM}"
    assert not (tmp_path / "home" / "daemon.log").exists()  # no daemon was started to die on it
