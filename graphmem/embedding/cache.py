"""An in-process LRU cache in front of any embedder."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from ..errors import ConfigError, ProviderError
from .base import Embedder, EmbedOne, check_texts, embedding_hash, long_reply_head, query_vector

__all__ = ["CachedEmbedder"]


class CachedEmbedder(EmbedOne):
    """An LRU cache (keyed by :func:`embedding_hash`) in front of another embedder.

    Repeated texts, within a call or across calls, are embedded once while they stay among the
    ``maxsize`` most recently used. Vectors are kept as float32 arrays (2 KiB per 512-d vector).
    Two threads missing the same text at the same moment may both compute it (harmless).
    """

    def __init__(self, inner: Embedder, *, maxsize: int = 4096) -> None:
        if maxsize < 1:
            raise ConfigError("maxsize must be >= 1")
        self.inner = inner
        self.maxsize = maxsize
        self._cache: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

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
        return self._cached(check_texts(texts), self.inner.model, self.inner.embed)

    def embed_query(self, text: str) -> list[float]:
        """The inner embedder's query vector of ``text`` (its query side when it has one), cached
        apart from the stored-text vectors."""
        def compute(items: list[str]) -> list[list[float]]:
            return [query_vector(self.inner, t) for t in items]

        return self._cached([text], f"query\0{self.inner.model}", compute)[0]

    def _cached(
        self, items: list[str], model: str, compute: Callable[[list[str]], list[list[float]]]
    ) -> list[list[float]]:
        keys = [embedding_hash(t, model) for t in items]
        found: dict[str, npt.NDArray[np.float32]] = {}
        missing: dict[str, str] = {}
        with self._lock:
            for key, text in zip(keys, items, strict=True):
                vec = self._cache.get(key)
                if vec is not None:
                    self._cache.move_to_end(key)
                    found[key] = vec
                    self.hits += 1
                elif key not in missing:
                    missing[key] = text
                    self.misses += 1
                else:
                    self.hits += 1
        if missing:
            vectors = compute(list(missing.values()))
            if len(vectors) != len(missing):
                raise ProviderError(f"{self.inner!r} returned {len(vectors)} vectors for {len(missing)} texts")
            with self._lock:
                for key, fresh in zip(missing, vectors, strict=True):
                    arr = np.asarray(fresh, dtype=np.float32)
                    found[key] = arr
                    self._cache[key] = arr
                    self._cache.move_to_end(key)
                while len(self._cache) > self.maxsize:
                    self._cache.popitem(last=False)
        return [found[k].tolist() for k in keys]

    def cache_info(self) -> dict[str, int]:
        """``hits``, ``misses``, ``size`` and ``maxsize``."""
        with self._lock:
            return {"hits": self.hits, "misses": self.misses, "size": len(self._cache), "maxsize": self.maxsize}

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.inner!r}, maxsize={self.maxsize})"
