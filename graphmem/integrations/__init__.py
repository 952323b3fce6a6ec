"""Integration parsing layer for coding CLIs (no database code).

* formats: the table of transcript formats (Claude Code, Codex CLI, Gemini CLI, Aider), each
  read into :class:`ImportedSession` with :class:`~graphmem.models.TurnIn` turns keyed by the
  source's own ids (re-import adds nothing), plus incremental reading for Stop hooks
  (:func:`read_new`); transcript and turns hold the machinery every format shares;
* redaction: :func:`redact`, :func:`redact_turn` replace secrets with ``[REDACTED:<kind>]``;
* hooks: stdin models, context output rendering, opt-out rules; prompt_commands: the memory
  commands a prompt may start with (``remember:``, ``#forget``);
* hook_files: install/uninstall graphmem's hooks in the CLIs' hook files (settings.json, hooks.json).
"""

from ..redaction import Redactor, redact, redact_turn, redact_turn_with_kinds, redact_value
from . import tool_hooks  # noqa: F401  (adds Claude Code's PreToolUse to HOOK_FILES)
from .aider import parse_aider
from .claude_code import parse_claude_code
from .codex import parse_codex
from .formats import (
    FORMATS,
    detect_agent,
    detect_format,
    parse_transcript,
    read_new,
    read_new_claude_code,
    read_new_codex,
    read_new_gemini,
    transcript_format,
)
from .gemini import parse_gemini
from .hook_files import (
    CLAUDE_EVENTS,
    CODEX_EVENTS,
    GEMINI_EVENTS,
    InstallResult,
    claude_settings_install,
    claude_settings_path,
    claude_settings_uninstall,
    codex_hooks_enabled,
    codex_hooks_install,
    codex_hooks_path,
    codex_hooks_uninstall,
    gemini_settings_install,
    gemini_settings_path,
    gemini_settings_uninstall,
)
from .hooks import (
    IGNORE_FILE,
    MAX_CONTEXT_CHARS,
    NOMEM_MARKER,
    ClaudeHookInput,
    CodexHookInput,
    GeminiHookInput,
    HookInput,
    canonical_event,
    has_nomem_marker,
    is_ignored_dir,
    parse_hook_input,
    render_context,
    render_noop,
    should_capture,
    truncate_context,
)
from .prompt_commands import PromptCommand, parse_prompt_command
from .transcript import (
    COMPACTION_MARKER,
    CONTEXT_CLOSE,
    CONTEXT_OPEN,
    INTERRUPTED_NOTE,
    ImportedSession,
    ReadCursor,
    ReadOptions,
    TranscriptFormat,
)

__all__ = [
    "CLAUDE_EVENTS",
    "CODEX_EVENTS",
    "COMPACTION_MARKER",
    "CONTEXT_CLOSE",
    "CONTEXT_OPEN",
    "FORMATS",
    "GEMINI_EVENTS",
    "IGNORE_FILE",
    "INTERRUPTED_NOTE",
    "MAX_CONTEXT_CHARS",
    "NOMEM_MARKER",
    "ClaudeHookInput",
    "CodexHookInput",
    "GeminiHookInput",
    "HookInput",
    "ImportedSession",
    "InstallResult",
    "PromptCommand",
    "ReadCursor",
    "ReadOptions",
    "Redactor",
    "TranscriptFormat",
    "canonical_event",
    "claude_settings_install",
    "claude_settings_path",
    "claude_settings_uninstall",
    "codex_hooks_enabled",
    "codex_hooks_install",
    "codex_hooks_path",
    "codex_hooks_uninstall",
    "detect_agent",
    "detect_format",
    "gemini_settings_install",
    "gemini_settings_path",
    "gemini_settings_uninstall",
    "has_nomem_marker",
    "is_ignored_dir",
    "parse_aider",
    "parse_claude_code",
    "parse_codex",
    "parse_gemini",
    "parse_hook_input",
    "parse_prompt_command",
    "parse_transcript",
    "read_new",
    "read_new_claude_code",
    "read_new_codex",
    "read_new_gemini",
    "redact",
    "redact_turn",
    "redact_turn_with_kinds",
    "redact_value",
    "render_context",
    "render_noop",
    "should_capture",
    "transcript_format",
    "truncate_context",
]
