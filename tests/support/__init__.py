"""What the tests need beside graphmem: their own Cypher statements (``tests/support/cypher/``,
never shipped in graphmem's wheel) that build or damage graphs on purpose and read back details no
graphmem statement returns."""

from __future__ import annotations

from pathlib import Path

from graphmem import Database
from graphmem.cypher import Statements, statements

__all__ = ["TESTING", "support_db"]

TESTING = Statements(Path(__file__).resolve().parent / "cypher", base=statements())


def support_db(db: Database) -> Database:
    """``db`` (same driver) running the tests' statements as well as graphmem's."""
    return db.with_statements(TESTING)
