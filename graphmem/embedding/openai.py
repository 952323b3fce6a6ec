"""Embeddings from OpenAI or any OpenAI-compatible ``/v1/embeddings`` server."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, ProviderError
from ..providers.openai_client import make_openai_client
from ..providers.retry import MalformedResponse, RetryPolicy, call_with_retry
from .base import EmbedOne, check_texts, normalize_rows, prepare_text

if TYPE_CHECKING:
    import openai
    from pydantic import SecretStr

__all__ = ["DEFAULT_OPENAI_EMBEDDING_MODEL", "OPENAI_EMBEDDING_DIMENSIONS", "OpenAIEmbedder"]

DEFAULT_OPENAI_EMBEDDING_MODEL = "text-embedding-3-small"
OPENAI_EMBEDDING_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
"""Native dimensions of OpenAI's models; other models are probed once unless configured."""


class OpenAIEmbedder(EmbedOne):
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
        items = [prepare_text(t, self.max_chars) or " " for t in check_texts(texts)]
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
