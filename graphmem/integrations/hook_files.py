"""Install and remove graphmem's hooks in the CLIs' settings files (pure file edits, no DB).

All three CLIs share one shape, taken from their documentation::

    {"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", "command": "...",
                                                          "timeout": N}]}]}}

* Claude Code ``settings.json`` (``~/.claude/settings.json``, ``.claude/settings.json``,
  ``.claude/settings.local.json``): events ``UserPromptSubmit``, ``Stop``, ``SessionStart``;
  ``timeout`` in seconds.
* Codex ``hooks.json`` (``~/.codex/hooks.json`` or ``.codex/hooks.json``; hooks are behind the
  ``[features]`` flag ``hooks``/``codex_hooks`` of ``config.toml`` in older versions): same
  events; ``timeout`` in seconds (``timeoutSec`` is an alias).
* Gemini CLI ``settings.json`` (``~/.gemini/settings.json``, ``.gemini/settings.json``):
  events ``BeforeAgent``, ``AfterAgent``, ``SessionStart``; ``timeout`` in milliseconds,
  optional ``name``/``description``; ``hooks`` may also hold ``enabled``/``disabled`` keys,
  which are left alone.

Our entries are recognised by their command string (equal to ``command`` or starting with
``command + " "``). Install is idempotent (an unchanged file is not rewritten), keeps every
other key and hook in place, and updates our entry in place if its fields changed; uninstall
removes only our entries (and the groups/events left empty by that). Writes are atomic
(temporary file + ``os.replace``, through symlinks, keeping the file mode). A file that is not a
JSON object (or has duplicate keys, or comments) raises ``InvalidInput`` and is left untouched.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import stat
import tempfile
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..errors import ConfigError, InvalidInput

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

CLAUDE_EVENTS: tuple[str, ...] = ("UserPromptSubmit", "Stop", "SessionStart")
CODEX_EVENTS: tuple[str, ...] = ("UserPromptSubmit", "Stop", "SessionStart")
GEMINI_EVENTS: tuple[str, ...] = ("BeforeAgent", "AfterAgent", "SessionStart")


class InstallResult(BaseModel):
    """What an install or uninstall did."""

    path: str
    changed: bool
    added: list[str] = Field(default_factory=list)
    """Events where our hook was added or updated."""
    removed: list[str] = Field(default_factory=list)
    """Events our hook was removed from."""
    warnings: list[str] = Field(default_factory=list)


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
    raise InvalidInput(f"unknown scope {scope!r} (expected user, project or local)")


def codex_hooks_path(scope: Scope = "user", project_dir: str | os.PathLike[str] | None = None) -> Path:
    """``$CODEX_HOME/hooks.json`` (default ``~/.codex``) or ``<project>/.codex/hooks.json``."""
    if scope == "user":
        base = os.environ.get("CODEX_HOME")
        return (Path(base) if base else Path.home() / ".codex") / "hooks.json"
    if scope in ("project", "local"):
        return _project(project_dir) / ".codex" / "hooks.json"
    raise InvalidInput(f"unknown scope {scope!r} (expected user or project)")


def gemini_settings_path(scope: Scope = "user", project_dir: str | os.PathLike[str] | None = None) -> Path:
    """``~/.gemini/settings.json`` or ``<project>/.gemini/settings.json``."""
    if scope == "user":
        return Path.home() / ".gemini" / "settings.json"
    if scope in ("project", "local"):
        return _project(project_dir) / ".gemini" / "settings.json"
    raise InvalidInput(f"unknown scope {scope!r} (expected user or project)")


# ------------------------------------------------------------------------------------------
# reading and writing


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _load(path: Path) -> tuple[dict[str, Any], bool]:
    """(settings, existed). Raises ``InvalidInput`` for anything but a JSON object."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, False
    except OSError as e:
        raise InvalidInput(f"cannot read {path}: {e}") from e
    try:
        text = raw.decode("utf-8").lstrip("\ufeff")
    except UnicodeDecodeError as e:
        raise InvalidInput(f"{path} is not UTF-8 text; left untouched") from e
    if not text.strip():
        return {}, True
    try:
        data = json.loads(text, object_pairs_hook=_reject_duplicates)
    except json.JSONDecodeError as e:
        hint = (
            " (comments are not supported: remove them or edit the file by hand)"
            if "//" in text or "/*" in text
            else ""
        )
        raise InvalidInput(
            f"{path} is not valid JSON at line {e.lineno} column {e.colno}: {e.msg}{hint}; left untouched"
        ) from e
    except (ValueError, RecursionError) as e:
        raise InvalidInput(f"{path} cannot be read as JSON ({e}); left untouched") from e
    if not isinstance(data, dict):
        raise InvalidInput(f"{path} does not hold a JSON object; left untouched")
    return data, True


def _write(path: Path, data: dict[str, Any]) -> None:
    """Atomically replace ``path`` (its symlink target, if it is one) with ``data``."""
    target = Path(os.path.realpath(path))
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            mode: int | None = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            mode = None
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            if mode is not None:
                os.chmod(tmp, mode)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as e:
        raise ConfigError(f"cannot write {target}: {e}") from e


def _hooks_object(data: dict[str, Any], path: Path, *, create: bool) -> dict[str, Any] | None:
    hooks = data.get("hooks")
    if hooks is None:
        if not create:
            return None
        hooks = {}
        data["hooks"] = hooks
    if not isinstance(hooks, dict):
        raise InvalidInput(f"{path}: 'hooks' is not a JSON object; left untouched")
    return hooks


def _is_ours(entry: Any, command: str) -> bool:
    if not isinstance(entry, dict):
        return False
    cmd = entry.get("command")
    return isinstance(cmd, str) and (cmd.strip() == command or cmd.strip().startswith(command + " "))


def _check_command(command: str) -> str:
    command = command.strip()
    if not command or "\n" in command or "\x00" in command:
        raise InvalidInput(f"invalid hook command {command!r}")
    return command


# ------------------------------------------------------------------------------------------
# merging


def _install(
    path: Path,
    command: str,
    events: Sequence[str],
    entry: dict[str, Any],
    warn: list[str],
) -> InstallResult:
    command = _check_command(command)
    data, _existed = _load(path)
    before = copy.deepcopy(data)
    hooks = _hooks_object(data, path, create=True)
    assert hooks is not None
    added: list[str] = []
    for event in events:
        groups = hooks.get(event)
        if groups is None:
            groups = []
        if not isinstance(groups, list):
            raise InvalidInput(f"{path}: hooks.{event} is not a list; left untouched")
        desired = dict(entry)
        found = False
        new_groups: list[Any] = []
        for group in groups:
            if not (isinstance(group, dict) and isinstance(group.get("hooks"), list)):
                new_groups.append(group)
                continue
            kept: list[Any] = []
            had_ours = False
            for h in group["hooks"]:
                if _is_ours(h, command):
                    had_ours = True
                    if not found:
                        found = True
                        merged = dict(h)
                        merged.update(desired)
                        kept.append(merged)
                    continue
                kept.append(h)
            if had_ours and not kept:
                continue
            if had_ours:
                group = dict(group)
                group["hooks"] = kept
            new_groups.append(group)
        if not found:
            new_groups.append({"hooks": [desired]})
        if new_groups != groups or event not in hooks:
            added.append(event)
        hooks[event] = new_groups
    changed = data != before
    if changed:
        _write(path, data)
    return InstallResult(path=str(path), changed=changed, added=added if changed else [], warnings=warn)


def _uninstall(path: Path, command: str) -> InstallResult:
    command = _check_command(command)
    data, existed = _load(path)
    if not existed:
        return InstallResult(path=str(path), changed=False)
    hooks = _hooks_object(data, path, create=False)
    if hooks is None:
        return InstallResult(path=str(path), changed=False)
    removed: list[str] = []
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        new_groups: list[Any] = []
        touched = False
        for group in groups:
            if not (isinstance(group, dict) and isinstance(group.get("hooks"), list)):
                new_groups.append(group)
                continue
            kept = [h for h in group["hooks"] if not _is_ours(h, command)]
            if len(kept) == len(group["hooks"]):
                new_groups.append(group)
                continue
            touched = True
            if kept:
                group = dict(group)
                group["hooks"] = kept
                new_groups.append(group)
        if touched:
            removed.append(event)
            if new_groups:
                hooks[event] = new_groups
            else:
                del hooks[event]
    if not removed:
        return InstallResult(path=str(path), changed=False)
    if not hooks:
        del data["hooks"]
    _write(path, data)
    return InstallResult(path=str(path), changed=True, removed=removed)


def _resolve(
    settings_path: str | os.PathLike[str] | None,
    default: Path,
) -> Path:
    return Path(settings_path) if settings_path is not None else default


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
    path = _resolve(settings_path, claude_settings_path(scope, project_dir))
    warn: list[str] = []
    data, _ = _load(path)
    if data.get("disableAllHooks") is True:
        warn.append(f"{path} sets disableAllHooks: hooks will not run until it is removed")
    entry = {"type": "command", "command": _check_command(command), "timeout": timeout}
    return _install(path, command, events, entry, warn)


def claude_settings_uninstall(
    settings_path: str | os.PathLike[str] | None,
    command: str,
    scope: Scope = "user",
    *,
    project_dir: str | os.PathLike[str] | None = None,
) -> InstallResult:
    """Remove every hook entry running ``command`` from a Claude Code settings file."""
    return _uninstall(_resolve(settings_path, claude_settings_path(scope, project_dir)), command)


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
    path = _resolve(hooks_path, codex_hooks_path(scope, project_dir))
    warn: list[str] = []
    if codex_hooks_enabled(config_path) is False:
        warn.append("hooks are disabled in Codex's config.toml ([features] hooks = false)")
    entry = {"type": "command", "command": _check_command(command), "timeout": timeout}
    return _install(path, command, events, entry, warn)


def codex_hooks_uninstall(
    hooks_path: str | os.PathLike[str] | None,
    command: str,
    scope: Scope = "user",
    *,
    project_dir: str | os.PathLike[str] | None = None,
) -> InstallResult:
    """Remove every hook entry running ``command`` from a Codex ``hooks.json`` file."""
    return _uninstall(_resolve(hooks_path, codex_hooks_path(scope, project_dir)), command)


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
    path = _resolve(settings_path, gemini_settings_path(scope, project_dir))
    warn: list[str] = []
    data, _ = _load(path)
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
        "command": _check_command(command),
        "timeout": timeout * 1000,
        "description": "graphmem long-term memory",
    }
    return _install(path, command, events, entry, warn)


def gemini_settings_uninstall(
    settings_path: str | os.PathLike[str] | None,
    command: str,
    scope: Scope = "user",
    *,
    project_dir: str | os.PathLike[str] | None = None,
) -> InstallResult:
    """Remove every hook entry running ``command`` from a Gemini CLI settings file."""
    return _uninstall(_resolve(settings_path, gemini_settings_path(scope, project_dir)), command)


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
