"""Secret redaction on every path that stores text : turns and tool calls (library,
bulk import, CLI, Stop hook and spool), summaries (extractive from redacted input, and an LLM
summarizer that answers with a secret), facts (remember, CLI, MCP tool, LLM extraction), the
retrieval log's message preview, and exports. After each path, every string property of every
node and relationship of the namespace is scanned, and so are the files written."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from graphmem import Database, GraphMemory
from graphmem.cli.main import main
from graphmem.export import export_graph, graph_to_text
from graphmem.facts.extract import FactExtractor, extract_facts_from_turn
from graphmem.facts.tools import memory_store_fact
from graphmem.integrations import redact
from graphmem.models import TurnIn
from graphmem.providers.openai_summarizer import OpenAISummarizer
from graphmem.runtime.service import HookService
from graphmem.worker import SummaryWorker, WorkerConfig
from graphmem_devtools.reliability._strategies import SECRETS
from graphmem_devtools.reliability.hostile import namespace_snapshot
from tests.conftest import Neo4jTarget
from tests.fake_openai import FakeOpenAIServer
from tests.integration.test_hooks import claude_file, stop_payload, write_lines

pytestmark = pytest.mark.integration

# each secret a different kind, plus context-rule ones (URL credentials, .env line, JSON password)
CONTEXT_SECRETS = {
    "postgres://app:Zq8vN3pL7tR2@db.internal:5432/shop": "Zq8vN3pL7tR2",
    "\nDATABASE_PASSWORD=Hk4mW9xB2sQ7\n": "Hk4mW9xB2sQ7",  # an .env line
    '{"password": "Pw7!kd93Lm2Q"}': "Pw7!kd93Lm2Q",
}
TEXT = " ".join(SECRETS) + " " + " ".join(CONTEXT_SECRETS)
NEEDLES = [*SECRETS, *CONTEXT_SECRETS.values()]


def _leaks(text: str) -> list[str]:
    return [n for n in NEEDLES if n in text]


def _scan(db: Database, ns: str, session_ids: list[str] | None = None) -> list[str]:
    snap = namespace_snapshot(db, ns, session_ids)
    assert snap, "the namespace is empty: nothing was stored"
    return _leaks(json.dumps(snap, ensure_ascii=False))


def test_the_secrets_are_ones_the_redactor_knows() -> None:
    red, kinds = redact(TEXT)
    assert not _leaks(red), red
    assert len(set(kinds)) >= 6


def test_turns_tool_calls_and_bulk_import(memory: GraphMemory, namespace: str) -> None:
    s = memory.create_session(namespace + "/turns")
    memory.store_turn(s.id, f"my keys: {TEXT}", f"noted {TEXT}", tool_calls=[
        {"name": "Bash", "args": {"command": f"export KEY={SECRETS[0]}", "env": {"DATABASE_PASSWORD": "Hk4mW9xB2sQ7"}},
         "result": f"echo {TEXT}", "success": True},
        {"name": "Read", "args": f"raw args {TEXT}", "result": None},
    ])
    memory.import_turns(s.id, [TurnIn(user_message=TEXT, assistant_message="ok", source_id="imp-1",
                                      tool_calls=[{"name": "Grep", "args": {"p": TEXT}, "result": TEXT}])])
    assert _scan(memory.db, namespace) == []
    detail = memory.load_session(s.id)
    assert "[REDACTED:" in detail.turns[0].user_message and "[REDACTED:" in detail.turns[0].tool_calls[0].args
    # opting out keeps text verbatim (the documented switch)
    raw = GraphMemory(memory.db, redact=False)
    t = raw.store_turn(s.id, SECRETS[0], "verbatim")
    assert raw.get_turn(t.id).user_message == SECRETS[0]
    raw.delete_session(s.id)


def test_summaries_extractive_and_llm(memory: GraphMemory, namespace: str) -> None:
    s = memory.create_session(namespace + "/summaries")
    for i in range(3):
        memory.store_turn(s.id, f"step {i}: deploy with {TEXT}", f"done {i}, used {SECRETS[i]} and {TEXT}")
    cfg = WorkerConfig(scope=namespace, poll_seconds=0.05)
    SummaryWorker(memory.db, config=cfg).run_until_idle(max_seconds=120)
    assert memory.summaries(s.id, 1), "the extractive worker wrote no summary"
    assert _scan(memory.db, namespace) == []

    # an LLM summarizer that answers with secrets (echoed or hallucinated): redacted at the write
    s2 = memory.create_session(namespace + "/llm")
    memory.store_turn(s2.id, "what is the deploy key?", "it is in the vault")
    answer = {"summary": f"The deploy key is {SECRETS[0]} and the DB is {next(iter(CONTEXT_SECRETS))}",
              "key_findings": [f"token {SECRETS[2]}"], "files_mentioned": [".env"], "tools_used": [],
              "topics": [f"AWS {SECRETS[1]}"]}
    with FakeOpenAIServer(summary=answer) as server:
        llm = OpenAISummarizer("gpt-4o-mini", api_key=server.api_key, base_url=server.base_url)
        SummaryWorker(memory.db, llm, config=cfg).run_until_idle(max_seconds=120)
        assert server.count("chat/completions") >= 1
    llm_summaries = memory.summaries(s2.id, 1)
    assert llm_summaries and "[REDACTED:" in llm_summaries[0].summary
    assert _scan(memory.db, namespace) == []


def test_facts_remember_mcp_cli_and_extraction(memory: GraphMemory, namespace: str, neo4j_target: Neo4jTarget,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    proj = namespace + "/facts"
    s = memory.create_session(proj, project_path=proj)
    memory.remember(f"the prod key is {SECRETS[0]}", [f"key {SECRETS[1]}"], scope=f"session:{s.id}")
    memory.remember(f"db url {next(iter(CONTEXT_SECRETS))}", ["db"], scope=f"project:{proj}")
    memory_store_fact(memory, f"slack token {SECRETS[3]}", ["slack"], scope="project", project_path=proj)
    for k, v in neo4j_target.env().items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "none")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["facts", "add", f"gitlab {SECRETS[4]}", "--scope", f"project:{proj}"]) == 0
    turn = memory.store_turn(s.id, "remember my google key", "ok")
    answer = {"facts": [{"content": f"The Google API key is {SECRETS[5]}", "type": "fact", "subjects": ["google"],
                         "ttl": None, "scope": "project"}]}
    with FakeOpenAIServer(summary=answer) as server:
        extractor = FactExtractor("gpt-4o-mini", api_key=server.api_key, base_url=server.base_url)
        results = extract_facts_from_turn(memory.db, turn.id, extractor, embedder=memory.embedder)
        extractor.close()
    assert results and "[REDACTED:" in results[0].fact.content
    assert _scan(memory.db, namespace) == []


def test_retrieval_log_preview(memory: GraphMemory, namespace: str) -> None:
    proj = namespace + "/retrieval"
    s = memory.create_session(proj, project_path=proj)
    memory.remember("The staging database is shop_staging", ["db"], scope=f"project:{proj}", type="decision")
    # the secret sits just before the preview limit: a cut must not leave part of it behind
    inj = memory.inject_facts(s.id, "x" * 180 + " " + TEXT)
    assert inj.log_id is not None
    memory.build_context(s.id, f"which database? {TEXT}")
    assert _scan(memory.db, namespace) == []


def test_stop_hook_spool_replay_and_export(memory: GraphMemory, namespace: str, tmp_path: Path,
                                           neo4j_target: Neo4jTarget) -> None:
    """The hook path: turns spooled while Neo4j is down (file scanned), replayed, exported."""
    from graphmem.errors import DatabaseUnavailable

    _t, lines, sid, cwd = claude_file(tmp_path, namespace, n_turns=4)
    lines = [ln.replace("Can you look at why", f"Can you look at why ({' '.join(SECRETS)}) ") for ln in lines]
    path = tmp_path / f"{sid}.jsonl"
    write_lines(path, lines)
    home = tmp_path / "home"

    def down() -> GraphMemory:
        raise DatabaseUnavailable("down for the test")

    svc = HookService(home, down)
    reply = svc.handle("claude-code", json.dumps(stop_payload(sid, path, cwd)))
    assert "spooled" in (reply.stderr or ""), reply.stderr
    files = [p for p in home.rglob("*") if p.is_file()]
    assert files and not any(_leaks(p.read_text(errors="replace")) for p in files)
    up = HookService(home, lambda: GraphMemory(memory.db))
    assert up.replay_spool().turns_created > 0
    assert _scan(memory.db, namespace) == []
    for fmt in ("json", "graphml", "gexf"):
        text = graph_to_text(export_graph(memory.db, session_id=sid), fmt)  # type: ignore[arg-type]
        assert "REDACTED" in text and _leaks(text) == []


def test_the_stop_hook_redacts_each_turn_once(memory: GraphMemory, namespace: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook path stores redacted turns, redacted once: by the store, not also by the parser."""
    import graphmem.integrations.turns as parsing
    import graphmem.turns as turns_mod

    calls = {"parser": 0, "store": 0}

    def counted(where: str, fn: Any) -> Any:
        def wrapper(*args: Any, **kw: Any) -> Any:
            calls[where] += 1
            return fn(*args, **kw)

        return wrapper

    monkeypatch.setattr(parsing, "redact_turn_with_kinds", counted("parser", parsing.redact_turn_with_kinds))
    monkeypatch.setattr(turns_mod, "redact_turn_with_kinds", counted("store", turns_mod.redact_turn_with_kinds))
    _t, lines, sid, cwd = claude_file(tmp_path, namespace, n_turns=3)
    lines = [ln.replace("Can you look at why", f"Can you look at why ({' '.join(SECRETS)}) ") for ln in lines]
    path = tmp_path / f"{sid}.jsonl"
    write_lines(path, lines)
    svc = HookService(tmp_path / "home", lambda: GraphMemory(memory.db))
    reply = svc.handle("claude-code", json.dumps(stop_payload(sid, path, cwd)))
    assert not reply.stderr, reply.stderr
    stored = memory.load_session(sid).turns
    assert stored and calls == {"parser": 0, "store": len(stored)}
    assert _scan(memory.db, namespace, [sid]) == []


def test_the_import_command_redacts_each_turn_once_and_counts(memory: GraphMemory, namespace: str, tmp_path: Path,
                                                              neo4j_target: Neo4jTarget,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """`graphmem import` leaves redaction to the store (once per turn) and reports what it replaced;
    a dry run redacts while parsing, to count without storing."""
    import graphmem.integrations.turns as parsing
    import graphmem.turns as turns_mod

    for k, v in neo4j_target.env().items():
        monkeypatch.setenv(k, v)
    calls = {"parser": 0, "store": 0}

    def counted(where: str, fn: Any) -> Any:
        def wrapper(*args: Any, **kw: Any) -> Any:
            if kw.get("enabled", True):
                calls[where] += 1
            return fn(*args, **kw)

        return wrapper

    _t, lines, sid, _cwd = claude_file(tmp_path, namespace, n_turns=3)
    lines = [ln.replace("Can you look at why", f"Can you look at why ({' '.join(SECRETS)}) ") for ln in lines]
    path = tmp_path / f"{sid}.jsonl"
    write_lines(path, lines)
    monkeypatch.setattr(parsing, "redact_turn_with_kinds", counted("parser", parsing.redact_turn_with_kinds))
    monkeypatch.setattr(turns_mod, "redact_turn_with_kinds", counted("store", turns_mod.redact_turn_with_kinds))

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["import", "claude-code", str(path), "--dry-run", "--json", "--quiet"]) == 0
    dry = json.loads(out.getvalue())
    assert dry["redactions"] > 0 and calls == {"parser": dry["turns_read"], "store": 0}

    calls.update(parser=0, store=0)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["import", "claude-code", str(path), "--json", "--quiet"]) == 0
    done = json.loads(out.getvalue())
    stored = memory.load_session(sid).turns
    assert stored and calls == {"parser": 0, "store": len(stored)}
    assert done["redactions"] == dry["redactions"]
    assert _scan(memory.db, namespace, [sid]) == []
