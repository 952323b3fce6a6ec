"""Hostile input: a small profile of ``graphmem reliability hostile`` (hypothesis cases
over the API and the CLI, a control namespace compared before and after), plus focused
regressions found by it. The full run (10,000 cases) is a scripted command with a results file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem import Database, GraphMemory
from graphmem.cli.main import main
from graphmem.errors import CypherError, DatabaseError, GraphMemError, InvalidInput
from graphmem.models import TurnIn
from graphmem_devtools.reliability.hostile import namespace_snapshot, run_hostile, seed_control, snapshot_diff
from tests.conftest import Neo4jTarget

pytestmark = pytest.mark.integration


def test_hostile_smoke_profile(neo4j_target: Neo4jTarget, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for k, v in neo4j_target.env().items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "none")
    code = main(["reliability", "hostile", "--cases", "120", "--seed", "8", "--subprocess-cases", "1",
                 "--out", str(tmp_path)])
    figures = json.loads((tmp_path / "reliability-hostile.json").read_text())["figures"]
    assert figures["cases"] == 121  # 120 drawn + 1 real process, all of which ran
    assert figures["cli_cases"] == 12 and figures["cli_share"] == 0.1
    assert figures["failures"] == 0, figures["failure_samples"]
    assert figures["result"] == "PASS" and code == 0
    assert figures["control_unchanged"] and figures["target_indexes_contiguous"]
    assert len(figures["by_kind"]) >= 10  # API and CLI operations both ran
    assert (tmp_path / "reliability-hostile.md").read_text().startswith("# Benchmark: reliability-hostile")


def test_import_turns_with_a_lone_surrogate_source_id(memory: GraphMemory, namespace: str) -> None:
    """Found by the hostile run: a source id with a lone surrogate made the driver raise a raw
    UnicodeEncodeError; it is now cleaned like every other text (U+FFFD), and stays idempotent."""
    s = memory.create_session(namespace + "/surrogate")
    turns = [TurnIn(user_message="a", assistant_message="b", source_id="id-\ud800-x")]
    assert memory.import_turns(s.id, turns).created == 1
    assert memory.import_turns(s.id, turns).skipped == 1
    assert memory.load_session(s.id).turns[0].source_id == "id-\ufffd-x"


def test_hostile_ids_and_paths_are_clean_errors(memory: GraphMemory, namespace: str) -> None:
    for bad in ("", "x" * 513):
        with pytest.raises(InvalidInput):
            memory.load_session(bad)
    for cwd in ("", "a\x00b"):
        with pytest.raises(InvalidInput):
            memory.create_session(cwd)


def test_control_snapshot_sees_a_change(memory: GraphMemory, namespace: str) -> None:
    """The comparison the hostile run relies on does detect a change in the control namespace."""
    ctl = namespace + "/control"
    sid = seed_control(memory, ctl)
    before = namespace_snapshot(memory.db, ctl)
    assert any(k.startswith("Turn/") for k in before) and any(k.startswith("Fact/") for k in before)
    assert namespace_snapshot(memory.db, ctl) == before
    memory.store_turn(sid, "a change", "outside the target")
    diff = snapshot_diff(before, namespace_snapshot(memory.db, ctl))
    assert any(d.startswith("added Turn/") for d in diff), diff


@pytest.mark.parametrize("error", [DatabaseError, CypherError])
def test_a_server_side_error_fails_the_run(database: Database, monkeypatch: pytest.MonkeyPatch,
                                           neo4j_target: Neo4jTarget, error: type[GraphMemError]) -> None:
    """A planted server-side error (search and context through the API and the CLI fail as a
    crashed statement would) is a failure with its message, not a rejection."""
    for k, v in neo4j_target.env().items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "none")

    def broken(*_a: object, **_k: object) -> None:
        raise error(f"planted {error.__name__}: Neo.DatabaseError.Statement.ExecutionFailed")

    for name in ("search", "search_facts", "build_context"):
        monkeypatch.setattr(GraphMemory, name, broken)
    report = run_hostile(database, cases=80, seed=5, cli_share=0.5)
    assert report.cases == 80 and report.cli_cases == 40
    assert not report.ok and report.as_dict()["result"] == "FAIL"
    api = [f for f in report.failures if f.startswith(("search:", "search_facts:", "build_context:"))
           and f"planted {error.__name__}" in f]
    assert api, report.failures[:5]
    cli = [f for f in report.failures if "exit 1 (expected" in f and f"planted {error.__name__}" in f]
    assert cli, report.failures[:5]
