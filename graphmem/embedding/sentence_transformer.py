"""A local ``sentence-transformers`` model as embedder (optional extra)."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from typing import Any

from ..errors import ConfigError, ProviderError
from .base import EmbedOne, check_texts, normalize_rows, prepare_text

__all__ = ["DEFAULT_SENTENCE_TRANSFORMER_MODEL", "SentenceTransformerEmbedder"]

DEFAULT_SENTENCE_TRANSFORMER_MODEL = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"


class SentenceTransformerEmbedder(EmbedOne):
    """A ``sentence-transformers`` model already available locally (optional extra).

    Needs ``pip install 'graphmem[sentence-transformers]'``. With ``local_files_only`` (default)
    nothing is downloaded: the model must be in the Hugging Face cache or be a local path.
    ``dimensions`` may truncate Matryoshka models; otherwise it is read from the model.
    """

    def __init__(
        self,
        model: str = DEFAULT_SENTENCE_TRANSFORMER_MODEL,
        *,
        dimensions: int | None = None,
        device: str | None = None,
        batch_size: int = 32,
        local_files_only: bool = True,
        max_chars: int | None = 20_000,
    ) -> None:
        if importlib.util.find_spec("sentence_transformers") is None:
            raise ConfigError(
                "the sentence-transformers embedder needs the optional extra: "
                "pip install 'graphmem[sentence-transformers]' (or choose GRAPHMEM_EMBEDDER=local)"
            )
        if batch_size < 1:
            raise ConfigError("batch_size must be >= 1")
        self._model_name = model
        self._dimensions = dimensions
        self.device = device
        self.batch_size = batch_size
        self.local_files_only = local_files_only
        self.max_chars = max_chars
        self._st: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if self._st is None:
            with self._lock:
                if self._st is None:
                    try:
                        from sentence_transformers import SentenceTransformer
                    except ImportError as e:
                        raise ConfigError(
                            "sentence-transformers failed to import: pip install 'graphmem[sentence-transformers]'"
                        ) from e
                    try:
                        self._st = SentenceTransformer(
                            self._model_name,
                            device=self.device,
                            local_files_only=self.local_files_only,
                            truncate_dim=self._dimensions,
                        )
                    except (OSError, ValueError) as e:
                        raise ConfigError(f"cannot load sentence-transformers model {self._model_name!r}: {e}") from e
        return self._st

    @property
    def model(self) -> str:
        return self._model_name

    @property
    def dimensions(self) -> int:
        if self._dimensions is None:
            dim = self._load().get_sentence_embedding_dimension()
            if not isinstance(dim, int):
                raise ProviderError(f"{self._model_name}: cannot tell the embedding dimension")
            self._dimensions = dim
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        items = [prepare_text(t, self.max_chars) for t in check_texts(texts)]
        if not items:
            return []
        st = self._load()
        try:
            arr = st.encode(
                items,
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        except (RuntimeError, ValueError) as e:
            raise ProviderError(f"sentence-transformers embedding failed: {e}") from e
        return normalize_rows(arr)
