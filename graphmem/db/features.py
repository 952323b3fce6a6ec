"""What the server offers, detected rather than assumed (``graphmem db status``).

A managed service (Aura) or an older or differently configured server may lack a procedure,
a function or a Cypher form graphmem uses, or may route across several members. Each is asked of
the server itself: the procedures and functions graphmem's statements call (``SHOW PROCEDURES``,
``SHOW FUNCTIONS``), the Cypher 25 ``SEARCH`` clause (by version), the databases it holds and the
routing table the driver gets for the configured database (how many members write, read and route).
What is missing is listed with what it costs, never silently worked around.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import DatabaseError
from .client import Database

__all__ = ["REQUIRED_FUNCTIONS", "REQUIRED_PROCEDURES", "ServerFeatures", "server_features"]

REQUIRED_PROCEDURES: dict[str, str] = {
    "db.index.vector.queryNodes": "vector search over turns, summaries and facts",
    "db.index.fulltext.queryNodes": "full-text search",
    "db.create.setNodeVectorProperty": "storing embeddings",
    "db.awaitIndexes": "waiting for new indexes after a schema change",
}
"""Every procedure graphmem's statements call, with what it is needed for."""

REQUIRED_FUNCTIONS: dict[str, str] = {
    "vector.similarity.cosine": "exact vector search inside one session and re-ranking",
}
"""Every non-built-in function graphmem's statements call, with what it is needed for."""


@dataclass
class ServerFeatures:
    """The server as detected (see the module docstring)."""

    version: str
    edition: str
    database: str
    search_clause: bool
    missing: dict[str, str] = field(default_factory=dict)
    """Missing procedure or function -> what graphmem cannot do without it."""
    databases: list[str] = field(default_factory=list)
    routing: dict[str, int] = field(default_factory=dict)
    """Members per role in the routing table (``WRITE``, ``READ``, ``ROUTE``); empty if unavailable."""
    notes: list[str] = field(default_factory=list)

    @property
    def clustered(self) -> bool:
        return self.routing.get("READ", 0) + self.routing.get("WRITE", 0) > 2

    def as_dict(self) -> dict[str, Any]:
        return {
            "version": self.version, "edition": self.edition, "database": self.database,
            "search_clause": self.search_clause, "missing": dict(self.missing),
            "databases": list(self.databases), "routing": dict(self.routing), "clustered": self.clustered,
            "notes": list(self.notes),
        }


def _present(db: Database, statement: str, names: list[str]) -> set[str] | None:
    try:
        rows = db.read(statement, names=names)
    except DatabaseError:
        return None  # the listing itself is not allowed to this user: unknown, not missing
    return set(rows[0]["names"]) if rows else set()


def server_features(db: Database) -> ServerFeatures:
    """Ask the server what it offers (a handful of read statements; see the module docstring)."""
    info = db.server_info()
    found = ServerFeatures(info.version, info.edition, db.database, info.vector_search_clause)
    for statement, required in (("meta/show_procedures", REQUIRED_PROCEDURES),
                                ("meta/show_functions", REQUIRED_FUNCTIONS)):
        present = _present(db, statement, sorted(required))
        if present is None:
            found.notes.append(f"{statement.split('/')[1].replace('_', ' ')} is not allowed: not checked")
            continue
        found.missing.update({n: why for n, why in required.items() if n not in present})
    try:
        found.databases = sorted(r["name"] for r in db.read("meta/show_databases") if r["name"] != "system")
    except DatabaseError:
        found.notes.append("SHOW DATABASES is not allowed: the databases are not listed")
    try:
        table = db.read("meta/routing_table", database=db.database)
    except DatabaseError:
        found.notes.append("no routing table (dbms.routing.getRoutingTable is not available)")
    else:
        for server in table[0]["servers"] if table else []:
            found.routing[str(server["role"])] = len(server["addresses"])
    if not found.search_clause:
        found.notes.append("no Cypher 25 SEARCH clause: scoped vector searches filter after the index")
    if info.edition == "community":
        found.notes.append("Community edition: one user database, no cluster")
    return found
