"""``/api/facts``: list (filtered), add, edit, delete."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from ..facts import FACT_TYPES, Fact
from ..facts.model import FactScope
from ..facts.store import get_fact
from .common import FieldError, field_errors, state_of

__all__ = ["FactIn", "FactPatch", "router"]

router = APIRouter(prefix="/api/facts", tags=["facts"])


class FactIn(BaseModel):
    """A fact to remember."""

    content: str = Field(min_length=1, max_length=10_000)
    subjects: list[str] = Field(default_factory=list)
    type: str | None = None
    scope: str = "global"
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    ttl: str | None = Field(default=None, description="a readable duration: 1h, 7d, never")


class FactPatch(BaseModel):
    """An edit: the fields given replace the fact's."""

    content: str | None = Field(default=None, min_length=1, max_length=10_000)
    subjects: list[str] | None = None
    type: str | None = None
    importance: float | None = Field(default=None, ge=0.0, le=1.0)


def fact_json(fact: Fact) -> dict[str, Any]:
    return fact.to_dict()


def _scope(value: str, name: str = "scope") -> str:
    with field_errors(name):
        return FactScope.parse(value).key


def _type(value: str | None, name: str = "type") -> str | None:
    if value is not None and value not in FACT_TYPES:
        raise FieldError(name, f"unknown fact type {value!r}; one of {', '.join(FACT_TYPES)}")
    return value


@router.get("", summary="Current facts, filtered and ordered")
def list_facts(
    request: Request,
    scope: Annotated[list[str] | None, Query(description="global, project:<path>, session:<id> (repeatable)")] = None,
    type: str | None = None,
    subject: str | None = None,
    q: Annotated[str | None, Query(description="only facts containing this text")] = None,
    min_importance: Annotated[float | None, Query(ge=0.0, le=1.0)] = None,
    order: Literal["recent", "importance", "accessed"] = "recent",
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
) -> dict[str, Any]:
    mem = state_of(request).memory
    scopes = [_scope(s) for s in scope] if scope else None
    _type(type)
    if subject:
        facts = mem.facts_about(subject, scopes=scopes, limit=limit)
        facts = [f for f in facts if (type is None or f.type == type)
                 and (min_importance is None or f.importance >= min_importance)]
    else:
        facts = mem.list_facts(scopes=scopes, type=type, min_importance=min_importance, order=order,
                               limit=limit if q is None else 1000)
    if q:
        needle = q.casefold()
        facts = [f for f in facts if needle in f.content.casefold()][:limit]
    return {"facts": [fact_json(f) for f in facts], "count": len(facts)}


@router.post("", status_code=201, summary="Remember a fact (or update the similar one of its scope)")
def add_fact(request: Request, body: FactIn) -> dict[str, Any]:
    st = state_of(request)
    _type(body.type)
    scope = _scope(body.scope)
    with field_errors("content"):
        result = st.memory.remember(body.content, body.subjects, type=body.type, ttl=body.ttl, scope=scope,
                                    importance=body.importance, source="service")
    st.feed.publish("facts")
    return {"action": result.action, "fact": fact_json(result.fact), "reason": result.reason,
            "previous": fact_json(result.previous) if result.previous else None}


@router.get("/{fact_id}", summary="One fact (a superseded version too) with its history")
def read_fact(request: Request, fact_id: str) -> dict[str, Any]:
    found = get_fact(state_of(request).memory.db, fact_id)
    return {"fact": fact_json(found["fact"]), "current_id": found["current_id"],
            "superseded_at": found["superseded_at"].isoformat() if found["superseded_at"] else None,
            "history": found["history"]}


@router.patch("/{fact_id}", summary="Edit a fact: the new version replaces it (a new id)")
def edit_fact(request: Request, fact_id: str, body: FactPatch) -> dict[str, Any]:
    """The edited fact is remembered in the same scope and the old one forgotten with the reason
    ``edited``: an edit is a new fact, the forget audit records the old id."""
    st = state_of(request)
    found = get_fact(st.memory.db, fact_id)
    old: Fact = found["fact"]
    if found["current_id"] != old.id:
        raise FieldError("fact_id", f"fact {fact_id!r} is an old version; edit {found['current_id']!r}", status=409)
    _type(body.type)
    content = old.content if body.content is None else body.content
    with field_errors("content"):
        st.memory.forget(old.id, reason="edited")
        result = st.memory.remember(
            content, old.subjects if body.subjects is None else body.subjects,
            type=body.type or old.type, scope=old.scope_key,
            importance=old.importance if body.importance is None else body.importance, source="service",
        )
    st.feed.publish("facts")
    return {"action": "edited", "fact": fact_json(result.fact), "replaced": old.id}


@router.delete("/{fact_id}", summary="Forget a fact (an audit record keeps when and why)")
def delete_fact(request: Request, fact_id: str, reason: str | None = Query(default=None, max_length=500)) -> dict[str, Any]:
    st = state_of(request)
    found = get_fact(st.memory.db, fact_id)
    result = st.memory.forget(found["fact"].id, reason=reason or "deleted from the memory service")
    st.feed.publish("facts")
    return {"removed": [f.id for f in result.removed], "audit_id": result.audit_id}
