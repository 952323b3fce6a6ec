"""The embedder contract and the helpers every embedder shares.

An :class:`Embedder` turns texts into vectors. Every vector returned is a ``list[float]`` of
``dimensions`` values, L2-normalised, whose values are exactly representable as float32 (so a
cached copy is bit-identical to a fresh one).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ..errors import ProviderError
from ..models import clean_text

__all__ = [
    "LONG_TURN_REPLY_HEAD_CHARS",
    "EmbedOne",
    "Embedder",
    "QueryEmbedder",
    "check_texts",
    "embedding_hash",
    "long_reply_head",
    "normalize_rows",
    "prepare_text",
    "query_vector",
]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of ``dimensions`` floats, one per text, in order."""

    @property
    def model(self) -> str:
        """The model name recorded in the database (with ``dimensions``)."""
        ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_one(self, text: str) -> list[float]: ...


@runtime_checkable
class QueryEmbedder(Embedder, Protocol):
    """An :class:`Embedder` that embeds a search query differently from a stored text (e.g. e5's
    ``query:`` prefix). Embedders without this side embed queries with :meth:`Embedder.embed_one`."""

    def embed_query(self, text: str) -> list[float]: ...


def query_vector(embedder: Embedder, text: str) -> list[float]:
    """The vector a search compares stored vectors with: the embedder's query side when it has one
    (:class:`QueryEmbedder`), else :meth:`Embedder.embed_one`."""
    side = getattr(embedder, "embed_query", None)
    if callable(side):
        vector: list[float] = side(text)
        return vector
    return embedder.embed_one(text)


LONG_TURN_REPLY_HEAD_CHARS = 300
"""How much of a long turn's reply the vector of an embedder that reads short texts best (e5) is
given: the head, where a reply restates and answers the request; the rest is mostly advice, lists
and follow-ups around it that pull one vector of all of it away from what the turn was about."""


def long_reply_head(embedder: Embedder | None) -> int:
    """Characters of a long turn's reply that the turn's vector reads with this embedder: its
    ``long_reply_head_chars`` attribute when it has one (e5), else 0, the whole reply (USE averages
    every word and keeps the evidence a long reply holds deep down; measured in
    ``benchmarks/embedder/FINDINGS.md``)."""
    return max(0, int(getattr(embedder, "long_reply_head_chars", 0) or 0))


def embedding_hash(text: str, model: str) -> str:
    """Hex sha256 of ``model + "\\0" + text`` (UTF-8; lone surrogates pass through), the ``embeddingHash``.

    The NUL separator keeps ``("ab", "c")`` and ``("a", "bc")`` apart.
    """
    return hashlib.sha256(f"{model}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


def normalize_rows(vectors: npt.ArrayLike) -> list[list[float]]:
    """L2-normalise each row (float64 math), round to float32 values, return plain lists.

    An all-zero row stays all zeros (it has no direction).
    """
    arr = np.asarray(vectors, dtype=np.float64)
    if arr.ndim != 2:
        raise ProviderError(f"expected a 2-D array of vectors, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ProviderError("the embedder returned non-finite values (NaN or infinity)")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0.0] = 1.0
    out: list[list[float]] = (arr / norms).astype(np.float32).tolist()
    return out


def prepare_text(text: str, max_chars: int | None) -> str:
    """``text`` cleaned for storage and cut to ``max_chars`` characters (None: whole)."""
    text = clean_text(text)
    if max_chars is not None and len(text) > max_chars:
        text = text[:max_chars]
    return text


class EmbedOne:
    """Base of the embedders: :meth:`embed_one` in terms of :meth:`embed`."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:  # pragma: no cover - overridden
        raise NotImplementedError

    def embed_one(self, text: str) -> list[float]:
        """Embed a single text."""
        return self.embed([text])[0]


def check_texts(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list; a single string or a non-string item is a :class:`TypeError`."""
    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of strings; use embed_one() for a single string")
    items = list(texts)
    for t in items:
        if not isinstance(t, str):
            raise TypeError(f"embed() takes strings, got {type(t).__name__}")
    return items
