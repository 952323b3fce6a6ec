"""graphmem: long-term conversational memory for LLM agents, stored as a graph in Neo4j."""

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

__all__ = [
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
