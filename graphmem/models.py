"""Pydantic data models: what goes into graphmem and what comes out. No database code here.

Attribute names are snake_case; every model also accepts and dumps the camelCase names used in
the graph (``keyFindings``, ``filesMentioned`` ...) with ``by_alias=True``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from .errors import InvalidInput

__all__ = [
    "MAX_DURATION_MS",
    "ConversationSummary",
    "Session",
    "SessionDetail",
    "SessionInfo",
    "Summary",
    "ToolCall",
    "ToolCallIn",
    "Turn",
    "TurnIn",
    "args_text",
    "clean_text",
    "foreign_args",
    "input_error",
    "reference_time",
    "utcnow",
]


def utcnow() -> datetime:
    """The current time, timezone-aware in UTC."""
    return datetime.now(UTC)


def reference_time(value: object, name: str = "now") -> datetime | None:
    """A caller's reference time (``now=`` of a search, ``at=`` of a fact query): ``None`` stays
    ``None``, an aware ``datetime`` is kept, a naive one is read as UTC; anything else raises
    :class:`InvalidInput` naming ``name``."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise InvalidInput(f"{name} must be a datetime (timezone-aware; a naive one is read as UTC), "
                           f"not {type(value).__name__}")
    if not 1 < value.year < 9999:  # room for the windows reckoned from it ("next year", "a year ago")
        raise InvalidInput(f"{name} must fall between the years 2 and 9998, not {value.isoformat()}")
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def clean_text(value: str) -> str:
    """Make a string storable in Neo4j (the documented text rule).

    Neo4j stores strings as UTF-8, which cannot encode a lone UTF-16 surrogate (``"\\ud800"``,
    as produced by ``json.loads`` of broken escapes or by ``surrogateescape`` decoding). Each lone
    surrogate is replaced by U+FFFD REPLACEMENT CHARACTER. Everything else is kept verbatim,
    including NUL bytes and other control characters, so valid text round-trips byte for byte.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in value)
    return value


MAX_DURATION_MS = 10 * 365 * 24 * 3600 * 1000
"""The longest tool call duration accepted (ten years: anything longer is a unit mistake)."""


def _aware(value: datetime | None) -> datetime | None:
    """A timestamp given with its zone (``None`` stays ``None``: the time it is stored)."""
    if value is not None and value.tzinfo is None:
        raise ValueError("timestamps must be timezone-aware (give the zone, e.g. +00:00)")
    return value


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


def args_text(value: Any) -> str:
    """Tool-call arguments as the JSON text stored (keys sorted when they can be; objects JSON has
    no form for are written as their ``str``); ``ValueError`` when no JSON can hold them (NaN,
    infinity, a cycle)."""
    try:
        try:
            text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str, allow_nan=False)
        except TypeError:  # keys of mixed kinds cannot be sorted: kept in their order
            text = json.dumps(value, ensure_ascii=False, default=str, allow_nan=False)
    except RecursionError as e:
        raise ValueError("args must be JSON: they nest too deep") from e
    except ValueError as e:
        if "ircular" in str(e):
            raise ValueError("args must be JSON: they contain themselves") from e
        raise ValueError("args must be JSON: NaN and infinity have no JSON form") from e
    return clean_text(text)


def foreign_args(value: Any) -> Any:
    """Tool-call arguments written by another program (a transcript, an agent framework's message),
    as graphmem stores them: unchanged when JSON can hold them, else as text (NaN, infinity and
    cycles are kept readable instead of refusing the whole turn)."""
    if value is None or isinstance(value, str):
        return value
    try:
        args_text(value)
        return value
    except ValueError:
        try:
            return json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            return str(value)


def input_error(error: ValidationError, where: str) -> InvalidInput:
    """The :class:`InvalidInput` of a validation error of caller data, naming each bad field from
    ``where`` (``tool_calls[0].name: Field required``), one problem per ``;``."""
    problems = []
    for err in error.errors():
        path = where
        for part in err.get("loc") or ():
            path += f"[{part}]" if isinstance(part, int) else f".{part}"
        problems.append(f"{path}: {' '.join(str(err.get('msg', '')).split())}")
    return InvalidInput("; ".join(problems) or f"{where}: invalid")


class ToolCallIn(_Model):
    """A tool call to store with a turn."""

    name: str
    args: Any = None
    result: str | None = None
    success: bool | None = None
    duration_ms: int | None = Field(default=None, ge=0, le=MAX_DURATION_MS)
    timestamp: datetime | None = None
    source_id: str | None = None
    """The id the source gave the call (e.g. Claude Code's ``tool_use_id``), kept for provenance."""

    @field_validator("name", "result", "source_id")
    @classmethod
    def _clean(cls, v: str | None) -> str | None:
        return None if v is None else clean_text(v)

    @field_validator("name")
    @classmethod
    def _named(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("a tool call needs a name")
        return v

    @field_validator("args")
    @classmethod
    def _encodable(cls, v: Any) -> Any:
        if v is not None and not isinstance(v, str):
            args_text(v)
        return v

    @field_validator("timestamp")
    @classmethod
    def _aware(cls, v: datetime | None) -> datetime | None:
        return _aware(v)

    def args_json(self) -> str:
        """The arguments as stored: a string is kept verbatim, anything else is JSON-encoded."""
        if self.args is None:
            return ""
        if isinstance(self.args, str):
            return clean_text(self.args)
        return args_text(self.args)


class TurnIn(_Model):
    """One turn to store: a user message, the assistant's answer and the tool calls between."""

    user_message: str
    assistant_message: str
    tool_calls: list[ToolCallIn] = Field(default_factory=list)
    timestamp: datetime | None = None
    source_id: str | None = None
    """A stable id from the source transcript; importing the same source id twice stores it once."""

    @field_validator("user_message", "assistant_message")
    @classmethod
    def _clean(cls, v: str) -> str:
        return clean_text(v)

    @field_validator("source_id")
    @classmethod
    def _clean_source_id(cls, v: str | None) -> str | None:
        return None if v is None else clean_text(v)

    @field_validator("timestamp")
    @classmethod
    def _aware(cls, v: datetime | None) -> datetime | None:
        return _aware(v)


class ToolCall(_Model):
    """A stored tool call."""

    id: str
    name: str
    args: str = ""
    result: str | None = None
    success: bool | None = None
    duration_ms: int | None = None
    timestamp: datetime | None = None
    order: int = 0
    source_id: str | None = None
    """The id the source gave the call (e.g. a framework's tool call id), when it gave one."""


class Turn(_Model):
    """A stored turn (level 0 of the memory)."""

    id: str
    session_id: str
    index: int
    """1-based position in its session; contiguous."""
    user_message: str
    assistant_message: str
    timestamp: datetime
    char_count: int
    tool_calls: list[ToolCall] = Field(default_factory=list)
    source_id: str | None = None


class Session(_Model):
    """A conversation session, tied to a working directory."""

    id: str
    cwd: str
    project_path: str
    agent: str | None = None
    title: str | None = None
    started_at: datetime
    last_activity_at: datetime
    turn_count: int = 0


class SessionInfo(Session):
    """A session in a listing, with a preview of its last message."""

    last_message: str | None = None


class SessionDetail(Session):
    """A session with all its turns (and their tool calls), in order."""

    turns: list[Turn] = Field(default_factory=list)


class ConversationSummary(_Model):
    """What a summarizer produces (a ConversationSummary)."""

    summary: str
    key_findings: list[str] = Field(default_factory=list)
    files_mentioned: list[str] = Field(default_factory=list)
    tools_used: list[str] = Field(default_factory=list)
    topics: list[str] = Field(default_factory=list)


class Summary(ConversationSummary):
    """A stored summary node of the hierarchy (level >= 1)."""

    id: str
    session_id: str
    level: int
    char_count: int
    """Raw characters of the turns this summary covers (the sum over its subtree)."""
    turn_count: int
    timestamp: datetime
    method: Literal["llm", "extractive"] | str = "extractive"
    child_ids: list[str] = Field(default_factory=list)
