"""Summarizers and the OpenAI client plumbing they share with the OpenAI embedder (no database code).

Embedders live in :mod:`graphmem.embedding`. Heavy vendor modules (``openai``, ``networkx``) are
imported only when a provider first needs them.
"""

from __future__ import annotations

from .extractive import EXTRACTIVE_MODEL, ExtractiveSummarizer
from .openai_summarizer import DEFAULT_LLM_MODEL, OpenAISummarizer
from .pricing import PRICES, ModelPrice, estimate_cost
from .retry import RetryPolicy
from .summarizers import FallbackSummarizer, make_summarizer
from .summary_types import SummarizableTurn, Summarizer, SummaryResult, ToolCallForSummary, TurnForSummary

__all__ = [
    "DEFAULT_LLM_MODEL",
    "EXTRACTIVE_MODEL",
    "PRICES",
    "ExtractiveSummarizer",
    "FallbackSummarizer",
    "ModelPrice",
    "OpenAISummarizer",
    "RetryPolicy",
    "SummarizableTurn",
    "Summarizer",
    "SummaryResult",
    "ToolCallForSummary",
    "TurnForSummary",
    "estimate_cost",
    "make_summarizer",
]
