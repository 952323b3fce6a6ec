"""Hook stdin/stdout formats of the coding CLIs, and the opt-out rules (pure functions).

Based on:

* Claude Code hooks reference: every hook gets a JSON object on stdin with ``session_id``,
  ``transcript_path``, ``cwd``, ``permission_mode``, ``hook_event_name``; ``UserPromptSubmit``
  adds ``prompt``, ``SessionStart`` adds ``source`` (startup/resume/clear/compact), ``Stop``
  adds ``stop_hook_active``. Context is injected with
  ``{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}`` (observed: up
  to 10,000 characters arrive whole, longer text is cut to a preview).
* Codex CLI (``codex-rs/hooks/schema/generated/*.schema.json``): the same field names plus
  ``turn_id`` and ``model``; ``Stop`` adds ``last_assistant_message``; ``UserPromptSubmit`` and
  ``SessionStart`` accept the same ``hookSpecificOutput`` object; ``PreCompact`` adds ``trigger``
  (``manual``/``auto``); there is no session-end event.
* Gemini CLI (``docs/hooks/reference.md``): base fields ``session_id``, ``transcript_path``,
  ``cwd``, ``hook_event_name``, ``timestamp``; ``BeforeAgent`` (≈ UserPromptSubmit) has
  ``prompt`` and accepts ``hookSpecificOutput.additionalContext``; ``AfterAgent`` (≈ Stop) has
  ``prompt``, ``prompt_response``, ``stop_hook_active``; ``SessionStart`` has ``source``;
  ``SessionEnd`` has ``reason``; ``PreCompress`` has ``trigger`` (``manual``/``auto``).
* Claude Code ``SessionEnd`` adds ``reason``; ``PreCompact`` adds ``trigger`` (``manual``/``auto``)
  and ``custom_instructions``.
* Claude Code ``PreToolUse`` adds ``tool_name``, ``tool_input`` (file paths absolute) and
  ``tool_use_id``; ``hookSpecificOutput.additionalContext`` reaches the model before the tool runs
  (graphmem never sets a permission decision, so the tool is never blocked).

Injected context is wrapped in ``<graphmem-context>`` tags so importers can drop it from
prompts. Opt-out: a ``.graphmem-ignore`` file in the working directory or any parent up to the
git root, or ``#nomem`` in a prompt.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import InvalidInput, quoted
from ..models import clean_text
from ..paths import find_project_root
from .formats import canonical_agent
from .transcript import CONTEXT_CLOSE, CONTEXT_OPEN
from .turns import has_nomem

__all__ = [
    "IGNORE_FILE",
    "MAX_CONTEXT_CHARS",
    "NOMEM_MARKER",
    "ClaudeHookInput",
    "CodexHookInput",
    "GeminiHookInput",
    "HookInput",
    "HookTool",
    "canonical_event",
    "has_nomem_marker",
    "is_ignored_dir",
    "parse_hook_input",
    "render_context",
    "render_noop",
    "should_capture",
    "truncate_context",
]

HookTool = Literal["claude-code", "codex", "gemini"]

MAX_CONTEXT_CHARS = 10_000
IGNORE_FILE = ".graphmem-ignore"
NOMEM_MARKER = "#nomem"

_TRUNCATED = "\n[... graphmem context truncated]"

_EVENTS: dict[str, str] = {
    "userpromptsubmit": "prompt",
    "beforeagent": "prompt",
    "prompt": "prompt",
    "stop": "stop",
    "afteragent": "stop",
    "subagentstop": "subagent_stop",
    "sessionstart": "session_start",
    "session_start": "session_start",
    "sessionend": "session_end",
    "session_end": "session_end",
    "precompact": "pre_compact",
    "precompress": "pre_compact",
    "pretooluse": "pre_tool",
}
_OUTPUT_EVENT: dict[tuple[str, str], str] = {
    ("claude-code", "prompt"): "UserPromptSubmit",
    ("codex", "prompt"): "UserPromptSubmit",
    ("gemini", "prompt"): "BeforeAgent",
    ("claude-code", "session_start"): "SessionStart",
    ("codex", "session_start"): "SessionStart",
    ("gemini", "session_start"): "SessionStart",
    ("claude-code", "pre_tool"): "PreToolUse",
}


def canonical_event(name: str | None) -> str:
    """``prompt``, ``stop``, ``session_start``, ``session_end`` ... for any CLI's event name."""
    if not name:
        return ""
    key = name.replace("-", "").replace(" ", "").lower()
    return _EVENTS.get(key, _EVENTS.get(name.lower(), name))


class HookInput(BaseModel):
    """Fields common to the CLIs' hook inputs; unknown fields are kept in ``model_extra``."""

    model_config = ConfigDict(extra="allow")

    session_id: str = ""
    transcript_path: str | None = None
    cwd: str = ""
    hook_event_name: str = ""
    prompt: str | None = None
    source: str | None = None
    """SessionStart: ``startup``, ``resume``, ``clear`` or ``compact``."""
    stop_hook_active: bool = False
    permission_mode: str | None = None

    @property
    def event(self) -> str:
        """The canonical event (``prompt``, ``stop``, ``session_start`` ...)."""
        return canonical_event(self.hook_event_name)


class ClaudeHookInput(HookInput):
    """Claude Code hook input."""

    reason: str | None = None
    trigger: str | None = None
    model: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None


class CodexHookInput(HookInput):
    """Codex CLI hook input."""

    turn_id: str | None = None
    trigger: str | None = None
    """PreCompact: ``manual`` or ``auto``."""
    model: str | None = None
    last_assistant_message: str | None = None


class GeminiHookInput(HookInput):
    """Gemini CLI hook input (``BeforeAgent``/``AfterAgent``/``SessionStart`` ...)."""

    timestamp: str | None = None
    prompt_response: str | None = None
    reason: str | None = None
    trigger: str | None = None


_MODELS: dict[str, type[HookInput]] = {
    "claude-code": ClaudeHookInput,
    "codex": CodexHookInput,
    "gemini": GeminiHookInput,
}


def _normalize_tool(tool: str) -> str:
    """The hook tool ``tool`` names (any spelling the transcript formats accept)."""
    name = canonical_agent(tool)
    if name is None or name not in _MODELS:
        raise InvalidInput(f"unknown hook tool {quoted(tool)} (expected claude-code, codex or gemini)")
    return name


def parse_hook_input(raw: str | bytes, tool: str = "claude-code") -> HookInput:
    """Parse a hook's stdin into the tool's model.

    Liberal: missing fields get defaults, unknown fields are kept, scalar values of the wrong
    type are converted to text. Raises ``InvalidInput`` for empty input, invalid JSON or a
    value that is not a JSON object.
    """
    model = _MODELS[_normalize_tool(tool)]
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    text = text.lstrip("\ufeff").strip()
    if not text:
        raise InvalidInput("empty hook input")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise InvalidInput(f"hook input is not valid JSON: {e}") from e
    if not isinstance(data, dict):
        raise InvalidInput("hook input is not a JSON object")
    fields = model.model_fields
    clean: dict[str, Any] = {}
    for key, value in data.items():
        if not isinstance(key, str):
            continue
        info = fields.get(key)
        if info is None:
            clean[key] = value
            continue
        if value is None:
            if info.is_required() or info.default is not None:
                continue
            clean[key] = None
        elif info.annotation is bool or key == "stop_hook_active":
            clean[key] = value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes")
        elif isinstance(value, str):
            clean[key] = clean_text(value)
        elif isinstance(value, int | float):
            clean[key] = str(value)
        else:
            clean[key] = clean_text(json.dumps(value, ensure_ascii=False, default=str))
    try:
        return model.model_validate(clean)
    except ValidationError as e:  # pragma: no cover - the cleaning above makes this unlikely
        raise InvalidInput(f"invalid hook input: {e}") from e


def truncate_context(text: str, limit: int = MAX_CONTEXT_CHARS) -> str:
    """``text`` cut to at most ``limit`` characters, at a line break when one is near."""
    if len(text) <= limit:
        return text
    room = max(0, limit - len(_TRUNCATED))
    cut = text.rfind("\n", int(room * 0.8), room)
    body = text[: cut if cut > 0 else room]
    return (body + _TRUNCATED)[:limit]


def render_context(
    context: str,
    *,
    tool: str = "claude-code",
    event: str = "prompt",
    wrap: bool = True,
    limit: int = MAX_CONTEXT_CHARS,
) -> str:
    """The stdout JSON that injects ``context`` (``event``: ``prompt`` or ``session_start``).

    Claude Code and Codex: ``UserPromptSubmit``/``SessionStart``; Gemini: ``BeforeAgent``/
    ``SessionStart``. The ``additionalContext`` (tags included) is at most ``limit`` characters.
    Empty context renders ``{}``.
    """
    t = _normalize_tool(tool)
    ev = canonical_event(event)
    name = _OUTPUT_EVENT.get((t, ev))
    if name is None:
        raise InvalidInput(f"{tool} has no context injection for event {quoted(event)}")
    context = clean_text(context).strip()
    if not context:
        return render_noop()
    if wrap:
        overhead = len(CONTEXT_OPEN) + len(CONTEXT_CLOSE) + 2
        body = truncate_context(context, max(0, limit - overhead))
        text = f"{CONTEXT_OPEN}\n{body}\n{CONTEXT_CLOSE}"
    else:
        text = truncate_context(context, limit)
    out = {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}
    return json.dumps(out, ensure_ascii=False)


def render_noop() -> str:
    """Output that changes nothing (valid for every event of every CLI)."""
    return "{}"


def has_nomem_marker(prompt: str | None) -> bool:
    """Whether the prompt opts out with ``#nomem``."""
    return bool(prompt) and has_nomem(prompt or "")


def is_ignored_dir(cwd: str | os.PathLike[str] | None) -> bool:
    """Whether ``cwd`` or a parent up to its git root holds a ``.graphmem-ignore`` file.

    Outside a git repository only ``cwd`` itself is checked. Never raises.
    """
    if cwd is None:
        return False
    text = os.fspath(cwd)
    if not text or "\x00" in text:
        return False
    try:
        here = Path(os.path.abspath(os.path.expanduser(text)))
        root = Path(find_project_root(str(here)))
    except (OSError, ValueError, RuntimeError):
        return False
    for d in (here, *here.parents):
        try:
            if (d / IGNORE_FILE).exists():
                return True
        except OSError:
            pass
        if d == root:
            break
    return False


def should_capture(cwd: str | os.PathLike[str] | None, prompt: str | None = None) -> bool:
    """False when the directory is ignored or the prompt carries ``#nomem``."""
    return not (is_ignored_dir(cwd) or has_nomem_marker(prompt))
