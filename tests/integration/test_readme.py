"""The README's user-facing walkthrough, run from README.md itself: the quick start, the commands a
user types after the demo (the fenced ``bash`` block marked ``<!-- readme-test -->``, each line run
in order through a shell against the test server, on the demo's data, and checked for what its
comment says it finds) and the Python snippets that run without an LLM or the network."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from graphmem.db import Database
from graphmem.memory import GraphMemory

from ..conftest import Neo4jTarget, cleanup_namespace

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MARK = "<!-- readme-test -->"

# The README commands no test runs, and why.
NOT_RUN = {
    "make demo": "creates .venv and downloads Neo4j's jars; the test runs what it runs, `graphmem demo`, on the test server",
    "make test": "is the test suite itself",
}

# README Python blocks (section title, position in the section) the test does not run, and why.
PYTHON_NOT_RUN = {
    ("Facts (typed long-term memory) and pre-call injection", 0):
        "writes and forgets global-scope facts (the person's, by topic), which no test namespace owns",
    ("Chat agents", 0): "files conversations under the chat root shared by every agent, not a test namespace",
    ("Chat agents", 1): "continues the chat block above (its session `s` and a timestamp `ts`)",
    ("Chat agents", 2): "needs an LLM (FactExtractor with a base URL) and the chat root",
    ("Async and frameworks", 1): "a fragment of a LangGraph app (its `builder`); the runnable "
        "examples/langgraph_store.py is run by test_adapter_langgraph.py",
    ("Async and frameworks", 2): "a fragment of a LangChain app (its `model` and `text`); the runnable "
        "examples/langchain_history.py is run by test_adapter_langchain.py",
    ("Async and frameworks", 3): "awaits inside an agent's coroutine (its `agent`); the runnable "
        "examples/openai_agents_session.py is run by test_adapter_openai_agents.py",
}
PYTHON_RUN = [("Library", 0), ("Async and frameworks", 0), ("Retrieval and the pre-call context", 0)]


def _blocks(text: str) -> list[tuple[str, str, bool, str]]:
    """Every fenced block as (section, language, marked, body)."""
    out: list[tuple[str, str, bool, str]] = []
    section, lines, i = "", text.splitlines(), 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip()
        if line.startswith("```"):
            lang = line[3:].strip()
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            marked = any(lines[k].strip() == MARK for k in range(max(0, i - 2), i))
            out.append((section, lang, marked, "\n".join(lines[i + 1:j])))
            i = j
        i += 1
    return out


def _commands(body: str) -> list[tuple[str, str]]:
    """(command, comment) per line; a comment starts at the first `  #` outside the command."""
    out = []
    for line in body.splitlines():
        if not line.strip():
            continue
        command, _, comment = line.partition("  #")
        out.append((command.strip(), comment.strip()))
    return out


def test_quick_start_is_two_commands_neither_run_here() -> None:
    quick = [b for b in _blocks(README.read_text()) if b[0].startswith("Quick start") and b[1] == "bash"]
    assert len(quick) == 1
    assert [c for c, _ in _commands(quick[0][3])] == list(NOT_RUN)


def test_walkthrough_runs_on_the_demo_data(neo4j_target: Neo4jTarget, database: Database, tmp_path: Path) -> None:
    marked = [b for b in _blocks(README.read_text()) if b[2]]
    assert [b[1] for b in marked] == ["bash"], "one marked bash block"
    steps = _commands(marked[0][3])
    assert len(steps) >= 8
    assert (ROOT / ".venv" / "bin" / "graphmem").exists(), "the README's PATH line expects the clone's .venv"

    home = tmp_path / "graphmem-home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_", "OPENAI_"))}
    env.update(neo4j_target.env())
    env["GRAPHMEM_HOME"] = str(home)
    env["GRAPHMEM_UP_DAEMON"] = "0"  # the walkthrough runs every command in its own process
    cwd = str(ROOT)
    try:
        # what `make demo` loads: the demo, through the installed command, on the test server
        demo = subprocess.run([str(ROOT / ".venv" / "bin" / "graphmem"), "demo"], capture_output=True, text=True,
                              env=env, cwd=cwd, timeout=600, check=False)
        assert demo.returncode == 0, demo.stderr
        assert f"Recording a coding session in {home / 'demo-project'}" in demo.stdout

        for command, comment in steps:
            if command.startswith(("cd ", "export ")):
                # the shell's state carries over to the next lines: read it back
                out = subprocess.run(["bash", "-c", command + '\nprintf "%s\\0" "$PWD"; env -0'],
                                     capture_output=True, text=True, env=env, cwd=cwd, timeout=60, check=False)
                assert out.returncode == 0, (command, out.stderr)
                cwd, *pairs = [p for p in out.stdout.split("\0") if p]
                env = dict(p.split("=", 1) for p in pairs if "=" in p)
                continue
            found = re.search(r"finds: (.+)$", comment)
            assert found, f"README line without `# ... finds: <text>`: {command}"
            out = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, cwd=cwd,
                                 timeout=600, check=False)
            assert out.returncode == 0, (command, out.returncode, out.stderr)
            assert "Traceback" not in out.stderr, (command, out.stderr)
            assert found.group(1).strip() in out.stdout + out.stderr, (command, out.stdout, out.stderr)
        assert cwd == str(home / "demo-project")
    finally:
        cleanup_namespace(database, str(home))


def _python_blocks() -> dict[tuple[str, int], str]:
    seen: dict[str, int] = {}
    out = {}
    for section, lang, _, body in _blocks(README.read_text()):
        if lang == "python":
            n = seen.get(section, 0)
            seen[section] = n + 1
            out[(section, n)] = body
    return out


def test_every_python_block_is_run_or_excluded_with_a_reason() -> None:
    assert set(_python_blocks()) == set(PYTHON_RUN) | set(PYTHON_NOT_RUN)


def test_python_snippets_run(neo4j_target: Neo4jTarget, database: Database, tmp_path: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = _python_blocks()
    for key, value in neo4j_target.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path))  # `~/code/shop` of the snippets lands in this test's directory
    namespace: dict[str, Any] = {"__name__": "readme"}
    mem: GraphMemory | None = None
    try:
        exec(compile(blocks[PYTHON_RUN[0]], "README.md:Library", "exec"), namespace)
        assert {"s", "mem"} <= set(namespace)
        exec(compile(blocks[PYTHON_RUN[1]], "README.md:Async", "exec"), namespace)
        # the later snippets continue the Library one: its session `s`, with `mem` open
        mem = namespace["mem"] = GraphMemory.from_settings()
        exec(compile(blocks[PYTHON_RUN[2]], "README.md:Retrieval", "exec"), namespace)
        assert namespace["hits"] and "Why is the cart empty?" in namespace["block"].text
        assert all(name not in namespace for name in ("session", "memory", "gm", "m"))
    finally:
        if mem is not None:
            mem.close()
        cleanup_namespace(database, str(tmp_path))
