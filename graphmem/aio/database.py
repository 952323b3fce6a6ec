"""The database of :class:`~graphmem.aio.AsyncGraphMemory`: the neo4j driver's async API behind
the :class:`~graphmem.db.Database` interface that every operation uses.

:class:`AsyncDatabase` runs the same named statements with the same parameter checks, retries and
error types as :class:`~graphmem.db.Database`; only the driver calls differ (``AsyncDriver``,
awaited through :func:`~graphmem.aio.bridge.await_only`). Its ``read``/``write`` therefore work
inside :func:`~graphmem.aio.bridge.run_sync` only; its own lifecycle is asynchronous
(:meth:`AsyncDatabase.aclose`, :meth:`AsyncDatabase.aping`).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any, LiteralString, TypeVar

import neo4j
from neo4j import AsyncGraphDatabase, AsyncManagedTransaction, RoutingControl
from neo4j.api import AsyncBookmarkManager

from .. import cypher
from ..db.client import Database, Tx, _rows, _wrapped, lean_params
from ..db.concurrency import OnDemand
from .bridge import await_only, run_sync

__all__ = ["AsyncDatabase", "AsyncTx"]

T = TypeVar("T")


class AsyncDatabase(Database):
    """An async driver plus the database name; runs named Cypher files (see the module docstring).

    The operations' concurrent parts run :class:`~graphmem.db.concurrency.OnDemand`: one operation's
    statements go in turn, in its own greenlet, while other operations run beside it on the loop."""

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
        bookmark_manager: AsyncBookmarkManager | None = None,
    ) -> None:
        self.uri = uri
        self.statements = statements or cypher.statements()
        self.database = database
        self.timeout = timeout
        self.max_retry_time = max_retry_time
        self.concurrency = OnDemand()
        self._async_driver = AsyncGraphDatabase.driver(
            uri,
            auth=(user, password),
            connection_timeout=timeout,
            connection_acquisition_timeout=timeout,
            max_transaction_retry_time=max_retry_time,
            notifications_min_severity="OFF",
            user_agent="graphmem",
        )
        self.async_bookmark_manager: AsyncBookmarkManager = (
            bookmark_manager or self._async_driver.execute_query_bookmark_manager
        )
        """Shared by every session and ``execute_query`` of this database (read your own writes)."""
        self._info = None

    # -- lifecycle (asynchronous) ----------------------------------------------------------
    @property
    def async_driver(self) -> neo4j.AsyncDriver:
        return self._async_driver

    async def aclose(self) -> None:
        await self._async_driver.close()

    async def aping(self) -> None:
        """Raise :class:`~graphmem.errors.DatabaseUnavailable` unless the server answers."""
        with _wrapped():
            await self._async_driver.verify_connectivity()

    def close(self) -> None:
        await_only(self._async_driver.close())

    def ping(self) -> None:
        with _wrapped():
            await_only(self._async_driver.verify_connectivity())

    def with_statements(self, statements: cypher.Statements) -> AsyncDatabase:
        view = copy.copy(self)
        view.statements = statements
        return view

    @property
    def driver(self) -> neo4j.Driver:
        raise TypeError("an AsyncDatabase has no synchronous driver: use .async_driver")

    # -- the driver calls of Database, on the async driver -----------------------------------
    def _execute(self, text: LiteralString, params: dict[str, Any], routing: RoutingControl) -> neo4j.EagerResult:
        return await_only(
            self._async_driver.execute_query(text, params, database_=self.database, routing_=routing,
                                             bookmark_manager_=self.async_bookmark_manager)
        )

    def _once(self, text: LiteralString, params: dict[str, Any], access_mode: str) -> list[dict[str, Any]]:
        async def once() -> list[neo4j.Record]:
            async with self._async_driver.session(database=self.database, default_access_mode=access_mode,
                                                  bookmark_manager=self.async_bookmark_manager) as s:
                result = await s.run(text, params)
                return [record async for record in result]

        return _rows(await_only(once()))

    def _rolled_back(self, text: LiteralString, params: dict[str, Any]) -> list[dict[str, Any]]:
        async def run() -> list[neo4j.Record]:
            async with self._async_driver.session(database=self.database,
                                                  bookmark_manager=self.async_bookmark_manager) as s:
                tx = await s.begin_transaction()
                try:
                    result = await tx.run(text, params)
                    return [record async for record in result]
                finally:
                    await tx.rollback()

        return _rows(await_only(run()))

    def _pause(self, seconds: float) -> None:
        await_only(asyncio.sleep(seconds))

    def transaction(self, work: Callable[[Tx], T], *, write: bool = True) -> T:
        """Run ``work`` in one managed transaction (retried on transient errors: keep it idempotent)."""

        async def unit(tx: AsyncManagedTransaction) -> T:
            return await run_sync(work, AsyncTx(tx, self.statements))

        async def run() -> T:
            async with self._async_driver.session(database=self.database,
                                                  bookmark_manager=self.async_bookmark_manager) as session:
                if write:
                    return await session.execute_write(unit)
                return await session.execute_read(unit)

        with _wrapped():
            return await_only(run())


class AsyncTx(Tx):
    """A managed transaction of the async driver that runs named statements (inside run_sync)."""

    def __init__(self, tx: AsyncManagedTransaction, statements: cypher.Statements | None = None) -> None:
        self._async_tx = tx
        self.statements = statements or cypher.statements()

    def run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self.statements.check_params(name, frozenset(params))
        text, values = self.statements.query(name), lean_params(params)

        async def run() -> list[neo4j.Record]:
            result = await self._async_tx.run(text, values)
            return [record async for record in result]

        return _rows(await_only(run()))
