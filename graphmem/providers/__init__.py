"""Embedders and summarizers: the model-facing layer of graphmem (no database code).

Heavy vendor modules (``openai``, ``networkx``, the USE weights, ``sentence_transformers``) are
imported or loaded only when a provider first needs them.
"""

from __future__ import annotations

from .embedders import (
    DEFAULT_OPENAI_EMBEDDING_MODEL,
    DEFAULT_SENTENCE_TRANSFORMER_MODEL,
    LOCAL_EMBEDDING_DIMENSIONS,
    LOCAL_EMBEDDING_MODEL,
    CachedEmbedder,
    Embedder,
    LocalEmbedder,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    embedding_hash,
    make_embedder,
)
from .extractive import EXTRACTIVE_MODEL, ExtractiveSummarizer
from .openai_summarizer import DEFAULT_LLM_MODEL, OpenAISummarizer
from .pricing import PRICES, ModelPrice, estimate_cost
from .retry import RetryPolicy
from .summarizers import FallbackSummarizer, make_summarizer
from .summary_types import SummarizableTurn, Summarizer, SummaryResult, ToolCallForSummary, TurnForSummary

__all__ = [
    "DEFAULT_LLM_MODEL",
    "DEFAULT_OPENAI_EMBEDDING_MODEL",
    "DEFAULT_SENTENCE_TRANSFORMER_MODEL",
    "EXTRACTIVE_MODEL",
    "LOCAL_EMBEDDING_DIMENSIONS",
    "LOCAL_EMBEDDING_MODEL",
    "PRICES",
    "CachedEmbedder",
    "Embedder",
    "ExtractiveSummarizer",
    "FallbackSummarizer",
    "LocalEmbedder",
    "ModelPrice",
    "OpenAIEmbedder",
    "OpenAISummarizer",
    "RetryPolicy",
    "SentenceTransformerEmbedder",
    "SummarizableTurn",
    "Summarizer",
    "SummaryResult",
    "ToolCallForSummary",
    "TurnForSummary",
    "embedding_hash",
    "estimate_cost",
    "make_embedder",
    "make_summarizer",
]
