"""``graphmem import``: transcripts of the four CLIs into the graph, idempotent on source ids."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from graphmem import GraphMemory
from tests.conftest import Neo4jTarget
from tests.data import aider_history, codex_rollout, gemini_chat
from tests.integration.test_hooks import claude_file, graphmem, hook_env, write_lines

pytestmark = pytest.mark.integration


def test_import_every_format_twice_adds_nothing_the_second_time(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, tmp_path: Path
) -> None:
    src = tmp_path / "transcripts"
    (src / "claude").mkdir(parents=True)
    t, lines, csid, _ = claude_file(tmp_path, namespace)
    write_lines(src / "claude" / f"{csid}.jsonl", lines)

    rollout = codex_rollout.generate(n_turns=8)
    xsid = str(uuid.uuid4())
    (src / "codex").mkdir()
    (src / "codex" / f"rollout-2025-06-02T09-00-00-{xsid}.jsonl").write_text(
        rollout.text().replace(codex_rollout.SESSION_ID, xsid).replace(codex_rollout.CWD, f"{namespace}/weather"))

    chat = gemini_chat.generate(n_turns=6)
    gsid = str(uuid.uuid4())
    (src / "gemini").mkdir()
    (src / "gemini" / "session-2025-06-02T09-00-abc.json").write_text(
        chat.legacy_json().replace(gemini_chat.SESSION_ID, gsid))

    aider = aider_history.generate(n_sessions=2, turns_per_session=4)
    proj = tmp_path / "aider-proj"
    proj.mkdir()
    (proj / ".aider.chat.history.md").write_text(aider.text)
    (src / "broken.jsonl").write_text("this is not a transcript\n")

    env = hook_env(neo4j_target, tmp_path / "gh")
    r = graphmem(env, "import", "auto", str(src), "--cwd", f"{namespace}/orders", "--json")
    assert r.returncode == 0, r.stderr
    first = json.loads(r.stdout)
    assert first["files"] == 3 and first["failed_files"] == 1 and first["sessions"] == 3
    assert first["created"] == first["turns_read"] > 20 and first["skipped"] == 0
    assert any("broken.jsonl" in w for w in first["warnings"])
    assert [x.source_id for x in memory.load_session(csid).turns][: len(t.kept_turns()) - 1] == \
        [e.source_id for e in t.kept_turns()][: len(t.kept_turns()) - 1]
    assert memory.get_session(gsid).cwd == f"{namespace}/orders"
    assert memory.get_session(xsid).agent == "codex"

    r = graphmem(env, "import", "auto", str(src), "--cwd", f"{namespace}/orders", "--json")
    again = json.loads(r.stdout)
    assert again["created"] == 0 and again["skipped"] == first["created"]

    # aider: the history file's folder is the session's directory; then cleaned up here (outside the namespace)
    r = graphmem(env, "import", "aider", str(proj / ".aider.chat.history.md"), "--json")
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    try:
        assert a["sessions"] == 2 and a["created"] > 0
        r = graphmem(env, "import", "aider", str(proj / ".aider.chat.history.md"))
        assert r.returncode == 0 and " 0 new" in r.stdout
    finally:
        for s in memory.sessions_for(str(proj)):
            memory.delete_session(s.id)

    r = graphmem(env, "import", "claude-code", str(tmp_path / "missing.jsonl"))
    assert r.returncode == 2 and r.stderr.startswith("graphmem: error:") and "Traceback" not in r.stderr
