"""Every Cypher file plans on the real server, and code passes exactly the parameters it uses."""

from __future__ import annotations

import ast
import zipfile
from pathlib import Path

import pytest

from graphmem import CypherError, Database, cypher
from graphmem.db.schema import migrations

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
CALL_METHODS = {"read", "write", "raw", "run"}


def _call_sites() -> list[tuple[str, int, str, set[str] | None]]:
    """(file, line, query name, keyword names or None when **kwargs hides them) for every
    ``x.read("name", ...)``-style call with a literal query name in graphmem/ and tests/."""
    sites = []
    for path in list((ROOT / "graphmem").rglob("*.py")) + list((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in CALL_METHODS or not node.args:
                continue
            first = node.args[0]
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str) and "/" in first.value):
                continue
            if any(kw.arg is None for kw in node.keywords):
                kws = None
            elif node.func.attr == "raw" and len(node.args) > 1:
                arg = node.args[1]
                kws = {k.value for k in arg.keys if isinstance(k, ast.Constant)} if isinstance(arg, ast.Dict) else None
            else:
                kws = {kw.arg for kw in node.keywords if kw.arg is not None}
            sites.append((str(path.relative_to(ROOT)), node.lineno, first.value, kws))
    return sites


def test_every_call_site_passes_exactly_the_file_parameters() -> None:
    sites = _call_sites()
    assert len(sites) > 20
    problems = []
    for file, line, name, kws in sites:
        try:
            used = cypher.params(name)
        except Exception as e:
            problems.append(f"{file}:{line}: {e}")
            continue
        if kws is not None and kws != set(used):
            problems.append(f"{file}:{line}: {name} passes {sorted(kws)} but the file uses {sorted(used)}")
    assert not problems, "\n".join(problems)


def test_every_query_file_is_used_by_code() -> None:
    used = {name for _, _, name, _ in _call_sites()}
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "graphmem").rglob("*.py"))
    unused = [
        n for n in cypher.all_names()
        if not n.startswith(("schema/", "explore/")) and n not in used and f'"{n}"' not in source
    ]
    assert not unused, f"query files no code uses: {unused}"


def test_runtime_check_rejects_wrong_parameters(database: Database) -> None:
    with pytest.raises(CypherError, match="unused parameters"):
        database.read("sessions/get", **{"id": "x", "extra": 1})  # deliberately wrong
    with pytest.raises(CypherError, match="missing parameters"):
        database.read("sessions/get", **{})  # deliberately wrong


def test_every_query_file_plans_on_the_server(database: Database) -> None:
    features = {"search"} if database.server_info().vector_search_clause else set()
    applicable = {m.name for m in migrations(features)}
    failures = []
    checked = 0
    for name in cypher.all_names():
        if name.startswith("schema/") and name not in applicable:
            continue  # a variant for another server version
        if "@search" in name and "search" not in features:
            continue
        text = cypher.query(name)
        prefix, body = ("CYPHER 25 ", text[len("CYPHER 25 "):]) if text.startswith("CYPHER 25 ") else ("", text)
        try:
            database.driver.execute_query(f"{prefix}EXPLAIN {body}", database_=database.database)
            checked += 1
        except Exception as e:
            failures.append(f"{name}: {str(e).splitlines()[0][:300]}")
    assert not failures, "\n".join(failures)
    assert checked > 30


def test_wheel_ships_the_cypher_files(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = tmp_path / "dist"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    wheel = next(out.glob("graphmem-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    expected = {f"graphmem/_cypher/{n}.cypher" for n in cypher.all_names()}
    assert expected <= names
    assert "graphmem/neo4j_local/templates/pom.xml" in names
