"""Fact-memory tuning: the knobs of remember, forget, search and the pre-call injection, stored in
the database (``(:GraphMemSetting {key, value})``) so every process using it shares them.

Not to be confused with :class:`graphmem.config.Settings`, the environment a process starts with.

Edited with ``graphmem settings get|set|unset``; read through a small per-process cache (a few
seconds) so the pre-call injection does not pay a round trip per message. Unset keys take the
defaults below. The cosine settings are on the local USE model's scale: read for another embedder
(``get_tuning(db, embedder=...)``), they become that model's cosines that mean the same
(:func:`graphmem.embedding.calibration.cosine_for`).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..db import Database
from ..embedding.calibration import cosine_for
from ..errors import InvalidInput, quoted

if TYPE_CHECKING:
    from ..embedding import Embedder

__all__ = [
    "DEFAULT_TUNING",
    "TUNING_HELP",
    "FactTuning",
    "check_tuning",
    "get_tuning",
    "set_tuning",
    "tuning_items",
    "unset_tuning",
]


@dataclass(frozen=True)
class FactTuning:
    """Every fact-memory knob, with its default."""

    injection_enabled: bool = True
    """Pre-call injection on/off."""
    injection_max_results: int = 20
    """At most this many facts per injection."""
    injection_min_score: float = 0.3
    """Minimum cosine for the vector hits of an injection (identity/important/recent ignore it)."""
    injection_vector_k: int = 20
    """Vector top-k for the message."""
    injection_recent_hours: float = 6.0
    """Facts created within this window are 'recent'."""
    injection_important_min: float = 0.8
    """Importance from which a fact is 'important'."""
    injection_dedup_threshold: float = 0.85
    """Cosine above which a candidate repeats something already injected."""
    injection_dedup_turns: int = 10
    """Facts injected within this many turns of the session are not injected again."""
    dedup_threshold: float = 0.85
    """remember(): cosine from which an existing fact of the scope is updated."""
    refine_min_similarity: float = 0.6
    """remember(): a lower cosine still updates when the new text contains all the old one's words."""
    forget_min_score: float = 0.5
    """forget(topic): cosine from which a fact matches the topic."""
    search_limit: int = 10
    """Default number of semantic search results."""


DEFAULT_TUNING = FactTuning()

TUNING_HELP: dict[str, str] = {
    "injection.enabled": "pre-call injection on/off",
    "injection.max_results": "at most this many facts per injection",
    "injection.min_score": "minimum cosine of the vector hits",
    "injection.vector_k": "vector top-k for the message",
    "injection.recent_hours": "window of 'recent' facts, hours",
    "injection.important_min": "importance from which a fact is always injected",
    "injection.dedup_threshold": "cosine from which a candidate repeats an injected fact",
    "injection.dedup_turns": "do not re-inject a fact within this many turns",
    "facts.dedup_threshold": "remember: cosine from which an existing fact is updated",
    "facts.refine_min_similarity": "remember: lower cosine that still updates when the new text contains the old",
    "facts.forget_min_score": "forget: cosine from which a fact matches the topic",
    "facts.search_limit": "default number of semantic search results",
}

_FIELDS = {key: key.replace(".", "_").removeprefix("facts_") for key in TUNING_HELP}

_lock = threading.Lock()
_cache: dict[int, tuple[float, FactTuning]] = {}
CACHE_SECONDS = 5.0


MAX_COUNT_SETTING = 10_000
"""The largest count a setting takes (a top-k or a number of turns; anything larger is a mistake)."""
MAX_RECENT_HOURS = 24 * 366 * 10
"""The widest 'recent' window, ten years in hours."""


def _coerce(key: str, value: Any) -> Any:
    default = getattr(DEFAULT_TUNING, _FIELDS[key])
    try:
        if isinstance(default, bool):
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if isinstance(value, bool):
            raise ValueError(value)
        if isinstance(default, int):
            if isinstance(value, float):
                if not value.is_integer():
                    raise ValueError(value)
                value = int(value)
            out_i = int(value)
            if not 0 <= out_i <= MAX_COUNT_SETTING:
                raise ValueError(value)
            return out_i
        out_f = float(value)
        high = MAX_RECENT_HOURS if key == "injection.recent_hours" else 1.0
        if not 0.0 <= out_f <= high:  # NaN fails this too
            raise ValueError(value)
        return out_f
    except (TypeError, ValueError, OverflowError):
        raise InvalidInput(f"invalid value {quoted(value)} for {key} ({_range(default, key)}, default {quoted(default)})") from None


def _range(default: Any, key: str) -> str:
    if isinstance(default, bool):
        return "on or off"
    if isinstance(default, int):
        return f"an integer from 0 to {MAX_COUNT_SETTING}"
    return f"a number from 0 to {MAX_RECENT_HOURS if key == 'injection.recent_hours' else 1}"


def _check_key(key: str) -> str:
    if key not in TUNING_HELP:
        raise InvalidInput(f"unknown setting {quoted(key)}; one of {', '.join(TUNING_HELP)}")
    return key


def check_tuning(key: str, value: Any) -> Any:
    """``value`` validated and converted to the type of setting ``key`` (:class:`InvalidInput` if not)."""
    return _coerce(_check_key(key), value)


def get_tuning(db: Database, *, fresh: bool = False, embedder: Embedder | None = None) -> FactTuning:
    """The tuning stored in ``db`` over the defaults (cached for a few seconds per database). With
    ``embedder``, its cosine thresholds are in that embedder's model's cosines."""
    model = embedder.model if embedder is not None else None
    now = time.monotonic()
    with _lock:
        hit = _cache.get(id(db))
    if hit is not None and not fresh and now - hit[0] < CACHE_SECONDS:
        return _for_model(hit[1], model)
    return _for_model(_read_tuning(db, now), model)


def _for_model(tuning: FactTuning, model: str | None) -> FactTuning:
    if model is None:
        return tuning
    return replace(
        tuning,
        injection_min_score=cosine_for(model, tuning.injection_min_score, "query"),
        injection_dedup_threshold=cosine_for(model, tuning.injection_dedup_threshold),
        dedup_threshold=cosine_for(model, tuning.dedup_threshold),
        refine_min_similarity=cosine_for(model, tuning.refine_min_similarity),
        forget_min_score=cosine_for(model, tuning.forget_min_score, "query"),
    )


def _read_tuning(db: Database, now: float) -> FactTuning:
    values: dict[str, Any] = {}
    for row in db.read("tuning/all"):
        key = row["key"]
        if key in TUNING_HELP:
            try:
                values[_FIELDS[key]] = _coerce(key, row["value"])
            except InvalidInput:
                continue  # a bad stored value falls back to the default
    tuning = FactTuning(**values)
    with _lock:
        _cache[id(db)] = (now, tuning)
    return tuning


def drop_cached_tuning(db: Database) -> None:
    """Forget the cached tuning of ``db``: the next :func:`get_tuning` reads the database (for a
    long-lived process whose database another process may have changed)."""
    with _lock:
        _cache.pop(id(db), None)


def set_tuning(db: Database, key: str, value: Any) -> Any:
    """Store one setting (validated and converted to its type); returns the stored value."""
    typed = _coerce(_check_key(key), value)
    db.write("tuning/set", key=key, value=typed)
    with _lock:
        _cache.pop(id(db), None)
    return typed


def unset_tuning(db: Database, key: str) -> bool:
    """Back to the default; True when a stored value was removed."""
    rows = db.write("tuning/unset", key=_check_key(key))
    with _lock:
        _cache.pop(id(db), None)
    return bool(rows and rows[0]["removed"])


def tuning_items(tuning: FactTuning) -> dict[str, Any]:
    """``{"injection.enabled": True, ...}`` for display."""
    return {key: getattr(tuning, field) for key, field in _FIELDS.items()}
