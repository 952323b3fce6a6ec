"""Fact data: types and their default importance, scopes, TTLs, results. No database code here."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal, cast

from ..errors import InvalidInput, quoted
from ..paths import normalize_cwd

__all__ = [
    "FACT_TYPES",
    "NEVER",
    "Fact",
    "FactInjection",
    "FactScope",
    "FactScopeLike",
    "ForgetResult",
    "InjectedItem",
    "RememberResult",
    "check_fact_type",
    "containment",
    "content_key",
    "default_importance",
    "parse_ttl",
    "words",
]

FACT_TYPES: dict[str, float] = {
    "identity": 1.0,
    "goal": 0.9,
    "decision": 0.8,
    "todo": 0.8,
    "preference": 0.7,
    "fact": 0.6,
    "event": 0.4,
    "observation": 0.3,
}
"""The eight fact types and their default importance."""

NEVER = "never"
"""A TTL meaning "permanent" (clears an expiry when a remember updates a fact)."""

ScopeKind = Literal["global", "project", "session"]


def default_importance(fact_type: str) -> float:
    try:
        return FACT_TYPES[fact_type]
    except KeyError:
        raise InvalidInput(f"unknown fact type {quoted(fact_type)}; one of {', '.join(FACT_TYPES)}") from None


def check_fact_type(fact_type: object) -> None:
    """A fact type argument: ``None`` (any, or the default) or one of :data:`FACT_TYPES`."""
    if fact_type is None:
        return
    if not isinstance(fact_type, str):
        raise InvalidInput(f"type must be one of {', '.join(FACT_TYPES)}; not a {fact_type.__class__.__name__}")
    default_importance(fact_type)


@dataclass(frozen=True)
class FactScope:
    """Where a fact lives: ``global`` (the person), ``project:<projectPath>`` or ``session:<id>``."""

    kind: ScopeKind
    value: str = ""

    @property
    def key(self) -> str:
        return "global" if self.kind == "global" else f"{self.kind}:{self.value}"

    def __str__(self) -> str:
        return self.key

    @classmethod
    def global_(cls) -> FactScope:
        return cls("global")

    @classmethod
    def project(cls, path: str) -> FactScope:
        if not path:
            raise InvalidInput("a project scope needs a path")
        return cls("project", normalize_cwd(path))

    @classmethod
    def session(cls, session_id: str) -> FactScope:
        if not session_id:
            raise InvalidInput("a session scope needs a session id")
        return cls("session", session_id)

    @classmethod
    def parse(cls, value: FactScopeLike) -> FactScope:
        """``"global"``, ``"project:/path"``, ``"session:<id>"`` or a :class:`FactScope`."""
        if isinstance(value, FactScope):
            return value
        if not isinstance(value, str):
            raise InvalidInput(f"invalid scope {quoted(value)}")
        if value == "global":
            return cls.global_()
        kind, sep, rest = value.partition(":")
        if sep and kind == "project":
            return cls.project(rest)
        if sep and kind == "session":
            return cls.session(rest)
        raise InvalidInput(f"invalid scope {quoted(value)}: use 'global', 'project:<path>' or 'session:<id>'")


FactScopeLike = FactScope | str

_TTL_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|y)")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}


MIN_TTL = timedelta(seconds=1)
"""The shortest TTL accepted (a shorter one expires before anything reads the fact)."""
MAX_TTL = timedelta(days=1000 * 365)
"""The longest TTL accepted (an expiry must stay a representable date; 'never' is the way to say never)."""


def parse_ttl(ttl: str | timedelta | None) -> timedelta | None:
    """A readable duration -> timedelta: ``"1h"``, ``"7d"``, ``"30d"``, ``"2w"``, ``"1h30m"``,
    ``"90 minutes"``. ``None`` is no TTL; ``"never"`` / ``"permanent"`` returns ``timedelta.max``
    (the caller clears the expiry). :class:`InvalidInput` for anything else or a zero duration."""
    if ttl is None:
        return None
    if isinstance(ttl, timedelta):
        if ttl < MIN_TTL:
            raise InvalidInput(f"a TTL must be at least one second, not {ttl}")
        if ttl == timedelta.max:
            return ttl  # the "never" marker
        if ttl > MAX_TTL:
            raise InvalidInput(f"a TTL of {ttl.days:,} days is longer than {MAX_TTL.days // 365} years: use 'never' "
                               "for a fact that does not expire")
        return ttl
    text = str(ttl).strip().lower()
    if text in (NEVER, "permanent", "none", "null", "forever"):
        return timedelta.max
    pos = 0
    total = 0.0
    compact = text.replace(" ", "")
    for m in _TTL_PART.finditer(compact):
        if m.start() != pos:
            break
        unit = m.group(2)
        key = "m" if unit.startswith("mi") or unit == "m" else unit[0]
        total += float(m.group(1)) * _UNIT_SECONDS[key]
        pos = m.end()
    if pos != len(compact) or not compact or total <= 0:
        raise InvalidInput(f"invalid TTL {quoted(ttl)}: use a duration like '1h', '7d', '30d', '2w' or 'never'")
    if total < MIN_TTL.total_seconds():
        raise InvalidInput(f"TTL {quoted(ttl)} is shorter than one second: the fact would be gone before it is read")
    if total > MAX_TTL.total_seconds():
        raise InvalidInput(f"TTL {quoted(ttl)} is longer than {MAX_TTL.days // 365} years: use 'never' for a fact that "
                           "does not expire")
    return timedelta(seconds=total)


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.findall(r"\w+", text))


def content_key(text: str) -> str:
    """Hash of the normalised text (case, punctuation and spacing ignored): exact duplicates."""
    return hashlib.sha256(_norm(text).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def words(text: str) -> list[str]:
    """The distinct words of the normalised text, sorted (stored on each fact as ``words``, so that
    remember's statement can apply :func:`containment` to the facts it finds)."""
    return sorted(set(_norm(text).split()))


def containment(inner: str, outer: str) -> float:
    """The share of ``inner``'s words that ``outer`` contains (1.0: ``outer`` says all of it)."""
    a = set(words(inner))
    b = set(words(outer))
    return len(a & b) / len(a) if a else 1.0


def _native(value: Any) -> Any:
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def _when(value: Any) -> datetime | None:
    """A fact's datetime: the statements return them as ISO strings (``toString``), as the driver's
    DateTime hydration costs ~35 µs each (~3 ms for the ~80 of an injection's reads); a DateTime or
    datetime is taken as well."""
    if isinstance(value, str):
        text = value.split("[", 1)[0]  # a named zone's suffix: the offset before it is enough
        return datetime.fromisoformat(text)
    return cast("datetime | None", _native(value))


@dataclass
class Fact:
    """A stored fact (the current version)."""

    id: str
    content: str
    type: str
    importance: float
    scope: str
    """The scope kind: global, project or session."""
    scope_key: str
    """``global``, ``project:<path>`` or ``session:<id>``."""
    subjects: list[str] = field(default_factory=list)
    created_at: datetime | None = None
    updated_at: datetime | None = None
    expires_at: datetime | None = None
    access_count: int = 0
    last_accessed_at: datetime | None = None
    source: str | None = None
    score: float | None = None
    """Cosine similarity to the query, for search results."""

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Fact:
        return cls(
            id=row["id"],
            content=row["content"],
            type=row["type"],
            importance=float(row["importance"]),
            scope=row["scope"],
            scope_key=row["scopeKey"],
            subjects=sorted(row.get("subjects") or []),
            created_at=_when(row.get("createdAt")),
            updated_at=_when(row.get("updatedAt")),
            expires_at=_when(row.get("expiresAt")),
            access_count=int(row.get("accessCount") or 0),
            last_accessed_at=_when(row.get("lastAccessedAt")),
            source=row.get("source"),
            score=None if row.get("cosine") is None else round(float(row["cosine"]), 4),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-able (datetimes as ISO strings)."""
        out: dict[str, Any] = {}
        for k, v in self.__dict__.items():
            out[k] = v.isoformat() if isinstance(v, datetime) else v
        return out


@dataclass
class RememberResult:
    """What :func:`remember` did: ``inserted``, ``updated`` (the old version is kept as history
    behind ``SUPERSEDES``) or ``unchanged`` (an existing fact already says it)."""

    action: Literal["inserted", "updated", "unchanged"]
    fact: Fact
    previous: Fact | None = None
    """The fact that was updated or matched."""
    similarity: float | None = None
    reason: str = ""
    retired: list[Fact] = field(default_factory=list)
    """Current facts the new one corrects, retired as history (the LLM judge's or the correction
    rule's decision; see graphmem.facts.corrections)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "fact": self.fact.to_dict(),
            "previous": self.previous.to_dict() if self.previous else None,
            "similarity": self.similarity,
            "reason": self.reason,
            "retired": [f.to_dict() for f in self.retired],
        }


@dataclass
class ForgetResult:
    """What :func:`forget` removed (or would remove, with ``dry_run``) and the audit record's id."""

    removed: list[Fact]
    audit_id: str | None
    dry_run: bool = False
    versions: list[dict[str, Any]] = field(default_factory=list)
    """Every version removed (or that would be): ``id``, ``currentId``, ``content``, ``current``,
    ``createdAt``; the current versions and their whole history, newest first per fact."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "removed": [f.to_dict() for f in self.removed],
            "count": len(self.removed),
            "versions": self.versions,
            "audit_id": self.audit_id,
            "dry_run": self.dry_run,
        }


@dataclass
class InjectedItem:
    fact: Fact
    reason: Literal["identity", "important", "recent", "vector"]
    score: float | None


@dataclass
class FactInjection:
    """Facts to add to the context before an LLM call, rendered as ``text`` (``chars`` long)."""

    items: list[InjectedItem]
    text: str
    chars: int
    log_id: str | None
    latency_ms: float
    skipped: str | None = None
    """Why nothing was done (``system message``, ``disabled``, ``empty message``), else None."""
    turn_index: int | None = None
    warnings: list[str] = field(default_factory=list)
    """Problems that did not stop the injection (an earlier deferred log that was not written)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "items": [{"reason": i.reason, "score": i.score, **i.fact.to_dict()} for i in self.items],
            "text": self.text,
            "chars": self.chars,
            "log_id": self.log_id,
            "latency_ms": self.latency_ms,
            "skipped": self.skipped,
            "turn_index": self.turn_index,
            "warnings": list(self.warnings),
        }
