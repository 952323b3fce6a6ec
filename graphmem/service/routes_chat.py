"""``/api/rooms`` (observed chat rooms) and ``/api/digest`` (the periodic digest of their live
messages into facts: status, run now, the latest digests)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request

from ..chat import live_rooms, recent_digests
from ..db.rows import native
from ..errors import ConfigError
from .common import FieldError, field_errors, state_of

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["chat"])

Room = Annotated[str | None, Query(max_length=200, description="one room (default: every room)")]


def _jsonable(value: Any) -> Any:
    value = native(value)
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value.isoformat() if hasattr(value, "isoformat") else value


@router.get("/rooms", summary="Observed chat rooms with their number of live messages")
def rooms(request: Request, limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict[str, Any]:
    return {"rooms": _jsonable(live_rooms(state_of(request).memory.db, limit=limit))}


@router.get("/digest", summary="Where the digest stands: last run, messages waiting, due or not and why")
def digest_status(request: Request, room: Room = None) -> dict[str, Any]:
    return state_of(request).digester.status(room).to_dict()


@router.post("/digest/run", summary="Digest now: every room with waiting messages, or the rooms given")
def digest_run(
    request: Request,
    rooms: Annotated[list[str] | None, Body(embed=True, description="room names (default: every room)")] = None,
) -> dict[str, Any]:
    """Without an LLM configured: 409 with the reason, and the live messages stay."""
    digester = state_of(request).digester
    if rooms is not None and any(not r.strip() or len(r) > 200 for r in rooms):
        raise FieldError("rooms", "each room must be a non-empty name of at most 200 characters")
    try:
        with field_errors("rooms"):
            done = digester.run(rooms)
    except ConfigError as e:
        raise FieldError("llm", str(e), status=409) from None
    digests = [{k: v for k, v in d.items() if k != "results"} for d in done.digests]
    return {"digests": digests, "facts": done.facts, "cleared": done.cleared}


@router.get("/digests", summary="The latest digests with the facts each stored")
def digests(request: Request, room: Room = None,
            limit: Annotated[int, Query(ge=1, le=200)] = 20) -> dict[str, Any]:
    return {"digests": _jsonable(recent_digests(state_of(request).memory.db, room=room, limit=limit))}
