"""Embedding off the event loop: an :class:`~graphmem.embedding.Embedder` whose calls, made by an
operation inside :func:`~graphmem.aio.bridge.run_sync`, run on an executor's thread while the loop
serves other operations (embedding is CPU-bound: run on the loop it would stop every other call)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import Executor

from ..embedding import Embedder
from ..embedding.base import long_reply_head, query_vector
from .bridge import await_only, in_bridge

__all__ = ["OffLoopEmbedder"]


class OffLoopEmbedder:
    """``inner`` with ``embed`` / ``embed_one`` run on ``executor`` (None: the loop's default one)."""

    def __init__(self, inner: Embedder, executor: Executor | None = None) -> None:
        self.inner = inner
        self.executor = executor

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    @property
    def long_reply_head_chars(self) -> int:
        """The inner embedder's (:func:`~graphmem.embedding.base.long_reply_head`)."""
        return long_reply_head(self.inner)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not in_bridge():  # called from a thread of its own: already off the loop
            return self.inner.embed(texts)
        loop = asyncio.get_running_loop()
        return await_only(loop.run_in_executor(self.executor, self.inner.embed, list(texts)))

    def embed_one(self, text: str) -> list[float]:
        if not in_bridge():
            return self.inner.embed_one(text)
        loop = asyncio.get_running_loop()
        return await_only(loop.run_in_executor(self.executor, self.inner.embed_one, text))

    def embed_query(self, text: str) -> list[float]:
        if not in_bridge():
            return query_vector(self.inner, text)
        loop = asyncio.get_running_loop()
        return await_only(loop.run_in_executor(self.executor, query_vector, self.inner, text))
