"""Summarizers and the OpenAI client plumbing they share with the OpenAI embedder (no database code).

Embedders live in :mod:`graphmem.embedding`. Heavy vendor modules (``openai``, ``networkx``) are
imported only when a provider first needs them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .extractive import EXTRACTIVE_MODEL, ExtractiveSummarizer
    from .openai_summarizer import DEFAULT_LLM_MODEL, OpenAISummarizer
    from .pricing import PRICES, ModelPrice, estimate_cost
    from .retry import RetryPolicy
    from .summarizers import FallbackSummarizer, make_summarizer
    from .summary_types import SummarizableTurn, Summarizer, SummaryResult, ToolCallForSummary, TurnForSummary

# Each name is imported from its module on first use: a command that only needs the retry policy
# (every database command, through the embedder factory) does not load the summarizers.
_WHERE = {
    "EXTRACTIVE_MODEL": "extractive", "ExtractiveSummarizer": "extractive",
    "DEFAULT_LLM_MODEL": "openai_summarizer", "OpenAISummarizer": "openai_summarizer",
    "PRICES": "pricing", "ModelPrice": "pricing", "estimate_cost": "pricing",
    "RetryPolicy": "retry",
    "FallbackSummarizer": "summarizers", "make_summarizer": "summarizers",
    "SummarizableTurn": "summary_types", "Summarizer": "summary_types", "SummaryResult": "summary_types",
    "ToolCallForSummary": "summary_types", "TurnForSummary": "summary_types",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


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
