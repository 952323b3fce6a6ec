"""Which files a tool call names and how their paths are written (no database), the rendering of a
file's history, and the PreToolUse hook entry in Claude Code's settings."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphmem.errors import InvalidInput
from graphmem.file_paths import normalize_path, project_relative, shell_files, touched_files
from graphmem.files import FileHistory, FileSummary, FileTouch, render_file_history, resolve_file
from graphmem.integrations import canonical_event, render_context
from graphmem.integrations.hook_files import HOOK_FILES, claude_settings_uninstall
from graphmem.integrations.tool_hooks import PRE_TOOL_MATCHER
from graphmem.runtime.client import event_kind


@pytest.mark.parametrize(("name", "args", "expected"), [
    ("Read", {"file_path": "/p/src/app.py"}, [("/p/src/app.py", "read")]),
    ("Edit", {"file_path": "/p/src/app.py", "old_string": "a", "new_string": "b"}, [("/p/src/app.py", "edit")]),
    ("MultiEdit", {"file_path": "./src//app.py", "edits": []}, [("src/app.py", "edit")]),
    ("Write", {"file_path": "/p/a/../b.md", "content": "x"}, [("/p/b.md", "write")]),
    ("NotebookEdit", {"notebook_path": "/p/n.ipynb", "new_source": ""}, [("/p/n.ipynb", "edit")]),
    ("Grep", {"pattern": "TODO", "path": "/p/src"}, [("/p/src", "search")]),
    ("Grep", {"pattern": "TODO"}, []),
    ("Glob", {"pattern": "**/*.py"}, []),
    ("read_file", {"absolute_path": "/p/x.py"}, [("/p/x.py", "read")]),
    ("replace", {"file_path": "/p/x.py", "old_string": "a", "new_string": "b"}, [("/p/x.py", "edit")]),
    ("write_file", {"file_path": "/p/y.md", "content": ""}, [("/p/y.md", "write")]),
    ("read_many_files", {"paths": ["a.py", "src/*.py", "b.py"]}, [("a.py", "read"), ("b.py", "read")]),
    ("Edit", '{"file_path": "/p/from-json.py"}', [("/p/from-json.py", "edit")]),
    ("WebFetch", {"url": "https://example.org/a.py"}, []),
    ("Read", {"file_path": "~/notes.md"}, []),
    ("Read", {"file_path": 42}, []),
    ("Read", "not json", []),
])
def test_tools_that_name_files(name: str, args: object, expected: list[tuple[str, str]]) -> None:
    assert touched_files(name, args) == expected


def test_shell_commands_name_the_words_that_look_like_files() -> None:
    cmd = "cd src && python -m pytest tests/test_app.py -k login > out.log 2>&1; cat ./README.md | grep -n x"
    assert touched_files("Bash", {"command": cmd}) == [
        ("tests/test_app.py", "run"), ("out.log", "run"), ("README.md", "run")]
    assert shell_files("git checkout main && make test") == []
    assert shell_files("ls /dev/null /etc/hosts") == ["/etc/hosts"]
    assert shell_files("FOO=1 python app.py --config=conf.yaml") == ["app.py"]
    assert shell_files("sudo vim /etc/nginx/nginx.conf") == ["/etc/nginx/nginx.conf"]
    assert shell_files("echo 'unterminated") == []
    assert shell_files("python -c 1.5") == []
    # Codex: argv lists, a shell script inside, exec_command's text
    assert touched_files("shell", {"command": ["bash", "-lc", "sed -n 1,20p src/app.py"]}) == [("src/app.py", "run")]
    assert touched_files("local_shell", {"command": ["cat", "setup.cfg"]}) == [("setup.cfg", "run")]
    assert touched_files("exec_command", {"cmd": "rg foo lib/x.rs"}) == [("lib/x.rs", "run")]
    assert touched_files("run_shell_command", {"command": "node index.js"}) == [("index.js", "run")]
    many = " ".join(f"f{i}.py" for i in range(50))
    assert len(touched_files("Bash", {"command": f"cat {many}"})) == 20


def test_codex_patches_name_the_files_they_change() -> None:
    patch = ("*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** Add File: docs/new.md\n+hi\n"
             "*** Delete File: old.txt\n*** Update File: b.py\n*** Move to: c.py\n*** End Patch\n")
    assert touched_files("apply_patch", {"input": patch}) == [
        ("src/a.py", "edit"), ("docs/new.md", "write"), ("old.txt", "write"), ("b.py", "edit"), ("c.py", "write")]
    assert touched_files("apply_patch", patch) == touched_files("apply_patch", {"input": patch})


@pytest.mark.parametrize(("raw", "expected"), [
    ("src/app.py", "src/app.py"), ("./src/app.py", "src/app.py"), ("/a//b/./c.py", "/a/b/c.py"),
    ("//srv/x.py", "/srv/x.py"), ("a/../b.py", "b.py"), ("file:///p/x.py", "/p/x.py"), ("  /p/x.py ", "/p/x.py"),
    ("", None), (".", None), ("/", None), ("..", None), ("../up.py", None), ("*.py", None), ("src/?.py", None),
    ("http://x/y.py", None), ("~/x.py", None), ("a\nb.py", None), ("x" * 1001, None), (None, None),
])
def test_normalize_path(raw: object, expected: str | None) -> None:
    assert normalize_path(raw) == expected


def test_paths_are_kept_relative_to_the_project_root_when_inside() -> None:
    assert project_relative("/p/src/app.py", "/p", "/p") == "src/app.py"
    assert project_relative("app.py", "/p/src", "/p") == "src/app.py"
    assert project_relative("../lib/x.py", "/p/src", "/p") == "lib/x.py"
    assert project_relative("/q/x.py", "/p", "/p") == "/q/x.py"
    assert project_relative("/pp/x.py", "/p", "/p") == "/pp/x.py"  # a sibling sharing the prefix is outside
    assert project_relative("/p/x.py", "/", "/") == "/p/x.py"  # the root as project keeps absolute paths
    assert resolve_file("./src/app.py", cwd="/p", project="/p") == "src/app.py"
    with pytest.raises(InvalidInput, match="not a file path"):
        resolve_file("*.py", cwd="/p", project="/p")


def _touch(action: str, success: bool | None, request: str, result: str | None = None) -> FileTouch:
    return FileTouch(action=action, tool="Edit" if action == "edit" else "Read", success=success,
                     at=datetime(2026, 1, 2, 3, 4, tzinfo=UTC), session_id="s", turn_id="t", turn_index=1,
                     request=request, result=result)


def test_rendered_history_tells_edits_failures_and_summaries_and_nothing_else() -> None:
    empty = FileHistory(project="/p", path="src/app.py")
    assert empty.empty and render_file_history(empty) == ""
    only_reads = FileHistory(project="/p", path="src/app.py", touches=[_touch("read", True, "look")])
    assert render_file_history(only_reads) == ""
    failed = _touch("edit", False, "fix\nthe   login", "String not found")
    h = FileHistory(project="/p", path="src/app.py", touches=[_touch("edit", True, "fix the login"), failed],
                    failures=[failed],
                    summaries=[FileSummary(id="m", text="Changed src/app.py to stop the loop.")])
    text = render_file_history(h, relative=lambda _at: "2 days ago")
    assert text.splitlines()[0].startswith("graphmem file history of src/app.py")
    assert '2 days ago: Edit, asked: "fix the login"' in text
    assert 'Edit (failed), asked: "fix the login"' in text
    assert "Edit failed: String not found" in text and "Changed src/app.py" in text
    long = FileHistory(project="/p", path="a.py", touches=[_touch("edit", True, "x" * 5000)])
    assert max(len(line) for line in render_file_history(long).splitlines()) < 300


def test_pre_tool_use_is_an_event_with_context_only() -> None:
    assert canonical_event("PreToolUse") == "pre_tool"
    assert event_kind(b'{"hook_event_name": "PreToolUse", "tool_name": "Read"}') == "pre_tool"
    out = json.loads(render_context("history", tool="claude-code", event="pre_tool", limit=4000))
    assert out == {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                          "additionalContext": "<graphmem-context>\nhistory\n</graphmem-context>"}}
    with pytest.raises(InvalidInput):
        render_context("history", tool="gemini", event="pre_tool")


def test_claude_code_install_adds_pre_tool_use_with_its_matcher(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    other = {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-linter"}]}
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [other]}, "model": "x"}))
    hook_file = HOOK_FILES["claude-code"]
    assert "PreToolUse" in hook_file.events and "UserPromptSubmit" in hook_file.events
    r = hook_file.install(str(settings), "gm-hook claude-code", "user", timeout=5, events=hook_file.events)
    assert r.changed and "PreToolUse" in r.added and "Stop" in r.added
    data = json.loads(settings.read_text())
    groups = data["hooks"]["PreToolUse"]
    assert groups[0] == other  # other hooks stay as they were
    assert groups[1] == {"matcher": PRE_TOOL_MATCHER,
                         "hooks": [{"type": "command", "command": "gm-hook claude-code", "timeout": 5}]}
    assert "matcher" not in data["hooks"]["Stop"][0]
    again = hook_file.install(str(settings), "gm-hook claude-code", "user", timeout=5, events=hook_file.events)
    assert not again.changed and json.loads(settings.read_text()) == data
    hook_file.install(str(settings), "gm-hook claude-code", "user", timeout=9, events=hook_file.events)
    assert json.loads(settings.read_text())["hooks"]["PreToolUse"][1]["hooks"][0]["timeout"] == 9  # in place
    without = tuple(e for e in hook_file.events if e != "PreToolUse")
    fresh = tmp_path / "fresh.json"
    hook_file.install(str(fresh), "gm-hook claude-code", "user", events=without)
    assert "PreToolUse" not in json.loads(fresh.read_text())["hooks"]
    claude_settings_uninstall(str(settings), "gm-hook claude-code")
    assert json.loads(settings.read_text()) == {"hooks": {"PreToolUse": [other]}, "model": "x"}
