"""What chat agents share: their settings (:class:`ChatConfig`) and where their conversations live.

A chat agent's conversations are filed like a coding agent's sessions, under a directory path that
graphmem makes up (nothing is read from or written to the file system):

* ``<root>/<agent>/<channel>/<user>`` is the directory of the sessions of one conversation;
* ``<root>/<agent>`` is their project, so that searching the project searches every channel and
  every user of the agent (the default of ``build_context``), and the agent's facts live in the
  project scope of that path;
* ``<root>/<agent>/.self`` and ``<root>/<agent>/.goals`` are the fact scopes of what the agent knows
  about itself and of its goals: scopes of their own, never injected or searched with facts about
  the world.

Each name is percent-encoded (every character but ASCII letters, digits, ``-`` and ``_``), so no
name can climb out of its folder or pose as ``.self``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from zoneinfo import ZoneInfo

from ..config import Settings
from ..errors import InvalidInput, quoted
from ..models import clean_text

__all__ = ["DEFAULT_ROOT", "ChatConfig", "agent_path", "conversation_key", "conversation_path", "encode_name",
           "goals_path", "self_path"]

DEFAULT_ROOT = "/graphmem-chat"
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
MAX_NAME_CHARS = 200


@dataclass(frozen=True)
class ChatConfig:
    """Settings of the chat operations (:meth:`graphmem.GraphMemory.open_conversation`,
    :meth:`~graphmem.GraphMemory.observe`, ...)."""

    root: str = DEFAULT_ROOT
    """The made-up directory under which conversations are filed (see the module docstring)."""
    session_gap: timedelta = timedelta(minutes=15)
    """A conversation silent for longer than this continues in a new session."""
    timezone: str = "UTC"
    """The time zone of the times shown to the agent (``dd/mm hh:mm`` of live messages, dates of facts)."""
    locale: str = "en"
    """``en`` or ``fr``: the language of block titles and relative times."""

    def __post_init__(self) -> None:
        if self.session_gap <= timedelta(0):
            raise InvalidInput("session_gap must be positive")
        if not self.root.startswith("/"):
            raise InvalidInput("the chat root must be an absolute path")
        try:
            ZoneInfo(self.timezone)
        except (KeyError, ValueError) as e:
            raise InvalidInput(f"unknown time zone {quoted(self.timezone)}") from e

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @classmethod
    def from_settings(cls, settings: Settings) -> ChatConfig:
        """From ``GRAPHMEM_CHAT_ROOT``, ``GRAPHMEM_CHAT_SESSION_GAP_MINUTES``, ``GRAPHMEM_CHAT_TIMEZONE``
        and ``GRAPHMEM_CHAT_LOCALE``; InvalidInput naming the settings on a bad value."""
        try:
            return cls(root=settings.chat_root, session_gap=timedelta(minutes=settings.chat_session_gap_minutes),
                       timezone=settings.chat_timezone, locale=settings.chat_locale)
        except InvalidInput as e:
            raise InvalidInput(f"GRAPHMEM_CHAT_* settings: {e}") from e


def encode_name(value: str, what: str) -> str:
    """``value`` as one path component (percent-encoded; see the module docstring)."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME_CHARS:
        raise InvalidInput(f"invalid {what}: must be a non-empty string of at most {MAX_NAME_CHARS} characters")
    text = clean_text(value.strip())
    return "".join(c if c in _SAFE else "".join(f"%{b:02X}" for b in c.encode("utf-8")) for c in text)


def agent_path(root: str, agent: str) -> str:
    return f"{root.rstrip('/')}/{encode_name(agent, 'agent')}"


def conversation_path(root: str, agent: str, channel: str, user: str) -> str:
    return f"{agent_path(root, agent)}/{encode_name(channel, 'channel')}/{encode_name(user, 'user')}"


def conversation_key(root: str, agent: str, channel: str, user: str) -> str:
    """The conversation's identity: its directory path (unique per root, agent, channel and user)."""
    return conversation_path(root, agent, channel, user)


def self_path(root: str, agent: str) -> str:
    return f"{agent_path(root, agent)}/.self"


def goals_path(root: str, agent: str) -> str:
    return f"{agent_path(root, agent)}/.goals"
