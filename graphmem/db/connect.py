"""Resolving where Neo4j is: explicit settings first, otherwise the managed local server."""

from __future__ import annotations

from dataclasses import dataclass

from ..config import Settings
from ..errors import ConfigError, DatabaseUnavailable, ServerError
from ..neo4j_local import ManagedServer
from .client import Database

__all__ = ["Connection", "managed_server", "open_database", "resolve_connection"]


def managed_server(settings: Settings) -> ManagedServer:
    """The managed server described by ``settings`` (nothing is started)."""
    return ManagedServer(
        settings.home,
        settings.neo4j_version,
        java_home=settings.java_home,
        heap=settings.heap,
        pagecache=settings.pagecache,
        bolt_port=settings.bolt_port,
        http_port=settings.http_port,
        start_timeout=settings.start_timeout,
    )


@dataclass(frozen=True)
class Connection:
    """Where and how to connect (what :class:`Database` and its asynchronous pair are built from)."""

    uri: str
    user: str
    password: str
    database: str
    timeout: float


def open_database(settings: Settings, *, start: bool = False, check: bool = False) -> Database:
    """Connect to the configured Neo4j (see :func:`resolve_connection`). With ``check`` the server
    must answer now (:meth:`Database.ping`): one that is not there fails within the connection
    timeout, instead of after the retries that ride out a server lost while in use."""
    c = resolve_connection(settings, start=start)
    db = Database(c.uri, c.user, c.password, c.database, timeout=c.timeout)
    if check:
        try:
            db.ping()
        except BaseException:
            db.close()
            raise
    return db


def resolve_connection(settings: Settings, *, start: bool = False) -> Connection:
    """The configured Neo4j.

    With an explicit URI (``GRAPHMEM_NEO4J_URI`` or ``NEO4J_URI``) that server is used and a
    password is required. Otherwise the managed local server under ``$GRAPHMEM_HOME`` is used;
    ``start=True`` installs and starts it when it is not running, else an unstarted server is a
    :class:`DatabaseUnavailable` telling the person to run ``graphmem db up``.
    """
    if settings.neo4j_uri:
        if settings.neo4j_password is None:
            raise ConfigError("GRAPHMEM_NEO4J_URI is set but no password (GRAPHMEM_NEO4J_PASSWORD or NEO4J_PASSWORD)")
        return Connection(
            settings.neo4j_uri,
            settings.neo4j_user,
            settings.neo4j_password.get_secret_value(),
            settings.neo4j_database,
            settings.connect_timeout,
        )
    server = managed_server(settings)
    state = server.state()
    if state is None:
        if not start:
            raise DatabaseUnavailable(
                f"the managed Neo4j under {settings.home} is not running: run `graphmem db up`"
            )
        state = server.start()
    try:
        password = server.password()
    except ServerError as e:
        raise DatabaseUnavailable(str(e)) from e
    return Connection(state.uri, "neo4j", password, "neo4j", settings.connect_timeout)
