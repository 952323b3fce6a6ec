"""Core pieces that need no server: the cypher loader, paths, text rule, settings, CLI errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from graphmem import CypherError, InvalidInput, Settings, cypher
from graphmem.cli.main import main
from graphmem.db.schema import SCHEMA_VERSION, migrations
from graphmem.models import ToolCallIn, clean_text
from graphmem.neo4j_local.java import java_range_for, list_javas
from graphmem.paths import find_project_root, normalize_cwd


def test_loader_reads_files_and_params() -> None:
    names = cypher.all_names()
    assert "turns/append" in names and "sessions/create" in names
    assert cypher.params("sessions/get") == {"id"}
    # parameters inside strings and comments are not parameters
    assert "autoint" not in " ".join(cypher.params("turns/append"))
    with pytest.raises(CypherError):
        cypher.query("no/such_query")
    with pytest.raises(CypherError):
        cypher.query("../pyproject")
    with pytest.raises(CypherError, match="missing parameters"):
        cypher.check_params("sessions/get", frozenset())


def test_statements_of_another_folder(tmp_path: Path) -> None:
    (tmp_path / "extra").mkdir()
    (tmp_path / "extra" / "probe.cypher").write_text("// a probe\nRETURN $x AS x, '$notaparam' AS s\n")
    own = cypher.Statements(tmp_path)
    layered = cypher.Statements(tmp_path, base=cypher.statements())
    assert own.all_names() == layered.all_names() == ["extra/probe"]
    assert layered.params("extra/probe") == {"x"}
    assert layered.params("sessions/get") == cypher.params("sessions/get")  # graphmem's, through the base
    with pytest.raises(CypherError):
        own.query("sessions/get")  # no base: only its own folder
    with pytest.raises(CypherError, match="unused parameters"):
        layered.check_params("extra/probe", {"x", "y"})
    assert "extra/probe" not in cypher.all_names()


def test_schema_variants_and_version() -> None:
    plain = migrations(set())
    search = migrations({"search"})
    assert plain[-1].number == SCHEMA_VERSION == search[-1].number
    assert any("@search" in m.name for m in search)
    assert not any("@search" in m.name for m in plain)
    assert [m.number for m in plain] == sorted({m.number for m in plain})


def test_normalize_cwd(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert normalize_cwd(str(link) + "///") == str(real.resolve())
    assert normalize_cwd("/") == "/"
    assert normalize_cwd("~") == os.path.expanduser("~")
    assert normalize_cwd("relative/dir") == str(Path.cwd() / "relative" / "dir")
    for bad in ("", "a\x00b", "x\ud800"):
        with pytest.raises(InvalidInput):
            normalize_cwd(bad)


def test_project_root_and_worktrees(tmp_path: Path) -> None:
    main_repo = tmp_path / "main"
    (main_repo / ".git" / "worktrees" / "wt").mkdir(parents=True)
    (main_repo / ".git" / "worktrees" / "wt" / "commondir").write_text("../..\n")
    deep = main_repo / "a" / "b"
    deep.mkdir(parents=True)
    assert find_project_root(str(deep)) == str(main_repo)
    wt = tmp_path / "wt"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {main_repo}/.git/worktrees/wt\n")
    assert find_project_root(str(wt)) == str(wt)
    assert find_project_root(str(wt), worktree_as_project=False) == str(main_repo)
    lonely = tmp_path / "nogit"
    lonely.mkdir()
    assert find_project_root(str(lonely)).startswith(str(tmp_path))


def test_text_rule() -> None:
    assert clean_text("a\x00b") == "a\x00b"
    assert clean_text("é😀") == "é😀"
    assert clean_text("x\ud800y\udc00") == "x\ufffdy\ufffd"
    assert ToolCallIn(name="t", args={"b": 1, "a": "é"}).args_json() == '{"a": "é", "b": 1}'
    assert ToolCallIn(name="t", args="raw text").args_json() == "raw text"
    assert ToolCallIn(name="t").args_json() == ""


def test_settings_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Settings.load()
    assert s.managed and s.neo4j_uri is None
    monkeypatch.setenv("NEO4J_URI", "bolt://db.example:7687")
    monkeypatch.setenv("NEO4J_PASSWORD", "pw")
    s = Settings.load()
    assert not s.managed and s.neo4j_uri == "bolt://db.example:7687"
    assert s.neo4j_password is not None and s.neo4j_password.get_secret_value() == "pw"
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", "bolt://mine:7687")
    assert Settings.load().neo4j_uri == "bolt://mine:7687"
    assert "pw" not in repr(Settings.load())


def test_java_ranges() -> None:
    assert java_range_for((5, 26, 30))[:2] == (17, 21)
    assert java_range_for((2025, 6))[:2] == (21, 21)
    assert java_range_for((2026, 8, 1))[:2] == (21, 25)
    assert all(j.major >= 8 for j in list_javas())


def test_cli_errors_are_one_clean_line(capsys: pytest.CaptureFixture[str]) -> None:
    # no managed server runs under the test's private GRAPHMEM_HOME
    code = main(["sessions", "list", "--cwd", "/tmp"])
    err = capsys.readouterr().err
    assert code == 4
    assert err.startswith("graphmem: error: ") and err.count("\n") == 1
    assert "Traceback" not in err
    assert main(["sessions"]) == 2  # a group without a verb prints its help


def test_generated_server_passwords_never_start_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphmem.neo4j_local import server as server_mod

    drawn = iter(["-abc", "_def", "Xyz-_1"])
    monkeypatch.setattr(server_mod.secrets, "token_urlsafe", lambda n: next(drawn))
    assert server_mod._new_password() == "Xyz-_1"
    monkeypatch.undo()
    assert all(server_mod._new_password()[0].isalnum() for _ in range(500))


def test_vector_index_quantization_is_read_from_either_servers_options() -> None:
    from graphmem.db.schema import _quantized

    assert _quantized({"indexConfig": {"vector.quantization.type": "BINARY"}})
    assert _quantized({"indexConfig": {"vector.quantization.type": "scalar"}})
    assert not _quantized({"indexConfig": {"vector.quantization.type": "NONE"}})
    assert _quantized({"indexConfig": {"vector.quantization.enabled": True}})  # 5.x
    assert not _quantized({"indexConfig": {"vector.quantization.enabled": False}})
    assert _quantized({"indexConfig": {}}) and _quantized(None)  # the servers' default
