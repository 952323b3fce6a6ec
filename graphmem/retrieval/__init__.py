"""Retrieval: scoped hybrid search (vector + full-text + graph, fused by weighted sum) over turns and summaries,
and the pre-call context block (recent turns, relevant turns and summaries, level-1 summaries
not yet rolled up, known facts)."""

from .context import build_context, cosine, render_context
from .fusion import combsum, max_rrf_score, rrf
from .lucene import build_query, escape, query_terms
from .models import (
    ContextBlock,
    ContextConfig,
    ContextTurn,
    RetrievalConfig,
    SearchHit,
    SearchMode,
    SearchResult,
)
from .reltime import locale_from_env, relative_time
from .scopes import Scope, parse_scope
from .search import DEFAULT_LEVELS, Searcher

__all__ = [
    "DEFAULT_LEVELS",
    "ContextBlock",
    "ContextConfig",
    "ContextTurn",
    "RetrievalConfig",
    "Scope",
    "SearchHit",
    "SearchMode",
    "SearchResult",
    "Searcher",
    "build_context",
    "build_query",
    "combsum",
    "cosine",
    "escape",
    "locale_from_env",
    "max_rrf_score",
    "parse_scope",
    "query_terms",
    "relative_time",
    "render_context",
    "rrf",
]
