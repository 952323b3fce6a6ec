"""Seeding what a chat agent knows about itself from a file (its ``self`` memories).

The file is Markdown: a heading per category (``context``, ``capability``, ``limitation``,
``preference``, ``relation``; any heading level, case-insensitive) and one statement per bullet::

    # context
    - I am Pet, the companion of the Tuesday badminton group.
    # limitation
    - I cannot see images.

or JSON: ``{"context": ["I am Pet, ..."], "limitation": ["..."]}``. Each statement is stored with
``store_self``, so seeding the same file again changes nothing (a similar memory is updated, not
duplicated) and an edited line updates its memory.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, quoted
from .tools import SELF_CATEGORIES, ChatTools

__all__ = ["parse_self_file", "seed_self"]

_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.+?)\s*$")


def parse_self_file(text: str, *, name: str = "the self file") -> list[tuple[str, str]]:
    """``(category, statement)`` pairs of a self file (see the module docstring); InvalidInput
    naming the line on an unknown category or a statement outside any category."""
    if text.lstrip().startswith("{"):
        try:
            data: Any = json.loads(text)
        except ValueError as e:
            raise InvalidInput(f"{name}: invalid JSON ({e})") from e
        pairs: list[tuple[str, str]] = []
        if not isinstance(data, dict):
            raise InvalidInput(f"{name}: a JSON object of categories")
        for key, items in data.items():
            if key not in SELF_CATEGORIES:
                raise InvalidInput(f"{name}: unknown category {quoted(key)} ({', '.join(SELF_CATEGORIES)})")
            if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
                raise InvalidInput(f"{name}: {key} must be a list of strings")
            pairs += [(key, i.strip()) for i in items if i.strip()]
        return pairs
    pairs = []
    category: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        heading = _HEADING.match(line)
        if heading:
            category = heading.group(1).strip().lower()
            if category not in SELF_CATEGORIES:
                raise InvalidInput(f"{name}:{number}: unknown category {quoted(category)} ({', '.join(SELF_CATEGORIES)})")
            continue
        bullet = _BULLET.match(line)
        if bullet:
            if category is None:
                raise InvalidInput(f"{name}:{number}: a statement before any category heading")
            pairs.append((category, bullet.group(1)))
    return pairs


def seed_self(tools: ChatTools, path: str | Path) -> list[dict[str, Any]]:
    """Store every statement of the self file at ``path`` (see the module docstring); what each
    ``store_self`` call returned."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as e:
        raise InvalidInput(f"cannot read the self file {file}: {e.strerror or e}") from e
    return [tools.store_self(statement, category) for category, statement in parse_self_file(text, name=str(file))]
