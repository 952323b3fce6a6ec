"""What a new user meets in the first hour, through the CLI as a subprocess against a real Neo4j:
exit codes and first lines of each error, forget by a shortened id, the demo run twice, the search
warning about items not embedded yet and the context's section labels."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphmem.db import Database
from graphmem.embedding import LocalEmbedder
from graphmem.facts import FactScope, remember
from graphmem.memory import GraphMemory
from graphmem.retrieval import ContextConfig

from ..conftest import Neo4jTarget
from ..support import support_db

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    e = LocalEmbedder()
    e.load()
    return e


def _cli(target: Neo4jTarget, *args: str, cwd: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_"))}
    env.update(target.env())
    env["GRAPHMEM_HOME"] = env.get("HOME", "/tmp") + "/.cache/graphmem-cli-test"
    env["GRAPHMEM_UP_DAEMON"] = "0"
    return subprocess.run([sys.executable, "-c", "from graphmem.cli import main; raise SystemExit(main())", *args],
                          capture_output=True, text=True, env=env, timeout=300, cwd=cwd, check=False)


def _first_err(out: subprocess.CompletedProcess[str]) -> str:
    return out.stderr.splitlines()[0] if out.stderr else ""


def test_unknown_sessions_are_not_found(neo4j_target: Neo4jTarget, namespace: str) -> None:
    missing = namespace.rsplit("/", 1)[1] + "-missing"
    for args in (("search", "x", "--scope", "session", "--session", missing), ("check", "--session", missing)):
        out = _cli(neo4j_target, *args)
        assert out.returncode == 3, out.stderr
        assert out.stderr.splitlines() == [f"graphmem: error: session not found: {missing!r}"]


def test_bad_arguments_are_one_line_and_exit_2(database: Database, neo4j_target: Neo4jTarget,
                                               namespace: str) -> None:
    mem = GraphMemory(database)
    s = mem.create_session(namespace)
    cases = [
        (("search", ""), "graphmem: error: the query is empty: give some words to look for"),
        (("context", s.id, "hello", "--budget", "-1"), "graphmem: error: --budget is a number of characters >= 1, got -1"),
        (("facts", "add", "x", "--scope", "session:nope-" + s.id),
         f"graphmem: error: --scope session:nope-{s.id}: no session with id 'nope-{s.id}'"),
        (("turns", "add", "--session", s.id, "--user", "", "--assistant", " "),
         "graphmem: error: --user and --assistant are both empty: a turn needs at least one message"),
        (("facts", "search", ""), "graphmem: error: the query is empty: give some words to look for"),
    ]
    for args, line in cases:
        out = _cli(neo4j_target, *args)
        assert out.returncode == 2, (args, out.stderr)
        assert out.stderr.splitlines() == [line], args
        assert out.stdout == ""
    assert mem.load_session(s.id).turns == []  # the empty turn was refused


def test_forget_by_short_id_and_whole_history(database: Database, neo4j_target: Neo4jTarget, embedder: LocalEmbedder,
                                              namespace: str) -> None:
    scope = FactScope.project(namespace)
    first = remember(database, "the staging database listens on port 5433", ["staging"], scope=scope,
                     embedder=embedder).fact
    second = remember(database, "the nightly build runs at 02:00 UTC", ["ci"], scope=scope, embedder=embedder).fact
    listed = _cli(neo4j_target, "facts", "list", "--scope", f"project:{namespace}")
    assert listed.returncode == 0 and second.id[:8] in listed.stdout

    out = _cli(neo4j_target, "facts", "forget", second.id[:8])
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].startswith("forgot 1 fact (audit ")
    assert out.stdout.splitlines()[1].startswith(f"  {second.id}  ")

    # a correction: the first fact gets a newer version; forgetting the old version takes both
    updated = remember(database, "the staging database listens on port 5434", ["staging"], scope=scope,
                       embedder=embedder)
    assert updated.previous is not None and updated.previous.id == first.id
    out = _cli(neo4j_target, "facts", "forget", first.id[:8])
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("forgot 1 fact and 1 earlier version (audit ")
    assert lines[2] == "versions (each fact's whole history goes with it):"
    assert lines[3].startswith(f"  {updated.fact.id}  current  the staging database listens on port 5434")
    assert lines[4].startswith(f"  {first.id}  earlier  the staging database listens on port 5433")
    audits = _cli(neo4j_target, "facts", "audits", "--json")
    audit = next(a for a in json.loads(audits.stdout) if a["id"] in lines[0])
    assert sorted(audit["versionIds"]) == sorted([first.id, updated.fact.id])

    # nothing with that prefix: not found
    gone = _cli(neo4j_target, "facts", "forget", first.id[:8])
    assert gone.returncode == 3
    assert _first_err(gone) == f"graphmem: error: no fact with id or id prefix {first.id[:8]!r} (and no fact about it)"


def test_ambiguous_id_prefix_lists_the_candidates(database: Database, neo4j_target: Neo4jTarget,
                                                  namespace: str) -> None:
    scope = FactScope.project(namespace)
    a = remember(database, "tabs are four spaces wide here", ["style"], scope=scope).fact
    b = remember(database, "the release branch is cut on Thursdays", ["release"], scope=scope).fact
    prefix = "0c0ffee" + namespace[-6:]
    ids = [prefix + "-a" + a.id[:8], prefix + "-b" + b.id[:8]]
    for fact, new in zip((a, b), ids, strict=True):
        support_db(database).write("testing/rename_fact", id=fact.id, newId=new)
    out = _cli(neo4j_target, "facts", "forget", prefix)
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        f"graphmem: error: the id prefix {prefix!r} matches 2 facts: {ids[0]} (tabs are four spaces wide here); "
        f"{ids[1]} (the release branch is cut on Thursdays); give more characters"]
    mem = GraphMemory(database)
    assert {f.id for f in mem.list_facts(scopes=[scope])} == set(ids)  # nothing forgotten
    # a caller limited to other scopes never reaches these facts by a prefix
    elsewhere = mem.forget(ids[1][: len(prefix) + 2], scopes=[FactScope.project(namespace + "/other")])
    assert elsewhere.removed == [] and {f.id for f in mem.list_facts(scopes=[scope])} == set(ids)
    unique = _cli(neo4j_target, "facts", "forget", ids[1][: len(prefix) + 2])
    assert unique.returncode == 0 and unique.stdout.startswith("forgot 1 fact")


def test_demo_twice_keeps_one_demo_session(database: Database, neo4j_target: Neo4jTarget, tmp_path: Path) -> None:
    mem = GraphMemory(database)
    cwd = tmp_path / "demo-project"
    try:
        for run in range(2):
            out = _cli(neo4j_target, "demo", "--cwd", str(cwd))
            assert out.returncode == 0, out.stderr
            assert ("replaced the earlier demo session" in out.stdout) == (run == 1)
            assert "for semantic search: embedded " in out.stdout  # what it stored waits for no worker
        sessions = mem.sessions_for(str(cwd))
        assert len(sessions) == 1
        assert sessions[0].turn_count == len(mem.load_session(sessions[0].id).turns) > 0
    finally:
        for s in mem.sessions_for(str(cwd)):
            mem.delete_session(s.id)


def test_search_says_when_items_wait_for_their_embedding(database: Database, neo4j_target: Neo4jTarget,
                                                         embedder: LocalEmbedder, namespace: str) -> None:
    mem = GraphMemory(database, embedder=embedder)
    s = mem.create_session(namespace)
    mem.store_turn(s.id, "the quokka enclosure needs a new gate", "ordered one")
    mem.store_turn(s.id, "how tall is the quokka fence", "1.2 m")
    mem.await_text_index()
    res = mem.search("quokka gate", scope=f"session:{s.id}", levels=[0])
    assert res.warnings == ["2 items in scope are not embedded yet; run `graphmem worker` (or wait for it) for "
                            "semantic search to see them"]
    out = _cli(neo4j_target, "search", "quokka gate", "--scope", "session", "--session", s.id, "--levels", "0")
    assert out.returncode == 0
    assert _first_err(out) == ("warning: 2 items in scope are not embedded yet; run `graphmem worker` (or wait "
                               "for it) for semantic search to see them")
    text_only = mem.search("quokka gate", scope=f"session:{s.id}", mode="text")
    assert text_only.warnings == []  # a text search sees them all

    # the context of text-only hits does not call them semantic
    other = mem.create_session(namespace, session_id=s.id + "-next")
    for i in range(3):
        mem.store_turn(other.id, f"unrelated filler {i}", "ok")
    block = mem.build_context(other.id, "quokka gate", config=ContextConfig(scope="directory"))
    assert block.relevant_turns and "Semantic Search" not in block.text
    assert "## Relevant Past Context (Text Search - Turns)" in block.text
    assert "Relevance: 0%" not in block.text

    mem.embed_pending()
    done = mem.search("quokka gate", scope=f"session:{s.id}", levels=[0])
    assert done.warnings == [] and len(done) == 2
    block = mem.build_context(other.id, "quokka gate", config=ContextConfig(scope="directory"))
    assert "## Relevant Past Context (Semantic Search - Turns)" in block.text
    assert all(h.relevance > 0 for h in block.relevant_turns)
    assert "Relevance: 0%" not in block.text
