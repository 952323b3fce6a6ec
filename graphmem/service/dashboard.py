"""``/memory``: the dashboard, one HTML page with its script inline (no build step).

Sections: facts (inline edit, delete, add), search (semantic/text toggle), auto-retrieval (the
injection knobs as a switch and sliders, the log of the latest injections), sessions (a timeline
of turns with the summary levels above) and stats. It talks to the JSON API and refreshes what is
shown on each server-sent ``change`` event.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, RedirectResponse

__all__ = ["page", "router"]

router = APIRouter(tags=["dashboard"])


@cache
def page() -> str:
    return resources.files(__package__).joinpath("static/memory.html").read_text(encoding="utf-8")


@router.get("/memory", response_class=HTMLResponse, summary="The memory dashboard")
def memory_page() -> HTMLResponse:
    return HTMLResponse(page(), headers={"Cache-Control": "no-cache"})


@router.get("/", include_in_schema=False)
def root() -> RedirectResponse:
    return RedirectResponse("/memory")
