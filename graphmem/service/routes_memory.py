"""``/api/search``, ``/api/settings``, ``/api/stats`` and ``/api/retrievals`` (the injection log)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Query, Request

from ..db.rows import native
from ..facts import session_scopes
from ..facts.store import list_text
from ..facts.tuning import TUNING_HELP, check_tuning, get_tuning, set_tuning, tuning_items, unset_tuning
from ..retrieval.scopes import Scope, parse_scope
from ..stats import injection_overhead, llm_usage
from .common import FieldError, field_errors, state_of

__all__ = ["EXCERPT_CHARS", "router"]

router = APIRouter(prefix="/api", tags=["memory"])

EXCERPT_CHARS = 200
Kind = Literal["turns", "summaries", "facts"]
KINDS: tuple[Kind, ...] = ("turns", "summaries", "facts")


def _excerpt(text: str | None) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


def _iso(value: Any) -> str | None:
    value = native(value)
    return value.isoformat() if isinstance(value, datetime) else (str(value) if value is not None else None)


def _fact_scopes(request: Request, scope: Scope) -> list[str] | None:
    """The fact scopes a conversation scope sees: all for everything, the injection scopes of a
    session, a project's and the global ones for a project or directory."""
    if scope.kind == "everything":
        return None
    if scope.kind == "session":
        return session_scopes(state_of(request).memory.db, scope.value or "")
    return ["global", f"project:{scope.value}"]


@router.get("/search", summary="Search turns, summaries and facts")
def search(
    request: Request,
    q: Annotated[str, Query(min_length=1, max_length=2000, description="the query")],
    mode: Literal["semantic", "text", "hybrid"] = "hybrid",
    scope: Annotated[str, Query(description="everything, session:<id>, directory:<path>, project:<path>")] = "everything",
    k: Annotated[int, Query(ge=1, le=100)] = 10,
    kinds: Annotated[list[Kind] | None, Query(description="what to search (repeatable; default all)")] = None,
) -> dict[str, Any]:
    """Turns and summaries through :meth:`GraphMemory.search` (``mode`` as given); facts by cosine
    (semantic, hybrid) or by the text they contain (text). Each result has its score, scope, date
    and a 200-character excerpt; ``time_window`` and ``events_searched_apart`` say what the turn
    search read in the query (a time, two events it compares), or are null."""
    mem = state_of(request).memory
    kinds = kinds or list(KINDS)
    with field_errors("scope"):
        sc = parse_scope(scope)
    results: list[dict[str, Any]] = []
    warnings: list[str] = []
    effective = mode
    window: dict[str, Any] | None = None
    parts: list[str] | None = None
    levels = [lvl for lvl, want in ((0, "turns" in kinds), (1, "summaries" in kinds), (2, "summaries" in kinds),
                                    (3, "summaries" in kinds)) if want]
    if levels:
        found = mem.search(q, scope=sc, levels=levels, k=k, mode=mode)
        warnings.extend(found.warnings)
        effective, window, parts = found.effective_mode, found.time_window, found.parts
        for h in found.hits:
            text = h.user_message if h.kind == "turn" else h.text
            if h.kind == "turn" and h.assistant_message:
                text = f"{h.user_message or ''} — {h.assistant_message}"
            results.append({"kind": h.kind, "id": h.id, "level": h.level, "score": round(h.score, 4),
                            "relevance": h.relevance, "scope": f"session:{h.session_id}", "session_id": h.session_id,
                            "cwd": h.cwd, "date": _iso(h.timestamp), "excerpt": _excerpt(text)})
    if "facts" in kinds:
        keys = _fact_scopes(request, sc)
        if mode == "text" or mem.embedder is None:
            facts = list_text(mem.db, q, keys, limit=k)
            if mode != "text":
                warnings.append("facts: no embedder, matched by text")
        else:
            facts = mem.search_facts(q, scopes=keys, limit=k)
        for f in facts:
            results.append({"kind": "fact", "id": f.id, "level": None, "score": f.score, "relevance": None,
                            "scope": f.scope_key, "session_id": None, "cwd": None,
                            "date": _iso(f.updated_at or f.created_at), "excerpt": _excerpt(f.content)})
    return {"query": q, "mode": mode, "effective_mode": effective, "scope": str(sc), "results": results,
            "warnings": warnings, "time_window": window, "events_searched_apart": parts}


# -- settings (the tuning stored in the database) -----------------------------------------------

def _settings_json(request: Request) -> dict[str, Any]:
    db = state_of(request).memory.db
    values = tuning_items(get_tuning(db, fresh=True))
    return {"settings": values, "help": TUNING_HELP}


@router.get("/settings", summary="The fact-memory settings stored in the database")
def read_settings(request: Request) -> dict[str, Any]:
    return _settings_json(request)


@router.patch("/settings", summary="Change settings (validated; null resets one to its default)")
def patch_settings(
    request: Request,
    changes: Annotated[dict[str, Any], Body(examples=[{"injection.max_results": 4, "injection.min_score": 0.5}])],
) -> dict[str, Any]:
    st = state_of(request)
    if not changes:
        raise FieldError("body", "no setting to change")
    for key in changes:
        if key not in TUNING_HELP:
            raise FieldError(key, f"unknown setting {key!r}; one of {', '.join(TUNING_HELP)}")
    for key, value in changes.items():  # all validated before anything is written
        if value is not None:
            with field_errors(key):
                check_tuning(key, value)
    for key, value in changes.items():
        with field_errors(key):
            if value is None:
                unset_tuning(st.memory.db, key)
            else:
                set_tuning(st.memory.db, key, value)
    st.feed.publish("settings")
    return _settings_json(request)


# -- stats and the injection log ---------------------------------------------------------------

@router.get("/stats", summary="What the memory holds, pending work, the injections' overhead and the LLM calls' usage")
def stats(request: Request) -> dict[str, Any]:
    db = state_of(request).memory.db
    counts = {k: int(v) for k, v in db.read("stats/counts")[0].items()}
    levels = {int(r["level"]): int(r["count"]) for r in db.read("stats/summaries_by_level") if r["level"] is not None}
    agents = db.read("stats/agents")
    recent = db.read("service/injections", sessionId=None, limit=100)
    chars = [int(r["retrieval"].get("chars") or 0) for r in recent]
    latency = [float(r["retrieval"].get("latencyMs") or 0.0) for r in recent]
    injections = {
        "logged_recently": len(recent),
        "chars_total": sum(chars),
        "chars_mean": round(sum(chars) / len(chars), 1) if chars else 0.0,
        "latency_ms_mean": round(sum(latency) / len(latency), 2) if latency else 0.0,
    }
    return {**counts, "summaries_by_level": levels, "agents": agents, "injections": injections,
            "auto_retrieval": injection_overhead(db), "llm": llm_usage(db)}


@router.get("/retrievals", summary="The latest pre-call injections with the facts, scores and reasons")
def retrievals(
    request: Request,
    session_id: Annotated[str | None, Query(max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> dict[str, Any]:
    db = state_of(request).memory.db
    out = []
    for row in db.read("service/injections", sessionId=session_id, limit=limit):
        r = dict(row["retrieval"])
        r["at"] = _iso(r.get("at"))
        items = list(row["items"])
        linked = {i["id"] for i in items}
        # facts forgotten since keep their id and score in the log
        for rank, (fid, score, reason) in enumerate(zip(r.get("itemIds") or [], r.get("itemScores") or [],
                                                        r.get("itemReasons") or [], strict=False), start=1):
            if fid not in linked:
                items.append({"rank": rank, "id": fid, "content": None, "type": None, "score": score,
                              "reason": reason})
        r["items"] = sorted(items, key=lambda i: i["rank"])
        for key in ("itemIds", "itemScores", "itemReasons"):
            r.pop(key, None)
        out.append(r)
    return {"retrievals": out}
