"""File history end to end on a real Neo4j: a Claude Code session ingested by the Stop hook links its
tool calls to ``(:File)`` nodes of its project; the ``PreToolUse`` hook (the installed command, as a
subprocess) then tells the next session what happened to a file before it is read — the edits with
their requests and the failures — and nothing for a file never touched or touched in another
project. ``graphmem files history`` prints the same; schema step 0101 links tool calls stored
before files were recorded.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem import GraphMemory
from tests.conftest import Neo4jTarget

from ..support import support_db
from .test_hooks import graphmem, hook_env, run_hook, stop_payload

pytestmark = pytest.mark.integration

BASE = datetime(2099, 5, 6, 7, 8, 9, tzinfo=UTC)
REQUEST = "Fix the login redirect loop in src/app.py please"
ERROR = "String to replace not found in file"
LAST_ANSWER = "It describes the shop."


class _Transcript:
    """A minimal Claude Code transcript (JSONL records as Claude Code 2.x writes them)."""

    def __init__(self, session_id: str, cwd: str) -> None:
        self.sid, self.cwd = session_id, cwd
        self.lines: list[str] = []
        self.t = BASE
        self.parent: str | None = None
        self.n = 0

    def _rec(self, rtype: str, message: dict[str, Any], **extra: Any) -> None:
        self.t += timedelta(seconds=2)
        uid = str(uuid.uuid4())
        rec = {"parentUuid": self.parent, "isSidechain": False, "userType": "external", "cwd": self.cwd,
               "sessionId": self.sid, "version": "2.0.14", "gitBranch": "main", "type": rtype, "uuid": uid,
               "timestamp": self.t.isoformat(timespec="milliseconds").replace("+00:00", "Z"), "message": message,
               **extra}
        self.parent = uid
        self.lines.append(json.dumps(rec))

    def prompt(self, text: str) -> None:
        self._rec("user", {"role": "user", "content": text})

    def tool(self, name: str, args: dict[str, Any], result: str, *, error: bool = False) -> None:
        self.n += 1
        tid = f"toolu_{self.n:04d}{uuid.uuid4().hex[:12]}"
        mid = f"msg_{uuid.uuid4().hex[:16]}"
        self._rec("assistant", {"model": "claude-sonnet-4-5", "id": mid, "type": "message", "role": "assistant",
                                "content": [{"type": "tool_use", "id": tid, "name": name, "input": args}]})
        block: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result", "content": result}
        if error:
            block["is_error"] = True
        self._rec("user", {"role": "user", "content": [block]})

    def answer(self, text: str) -> None:
        mid = f"msg_{uuid.uuid4().hex[:16]}"
        self._rec("assistant", {"model": "claude-sonnet-4-5", "id": mid, "type": "message", "role": "assistant",
                                "content": [{"type": "text", "text": text}]})

    def write(self, path: Path) -> Path:
        path.write_text("\n".join(self.lines) + "\n", encoding="utf-8")
        return path


def _session(tmp_path: Path, cwd: str, request: str) -> tuple[str, Path]:
    """A session in ``cwd`` where an Edit of src/app.py failed once, then succeeded; then README.md was read."""
    sid = str(uuid.uuid4())
    t = _Transcript(sid, cwd)
    t.prompt(request)
    t.tool("Edit", {"file_path": f"{cwd}/src/app.py", "old_string": "redirect(", "new_string": "redirect_once("},
           f"<tool_use_error>{ERROR}</tool_use_error>", error=True)
    t.tool("Edit", {"file_path": f"{cwd}/src/app.py", "old_string": "return redirect(", "new_string": "return ok("},
           "The file src/app.py has been updated.")
    t.answer("Fixed: the login view no longer redirects to itself.")
    t.prompt("Show me the README")
    t.tool("Read", {"file_path": f"{cwd}/README.md"}, "# shop")
    t.answer(LAST_ANSWER)
    return sid, t.write(tmp_path / f"{sid}.jsonl")


def _pre_tool(cwd: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"session_id": str(uuid.uuid4()), "transcript_path": "/nonexistent.jsonl", "cwd": cwd,
            "hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": tool,
            "tool_input": args, "tool_use_id": f"toolu_{uuid.uuid4().hex[:12]}"}


@pytest.fixture
def env(neo4j_target: Neo4jTarget, tmp_path: Path) -> dict[str, str]:
    # the hook runs in-process (no daemon): the budget covers importing the library
    return hook_env(neo4j_target, tmp_path / "gh", GRAPHMEM_HOOK_BUDGET="60")


def test_pre_tool_use_tells_the_edits_and_failures_of_this_project_only(
    env: dict[str, str], memory: GraphMemory, namespace: str, tmp_path: Path
) -> None:
    shop, other = f"{namespace}/shop", f"{namespace}/other"
    for cwd, request in ((shop, REQUEST), (other, "OTHER PROJECT: rename the handler in src/app.py")):
        sid, path = _session(tmp_path, cwd, request)
        r = run_hook(env, "claude-code", stop_payload(sid, path, cwd, last_assistant_message=LAST_ANSWER))
        assert r.returncode == 0 and "spooled" not in r.stderr, r.stderr
        assert len(memory.load_session(sid).turns) == 2

    files = support_db(memory.db).read("testing/files_of_project", path=namespace)
    by_key = {(f["project"], f["path"]): sorted((c["tool"], c["action"], c["success"]) for c in f["calls"])
              for f in files}
    assert by_key[(shop, "src/app.py")] == [("Edit", "edit", False), ("Edit", "edit", True)]
    assert by_key[(shop, "README.md")] == [("Read", "read", True)]
    assert (other, "src/app.py") in by_key and len(by_key) == 4  # one File per project and path

    # Read src/app.py in the shop: the edits with their request, and the failure with its error
    r = run_hook(env, "claude-code", _pre_tool(shop, "Read", {"file_path": f"{shop}/src/app.py"}))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    spec = out["hookSpecificOutput"]
    assert set(out) == {"hookSpecificOutput"} and set(spec) == {"hookEventName", "additionalContext"}
    assert spec["hookEventName"] == "PreToolUse"  # context only: no permission decision, the tool runs
    ctx = spec["additionalContext"]
    assert ctx.startswith("<graphmem-context>") and ctx.endswith("</graphmem-context>")
    assert "src/app.py" in ctx and REQUEST in ctx
    assert ctx.count("- ") >= 3  # two edits and one failure
    assert "Edit (failed)" in ctx and ERROR in ctx
    assert "OTHER PROJECT" not in ctx

    # a relative path names the same file
    r = run_hook(env, "claude-code", _pre_tool(shop, "Edit", {"file_path": "./src/app.py", "old_string": "a",
                                                              "new_string": "b"}))
    assert REQUEST in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]

    # the other project sees only its own history of its own src/app.py
    r = run_hook(env, "claude-code", _pre_tool(other, "Read", {"file_path": f"{other}/src/app.py"}))
    ctx = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "OTHER PROJECT" in ctx and REQUEST not in ctx

    # nothing at all: a file never touched, a file only read, a tool that names no file, a project never seen
    for cwd, tool, args in ((shop, "Read", {"file_path": f"{shop}/src/never.py"}),
                            (shop, "Read", {"file_path": f"{shop}/README.md"}),
                            (shop, "Bash", {"command": "cat src/app.py"}),
                            (f"{namespace}/new", "Read", {"file_path": f"{namespace}/new/src/app.py"})):
        r = run_hook(env, "claude-code", _pre_tool(cwd, tool, args))
        assert r.returncode == 0 and r.stdout == "", (tool, args, r.stdout, r.stderr)

    # graphmem files history prints the same history
    r = graphmem(env, "files", "history", f"{shop}/src/app.py", "--project", shop, "--json")
    assert r.returncode == 0, r.stderr
    h = json.loads(r.stdout)
    assert h["project"] == shop and h["path"] == "src/app.py"
    assert [(t["tool"], t["success"]) for t in h["touches"]] == [("Edit", True), ("Edit", False)]
    assert h["touches"][0]["request"] == REQUEST and len(h["failures"]) == 1 and ERROR in h["failures"][0]["result"]
    r = graphmem(env, "files", "history", f"{shop}/src/app.py", "--project", shop)
    assert r.returncode == 0 and "src/app.py in " + shop in r.stdout and "failed calls:" in r.stdout
    r = graphmem(env, "files", "history", "*.py", "--project", shop)
    assert r.returncode != 0 and r.stderr.strip().count("\n") == 0 and "not a file path" in r.stderr

    # deleting the sessions drops the files only they touched
    for s in memory.sessions_for_project(shop) + memory.sessions_for_project(other):
        memory.delete_session(s.id)
    assert support_db(memory.db).read("testing/files_of_project", path=namespace) == []


def test_summaries_mentioning_the_file_are_told(memory: GraphMemory, namespace: str) -> None:
    session = memory.create_session(namespace, project_path=namespace, agent="claude-code")
    memory.store_turn(session.id, "Tune the cache in lib/cache.py", "Done.",
                      [{"name": "Edit", "args": {"file_path": "lib/cache.py"}, "result": "ok", "success": True}],
                      timestamp=BASE)
    text = "Moved the cache eviction into lib/cache.py and made it LRU."
    support_db(memory.db).write(
        "testing/create_summary", sessionId=session.id, id=str(uuid.uuid4()), level=1, text=text,
        charCount=len(text), turnCount=1, keyFindings=[], filesMentioned=[], toolsUsed=[], topics=[],
        timestamp=BASE, childIds=[])
    h = memory.file_history(namespace, "lib/cache.py")
    assert [m.text for m in h.summaries] == [text]
    assert [t.request for t in h.touches] == ["Tune the cache in lib/cache.py"]
    assert memory.file_history(namespace, "lib/other.py").empty


def test_migration_links_tool_calls_stored_before_files(memory: GraphMemory, namespace: str) -> None:
    cwd = f"{namespace}/api"
    session = memory.create_session(cwd, project_path=namespace, agent="claude-code")
    memory.store_turn(session.id, "Refactor the handlers", "Done.", [
        {"name": "Read", "args": {"file_path": f"{cwd}/handlers.py"}, "result": "...", "success": True},
        {"name": "Edit", "args": {"file_path": "./handlers.py", "old_string": "x", "new_string": "y"},
         "result": "boom", "success": False},
        {"name": "write_file", "args": {"file_path": "/elsewhere/notes.md", "content": "\"file_path\": \"/x\""},
         "result": "ok", "success": True},
        {"name": "Grep", "args": {"pattern": "TODO"}, "result": "", "success": True},
    ], timestamp=BASE)
    support = support_db(memory.db)

    def state() -> list[tuple[str, str, list[tuple[str, str]]]]:
        return [(f["project"], f["path"], sorted((c["tool"], c["action"]) for c in f["calls"]))
                for f in support.read("testing/files_of_project", path=namespace)]

    written = state()
    assert written == [(namespace, "/elsewhere/notes.md", [("write_file", "write")]),
                       (namespace, "api/handlers.py", [("Edit", "edit"), ("Read", "read")])]
    assert support.write("testing/files_forget", path=namespace)[0]["removed"] == 2
    assert state() == []
    memory.db.write("schema/0101_toolcall_touched_backfill")
    assert state() == written  # the same files and links as the write path makes
    memory.db.write("schema/0101_toolcall_touched_backfill")
    assert state() == written  # and again: nothing added
