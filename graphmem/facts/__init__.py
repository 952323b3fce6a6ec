"""Fact memory: typed facts with similarity update, TTL, forget, search and pre-call injection.

The graph::

    (:Fact {id, content, type, importance, createdAt, updatedAt, expiresAt, accessCount,
            lastAccessedAt, source, scope, scopeKey, contentKey, embedding, supersededAt, version})
    (:Fact)-[:ABOUT]->(:Subject {name})          flat subject tags
    (:Fact)-[:EXTRACTED_FROM]->(:Turn)           provenance
    (:Fact)-[:SUPERSEDES {at}]->(:Fact)          history: the old version, retired
    (:FactScope {key, kind, count})              one per scope: lock for remember, size for search
    (:Session)-[:INJECTED {at, turnIndex}]->(:Fact)        injection state
    (:Session)-[:HAS_RETRIEVAL]->(:Retrieval)-[:RETRIEVED {rank, score, reason}]->(:Fact)
    (:ForgetAudit {id, at, reason, method, topicHash, factIds, types, scopeKeys})
    (:GraphMemSetting {key, value})
"""

from .extract import ExtractedFact, FactExtractor, extract_facts_from_turn, make_fact_extractor
from .inject import get_retrieval, inject_facts, list_retrievals, render_facts, session_scopes
from .judge import FactJudge, JudgeDecision, make_fact_judge, remember_judged
from .model import (
    FACT_TYPES,
    Fact,
    FactInjection,
    FactScope,
    ForgetResult,
    InjectedItem,
    RememberResult,
    parse_ttl,
)
from .store import (
    delete_expired_facts,
    delete_facts_under_path,
    facts_about,
    forget,
    forget_audits,
    get_fact,
    list_facts,
    remember,
    search_facts,
)
from .tuning import DEFAULT_TUNING, FactTuning, get_tuning, set_tuning, tuning_items, unset_tuning
from .vectors import index_pending_vectors, wait_for_vectors

__all__ = [
    "DEFAULT_TUNING",
    "FACT_TYPES",
    "ExtractedFact",
    "Fact",
    "FactExtractor",
    "FactInjection",
    "FactJudge",
    "FactScope",
    "FactTuning",
    "ForgetResult",
    "InjectedItem",
    "JudgeDecision",
    "RememberResult",
    "delete_expired_facts",
    "delete_facts_under_path",
    "extract_facts_from_turn",
    "facts_about",
    "forget",
    "forget_audits",
    "get_fact",
    "get_retrieval",
    "get_tuning",
    "index_pending_vectors",
    "inject_facts",
    "list_facts",
    "list_retrievals",
    "make_fact_extractor",
    "make_fact_judge",
    "parse_ttl",
    "remember",
    "remember_judged",
    "render_facts",
    "search_facts",
    "session_scopes",
    "set_tuning",
    "tuning_items",
    "unset_tuning",
    "wait_for_vectors",
]
