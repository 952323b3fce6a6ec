"""The Cypher statements of the benchmarks and reliability runs, kept in this package's own
``cypher/<group>/<name>.cypher`` files (one statement per file, like graphmem's) so that graphmem's
wheel ships none of them. A name not found here is one of graphmem's own statements."""

from __future__ import annotations

from importlib import resources

from graphmem.cypher import Statements, statements
from graphmem.db import Database

__all__ = ["STATEMENTS", "dev_db"]

STATEMENTS = Statements(resources.files(__package__) / "cypher", base=statements())


def dev_db(db: Database) -> Database:
    """``db`` (same driver) running this package's statements as well as graphmem's."""
    return db.with_statements(STATEMENTS)
