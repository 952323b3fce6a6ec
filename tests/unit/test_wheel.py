"""The wheel is the product: it ships graphmem's statements and templates, and none of the development
tools (benchmarks, reliability runs), their statements or the tests' statements."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from graphmem import cypher

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    wheel = next(out.glob("graphmem-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        return set(z.namelist())


def test_wheel_ships_the_statements_and_templates(wheel_names: set[str]) -> None:
    assert any(n.startswith("graphmem/_cypher/") for n in wheel_names)
    expected = {f"graphmem/_cypher/{n}.cypher" for n in cypher.all_names()}
    assert expected <= wheel_names
    assert "graphmem/neo4j_local/templates/pom.xml" in wheel_names
    assert "graphmem/cli/main.py" in wheel_names


def test_wheel_ships_no_development_tools(wheel_names: set[str]) -> None:
    scaffolding = ("bench", "reliability", "testing", "fake_openai", "graphmem_devtools", "tests/")
    leaked = sorted(
        n for n in wheel_names
        if any(word in n for word in scaffolding) or "/check/tamper_" in n or not n.startswith(("graphmem/", "graphmem-"))
    )
    assert not leaked, leaked


def test_the_mcp_sdk_is_a_core_dependency() -> None:
    """`graphmem mcp` works after a plain `pip install graphmem`: the SDK is no extra."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = [d for d in project["dependencies"] if d.split(">")[0].split("<")[0].split("=")[0].strip() == "mcp"]
    assert core, project["dependencies"]
    extras = {name: deps for name, deps in project["optional-dependencies"].items()
              if any(d.startswith("mcp") for d in deps)}
    assert not extras, extras
