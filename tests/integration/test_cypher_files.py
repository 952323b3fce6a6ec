"""Every Cypher file plans on the real server, and code passes exactly the parameters it uses: graphmem's
own (``cypher/``), the development tools' (``devtools/graphmem_devtools/cypher/``) and the tests'
(``tests/support/cypher/``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from graphmem import CypherError, Database, cypher
from graphmem.cypher import Statements
from graphmem.db.schema import migrations
from graphmem_devtools.statements import STATEMENTS as DEVTOOLS

from ..support import TESTING

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
CALL_METHODS = {"read", "read_leader", "write", "raw", "run", "write_autocommit", "write_checked"}
DICT_PARAMS = {"raw", "write_autocommit", "write_checked"}  # parameters as a dict, the second argument
CODE = ("graphmem", "devtools/graphmem_devtools", "benchmarks", "tests")
ROOTS: dict[str, Statements] = {"graphmem": cypher.statements(), "devtools": DEVTOOLS, "tests": TESTING}


def _owners() -> dict[str, Statements]:
    """Every statement name and the folder that holds it."""
    owners: dict[str, Statements] = {}
    for stmts in ROOTS.values():
        for name in stmts.all_names():
            owners[name] = stmts
    return owners


def test_statement_names_are_unique_across_folders() -> None:
    seen: dict[str, str] = {}
    clashes = []
    for label, stmts in ROOTS.items():
        names = stmts.all_names()
        assert names, f"no statements found for {label}"
        for name in names:
            if name in seen:
                clashes.append(f"{name}: {seen[name]} and {label}")
            seen[name] = label
    assert not clashes, "\n".join(clashes)


def _call_sites() -> list[tuple[str, int, str, set[str] | None]]:
    """(file, line, query name, keyword names or None when **kwargs hides them) for every
    ``x.read("name", ...)``-style call with a literal query name in graphmem/, devtools/ and tests/."""
    sites = []
    for path in (p for folder in CODE for p in (ROOT / folder).rglob("*.py")):
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
            elif node.func.attr in DICT_PARAMS and len(node.args) > 1:
                arg = node.args[1]
                dict_keys = arg.keys if isinstance(arg, ast.Dict) else [None]
                kws = ({k.value for k in dict_keys if isinstance(k, ast.Constant)}
                       if all(isinstance(k, ast.Constant) for k in dict_keys) else None)
            else:
                kws = {kw.arg for kw in node.keywords if kw.arg is not None}
            sites.append((str(path.relative_to(ROOT)), node.lineno, first.value, kws))
    return sites


def test_every_call_site_passes_exactly_the_file_parameters() -> None:
    sites = _call_sites()
    assert len(sites) > 20
    owners = _owners()
    problems = []
    for file, line, name, kws in sites:
        if name not in owners:
            problems.append(f"{file}:{line}: no statement file {name}.cypher")
            continue
        used = owners[name].params(name)
        if kws is not None and kws != set(used):
            problems.append(f"{file}:{line}: {name} passes {sorted(kws)} but the file uses {sorted(used)}")
    assert not problems, "\n".join(problems)


def test_every_query_file_is_used_by_code() -> None:
    used = {name for _, _, name, _ in _call_sites()}
    source = "\n".join(
        p.read_text(encoding="utf-8") for folder in CODE[:3] for p in (ROOT / folder).rglob("*.py")
    )
    unused = [
        n for n in _owners()
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
    for name, stmts in sorted(_owners().items()):
        if name.startswith("schema/") and name not in applicable:
            continue  # a variant for another server version
        if "@search" in name and "search" not in features:
            continue
        text = stmts.query(name)
        prefix, body = ("CYPHER 25 ", text[len("CYPHER 25 "):]) if text.startswith("CYPHER 25 ") else ("", text)
        try:
            database.driver.execute_query(f"{prefix}EXPLAIN {body}", database_=database.database)
            checked += 1
        except Exception as e:
            failures.append(f"{name}: {str(e).splitlines()[0][:300]}")
    assert not failures, "\n".join(failures)
    assert checked > 30

