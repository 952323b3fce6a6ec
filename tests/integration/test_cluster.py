"""What running on a cluster or Aura asks of graphmem, tested against real servers here.

- Every statement graphmem sends as a read plans as a read: on a routing URI the driver sends it to a
  follower or read replica, where a write would fail.
- The routing schemes (``neo4j://``, ``neo4j+s://``, ``neo4j+ssc://``) work end to end: against the
  suite's server, and against a server of its own with Bolt TLS and a certificate made here.
- A process reads its own writes: every read carries the bookmarks of the writes before it.
- A write survives its connection dropping mid-transaction (what a client sees when the leader dies),
  and a ``NotALeader`` answer (a leader switch) is retried: each write lands exactly once.
- ``graphmem db status`` reports what the server offers; an unknown tenant database is one line.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any, LiteralString
from urllib.parse import urlparse

import pytest
from neo4j import GraphDatabase
from neo4j import exceptions as nex
from neo4j.api import Bookmarks

from graphmem import Database, GraphMemory
from graphmem.check import check_hierarchy
from graphmem.db import parse_version
from graphmem.models import TurnIn
from graphmem.neo4j_local import ManagedServer
from graphmem.worker import SummaryWorker, WorkerConfig
from graphmem_devtools.servers import explicit_env

from ..conftest import Neo4jTarget
from ..servers import dedicated_server
from .test_cypher_files import _call_sites, _owners

pytestmark = pytest.mark.integration

CLI = "import sys; from graphmem.cli import main; sys.exit(main(sys.argv[1:]))"


# -- reads go out as reads ---------------------------------------------------------------------
def test_every_statement_sent_as_a_read_plans_as_a_read(database: Database) -> None:
    owners = _owners()
    names = sorted({name for file, _, name, _ in _call_sites()
                    if not file.startswith("tests/") and name in owners and _is_read_site(file, name)})
    assert len(names) > 40
    searchable = database.server_info().vector_search_clause
    wrong = []
    for name in names:
        if "@search" in name and not searchable:
            continue  # the variant for servers with the SEARCH clause
        text = owners[name].query(name)
        prefix, body = ("CYPHER 25 ", text[len("CYPHER 25 "):]) if text.startswith("CYPHER 25 ") else ("", text)
        kind = database.driver.execute_query(f"{prefix}EXPLAIN {body}", database_=database.database).summary.query_type
        # "s": listing and DBMS procedures (SHOW ..., dbms.components), which any member serves
        if kind != "r" and not (kind == "s" and name.startswith("meta/")):
            wrong.append(f"{name}: {kind}")
    assert not wrong, "statements sent as reads that write:\n" + "\n".join(wrong)


_READ_SITES: dict[str, set[str]] = {}


def _is_read_site(file: str, name: str) -> bool:
    """Whether ``file`` sends ``name`` through ``.read(`` or ``.read_leader(`` (a read statement, sent to
    the leader)."""
    if file not in _READ_SITES:
        import ast

        root = Path(__file__).resolve().parents[2]
        tree = ast.parse((root / file).read_text(encoding="utf-8"))
        _READ_SITES[file] = {
            n.args[0].value for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("read", "read_leader")
            and n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)
        }
    return name in _READ_SITES[file]


# -- read your own writes: bookmarks -------------------------------------------------------------
class RecordingBookmarks:
    """The driver's bookmark manager, recording what every transaction was given and gave back."""

    def __init__(self) -> None:
        self._inner = GraphDatabase.bookmark_manager()
        self.events: list[tuple[str, frozenset[str]]] = []
        self._lock = threading.Lock()

    def update_bookmarks(self, previous_bookmarks: Collection[str], new_bookmarks: Collection[str]) -> None:
        self._inner.update_bookmarks(previous_bookmarks, new_bookmarks)
        with self._lock:
            self.events.append(("new", frozenset(new_bookmarks)))

    def get_bookmarks(self) -> Collection[str]:
        got = self._inner.get_bookmarks()
        with self._lock:
            self.events.append(("given", frozenset(got)))
        return got


def test_every_read_carries_the_bookmarks_of_the_writes_before_it(
    neo4j_target: Neo4jTarget, namespace: str
) -> None:
    bookmarks = RecordingBookmarks()
    with Database(neo4j_target.uri, neo4j_target.user, neo4j_target.password,
                  bookmark_manager=bookmarks) as db:  # type: ignore[arg-type]
        mem = GraphMemory(db)
        session = mem.create_session(namespace)  # a managed write (execute_query)
        after_create = _latest(bookmarks)
        mem.store_turn(session.id, "where do the nightly exports go?", "to s3://exports/nightly")  # auto-commit
        after_turn = _latest(bookmarks)
        assert after_create and after_turn and after_turn != after_create
        start = len(bookmarks.events)
        loaded = mem.load_session(session.id)  # reads
        assert [t.user_message for t in loaded.turns] == ["where do the nightly exports go?"]
        given = [b for kind, b in bookmarks.events[start:] if kind == "given"]
        assert given and all(after_turn <= b for b in given), (after_turn, given)
        facts = mem.remember("Exports go to s3://exports/nightly", scope=f"project:{namespace}")
        assert facts.action == "inserted"
        after_fact = _latest(bookmarks)
        assert after_fact != after_turn
        start = len(bookmarks.events)
        assert any("s3://exports/nightly" in f.content for f in mem.list_facts(scopes=[f"project:{namespace}"]))
        given = [b for kind, b in bookmarks.events[start:] if kind == "given"]
        assert given and all(after_fact <= b for b in given)


def _latest(bookmarks: RecordingBookmarks) -> frozenset[str]:
    return next((b for kind, b in reversed(bookmarks.events) if kind == "new" and b), frozenset())


def test_bookmarks_let_another_process_read_what_this_one_wrote(neo4j_target: Neo4jTarget, namespace: str) -> None:
    """Across processes the bookmarks travel explicitly: a reader started with the writer's
    bookmarks waits for them (on a cluster, until its member has applied that write)."""
    with Database(neo4j_target.uri, neo4j_target.user, neo4j_target.password) as writer:
        mem = GraphMemory(writer)
        session = mem.create_session(namespace)
        mem.store_turn(session.id, "ping", "pong")
        carried = Bookmarks.from_raw_values(writer.bookmark_manager.get_bookmarks())
    assert carried.raw_values
    reader_bookmarks = GraphDatabase.bookmark_manager(initial_bookmarks=carried)
    with Database(neo4j_target.uri, neo4j_target.user, neo4j_target.password,
                  bookmark_manager=reader_bookmarks) as reader:
        assert [t.assistant_message for t in GraphMemory(reader).load_session(session.id).turns] == ["pong"]


# -- routing schemes ---------------------------------------------------------------------------
def _scenario(db: Database, namespace: str) -> dict[str, Any]:
    """Writes and reads of every kind through ``db``; what a user would look at afterwards."""
    mem = GraphMemory(db)
    session = mem.create_session(namespace, agent="cluster-test")
    mem.import_turns(session.id, [TurnIn(user_message=f"Step {i}: retry policy of the uploader?",
                                         assistant_message=f"Three retries with backoff, step {i}.") for i in range(3)])
    mem.store_turn(session.id, "and the timeout?", "thirty seconds", [{"name": "Bash", "args": {"cmd": "ls"}}])
    fact = mem.remember("The uploader retries three times", scope=f"project:{namespace}")
    SummaryWorker(db, config=WorkerConfig(scope=namespace)).run_until_idle()
    mem.await_text_index()  # the full-text index is eventually consistent: both paths search a refreshed one
    hits = mem.search("uploader retry policy", scope=f"directory:{namespace}", mode="text", k=5)
    return {
        "turns": [t.user_message for t in mem.load_session(session.id).turns],
        "fact": fact.action,
        "hits": len(hits.hits),
        "complete": check_hierarchy(db, [session.id], complete=True).ok,
    }


def test_the_routing_scheme_works_end_to_end(neo4j_target: Neo4jTarget, database: Database, namespace: str) -> None:
    url = urlparse(neo4j_target.uri)
    direct = _scenario(database, namespace + "/bolt")
    with Database(f"neo4j://{url.hostname}:{url.port}", neo4j_target.user, neo4j_target.password) as routed:
        through_routing = _scenario(routed, namespace + "/neo4j")
    assert through_routing == direct
    assert direct["turns"][-1] == "and the timeout?" and direct["fact"] == "inserted" and direct["complete"]


class TlsServer(ManagedServer):
    """A managed server whose Bolt port also speaks TLS (``OPTIONAL``), with a certificate for
    127.0.0.1 and localhost made by ``openssl`` at the first start."""

    def _write_conf(self, bolt: int, http: int, memory: Any) -> None:
        super()._write_conf(bolt, http, memory)
        certs = self.server_dir / "certificates" / "bolt"
        (certs / "trusted").mkdir(parents=True, exist_ok=True)
        (certs / "revoked").mkdir(parents=True, exist_ok=True)
        if not (certs / "public.crt").exists():
            subprocess.run(
                ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                 "-keyout", str(certs / "private.key"), "-out", str(certs / "public.crt"),
                 "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                check=True, capture_output=True,
            )
        with (self.conf_dir / "neo4j.conf").open("a", encoding="utf-8") as conf:
            conf.write("\n".join([
                "", "server.bolt.tls_level=OPTIONAL",
                "dbms.ssl.policy.bolt.enabled=true",
                f"dbms.ssl.policy.bolt.base_directory={certs}",
                "dbms.ssl.policy.bolt.private_key=private.key",
                "dbms.ssl.policy.bolt.public_certificate=public.crt",
                "dbms.ssl.policy.bolt.client_auth=NONE", "",
            ]))

    @property
    def certificate(self) -> Path:
        return self.server_dir / "certificates" / "bolt" / "public.crt"


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsServer]:
    with dedicated_server(tmp_path_factory.mktemp("tls") / "home") as spec:
        server = TlsServer(spec.home, spec.version, heap=spec.heap, pagecache=spec.pagecache,
                           bolt_port=spec.bolt_port, http_port=spec.http_port, start_timeout=900.0)
        server.start()
        yield server


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CLI, *args], env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("scheme", ["neo4j+ssc", "bolt+ssc"])
def test_tls_schemes_work_end_to_end(tls_server: TlsServer, tmp_path: Path, scheme: str) -> None:
    uri = f"{scheme}://127.0.0.1:{tls_server.bolt_port}"
    with Database(uri, "neo4j", tls_server.password()) as db:
        GraphMemory(db).init_schema()
        result = _scenario(db, f"/graphmem-test/{uuid.uuid4().hex}")
    assert result["complete"] and result["fact"] == "inserted" and len(result["turns"]) == 4


def test_neo4j_s_verifies_the_certificate(tls_server: TlsServer, tmp_path: Path) -> None:
    """``neo4j+s://`` trusts the system's certificate authorities (``SSL_CERT_FILE`` names another
    bundle, as for any OpenSSL program): with the server's certificate in it the CLI connects,
    without it the CLI says in one line that the certificate is not trusted."""
    for host in ("localhost", "127.0.0.1"):
        env = explicit_env(f"neo4j+s://{host}:{tls_server.bolt_port}", "neo4j", tls_server.password(),
                           tmp_path / "home", GRAPHMEM_EMBEDDER="none", SSL_CERT_FILE=str(tls_server.certificate))
        ok = _cli(env, "db", "status", "--json")
        assert ok.returncode == 0, ok.stderr
        status = json.loads(ok.stdout)
        assert status["reachable"] is True and status["features"]["missing"] == {}
    env = explicit_env(f"neo4j+s://localhost:{tls_server.bolt_port}", "neo4j", tls_server.password(),
                       tmp_path / "home", GRAPHMEM_EMBEDDER="none", SSL_CERT_FILE=str(tmp_path / "no-such-bundle.pem"))
    refused = _cli(env, "stats")
    assert refused.returncode != 0
    assert "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "certificate is not trusted" in refused.stderr, refused.stderr


# -- db status and the tenant database ------------------------------------------------------------
def test_db_status_reports_what_the_server_offers(neo4j_target: Neo4jTarget, tmp_path: Path) -> None:
    url = urlparse(neo4j_target.uri)
    env = explicit_env(f"neo4j://{url.hostname}:{url.port}", neo4j_target.user, neo4j_target.password,
                       tmp_path / "home", GRAPHMEM_EMBEDDER="none")
    out = _cli(env, "db", "status", "--json")
    assert out.returncode == 0, out.stderr
    features = json.loads(out.stdout)["features"]
    assert features["missing"] == {}
    assert features["routing"] == {"READ": 1, "ROUTE": 1, "WRITE": 1}
    assert features["clustered"] is False
    assert "neo4j" in features["databases"]
    assert features["search_clause"] == (parse_version(neo4j_target.version) >= (2026, 1))
    text = _cli(env, "db", "status")
    assert "members: read 1, route 1, write 1" in text.stdout


def test_an_unknown_tenant_database_is_one_line(neo4j_target: Neo4jTarget, tmp_path: Path) -> None:
    url = urlparse(neo4j_target.uri)
    env = explicit_env(f"neo4j://{url.hostname}:{url.port}", neo4j_target.user, neo4j_target.password,
                       tmp_path / "home", GRAPHMEM_EMBEDDER="none", GRAPHMEM_NEO4J_DATABASE="tenant_acme")
    for args in (("stats",), ("facts", "list")):
        out = _cli(env, *args)
        assert out.returncode != 0
        assert "Traceback" not in out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "tenant_acme" in lines[0] and "GRAPHMEM_NEO4J_DATABASE" in lines[0], out.stderr
    status = _cli(env, "db", "status", "--json")
    assert status.returncode == 4
    assert "tenant_acme" in json.loads(status.stdout)["error"]


# -- writes survive a dropped connection or a leader switch ----------------------------------------
class DroppingProxy:
    """Forwards TCP to the server. The first client chunk that contains ``marker`` is forwarded,
    then both sides of that connection are closed at once: the server rolls back a transaction
    that was not committed yet, and the client sees its connection gone mid-transaction. Nothing
    the server answers to that chunk reaches the client (the connection is marked cut before the
    chunk goes out), so the client never gets as far as a commit whose fate it cannot know."""

    def __init__(self, host: str, port: int, marker: bytes) -> None:
        self.target = (host, port)
        self.marker = marker
        self.drops = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            cut = threading.Event()  # this connection only: the driver's retry opens another
            threading.Thread(target=self._pipe, args=(client, server, True, cut), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, False, cut), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, upstream: bool, cut: threading.Event) -> None:
        try:
            while data := src.recv(65536):
                if cut.is_set():
                    return
                if upstream and self.marker in data and not self.drops:
                    self.drops += 1
                    cut.set()
                    dst.sendall(data)
                    for s in (src, dst):
                        s.shutdown(socket.SHUT_RDWR)
                        s.close()
                    return
                dst.sendall(data)
        except OSError:
            pass


def _proxied(neo4j_target: Neo4jTarget, marker: str) -> DroppingProxy:
    url = urlparse(neo4j_target.uri)
    return DroppingProxy(url.hostname or "127.0.0.1", url.port or 7687, marker.encode())


def test_a_managed_transaction_cut_mid_flight_lands_once(
    neo4j_target: Neo4jTarget, memory: GraphMemory, database: Database, namespace: str
) -> None:
    """The worker's job claim is a managed transaction (lock, then claim); its connection drops
    after the claim went out and before the commit. The driver runs it again on a new connection;
    the hierarchy comes out complete, nothing summarised twice."""
    session = memory.create_session(namespace)
    memory.import_turns(session.id, [TurnIn(user_message=f"Step {i}: why is export {i} empty?",
                                            assistant_message=f"Export {i} filtered on the wrong date column. " * 12)
                                     for i in range(6)])
    proxy = _proxied(neo4j_target, "j.leaseUntil = datetime() + duration")
    try:
        with Database(f"bolt://127.0.0.1:{proxy.port}", neo4j_target.user, neo4j_target.password) as db:
            SummaryWorker(db, config=WorkerConfig(scope=namespace)).run_until_idle()
    finally:
        proxy.close()
    assert proxy.drops == 1
    report = check_hierarchy(database, [session.id], complete=True)
    assert report.ok, report.text()
    assert report.summaries[1] == 6


@pytest.mark.parametrize("write", ["managed", "autocommit"])
def test_a_write_cut_mid_flight_lands_once(
    neo4j_target: Neo4jTarget, memory: GraphMemory, namespace: str, write: str
) -> None:
    marker = f"drop-here-{uuid.uuid4().hex}"
    proxy = _proxied(neo4j_target, marker)
    try:
        with Database(f"bolt://127.0.0.1:{proxy.port}", neo4j_target.user, neo4j_target.password) as db:
            mem = GraphMemory(db)
            if write == "managed":  # a session is created by one execute_query (retried by the driver)
                session = mem.create_session(namespace, title=marker)
                mem.store_turn(session.id, "first", "turn")
            else:  # store_turn: an auto-commit write, retried by graphmem after checking it did not land
                session = mem.create_session(namespace)
                mem.store_turn(session.id, marker, "turn")
    finally:
        proxy.close()
    assert proxy.drops == 1
    sessions = memory.sessions_for(namespace)
    assert [s.id for s in sessions] == [session.id]
    assert len(memory.load_session(session.id).turns) == 1


class LeaderSwitch(Database):
    """A database whose next ``switches`` statements are answered ``NotALeader``, as a member
    that just lost its leadership answers (the driver boundary: what the driver raises then)."""

    switches = 0
    answered: list[str]

    def _once(self, text: LiteralString, params: dict[str, Any], access_mode: str) -> list[dict[str, Any]]:
        if self.switches:
            self.switches -= 1
            self.answered.append(access_mode)
            raise nex.NotALeader._hydrate_neo4j(code="Neo.ClientError.Cluster.NotALeader",
                                                message="No write operations are allowed on this database")
        return super()._once(text, params, access_mode)


def test_a_leader_switch_is_retried_and_lands_once(neo4j_target: Neo4jTarget, memory: GraphMemory,
                                                    namespace: str) -> None:
    with LeaderSwitch(neo4j_target.uri, neo4j_target.user, neo4j_target.password) as db:
        db.answered = []
        mem = GraphMemory(db)
        session = mem.create_session(namespace)
        db.switches = 2
        turn = mem.store_turn(session.id, "after the switch", "stored once")
        db.switches = 1
        fact = mem.remember("The leader moved to core-2", scope=f"project:{namespace}")
        assert db.switches == 0 and len(db.answered) == 3
    assert turn.index == 1 and fact.action == "inserted"
    assert [t.user_message for t in memory.load_session(session.id).turns] == ["after the switch"]
    assert [f.content for f in memory.list_facts(scopes=[f"project:{namespace}"])] == ["The leader moved to core-2"]

