"""Test fixtures: a real Neo4j for every integration test, and per-test namespaces.

Which server (decided once per test session):

1. ``GRAPHMEM_TEST_NEO4J_URI`` (+ ``_USER``, ``_PASSWORD``): that server;
2. otherwise, when a Docker engine answers: testcontainers' Neo4j image of the same version;
3. otherwise the managed server of graphmem itself, under ``GRAPHMEM_TEST_HOME`` (default
   ``~/.cache/graphmem-test``), version ``GRAPHMEM_TEST_NEO4J_VERSION`` (default: graphmem's), on
   ports ``GRAPHMEM_TEST_BOLT_PORT``/``GRAPHMEM_TEST_HTTP_PORT`` (default 7787/7574).

Every test that writes owns a namespace (a unique directory path) and deletes only the
sessions under it afterwards; nothing wipes the database.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from graphmem import Database, GraphMemory
from graphmem.config import DEFAULT_NEO4J_VERSION
from graphmem.embedding import LocalEmbedder
from graphmem.neo4j_local import ManagedServer
from graphmem_devtools.servers import ServerSpec

from .servers import dedicated_server

_ENV_PREFIXES = ("GRAPHMEM_", "NEO4J_", "OPENAI_")


@dataclass(frozen=True)
class Neo4jTarget:
    uri: str
    user: str
    password: str
    version: str
    kind: str
    home: Path | None = None

    def env(self) -> dict[str, str]:
        """Environment variables that point graphmem's CLI at this server."""
        return {
            "GRAPHMEM_NEO4J_URI": self.uri,
            "GRAPHMEM_NEO4J_USER": self.user,
            "GRAPHMEM_NEO4J_PASSWORD": self.password,
        }


def _docker_engine() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _test_home() -> Path:
    return Path(os.environ.get("GRAPHMEM_TEST_HOME", "~/.cache/graphmem-test")).expanduser()


def _test_version() -> str:
    return os.environ.get("GRAPHMEM_TEST_NEO4J_VERSION", DEFAULT_NEO4J_VERSION)


def _schema_applied(target: Neo4jTarget) -> Neo4jTarget:
    """``target`` once its schema is applied for USE, the embedder the tests use. A command run with
    the default ``auto`` then follows the recorded USE; were it the first to create the schema, it
    would pick e5, whose wheel the dev install has."""
    db = Database(target.uri, target.user, target.password)
    try:
        GraphMemory(db).init_schema()
    finally:
        db.close()
    return target


@pytest.fixture(scope="session")
def neo4j_target() -> Iterator[Neo4jTarget]:
    uri = os.environ.get("GRAPHMEM_TEST_NEO4J_URI")
    version = _test_version()
    if uri:
        yield _schema_applied(Neo4jTarget(
            uri,
            os.environ.get("GRAPHMEM_TEST_NEO4J_USER", "neo4j"),
            os.environ.get("GRAPHMEM_TEST_NEO4J_PASSWORD", ""),
            version,
            "explicit",
        ))
        return
    if _docker_engine() and os.environ.get("GRAPHMEM_TEST_NO_DOCKER") != "1":
        from testcontainers.neo4j import Neo4jContainer

        image = f"neo4j:{version}-community"
        with Neo4jContainer(image=image, password="graphmem-test-pw") as c:
            yield _schema_applied(Neo4jTarget(c.get_connection_url(), "neo4j", "graphmem-test-pw", version,
                                              "testcontainers"))
        return
    server = ManagedServer(_test_home(), version, heap="1g", pagecache="1g",
                           bolt_port=int(os.environ.get("GRAPHMEM_TEST_BOLT_PORT", "7787")),
                           http_port=int(os.environ.get("GRAPHMEM_TEST_HTTP_PORT", "7574")))
    was_running = server.state() is not None
    st = server.start()
    try:
        yield _schema_applied(Neo4jTarget(st.uri, "neo4j", server.password(), version, "managed", home=_test_home()))
    finally:
        if not was_running and os.environ.get("GRAPHMEM_TEST_KEEP_SERVER") != "1":
            server.stop()


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's graphmem/Neo4j/OpenAI settings; GRAPHMEM_HOME is private."""
    for key in list(os.environ):
        if key.startswith(_ENV_PREFIXES) and not key.startswith("GRAPHMEM_TEST_"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("GRAPHMEM_HOME", str(tmp_path / "graphmem-home"))
    monkeypatch.setenv("GRAPHMEM_UP_DAEMON", "0")  # `db up` and the demo leave no daemon behind a test


@pytest.fixture(scope="session")
def database(neo4j_target: Neo4jTarget) -> Iterator[Database]:
    db = Database(neo4j_target.uri, neo4j_target.user, neo4j_target.password)
    GraphMemory(db).init_schema()
    try:
        yield db
    finally:
        db.close()


@pytest.fixture
def namespace(database: Database) -> Iterator[str]:
    """A unique directory path owned by one test; its sessions are deleted afterwards."""
    ns = f"/graphmem-test/{uuid.uuid4().hex}"
    yield ns
    cleanup_namespace(database, ns)


def cleanup_namespace(db: Database, ns: str) -> None:
    mem = GraphMemory(db)
    for row in db.read("maintenance/sessions_under_path", path=ns, prefix=ns + "/"):
        mem.delete_session(row["id"])
    from graphmem.facts import delete_facts_under_path

    delete_facts_under_path(db, ns)  # project-scoped facts, their scope nodes and forget audits


@pytest.fixture
def memory(database: Database) -> GraphMemory:
    return GraphMemory(database)


@pytest.fixture(scope="session")
def local_embedder() -> LocalEmbedder:
    """The local USE embedder, loaded once for the whole run."""
    e = LocalEmbedder()
    e.load()
    return e


@pytest.fixture
def embedded_memory(database: Database, local_embedder: LocalEmbedder) -> GraphMemory:
    """A memory that embeds with the local embedder."""
    return GraphMemory(database, embedder=local_embedder)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """With GRAPHMEM_TEST_STRICT=1 (set by `make test`), a skipped test is a failure: CI installs
    everything the suite needs, so a skip there means something is missing, not optional."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if os.environ.get("GRAPHMEM_TEST_STRICT") == "1" and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped under GRAPHMEM_TEST_STRICT=1: {report.longrepr}"


@pytest.fixture(scope="module")
def dedicated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerSpec]:
    """A managed Neo4j of the requesting module only (fault tests SIGKILL it); stopped at the end."""
    with dedicated_server(tmp_path_factory.mktemp("faults") / "home") as spec:
        yield spec
