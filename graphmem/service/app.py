"""The memory service: an ASGI app (FastAPI) over a :class:`~graphmem.memory.GraphMemory`.

``create_app(memory, config)`` builds it: the JSON API under ``/api`` (facts, search, settings,
stats, the injection log, sessions, chat rooms and their digest; schema at ``/openapi.json``, docs at ``/docs``), the dashboard
at ``/memory`` and its live updates at ``/api/events``. The routes are plain ``def`` functions:
FastAPI runs them on its thread pool, so the synchronous library never blocks the event loop.

Errors are JSON, never a traceback: bad input is a 4xx naming the field
(``{"error", "field", "detail"}``), an unknown id a 404, a database outage a 503 with the reason.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from .. import __version__
from ..chat import Digester
from ..errors import DatabaseError, DatabaseUnavailable, GraphMemError, InvalidInput, NotFound
from ..memory import GraphMemory
from . import dashboard, routes_chat, routes_facts, routes_memory, routes_notes, routes_sessions
from .auth import token_matches
from .common import FieldError, ServiceConfig, ServiceState, state_of
from .events import ChangeFeed

__all__ = ["ServiceConfig", "create_app"]

log = logging.getLogger("graphmem.service")


class BearerAuth:
    """Every HTTP request needs ``Authorization: Bearer <token>`` (or ``?token=`` for the
    dashboard's page and event stream, which a browser cannot send headers for)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        ok = token_matches(headers.get("authorization"), self.token)
        if not ok:
            from urllib.parse import parse_qs

            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            ok = token_matches("Bearer " + query.get("token", [""])[0], self.token)
        if ok:
            await self.app(scope, receive, send)
            return
        response = JSONResponse({"error": "unauthorized", "field": "Authorization",
                                 "detail": "this service needs a bearer token (see `graphmem serve --help`)"},
                                status_code=401, headers={"WWW-Authenticate": "Bearer"})
        await response(scope, receive, send)


def _error(status: int, error: str, detail: str, field: str | None = None, **extra: Any) -> JSONResponse:
    body: dict[str, Any] = {"error": error, "field": field, "detail": detail, **extra}
    return JSONResponse(body, status_code=status)


def _validation_field(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in loc]
    if parts and parts[0] in ("query", "path", "body", "header"):
        parts = parts[1:]
    return ".".join(parts) or "body"


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"field": _validation_field(e.get("loc", ())), "detail": str(e.get("msg", ""))}
                  for e in exc.errors()]
        first = errors[0] if errors else {"field": "body", "detail": "invalid request"}
        return _error(422, "invalid request", first["detail"], first["field"], errors=errors)

    @app.exception_handler(FieldError)
    async def field_error(request: Request, exc: FieldError) -> JSONResponse:
        return _error(exc.status, "invalid request", exc.detail, exc.field)

    @app.exception_handler(NotFound)
    async def not_found(request: Request, exc: NotFound) -> JSONResponse:
        return _error(404, "not found", str(exc))

    @app.exception_handler(InvalidInput)
    async def invalid_input(request: Request, exc: InvalidInput) -> JSONResponse:
        return _error(400, "invalid request", str(exc))

    @app.exception_handler(DatabaseUnavailable)
    async def unavailable(request: Request, exc: DatabaseUnavailable) -> JSONResponse:
        return _error(503, "database unavailable", str(exc), reason=str(exc))

    @app.exception_handler(DatabaseError)
    async def database_error(request: Request, exc: DatabaseError) -> JSONResponse:
        log.warning("database error on %s: %s", request.url.path, exc)
        return _error(503, "database error", str(exc), reason=str(exc))

    @app.exception_handler(GraphMemError)
    async def graphmem_error(request: Request, exc: GraphMemError) -> JSONResponse:
        return _error(500, type(exc).__name__, str(exc))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s", request.url.path)
        return _error(500, "internal error", f"{type(exc).__name__} (details in the service log)")


def create_app(memory: GraphMemory, config: ServiceConfig | None = None, *,
               marker: Callable[[], Any] | None = None, digester: Digester | None = None) -> FastAPI:
    """The service over ``memory`` (which the caller owns and closes). ``marker`` overrides the
    database change marker polled for live updates (default: the ``service/changes`` statement);
    ``digester`` runs the chat rooms' digest (default: none without an LLM, its status says why)."""
    config = config or ServiceConfig()

    def changes() -> Any:
        rows = memory.db.read("service/changes")
        return tuple(sorted(rows[0].items())) if rows else None

    app = FastAPI(
        title="graphmem memory service",
        version=__version__,
        description="Facts, search, settings, injections and sessions of a graphmem memory.",
    )
    # without an LLM the digest endpoints say why nothing runs
    app.state.graphmem = ServiceState(memory, ChangeFeed(marker or changes), digester or memory.digester(None), config)
    _install_error_handlers(app)
    app.include_router(routes_facts.router)
    app.include_router(routes_memory.router)
    app.include_router(routes_sessions.router)
    app.include_router(routes_chat.router)
    app.include_router(routes_notes.router)
    app.include_router(dashboard.router)

    @app.get("/api/events", tags=["live"], summary="Server-sent events: one `change` event per memory change")
    async def events(request: Request) -> StreamingResponse:
        feed = state_of(request).feed
        return StreamingResponse(feed.stream(is_disconnected=request.is_disconnected), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @app.get("/api/health", tags=["service"], summary="The service and its database")
    def health(request: Request) -> dict[str, Any]:
        mem = state_of(request).memory
        mem.db.ping()
        info = mem.db.server_info()
        return {"status": "ok", "version": __version__, "neo4j": info.version,
                "embedder": mem.embedding_model if mem.embedder is not None else None}

    if config.token is not None:
        app.add_middleware(BearerAuth, token=config.token)
    if config.cors_origins:  # outermost: it answers preflight requests, which carry no token
        app.add_middleware(CORSMiddleware, allow_origins=list(config.cors_origins), allow_credentials=False,
                           allow_methods=["GET", "POST", "PATCH", "DELETE"], allow_headers=["Authorization", "Content-Type"])
    return app
