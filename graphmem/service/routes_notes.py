"""``/api/notes``: the notes of the Markdown vault that the context carries (list, search, sync)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from ..errors import ConfigError
from .common import FieldError, field_errors, state_of

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["notes"])


def _config(request: Request) -> dict[str, Any]:
    notes = state_of(request).memory.notes
    if notes is None:
        return {"configured": False, "vault": None, "tag": None, "fixed": [], "vault_found": False}
    why = notes.unavailable()
    return {"configured": True, "vault": notes.api.url if notes.api is not None else str(notes.vault),
            "tag": notes.tag, "fixed": list(notes.fixed), "vault_found": why is None,
            **({"unavailable": why} if why else {})}


@router.get("/notes", summary="The notes in memory (fixed first, each with a preview) and the vault's settings")
def notes(request: Request, fixed: Annotated[bool, Query(description="only the fixed notes")] = False,
          limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict[str, Any]:
    config = _config(request)
    if not config["configured"]:
        return {**config, "notes": []}
    found = state_of(request).memory.list_notes(fixed_only=fixed, limit=limit)
    return {**config, "notes": [n.to_dict() for n in found]}


@router.get("/notes/search", summary="The notes most relevant to a query (meaning and words fused)")
def search(request: Request, q: Annotated[str, Query(min_length=1, max_length=2000)],
           k: Annotated[int, Query(ge=1, le=100)] = 5) -> dict[str, Any]:
    try:
        with field_errors("q"):
            hits = state_of(request).memory.search_notes(q, k=k)
    except ConfigError as e:
        raise FieldError("vault", str(e), status=409) from None
    return {"notes": [n.to_dict() for n in hits]}


@router.post("/notes/sync", summary="Bring the notes in memory in line with the vault (changed files only)")
def sync(request: Request) -> dict[str, Any]:
    """Without a vault configured: 409 naming ``vault``."""
    try:
        return state_of(request).memory.sync_notes().to_dict()
    except ConfigError as e:
        raise FieldError("vault", str(e), status=409) from None
