"""``graphmem export``: GraphML, GEXF and JSON through networkx, read back and compared."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from pathlib import Path

import networkx as nx
import pytest

from graphmem import Database, GraphMemory, SessionNotFound
from graphmem.cli.main import main
from graphmem.export import FORMATS, export_graph, graph_to_text

from ..conftest import Neo4jTarget
from ..support import support_db

pytestmark = pytest.mark.integration

BASE = datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC)
CLI = "import sys; from graphmem.cli import main; sys.exit(main(sys.argv[1:]))"
ODD = "naïve 日本語 <tag> & \"quotes\" 'apos' \x00 NUL \x07 bell \r\n crlf"


def _seed(memory: GraphMemory, ns: str) -> tuple[str, str, str]:
    a = memory.create_session(f"{ns}/app", project_path=ns, agent="claude-code", title="export me", started_at=BASE)
    b = memory.create_session(f"{ns}/app", project_path=ns, agent="codex", started_at=BASE + timedelta(hours=1))
    c = memory.create_session(f"{ns}/lib", project_path=ns, started_at=BASE + timedelta(hours=2))
    memory.store_turn(a.id, "Why is the cart empty?", "The cookie is dropped.",
                      [{"name": "Grep", "args": {"pattern": "cart"}, "result": "src/cart.py", "success": True,
                        "duration_ms": 5},
                       {"name": "Bash", "args": {"command": "pytest"}, "result": "1 failed", "success": False,
                        "duration_ms": 1500}], timestamp=BASE + timedelta(minutes=1))
    t2 = memory.store_turn(a.id, ODD, "fixed", [], timestamp=BASE + timedelta(minutes=2))
    memory.store_turn(b.id, "Second session", "ok", [], timestamp=BASE + timedelta(hours=1, minutes=1))
    memory.store_turn(c.id, "Other directory", "ok", [], timestamp=BASE + timedelta(hours=2, minutes=1))
    support_db(memory.db).write("testing/explore_summary", sessionId=a.id, id=f"sum-{a.id}", level=1,
                    text="Cart cookie fixed.", childIds=[t2.id], turnCount=1)
    return a.id, b.id, c.id


def _read(fmt: str, text: str) -> nx.MultiDiGraph:
    if fmt == "graphml":
        return nx.read_graphml(io.BytesIO(text.encode()), force_multigraph=True, edge_key_type=str)
    if fmt == "gexf":
        return nx.read_gexf(io.BytesIO(text.encode()))
    return nx.node_link_graph(json.loads(text), edges="edges", multigraph=True, directed=True)


def test_one_session_round_trips_in_every_format(memory: GraphMemory, database: Database, namespace: str) -> None:
    a, _, _ = _seed(memory, namespace)
    graph = export_graph(database, session_id=a)
    # Directory, Session, 2 turns, 2 tool calls, 1 summary
    assert graph.number_of_nodes() == 7
    rels = sorted(d["label"] for _, _, d in graph.edges(data=True))
    assert rels == sorted(["HAS_SESSION", "HAS_TURN", "HAS_TURN", "NEXT", "HAS_TOOL_CALL", "HAS_TOOL_CALL",
                           "HAS_SUMMARY", "SUMMARIZES"])
    turn2 = next(n for n, d in graph.nodes(data=True) if d.get("index") == 2)
    assert graph.nodes[turn2]["userMessage"] == ODD and "embedding" not in graph.nodes[turn2]
    # a long turn's joined text is a copy kept for search: not exported
    support_db(database).write("testing/tamper_turn", id=turn2, props={"turnText": ODD + "\nfixed"})
    assert "turnText" not in export_graph(database, session_id=a).nodes[turn2]
    assert graph.nodes[a]["label"] == "Session export me" and graph.nodes[a]["labels"] == "Session"
    failed = next(d for _, d in graph.nodes(data=True) if d.get("name") == "Bash")
    assert failed["label"] == "Bash (failed)" and failed["success"] is False and failed["durationMs"] == 1500

    for fmt in FORMATS:
        text = graph_to_text(graph, fmt)  # type: ignore[arg-type]
        back = _read(fmt, text)
        assert set(back.nodes) == set(graph.nodes), fmt
        assert back.number_of_edges() == graph.number_of_edges(), fmt
        edges = sorted((u, v, d["label"]) for u, v, d in back.edges(data=True))
        assert edges == sorted((u, v, d["label"]) for u, v, d in graph.edges(data=True)), fmt
        t = back.nodes[turn2]
        assert t["labels"] == "Turn" and int(t["index"]) == 2
        if fmt == "json":
            assert t["userMessage"] == ODD  # verbatim
        else:
            # XML 1.0 cannot carry NUL or BEL (replaced), and XML parsers read CR LF as LF
            expected = ODD.replace("\x00", "\ufffd").replace("\x07", "\ufffd").replace("\r\n", "\n")
            assert t["userMessage"].replace("\r\n", "\n") == expected, fmt
        assert back.nodes[a]["title"] == "export me" and back.nodes[a]["startedAt"].startswith("2026-05-06T07:08:09")
        hit = back.nodes[f"Directory:{namespace}/app"]
        assert hit["path"] == f"{namespace}/app"
    # summaries keep their list properties: native in JSON, JSON strings in XML formats
    json_back = _read("json", graph_to_text(graph, "json"))
    assert json_back.nodes[f"sum-{a}"]["topics"] == []
    assert json.loads(_read("graphml", graph_to_text(graph, "graphml")).nodes[f"sum-{a}"]["topics"]) == []


def test_scopes(memory: GraphMemory, database: Database, namespace: str) -> None:
    a, b, c = _seed(memory, namespace)
    app = export_graph(database, cwd=f"{namespace}/app")
    sessions = {n for n, d in app.nodes(data=True) if d["labels"] == "Session"}
    assert sessions == {a, b}
    assert [n for n, d in app.nodes(data=True) if d["labels"] == "Directory"] == [f"Directory:{namespace}/app"]
    assert app.graph["sessions"] == 2
    assert export_graph(database, cwd=f"{namespace}/nowhere").number_of_nodes() == 0
    everything = export_graph(database)
    assert {a, b, c} <= set(everything.nodes)
    with pytest.raises(SessionNotFound):
        export_graph(database, session_id=f"missing-{namespace}")


def test_cli_writes_files_that_networkx_and_an_xml_parser_read(
    memory: GraphMemory, namespace: str, neo4j_target: Neo4jTarget, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    a, _, _ = _seed(memory, namespace)
    for key, value in {**neo4j_target.env(), "GRAPHMEM_EMBEDDER": "none"}.items():
        monkeypatch.setenv(key, value)
    for fmt in FORMATS:
        out = tmp_path / f"export.{fmt}"
        assert main(["export", "--format", fmt, "--cwd", f"{namespace}/app", "-o", str(out)]) == 0
        assert "exported 2 sessions, 9 nodes" in capsys.readouterr().err
        if fmt != "json":
            ET.parse(out)  # well-formed XML
        back = _read(fmt, out.read_text(encoding="utf-8"))
        assert a in back.nodes and back.number_of_nodes() == 9
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export.gexf", "export.graphml", "export.json"]
    # standard output, one session
    assert main(["export", "-f", "json", "--session", a]) == 0
    assert len(json.loads(capsys.readouterr().out)["nodes"]) == 7
    assert main(["export", "--session", f"missing-{namespace}"]) == 3  # not found
    with pytest.raises(SystemExit) as e:
        main(["export", "--session", a, "--cwd", "/x"])
    assert e.value.code == 2 and "not allowed with" in capsys.readouterr().err


def test_cli_runs_as_a_command(memory: GraphMemory, namespace: str, neo4j_target: Neo4jTarget) -> None:
    a, _, _ = _seed(memory, namespace)
    env = {**os.environ, **neo4j_target.env(), "GRAPHMEM_EMBEDDER": "none"}
    proc = subprocess.run([sys.executable, "-c", CLI, "export", "-f", "gexf", "--session", a],
                          capture_output=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert nx.read_gexf(io.BytesIO(proc.stdout)).number_of_nodes() == 7
