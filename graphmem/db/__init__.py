"""Neo4j access: the driver wrapper, connection resolution and schema migrations."""

from .client import Database, ServerInfo, Tx, parse_version
from .connect import managed_server, open_database
from .deferred import DeferredWrites
from .schema import SCHEMA_VERSION, apply_schema, schema_status

__all__ = [
    "SCHEMA_VERSION",
    "Database",
    "DeferredWrites",
    "ServerInfo",
    "Tx",
    "apply_schema",
    "managed_server",
    "open_database",
    "parse_version",
    "schema_status",
]
