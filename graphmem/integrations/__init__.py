"""Integration parsing layer for coding CLIs (no database code).

* importers: Claude Code, Codex CLI, Gemini CLI and Aider transcripts -> :class:`ImportedSession`
  with :class:`~graphmem.models.TurnIn` turns keyed by the source's own ids (re-import adds
  nothing), plus incremental reading for Stop hooks (:func:`read_new`);
* redaction: :func:`redact`, :func:`redact_turn` replace secrets with ``[REDACTED:<kind>]``;
* hooks: stdin models, context output rendering, opt-out rules;
* hook_files: install/uninstall graphmem's hooks in the CLIs' hook files (settings.json, hooks.json).
"""

from ._common import COMPACTION_MARKER, CONTEXT_CLOSE, CONTEXT_OPEN, INTERRUPTED_NOTE, ImportedSession, ReadCursor
from .aider import parse_aider
from .claude_code import parse_claude_code, read_new_claude_code
from .codex import parse_codex, read_new_codex
from .gemini import parse_gemini, read_new_gemini
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
from .importers import detect_agent, parse_transcript, read_new
from .redaction import Redactor, redact, redact_turn, redact_turn_with_kinds, redact_value

__all__ = [
    "CLAUDE_EVENTS",
    "CODEX_EVENTS",
    "COMPACTION_MARKER",
    "CONTEXT_CLOSE",
    "CONTEXT_OPEN",
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
    "ReadCursor",
    "Redactor",
    "canonical_event",
    "claude_settings_install",
    "claude_settings_path",
    "claude_settings_uninstall",
    "codex_hooks_enabled",
    "codex_hooks_install",
    "codex_hooks_path",
    "codex_hooks_uninstall",
    "detect_agent",
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
    "truncate_context",
]
