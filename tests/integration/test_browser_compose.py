"""docker/compose.yml stays in step with the Neo4j versions the tests use, and validates.

No Docker engine is needed: the file is read as YAML, then checked by ``docker compose config``
(Compose v2 plugin) or, failing that, Debian's ``docker-compose`` 1.29 (which predates the
top-level ``name`` key, so it reads a copy without it); skipped when neither is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from graphmem.config import DEFAULT_NEO4J_VERSION, LTS_NEO4J_VERSION

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker" / "compose.yml"


def test_compose_file_pins_the_tested_versions() -> None:
    text = COMPOSE.read_text(encoding="utf-8")
    spec = yaml.safe_load(text)
    neo4j = spec["services"]["neo4j"]
    assert neo4j["image"] == f"neo4j:{DEFAULT_NEO4J_VERSION}-community"
    assert f"neo4j:{LTS_NEO4J_VERSION}-community" in text  # the documented LTS alternative
    assert neo4j["environment"]["NEO4J_AUTH"].startswith("neo4j/${NEO4J_PASSWORD:?")
    assert "healthcheck" in neo4j and {"neo4j-data:/data", "neo4j-logs:/logs"} <= set(neo4j["volumes"])
    assert all(p.startswith("127.0.0.1:") for p in neo4j["ports"])
    worker = spec["services"]["worker"]
    assert worker["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert (ROOT / "docker" / worker["build"]["dockerfile"].removeprefix("docker/")).is_file()
    assert spec["name"] == "graphmem"


def _compose_command(tmp_path: Path) -> list[str] | None:
    if shutil.which("docker") and subprocess.run(
        ["docker", "compose", "version"], capture_output=True, timeout=30
    ).returncode == 0:
        return ["docker", "compose", "-f", str(COMPOSE)]
    if shutil.which("docker-compose"):
        legacy = tmp_path / "compose-v1.yml"  # compose 1.x rejects the top-level `name`
        legacy.write_text("".join(
            line for line in COMPOSE.read_text(encoding="utf-8").splitlines(keepends=True)
            if not line.startswith("name:")
        ))
        return ["docker-compose", "-f", str(legacy), "--project-directory", str(COMPOSE.parent)]
    return None


def test_compose_config_validates(tmp_path: Path) -> None:
    cmd = _compose_command(tmp_path)
    if cmd is None:
        pytest.skip("neither `docker compose` nor `docker-compose` is installed")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRAPHMEM_"))}
    ok = subprocess.run([*cmd, "config"], capture_output=True, text=True, timeout=60,
                        env={**env, "NEO4J_PASSWORD": "change-me-please"})
    assert ok.returncode == 0, ok.stderr
    rendered = yaml.safe_load(ok.stdout)
    assert rendered["services"]["neo4j"]["environment"]["NEO4J_AUTH"] == "neo4j/change-me-please"
    missing = subprocess.run([*cmd, "config"], capture_output=True, text=True, timeout=60, env=env)
    assert missing.returncode != 0 and "NEO4J_PASSWORD" in missing.stderr
