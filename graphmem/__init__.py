"""graphmem: long-term conversational memory for LLM agents, stored as a graph in Neo4j.

Public names are loaded lazily (PEP 562): ``import graphmem`` costs almost nothing, so the hook
command (``graphmem hook ...``) starts fast; ``graphmem.GraphMemory`` imports the store (and
pydantic, neo4j) on first access.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not `from typing import ...`: typing costs start-up time on the hook path
if TYPE_CHECKING:  # the names below, for type checkers and IDEs
    from typing import Any

    from .aio import AsyncDatabase, AsyncGraphMemory
    from .config import Settings
    from .db import Database
    from .errors import (
        ConfigError,
        CypherError,
        DatabaseError,
        DatabaseUnavailable,
        EmbeddingMismatch,
        GraphMemError,
        InvalidInput,
        InvalidSettings,
        NotFound,
        ProviderError,
        SchemaError,
        ServerError,
        SessionNotFound,
    )
    from .memory import GraphMemory, ImportResult
    from .models import (
        ConversationSummary,
        Session,
        SessionDetail,
        SessionInfo,
        Summary,
        ToolCall,
        ToolCallIn,
        Turn,
        TurnIn,
    )

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "AsyncDatabase": ".aio",
    "AsyncGraphMemory": ".aio",
    "Settings": ".config",
    "Database": ".db",
    "ConfigError": ".errors",
    "CypherError": ".errors",
    "DatabaseError": ".errors",
    "DatabaseUnavailable": ".errors",
    "EmbeddingMismatch": ".errors",
    "GraphMemError": ".errors",
    "InvalidInput": ".errors",
    "InvalidSettings": ".errors",
    "NotFound": ".errors",
    "ProviderError": ".errors",
    "SchemaError": ".errors",
    "ServerError": ".errors",
    "SessionNotFound": ".errors",
    "GraphMemory": ".memory",
    "ImportResult": ".memory",
    "ConversationSummary": ".models",
    "Session": ".models",
    "SessionDetail": ".models",
    "SessionInfo": ".models",
    "Summary": ".models",
    "ToolCall": ".models",
    "ToolCallIn": ".models",
    "Turn": ".models",
    "TurnIn": ".models",
}

__all__ = [
    "AsyncDatabase",
    "AsyncGraphMemory",
    "ConfigError",
    "ConversationSummary",
    "CypherError",
    "Database",
    "DatabaseError",
    "DatabaseUnavailable",
    "EmbeddingMismatch",
    "GraphMemError",
    "GraphMemory",
    "ImportResult",
    "InvalidInput",
    "InvalidSettings",
    "NotFound",
    "ProviderError",
    "SchemaError",
    "ServerError",
    "Session",
    "SessionDetail",
    "SessionInfo",
    "SessionNotFound",
    "Settings",
    "Summary",
    "ToolCall",
    "ToolCallIn",
    "Turn",
    "TurnIn",
    "__version__",
]


def __getattr__(name: str) -> Any:
    """Import the module of a public name on first access (then cache it in this module)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
