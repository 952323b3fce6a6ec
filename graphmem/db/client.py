"""Neo4j access: one small wrapper around the official driver.

All statements are run by name (see :mod:`graphmem.cypher`); the wrapper checks the parameters,
routes reads and writes, and turns driver errors into :mod:`graphmem.errors` types.

On a cluster or Aura (a ``neo4j://``, ``neo4j+s://`` or ``neo4j+ssc://`` URI) every read goes out
as a read, so the driver may send it to a follower or read replica, and every write as a write, to
the leader. Writes are retried on the driver's retryable errors (a leader switch among them).
Every transaction of one :class:`Database` shares one bookmark manager, so a read always sees the
writes this process made before it, whichever cluster member serves it.
"""

from __future__ import annotations

import copy
import random
import re
import ssl
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, LiteralString, TypeVar

import neo4j
from neo4j import GraphDatabase, ManagedTransaction, RoutingControl
from neo4j import exceptions as nex
from neo4j.api import BookmarkManager
from neo4j.graph import Node, Path, Relationship

from .. import cypher
from ..errors import DatabaseError, DatabaseUnavailable, GraphMemError
from .params import VectorParam, safe_time

__all__ = ["Database", "ServerInfo", "lean_params", "parse_version"]

T = TypeVar("T")


def parse_version(text: str) -> tuple[int, ...]:
    """``"5.26.30"`` -> ``(5, 26, 30)``; ``"2026.08.1"`` -> ``(2026, 8, 1)``."""
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


@dataclass(frozen=True)
class ServerInfo:
    """What graphmem needs to know of the server it talks to (feature detection)."""

    version: str
    edition: str

    @property
    def version_tuple(self) -> tuple[int, ...]:
        return parse_version(self.version)

    @property
    def vector_search_clause(self) -> bool:
        """Cypher 25 ``SEARCH ... IN (VECTOR INDEX ... WHERE ...)`` with in-index filtering (2026.01+)."""
        return self.version_tuple >= (2026, 1)


def _translate(e: Exception) -> Exception:
    """A driver error as the :mod:`graphmem.errors` type callers handle (others unchanged)."""
    if isinstance(e, GraphMemError):
        return e
    if isinstance(e, (nex.ServiceUnavailable, nex.SessionExpired, ConnectionError, OSError)):
        untrusted = _certificate_error(e)
        if untrusted is not None:
            return DatabaseUnavailable(f"Neo4j's TLS certificate is not trusted ({untrusted}): with neo4j+s:// or "
                                       "bolt+s:// it must be signed by an authority this system trusts (SSL_CERT_FILE "
                                       "names another bundle); neo4j+ssc:// accepts a self-signed one")
        return DatabaseUnavailable("Neo4j is unreachable: " + " ".join(str(e).split()))  # the driver's lines, one line
    if isinstance(e, nex.AuthError):
        return DatabaseUnavailable(f"Neo4j refused the credentials: {e.message}")
    if isinstance(e, nex.Neo4jError) and (e.code or "").endswith("Database.DatabaseNotFound"):
        return DatabaseError(f"{e.message} (GRAPHMEM_NEO4J_DATABASE names the database; Community edition "
                             "has only 'neo4j')", code=e.code)
    if isinstance(e, nex.Neo4jError):
        return DatabaseError(f"{e.code}: {e.message}", code=e.code)
    if isinstance(e, nex.DriverError):
        return DatabaseError(str(e))
    return e


def _certificate_error(e: BaseException) -> str | None:
    """The reason of a TLS certificate verification failure behind ``e``, if that is what it is."""
    seen: set[int] = set()
    stack: list[BaseException] = [e]
    while stack:
        cur = stack.pop()
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        if isinstance(cur, ssl.SSLCertVerificationError):
            return str(cur.verify_message or cur.reason or cur)
        stack.extend(x for x in (cur.__cause__, cur.__context__) if x is not None)
        if isinstance(cur, BaseExceptionGroup):
            stack.extend(cur.exceptions)
    return None


def _lean_value(value: Any, depth: int = 0) -> Any:
    if isinstance(value, datetime):
        return safe_time(value)
    if isinstance(value, list) and value:
        if type(value) is list and isinstance(value[0], float):
            return VectorParam(value)
        if depth < 2 and isinstance(value[0], dict):
            return [_lean_value(v, depth + 1) for v in value]
    elif isinstance(value, dict) and depth < 2:
        return {k: _lean_value(v, depth + 1) for k, v in value.items()}
    return value


def lean_params(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with float lists (vectors), also inside rows of maps, as :class:`VectorParam`: the
    driver formats every RUN for its debug log before checking the level, and the ``repr`` of a
    long float list is costly (see :mod:`graphmem.db.params`). Packed exactly the same. Times, also
    inside rows of maps, go through :func:`~graphmem.db.params.safe_time`."""
    return {k: _lean_value(v) for k, v in params.items()}


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _export(x: Any) -> Any:
    """``Record.data()``'s conversion (nodes to property maps, relationships to (start, type, end)
    tuples, paths to lists, lists and maps walked), with fast paths: the driver's exporter tests every
    list element against the ``Sequence`` and ``Mapping`` ABCs, which is slow for long vectors."""
    tx = type(x)
    if tx in _SCALARS:
        return x
    if tx is list:
        if _SCALARS.issuperset(map(type, x)):  # vectors and other flat lists, at C speed
            return list(x)
        return [_export(e) for e in x]
    if tx is dict:
        return {k: _export(v) for k, v in x.items()}
    if isinstance(x, Node):
        return _export(dict(x))
    if isinstance(x, Relationship):
        start, end = x.start_node, x.end_node
        return (_export(dict(start) if start is not None else {}), type(x).__name__,
                _export(dict(end) if end is not None else {}))
    if isinstance(x, Path):
        out: list[Any] = [_export(x.start_node)]
        for i, rel in enumerate(x.relationships):
            out.append(type(rel).__name__)
            out.append(_export(x.nodes[i + 1]))
        return out
    if isinstance(x, list | set | frozenset):
        return type(x)(_export(e) for e in x)
    return x  # temporal and spatial values, bytes, tuples: unchanged, as data() leaves them


def _rows(records: Iterable[neo4j.Record]) -> list[dict[str, Any]]:
    """Records as dicts, exactly as ``Record.data()`` gives them (only faster)."""
    return [{k: _export(v) for k, v in zip(r.keys(), r.values(), strict=True)} for r in records]


@contextmanager
def _wrapped() -> Iterator[None]:
    try:
        yield
    except GraphMemError:
        raise
    except (nex.Neo4jError, nex.DriverError, ConnectionError, OSError) as e:
        raise _translate(e) from e


class Database:
    """A driver plus the database name; runs named Cypher files."""

    concurrency: Executor | None = None
    """Where the operations run their concurrent parts (see :func:`graphmem.db.concurrency.pool_for`):
    None, their own thread pools; :class:`graphmem.aio.AsyncDatabase` runs them on demand instead."""

    def __init__(
        self,
        uri: str,
        user: str,
        password: str,
        database: str = "neo4j",
        *,
        timeout: float = 5.0,
        max_retry_time: float = 15.0,
        statements: cypher.Statements | None = None,
        bookmark_manager: BookmarkManager | None = None,
    ) -> None:
        self.uri = uri
        self.statements = statements or cypher.statements()
        self.database = database
        self.timeout = timeout
        self.max_retry_time = max_retry_time
        self._driver = GraphDatabase.driver(
            uri,
            auth=(user, password),
            connection_timeout=timeout,
            connection_acquisition_timeout=timeout,
            max_transaction_retry_time=max_retry_time,
            notifications_min_severity="OFF",
            user_agent="graphmem",
        )
        self.bookmark_manager: BookmarkManager = (
            bookmark_manager or self._driver.execute_query_bookmark_manager
        )
        """What makes this process read its own writes on a cluster: every session and
        ``execute_query`` of this database takes its bookmarks from it and gives it the new ones."""
        self._info: ServerInfo | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        self._driver.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def with_statements(self, statements: cypher.Statements) -> Database:
        """This database (same driver, same connections) running the statements of ``statements``
        instead: how code outside the library runs Cypher files of its own. Close the original."""
        view = copy.copy(self)
        view.statements = statements
        return view

    @property
    def driver(self) -> neo4j.Driver:
        return self._driver

    def ping(self) -> None:
        """Raise :class:`DatabaseUnavailable` unless the server answers."""
        with _wrapped():
            self._driver.verify_connectivity()

    def server_info(self) -> ServerInfo:
        if self._info is None:
            rows = self.read("meta/server_components")
            kernel = next((r for r in rows if r["name"] == "Neo4j Kernel"), rows[0] if rows else None)
            if kernel is None:
                raise DatabaseError("dbms.components() returned nothing")
            self._info = ServerInfo(version=str(kernel["versions"][0]), edition=str(kernel["edition"]))
        return self._info

    # -- running named statements ----------------------------------------------------------
    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a read statement; rows as dicts."""
        return self._run(name, params, RoutingControl.READ)

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a write statement in its own (retried) transaction; rows as dicts."""
        return self._run(name, params, RoutingControl.WRITE)

    def _run(self, name: str, params: dict[str, Any], routing: RoutingControl) -> list[dict[str, Any]]:
        self.statements.check_params(name, frozenset(params))
        if routing == RoutingControl.READ:
            # one round trip: a read needs no transaction of its own (a managed one costs BEGIN+RUN,
            # then COMMIT), and repeating a read after a transient error or a lost connection is safe
            return self._autocommit(name, params, neo4j.READ_ACCESS, read_only=True)
        with _wrapped():
            records, _, _ = self._execute(self.statements.query(name), lean_params(params), routing)
        return _rows(records)

    def _execute(self, text: LiteralString, params: dict[str, Any], routing: RoutingControl) -> neo4j.EagerResult:
        """One statement in its own managed (retried) transaction: the driver's ``execute_query``."""
        return self._driver.execute_query(text, params, database_=self.database, routing_=routing,
                                          bookmark_manager_=self.bookmark_manager)

    def _once(self, text: LiteralString, params: dict[str, Any], access_mode: str) -> list[dict[str, Any]]:
        """One auto-commit statement, no retry (see :meth:`_autocommit`)."""
        with self._driver.session(database=self.database, default_access_mode=access_mode,
                                  bookmark_manager=self.bookmark_manager) as session:
            return _rows(session.run(text, params))

    def _pause(self, seconds: float) -> None:
        """The wait between two attempts of :meth:`_autocommit`."""
        time.sleep(seconds)

    def read_leader(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a read statement on the member that takes writes (the leader of a cluster; the only
        server otherwise). What a write whose reply was lost checks: a follower may not have that
        write yet, the leader has it if it landed."""
        self.statements.check_params(name, frozenset(params))
        return self._autocommit(name, params, neo4j.WRITE_ACCESS, read_only=True)

    def write_checked(
        self,
        name: str,
        params: dict[str, Any],
        *,
        landed: Callable[[], list[dict[str, Any]] | None],
    ) -> list[dict[str, Any]]:
        """Run a write statement in its own managed transaction, like :meth:`write`, for a write that
        must not be applied twice (it creates nodes by the ids the caller made for them).

        The driver runs a managed transaction again after a transient error, a leader switch or a
        connection lost before the commit. When the connection is lost while the commit's reply is
        on its way, the outcome is unknown and the driver gives up; this then asks ``landed()``
        (that write's rows if it landed, else ``None``, read on the leader) and runs the write again
        only if it did not land, within ``max_retry_time``."""
        self.statements.check_params(name, frozenset(params))
        text, values = self.statements.query(name), lean_params(params)
        backoff = _Backoff(self.max_retry_time, self._pause)
        while True:
            try:
                records, _, _ = self._execute(text, values, RoutingControl.WRITE)
                return _rows(records)
            except nex.IncompleteCommit as e:
                if backoff.exhausted():
                    raise _translate(e) from e
            except (nex.Neo4jError, nex.DriverError, ConnectionError, OSError) as e:
                raise _translate(e) from e
            backoff.wait()
            rows = landed()
            if rows is not None:
                return rows

    def write_autocommit(
        self,
        name: str,
        params: dict[str, Any],
        *,
        recover: Callable[[], list[dict[str, Any]] | None] | None = None,
    ) -> list[dict[str, Any]]:
        """Run a write statement as an auto-commit transaction: one round trip, where a managed
        transaction needs two (BEGIN+RUN, then COMMIT). This is the hot write path (``store_turn``).

        The driver does not retry auto-commit transactions, so this does, within ``max_retry_time``,
        with jittered exponential backoff: after a transient error the transaction was rolled back
        and is simply run again; after a lost connection the outcome is unknown, so ``recover()`` is
        asked first whether the write landed (it returns that write's rows, or ``None``). A statement
        that is not idempotent is therefore never applied twice. Without ``recover`` a lost
        connection is not retried."""
        self.statements.check_params(name, frozenset(params))
        return self._autocommit(name, params, neo4j.WRITE_ACCESS, recover=recover)

    def _autocommit(
        self,
        name: str,
        params: dict[str, Any],
        access_mode: str,
        *,
        recover: Callable[[], list[dict[str, Any]] | None] | None = None,
        read_only: bool = False,
    ) -> list[dict[str, Any]]:
        """One auto-commit statement with graphmem's own retries (see :meth:`write_autocommit`);
        ``read_only`` statements are simply run again after a lost connection."""
        text = self.statements.query(name)
        params = lean_params(params)
        backoff = _Backoff(self.max_retry_time, self._pause)
        unknown_outcome = False
        while True:
            try:
                if unknown_outcome and recover is not None:
                    landed = recover()
                    if landed is not None:
                        return landed
                return self._once(text, params, access_mode)
            except (nex.ServiceUnavailable, nex.SessionExpired, ConnectionError, OSError) as e:
                if (recover is None and not read_only) or backoff.exhausted():
                    raise _translate(e) from e
                unknown_outcome = True
            except nex.Neo4jError as e:
                if unknown_outcome and recover is not None and "ConstraintValidation" in (e.code or ""):
                    # the earlier attempt did land (committed after our connection was lost)
                    landed = recover()
                    if landed is not None:
                        return landed
                if not e.is_retryable() or backoff.exhausted():
                    raise _translate(e) from e
            except nex.DriverError as e:
                raise _translate(e) from e
            backoff.wait()

    def raw(self, name: str, params: dict[str, Any], *, routing: RoutingControl = RoutingControl.WRITE) -> Any:
        """Run a named statement and return the driver's EagerResult (records, summary, keys)."""
        self.statements.check_params(name, frozenset(params))
        with _wrapped():
            return self._execute(self.statements.query(name), lean_params(params), routing)

    def read_timed(self, name: str, **params: Any) -> tuple[list[dict[str, Any]], float]:
        """Run a read statement; its rows and the server's milliseconds until the first row was
        available (planning included: next to nothing when the server had the plan cached)."""
        result = self.raw(name, params, routing=RoutingControl.READ)
        return _rows(result.records), float(result.summary.result_available_after or 0)

    def rolled_back(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a named statement in a transaction that is then rolled back: the server plans it (and
        keeps the plan) and nothing it wrote stays. Warms write statements up without writing."""
        self.statements.check_params(name, frozenset(params))
        with _wrapped():
            return self._rolled_back(self.statements.query(name), lean_params(params))

    def _rolled_back(self, text: LiteralString, params: dict[str, Any]) -> list[dict[str, Any]]:
        with self._driver.session(database=self.database, bookmark_manager=self.bookmark_manager) as session:
            tx = session.begin_transaction()
            try:
                return _rows(tx.run(text, params))
            finally:
                tx.rollback()

    def transaction(self, work: Callable[[Tx], T], *, write: bool = True) -> T:
        """Run ``work`` in one managed transaction (retried on transient errors: keep it idempotent)."""

        def unit(tx: ManagedTransaction) -> T:
            return work(Tx(tx, self.statements))

        with _wrapped(), self._driver.session(database=self.database,
                                              bookmark_manager=self.bookmark_manager) as session:
            if write:
                return session.execute_write(unit)
            return session.execute_read(unit)


class _Backoff:
    """graphmem's own retries: jittered exponential pauses (0.05 s doubling up to 1 s) within a
    time budget."""

    def __init__(self, budget: float, pause: Callable[[float], None]) -> None:
        self.deadline = time.monotonic() + budget
        self.delay = 0.05
        self._pause = pause

    def exhausted(self) -> bool:
        """The next pause would end past the budget."""
        return time.monotonic() + self.delay > self.deadline

    def wait(self) -> None:
        self._pause(self.delay * (0.5 + random.random()))
        self.delay = min(self.delay * 2, 1.0)


class Tx:
    """A managed transaction that runs named statements."""

    def __init__(self, tx: ManagedTransaction, statements: cypher.Statements | None = None) -> None:
        self._tx = tx
        self.statements = statements or cypher.statements()

    def run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self.statements.check_params(name, frozenset(params))
        return _rows(self._tx.run(self.statements.query(name), lean_params(params)))
