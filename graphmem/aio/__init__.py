"""The asynchronous API: :class:`AsyncGraphMemory` on the neo4j driver's async API (see
:mod:`graphmem.aio.memory`); needs the ``greenlet`` package (the ``async`` extra)."""

from .bridge import await_only, run_sync
from .database import AsyncDatabase
from .embedding import OffLoopEmbedder
from .memory import AsyncGraphMemory, open_async_memory

__all__ = ["AsyncDatabase", "AsyncGraphMemory", "OffLoopEmbedder", "await_only", "open_async_memory", "run_sync"]
