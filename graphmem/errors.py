"""Errors raised by graphmem.

Every error that graphmem raises on purpose derives from :class:`GraphMemError`, so a caller
(and the CLI) can catch one type. Vendor errors (neo4j, openai, OS) are wrapped where they enter
with ``raise ... from e``::

    GraphMemError
    ├── ConfigError                 bad or missing settings (e.g. an API key)
    ├── InvalidInput                a value the API cannot store or use (also a ValueError)
    ├── NotFound
    │   └── SessionNotFound         an unknown session id
    ├── DatabaseError               Neo4j refused or failed a statement
    │   └── DatabaseUnavailable     Neo4j cannot be reached within the time budget
    ├── SchemaError                 the schema is missing, too new, or built for another embedder
    │   └── EmbeddingMismatch       the database was indexed with another model or dimension
    ├── ServerError                 the managed local Neo4j could not be installed or started
    ├── CypherError                 a query file is missing or called with the wrong parameters
    └── ProviderError               an embedder or LLM provider failed after its retries
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "CypherError",
    "DatabaseError",
    "DatabaseUnavailable",
    "EmbeddingMismatch",
    "GraphMemError",
    "InvalidInput",
    "InvalidSettings",
    "NotFound",
    "ProviderError",
    "SchemaError",
    "ServerError",
    "SessionNotFound",
    "quoted",
]

QUOTE_LIMIT = 80
"""How many characters of a caller's value an error line shows."""


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` for an error line, cut to ``limit`` characters with the full length said, so a
    20,000-character argument gives a readable line and not a screenful."""
    text = repr(value)
    if len(text) <= limit:
        return text
    size = f" ({len(value)} characters)" if isinstance(value, str | bytes) else ""
    return text[: limit - 1] + "…" + size


class GraphMemError(Exception):
    """Base class of every error graphmem raises on purpose."""


class ConfigError(GraphMemError):
    """Settings are missing or inconsistent."""


class InvalidSettings(ConfigError, ValueError):
    """A ``GRAPHMEM_*`` (or ``NEO4J_*``) environment value is invalid. ``problems`` holds one line
    per bad value, ``NAME='value': reason`` (secrets are never shown); ``str()`` joins them."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems) or ["settings: invalid"]
        super().__init__("invalid setting " + "; ".join(self.problems))


class InvalidInput(GraphMemError, ValueError):
    """A value passed to the API cannot be stored or used."""


class NotFound(GraphMemError, LookupError):
    """Something asked for by id does not exist."""


class SessionNotFound(NotFound):
    """No session has this id."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"session not found: {session_id!r}")
        self.session_id = session_id


class DatabaseError(GraphMemError):
    """Neo4j failed a statement. ``code`` is the server's status code (``Neo.ClientError....``) when
    the server answered with one."""

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code

    @property
    def server_failure(self) -> bool:
        """The server failed internally while running a valid statement (``Neo.DatabaseError.*``):
        not a bad statement or parameter of ours, not a transient or connection problem."""
        return not isinstance(self, DatabaseUnavailable) and (self.code or "").startswith("Neo.DatabaseError.")


class DatabaseUnavailable(DatabaseError):
    """Neo4j could not be reached within the time budget."""


class SchemaError(GraphMemError):
    """The schema is missing, newer than this code, or inconsistent."""


class EmbeddingMismatch(SchemaError):
    """The database holds embeddings of another model or dimension than the configured one."""


class ServerError(GraphMemError):
    """The managed local Neo4j server could not be installed, started or stopped."""


class CypherError(GraphMemError):
    """A Cypher file is missing, or was called with parameters other than the ones it uses."""


class ProviderError(GraphMemError):
    """An embedding or LLM provider failed (after retries where they apply)."""
