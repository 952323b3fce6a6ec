"""Install and remove graphmem's hooks in the CLIs' settings files (pure file edits, no DB).

All three CLIs share one shape, taken from their documentation::

    {"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", "command": "...",
                                                          "timeout": N}]}]}}

* Claude Code ``settings.json`` (``~/.claude/settings.json``, ``.claude/settings.json``,
  ``.claude/settings.local.json``): events ``UserPromptSubmit``, ``Stop``, ``SessionStart``,
  ``SessionEnd``, ``PreCompact``; ``timeout`` in seconds.
* Codex ``hooks.json`` (``~/.codex/hooks.json`` or ``.codex/hooks.json``; hooks are behind the
  ``[features]`` flag ``hooks``/``codex_hooks`` of ``config.toml`` in older versions): events
  ``UserPromptSubmit``, ``Stop``, ``SessionStart``, ``PreCompact`` (Codex has no session-end
  event); ``timeout`` in seconds (``timeoutSec`` is an alias).
* Gemini CLI ``settings.json`` (``~/.gemini/settings.json``, ``.gemini/settings.json``):
  events ``BeforeAgent``, ``AfterAgent``, ``SessionStart``, ``SessionEnd``, ``PreCompress``;
  ``timeout`` in milliseconds, optional ``name``/``description``; ``hooks`` may also hold
  ``enabled``/``disabled`` keys, which are left alone.

The edits themselves (strict reading, merging, atomic writes) are in
:mod:`graphmem.integrations.hook_file_edit`.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..errors import InvalidInput, quoted
from .hook_file_edit import InstallResult, check_command, install_entries, load_settings, resolve, uninstall_entries

__all__ = [
    "CLAUDE_EVENTS",
    "CODEX_EVENTS",
    "GEMINI_EVENTS",
    "HOOK_FILES",
    "HookFile",
    "InstallResult",
    "Scope",
    "claude_settings_install",
    "claude_settings_path",
    "claude_settings_uninstall",
    "codex_hooks_enabled",
    "codex_hooks_install",
    "codex_hooks_path",
    "codex_hooks_uninstall",
    "gemini_settings_install",
    "gemini_settings_path",
    "gemini_settings_uninstall",
]

Scope = Literal["user", "project", "local"]

CLAUDE_EVENTS: tuple[str, ...] = ("UserPromptSubmit", "Stop", "SessionStart", "SessionEnd", "PreCompact")
CODEX_EVENTS: tuple[str, ...] = ("UserPromptSubmit", "Stop", "SessionStart", "PreCompact")
GEMINI_EVENTS: tuple[str, ...] = ("BeforeAgent", "AfterAgent", "SessionStart", "SessionEnd", "PreCompress")


# ------------------------------------------------------------------------------------------
# paths


def _project(project_dir: str | os.PathLike[str] | None) -> Path:
    return Path(project_dir) if project_dir is not None else Path.cwd()


def claude_settings_path(scope: Scope = "user", project_dir: str | os.PathLike[str] | None = None) -> Path:
    """``~/.claude/settings.json``, ``<project>/.claude/settings.json`` or ``settings.local.json``."""
    if scope == "user":
        base = os.environ.get("CLAUDE_CONFIG_DIR")
        return (Path(base) if base else Path.home() / ".claude") / "settings.json"
    if scope == "project":
        return _project(project_dir) / ".claude" / "settings.json"
    if scope == "local":
        return _project(project_dir) / ".claude" / "settings.local.json"
    raise InvalidInput(f"unknown scope {quoted(scope)} (expected user, project or local)")


def codex_hooks_path(scope: Scope = "user", project_dir: str | os.PathLike[str] | None = None) -> Path:
    """``$CODEX_HOME/hooks.json`` (default ``~/.codex``) or ``<project>/.codex/hooks.json``."""
    if scope == "user":
        base = os.environ.get("CODEX_HOME")
        return (Path(base) if base else Path.home() / ".codex") / "hooks.json"
    if scope in ("project", "local"):
        return _project(project_dir) / ".codex" / "hooks.json"
    raise InvalidInput(f"unknown scope {quoted(scope)} (expected user or project)")


def gemini_settings_path(scope: Scope = "user", project_dir: str | os.PathLike[str] | None = None) -> Path:
    """``~/.gemini/settings.json`` or ``<project>/.gemini/settings.json``."""
    if scope == "user":
        return Path.home() / ".gemini" / "settings.json"
    if scope in ("project", "local"):
        return _project(project_dir) / ".gemini" / "settings.json"
    raise InvalidInput(f"unknown scope {quoted(scope)} (expected user or project)")


# ------------------------------------------------------------------------------------------
# Claude Code


def claude_settings_install(
    settings_path: str | os.PathLike[str] | None,
    command: str,
    scope: Scope = "user",
    *,
    project_dir: str | os.PathLike[str] | None = None,
    timeout: int = 30,
    events: Sequence[str] = CLAUDE_EVENTS,
) -> InstallResult:
    """Add ``command`` as a hook for ``events`` to a Claude Code settings file.

    ``settings_path`` None means the file of ``scope`` (see ``claude_settings_path``). The hook
    gets ``{"type": "command", "command": command, "timeout": timeout}`` (seconds).
    """
    path = resolve(settings_path, claude_settings_path(scope, project_dir))
    warn: list[str] = []
    data, _ = load_settings(path)
    if data.get("disableAllHooks") is True:
        warn.append(f"{path} sets disableAllHooks: hooks will not run until it is removed")
    entry = {"type": "command", "command": check_command(command), "timeout": timeout}
    return install_entries(path, command, events, entry, warn)


def claude_settings_uninstall(
    settings_path: str | os.PathLike[str] | None,
    command: str,
    scope: Scope = "user",
    *,
    project_dir: str | os.PathLike[str] | None = None,
) -> InstallResult:
    """Remove every hook entry running ``command`` from a Claude Code settings file."""
    return uninstall_entries(resolve(settings_path, claude_settings_path(scope, project_dir)), command)


# ------------------------------------------------------------------------------------------
# Codex


def codex_hooks_enabled(config_path: str | os.PathLike[str] | None = None) -> bool | None:
    """The ``[features]`` hooks flag of Codex's ``config.toml`` (None if unset or unreadable)."""
    if config_path is None:
        base = os.environ.get("CODEX_HOME")
        config_path = (Path(base) if base else Path.home() / ".codex") / "config.toml"
    try:
        with open(config_path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return None
    features = data.get("features")
    if not isinstance(features, dict):
        return None
    for key in ("hooks", "codex_hooks"):
        value = features.get(key)
        if isinstance(value, bool):
            return value
    return None


def codex_hooks_install(
    hooks_path: str | os.PathLike[str] | None,
    command: str,
    scope: Scope = "user",
    *,
    project_dir: str | os.PathLike[str] | None = None,
    timeout: int = 30,
    events: Sequence[str] = CODEX_EVENTS,
    config_path: str | os.PathLike[str] | None = None,
) -> InstallResult:
    """Add ``command`` as a hook for ``events`` to a Codex ``hooks.json`` file."""
    path = resolve(hooks_path, codex_hooks_path(scope, project_dir))
    warn: list[str] = []
    if codex_hooks_enabled(config_path) is False:
        warn.append("hooks are disabled in Codex's config.toml ([features] hooks = false)")
    entry = {"type": "command", "command": check_command(command), "timeout": timeout}
    return install_entries(path, command, events, entry, warn)


def codex_hooks_uninstall(
    hooks_path: str | os.PathLike[str] | None,
    command: str,
    scope: Scope = "user",
    *,
    project_dir: str | os.PathLike[str] | None = None,
) -> InstallResult:
    """Remove every hook entry running ``command`` from a Codex ``hooks.json`` file."""
    return uninstall_entries(resolve(hooks_path, codex_hooks_path(scope, project_dir)), command)


# ------------------------------------------------------------------------------------------
# Gemini CLI


def gemini_settings_install(
    settings_path: str | os.PathLike[str] | None,
    command: str,
    scope: Scope = "user",
    *,
    project_dir: str | os.PathLike[str] | None = None,
    timeout: int = 30,
    events: Sequence[str] = GEMINI_EVENTS,
) -> InstallResult:
    """Add ``command`` as a hook for ``events`` to a Gemini CLI settings file.

    ``timeout`` is given in seconds and written in milliseconds, as Gemini expects.
    """
    path = resolve(settings_path, gemini_settings_path(scope, project_dir))
    warn: list[str] = []
    data, _ = load_settings(path)
    for key in ("hooksConfig", "hooks"):
        obj = data.get(key)
        if isinstance(obj, dict) and obj.get("enabled") is False:
            warn.append(f"{path} sets {key}.enabled = false: hooks will not run until it is enabled")
    tools = data.get("tools")
    if isinstance(tools, dict) and tools.get("enableHooks") is False:
        warn.append(f"{path} sets tools.enableHooks = false: hooks will not run until it is enabled")
    entry = {
        "name": "graphmem",
        "type": "command",
        "command": check_command(command),
        "timeout": timeout * 1000,
        "description": "graphmem long-term memory",
    }
    return install_entries(path, command, events, entry, warn)


def gemini_settings_uninstall(
    settings_path: str | os.PathLike[str] | None,
    command: str,
    scope: Scope = "user",
    *,
    project_dir: str | os.PathLike[str] | None = None,
) -> InstallResult:
    """Remove every hook entry running ``command`` from a Gemini CLI settings file."""
    return uninstall_entries(resolve(settings_path, gemini_settings_path(scope, project_dir)), command)


# ------------------------------------------------------------------------------------------
# the table


@dataclass(frozen=True)
class HookFile:
    """One CLI's hook file: where it is, which events graphmem hooks, how to install and remove
    our entries."""

    tool: str
    """The CLI (``claude-code``, ``codex``, ``gemini``)."""
    events: tuple[str, ...]
    scopes: tuple[Scope, ...]
    """The scopes with a file of their own."""
    path: Callable[[Scope, str | os.PathLike[str] | None], Path]
    """The file of a scope (``project_dir`` for the project scopes)."""
    install: Callable[..., InstallResult]
    uninstall: Callable[..., InstallResult]
    note: str | None = None
    """What to tell the person after an install, if anything."""


HOOK_FILES: dict[str, HookFile] = {
    "claude-code": HookFile("claude-code", CLAUDE_EVENTS, ("user", "project", "local"), claude_settings_path,
                            claude_settings_install, claude_settings_uninstall),
    "codex": HookFile("codex", CODEX_EVENTS, ("user", "project"), codex_hooks_path, codex_hooks_install,
                      codex_hooks_uninstall, note="Codex: hooks may need `[features] hooks = true` in ~/.codex/config.toml"),
    "gemini": HookFile("gemini", GEMINI_EVENTS, ("user", "project"), gemini_settings_path, gemini_settings_install,
                       gemini_settings_uninstall),
}
"""The hook file of every CLI graphmem installs hooks in."""
