"""Corrections without ``forget``: a new statement retires the current fact it contradicts.

"David habite à Ordizan", later "Non en fait David a déménagé à Toulouse": the two are not similar
enough for :func:`~graphmem.facts.remember`'s similarity update, yet the second corrects the first.
Without an LLM to judge, one documented rule handles the common case:

    a new fact **retires** a current fact of the **same scope** when they share a **subject tag**
    that **both texts name**, and both are statements of the **same kind** (:data:`KINDS`): where
    someone lives, where someone works, where someone is.

:func:`remember_correcting` is the remember every writer uses: with an LLM judge it asks the model
(:mod:`graphmem.facts.judge`), else (and whenever the judge fails) it applies the rule.

The retired fact stays as history (``(:Fact)-[:SUPERSEDES {at, rule}]->(:Fact)``) with its validity
window: true from its ``createdAt`` until its ``supersededAt``. :func:`facts_as_of` reads the facts
that were true at a given time, retired ones included.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from ..arguments import count, text_list
from ..db import Database, DeferredWrites
from ..embedding import Embedder
from ..errors import InvalidInput
from ..models import reference_time
from .judge import FactJudge, remember_judged
from .model import Fact, FactScope, FactScopeLike, RememberResult
from .store import _scopes, _subjects, facts_about, remember, retire_fact

__all__ = ["KINDS", "facts_as_of", "remember_correcting", "retire_contradicted", "statement_kind"]

KINDS: dict[str, re.Pattern[str]] = {
    "residence": re.compile(
        r"\b(habite|habitent|vit|vivent|réside|demeure|a déménagé|ont déménagé|déménage|s'est installée?|"
        r"lives?|living|resides?|moved|has moved|relocated)\b", re.I),
    "work": re.compile(
        r"\b(travaille|travaillent|bosse|est employée?|a été embauchée?|a rejoint|est salariée?|"
        r"works?|working|is employed|was hired|got a job|joined)\b", re.I),
    "whereabouts": re.compile(
        r"\b(est à|est au|est aux|est en|se trouve|sont à|sont en|is in|is at|are in|are at|is staying)\b", re.I),
}
"""The kinds of statement the rule knows, by the words (French and English) that mark them. A text
matching several kinds takes the first: residence, then work, then whereabouts."""


def statement_kind(text: str) -> str | None:
    """The kind of statement ``text`` is (a key of :data:`KINDS`), or None."""
    for kind, pattern in KINDS.items():
        if pattern.search(text):
            return kind
    return None


def _names(subject: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(subject)}(?!\w)", text.casefold()) is not None


def retire_contradicted(db: Database, fact: Fact, *, now: datetime | None = None) -> list[Fact]:
    """Apply the rule (module docstring) to ``fact``, just stored: retire the current facts of its
    scope it contradicts; returns them (as they were)."""
    kind = statement_kind(fact.content)
    if kind is None:
        return []
    retired: dict[str, Fact] = {}
    for subject in _subjects(fact.subjects):
        if not _names(subject, fact.content):
            continue
        for old in facts_about(db, subject, scopes=[fact.scope_key], limit=200):
            if old.id == fact.id or old.id in retired or statement_kind(old.content) != kind:
                continue
            if not _names(subject, old.content):
                continue
            if retire_fact(db, fact.id, old.id, rule=f"kind:{kind}", now=now):
                retired[old.id] = old
    return list(retired.values())


def remember_correcting(
    db: Database,
    content: str,
    subjects: Sequence[str] = (),
    *,
    judge: FactJudge | None = None,
    embedder: Embedder | None = None,
    deferred: DeferredWrites | None = None,
    redact: bool = True,
    type: str | None = None,
    importance: float | None = None,
    ttl: str | timedelta | None = None,
    scope: FactScopeLike = "global",
    source: str | None = "explicit",
    turn_id: str | None = None,
) -> RememberResult:
    """:func:`~graphmem.facts.store.remember`, then retire the current facts the new one corrects:
    ``judge`` decides when given (and answers), else the rule of this module does (also when the
    model fails). The retired
    facts are in ``RememberResult.retired``; a fact that retired another is reported ``updated``."""
    where = FactScope.parse(scope)
    subjects = text_list(subjects, "subjects")  # before the judge reads them

    def store(rule: bool = True) -> RememberResult:
        result = remember(db, content, subjects, embedder=embedder, deferred=deferred, redact=redact, type=type,
                          importance=importance, ttl=ttl, scope=where, source=source, turn_id=turn_id)
        if not rule or result.action == "unchanged":
            return result
        retired = retire_contradicted(db, result.fact)
        if not retired:
            return result
        if result.action == "inserted":
            kind = statement_kind(result.fact.content)
            return replace(result, action="updated", previous=retired[0], similarity=None,
                           reason=f"corrects a current fact ({kind})", retired=retired)
        return replace(result, retired=retired)

    if judge is None:
        return store()
    return remember_judged(db, judge, content, subjects, where, store=store, embedder=embedder, deferred=deferred)


def facts_as_of(db: Database, at: datetime, *, scopes: Sequence[FactScopeLike] | FactScopeLike,
                subject: str | None = None, limit: int = 50) -> list[Fact]:
    """The facts of ``scopes`` that were true at ``at`` (retired versions included), newest first;
    only those tagged ``subject`` when given."""
    when = reference_time(at, "at")
    if when is None:
        raise InvalidInput("at must be a datetime (timezone-aware; a naive one is read as UTC), not None")
    if subject is not None and not isinstance(subject, str):
        raise InvalidInput(f"subject must be a string, not {subject.__class__.__name__}")
    names = _subjects([subject]) if subject else []
    rows = db.read("corrections/as_of", scopeKeys=_scopes(scopes), at=when, subject=names[0] if names else None,
                   limit=count(limit, "limit"))
    return [Fact.from_row(r["fact"]) for r in rows]
