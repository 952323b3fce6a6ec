"""store_turn is one auto-commit round trip; when the connection is lost after the server got the
request, the outcome is unknown. It must then find out whether the turn landed and never store it
twice. A TCP proxy in front of the real server cuts the client's connection right after the
request carrying a marker went through, so the server commits while the client sees a dead socket.

The same holds for writes made in managed transactions by the ids the caller made (an import
batch, a fact retired by a correction): there the proxy lets the transaction's COMMIT through and
swallows its reply, the one case the driver does not retry on its own.
"""

from __future__ import annotations

import socket
import threading
import uuid
from urllib.parse import urlparse

import pytest

from graphmem import Database, GraphMemory, TurnIn
from graphmem.embedding import LocalEmbedder

from ..conftest import Neo4jTarget

pytestmark = pytest.mark.integration

COMMIT = b"\x00\x02\xb0\x12\x00\x00"
"""A Bolt COMMIT message in its chunk: size 2, an empty structure, signature 0x12, end of message."""


class CuttingProxy:
    """Forwards TCP to the server. Once a client chunk contains ``marker``, that connection's next
    reply from the server is swallowed and the client side is closed (the server side is drained,
    so the server finishes and commits the transaction). With ``at_commit``, the cut waits for the
    explicit transaction's COMMIT that follows the marker: the commit lands, its reply is lost."""

    def __init__(self, host: str, port: int, marker: bytes, *, at_commit: bool = False) -> None:
        self.target = (host, port)
        self.marker = marker
        self.at_commit = at_commit
        self.cuts = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._closed = True
        self._listener.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            armed = threading.Event()
            threading.Thread(target=self._up, args=(client, server, armed), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client, armed), daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket, armed: threading.Event) -> None:
        seen = False
        try:
            while data := client.recv(65536):
                if self.marker in data and not self.cuts:
                    seen = True  # only the first request carrying the marker is cut
                if seen and (not self.at_commit or COMMIT in data):
                    armed.set()
                server.sendall(data)
        except OSError:
            pass

    def _down(self, server: socket.socket, client: socket.socket, armed: threading.Event) -> None:
        try:
            while data := server.recv(65536):
                if armed.is_set():
                    if client.fileno() != -1:
                        self.cuts += 1
                        client.shutdown(socket.SHUT_RDWR)
                        client.close()
                    continue  # drain the server's replies; it commits regardless
                client.sendall(data)
        except OSError:
            pass


def test_lost_connection_after_the_request_stores_the_turn_exactly_once(
    memory: GraphMemory, namespace: str, neo4j_target: Neo4jTarget
) -> None:
    s = memory.create_session(namespace)
    memory.store_turn(s.id, "before", "first turn")
    marker = f"cut-here-{uuid.uuid4().hex}"
    url = urlparse(neo4j_target.uri)
    proxy = CuttingProxy(url.hostname or "127.0.0.1", url.port or 7687, marker.encode())
    try:
        with Database(f"bolt://127.0.0.1:{proxy.port}", neo4j_target.user, neo4j_target.password) as db:
            mem = GraphMemory(db)
            turn = mem.store_turn(s.id, marker, "the reply", [{"name": "Bash", "args": {"cmd": "ls"}}])
            assert proxy.cuts == 1  # the connection really was cut after the request
            after = mem.store_turn(s.id, "after", "third turn")
    finally:
        proxy.close()
    assert turn.index == 2
    assert after.index == 3
    detail = memory.load_session(s.id)
    assert [t.user_message for t in detail.turns] == ["before", marker, "after"]
    assert [t.index for t in detail.turns] == [1, 2, 3]
    assert len(detail.turns[1].tool_calls) == 1
    chain = memory.db.read("maintenance/next_chain_check", sessionId=s.id)[0]
    assert chain == {"turns": 3, "nexts": 2, "heads": 1, "branching": 0}


def _cutting(neo4j_target: Neo4jTarget, marker: str) -> CuttingProxy:
    url = urlparse(neo4j_target.uri)
    return CuttingProxy(url.hostname or "127.0.0.1", url.port or 7687, marker.encode(), at_commit=True)


def test_an_import_batch_whose_commit_reply_is_lost_lands_once(
    memory: GraphMemory, namespace: str, neo4j_target: Neo4jTarget
) -> None:
    s = memory.create_session(namespace)
    marker = f"cut-here-{uuid.uuid4().hex}"
    turns = [TurnIn(user_message=f"{marker} {i}" if i == 1 else f"question {i}", assistant_message=f"answer {i}")
             for i in range(3)]
    proxy = _cutting(neo4j_target, marker)
    try:
        with Database(f"bolt://127.0.0.1:{proxy.port}", neo4j_target.user, neo4j_target.password) as db:
            result = GraphMemory(db).import_turns(s.id, turns)
    finally:
        proxy.close()
    assert proxy.cuts == 1
    assert (result.created, result.skipped) == (3, 0)
    detail = memory.load_session(s.id)
    assert [t.user_message for t in detail.turns] == ["question 0", f"{marker} 1", "question 2"]
    chain = memory.db.read("maintenance/next_chain_check", sessionId=s.id)[0]
    assert chain == {"turns": 3, "nexts": 2, "heads": 1, "branching": 0}


def test_a_correction_whose_commit_reply_is_lost_retires_once(
    memory: GraphMemory, namespace: str, neo4j_target: Neo4jTarget
) -> None:
    scope = f"project:{namespace}/pet"
    first = memory.remember("David habite à Ordizan", ["david"], scope=scope)
    proxy = _cutting(neo4j_target, "SUPERSEDES {at: $now, rule: $rule}")
    try:
        with Database(f"bolt://127.0.0.1:{proxy.port}", neo4j_target.user, neo4j_target.password) as db:
            second = GraphMemory(db, embedder=LocalEmbedder()).remember(
                "Non en fait David a déménagé à Toulouse", ["david"], scope=scope)
    finally:
        proxy.close()
    assert proxy.cuts == 1
    assert second.action == "updated" and [f.id for f in second.retired] == [first.fact.id]
    assert [f.content for f in memory.list_facts(scopes=[scope])] == ["Non en fait David a déménagé à Toulouse"]
