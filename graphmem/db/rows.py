"""Values read from Neo4j, as Python values: ``neo4j.time`` types become ``datetime``."""

from __future__ import annotations

from typing import Any

__all__ = ["native", "native_row"]


def native(value: Any) -> Any:
    """A ``neo4j.time`` value as its ``datetime``/``date``; anything else unchanged."""
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def native_row(row: dict[str, Any] | None) -> dict[str, Any]:
    """A row (or map) with each value through :func:`native`; None gives an empty dict."""
    return {k: native(v) for k, v in (row or {}).items()}
