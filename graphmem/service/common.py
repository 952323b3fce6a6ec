"""What the service's routes share: its configuration and state, and field-named input errors."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from fastapi import Request

from ..chat import Digester
from ..errors import InvalidInput
from ..memory import GraphMemory
from .events import ChangeFeed

__all__ = ["FieldError", "ServiceConfig", "ServiceState", "field_errors", "state_of"]


@dataclass(frozen=True)
class ServiceConfig:
    """How the app guards itself: ``token`` (None: no authentication, for loopback binds only)
    and the origins allowed by CORS (empty: CORS off, same-origin only)."""

    token: str | None = None
    cors_origins: tuple[str, ...] = ()


@dataclass
class ServiceState:
    """What the routes share: the memory, the change feed and the chat rooms' digest."""

    memory: GraphMemory
    feed: ChangeFeed
    digester: Digester
    config: ServiceConfig = field(default_factory=ServiceConfig)


class FieldError(Exception):
    """Bad input in one field of a request: answered as 400 ``{"error", "field", "detail"}``."""

    def __init__(self, field: str, detail: str, status: int = 400) -> None:
        super().__init__(detail)
        self.field, self.detail, self.status = field, detail, status


@contextmanager
def field_errors(name: str) -> Iterator[None]:
    """Turn the library's :class:`InvalidInput` raised inside into a :class:`FieldError` on ``name``."""
    try:
        yield
    except InvalidInput as e:
        raise FieldError(name, str(e)) from None


def state_of(request: Request) -> ServiceState:
    state: ServiceState = request.app.state.graphmem
    return state
