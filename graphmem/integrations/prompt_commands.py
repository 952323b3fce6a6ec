"""Memory commands typed in a coding CLI's prompt, handled by the prompt hook without an LLM (pure).

* ``remember: <text>``, ``#remember <text>`` or ``retiens : <text>`` (any case, after leading
  whitespace): store ``<text>`` as a fact of the session's project.
* ``#forget <topic>``: forget the project's facts matching ``<topic>``.

Anything else is an ordinary prompt (:func:`parse_prompt_command` returns None).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["PromptCommand", "parse_prompt_command"]

_REMEMBER = re.compile(r"\A\s*(?:remember\s*:|retiens\s*:|#remember\b\s*:?)(?P<rest>.*)\Z", re.IGNORECASE | re.DOTALL)
_FORGET = re.compile(r"\A\s*#forget\b\s*:?(?P<rest>.*)\Z", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class PromptCommand:
    """A memory command found at the start of a prompt: what to do and its text (stripped; may be
    empty, which the hook answers with "nothing was stored")."""

    action: Literal["remember", "forget"]
    content: str


def parse_prompt_command(prompt: str | None) -> PromptCommand | None:
    """The memory command that starts ``prompt``, or None for an ordinary prompt."""
    if not prompt:
        return None
    m = _REMEMBER.match(prompt)
    if m is not None:
        return PromptCommand("remember", m.group("rest").strip())
    m = _FORGET.match(prompt)
    if m is not None:
        return PromptCommand("forget", m.group("rest").strip())
    return None
