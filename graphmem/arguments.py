"""Checks of a caller's plain arguments (counts, scores, strings, lists of strings).

Each check returns the value as graphmem uses it or raises :class:`InvalidInput` with one line that
names the argument, so that a wrong type never reaches the database as a puzzling server error, and
a string given where a list is expected is never read letter by letter.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .errors import InvalidInput, quoted
from .models import clean_text

__all__ = ["count", "optional_text", "required_text", "score", "text_list"]

MAX_COUNT = 1_000_000_000
"""The largest count accepted (a database LIMIT is a 64-bit integer; anything this large is a mistake)."""


def count(value: object, name: str, *, minimum: int = 1, maximum: int = MAX_COUNT) -> int:
    """An integer within ``[minimum, maximum]`` (``True``/``False`` and ``"5"`` are refused)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidInput(f"{name} must be an integer, not {type(value).__name__}")
    if not minimum <= value <= maximum:
        raise InvalidInput(f"{name} must be between {minimum} and {maximum}, not {value}")
    return value


def score(value: object, name: str, *, low: float | None = None, high: float | None = None) -> float:
    """A finite number (an ``int`` or a ``float``; not a bool, a string or NaN), within the bounds given."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise InvalidInput(f"{name} must be a number, not {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number):
        raise InvalidInput(f"{name} must be a finite number, not {number}")
    if (low is not None and number < low) or (high is not None and number > high):
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise InvalidInput(f"{name} must be within [{lo}, {hi}], not {number:g}")
    return number


def optional_text(value: object, name: str) -> str | None:
    """``None``, or a string made storable (:func:`~graphmem.models.clean_text`)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string, not {type(value).__name__}")
    return clean_text(value)


def required_text(value: object, name: str) -> str:
    """A string with something besides whitespace, made storable and stripped."""
    text = optional_text(value, name)
    if text is None or not text.strip():
        raise InvalidInput(f"{name} must be a non-empty string")
    return text.strip()


def text_list(value: object, name: str) -> list[str]:
    """A list, tuple or set of strings (``None``: an empty list). A lone string is refused: read
    letter by letter it would be a list of one-character names."""
    if value is None:
        return []
    if isinstance(value, str | bytes):
        raise InvalidInput(f"{name} must be a list of strings, not a single {type(value).__name__} "
                           f"(write [{quoted(value)}])")
    if not isinstance(value, Iterable) or isinstance(value, dict):
        raise InvalidInput(f"{name} must be a list of strings, not {type(value).__name__}")
    out: list[str] = []
    for n, item in enumerate(value):
        if not isinstance(item, str):
            raise InvalidInput(f"{name}[{n}] must be a string, not {type(item).__name__}")
        out.append(clean_text(item))
    return out
