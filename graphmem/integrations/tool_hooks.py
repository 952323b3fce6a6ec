"""Hooks on tool events (Claude Code's ``PreToolUse``): installed in a group of their own with a
``matcher`` naming the tools, next to the other hooks of :mod:`.hook_files`.

``PreToolUse`` runs before each matching tool; graphmem's hook injects the history of the file the
tool is about to read or change (``graphmem hook claude-code`` with a ``PreToolUse`` payload). Gemini
CLI's ``BeforeTool`` documents no context injection and Codex's ``PreToolUse`` covers shell commands
only, so only Claude Code gets one.

Importing this module adds the events to the :data:`~.hook_files.HOOK_FILES` entries of
:data:`TOOL_EVENTS` (``graphmem.integrations`` imports it). Uninstalling needs nothing more: it
removes our command from every event, and the matcher group left empty with it.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .hook_file_edit import _hooks_object, _is_ours, _write, check_command, load_settings
from .hook_files import HOOK_FILES, HookFile, InstallResult

__all__ = ["PRE_TOOL_MATCHER", "TOOL_EVENTS", "install_tool_events", "with_tool_events"]

PRE_TOOL_MATCHER = "Read|Edit|Write|MultiEdit|NotebookEdit"
"""The Claude Code tools whose file graphmem's ``PreToolUse`` hook looks up."""

TOOL_EVENTS: dict[str, dict[str, str]] = {"claude-code": {"PreToolUse": PRE_TOOL_MATCHER}}
"""Per CLI: tool event -> matcher."""


def install_tool_events(path: Path, command: str, matchers: Mapping[str, str], entry: dict[str, Any]) -> InstallResult:
    """Put ``entry`` (running ``command``) in a group ``{"matcher": ..., "hooks": [entry]}`` of each
    event of ``matchers``. Our entry is updated in place when its group has the same matcher, and
    moved to a group of its own otherwise; other hooks are left alone."""
    command = check_command(command)
    data, _ = load_settings(path)
    before = copy.deepcopy(data)
    hooks = _hooks_object(data, path, create=True)
    assert hooks is not None
    added: list[str] = []
    for event, matcher in matchers.items():
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            from ..errors import InvalidInput

            raise InvalidInput(f"{path}: hooks.{event} is not a list; left untouched")
        new_groups: list[Any] = []
        placed = False
        for group in groups:
            if not (isinstance(group, dict) and isinstance(group.get("hooks"), list)):
                new_groups.append(group)
                continue
            ours = [h for h in group["hooks"] if _is_ours(h, command)]
            if not ours:
                new_groups.append(group)
                continue
            kept = [h for h in group["hooks"] if not _is_ours(h, command)]
            if group.get("matcher") == matcher and not placed:
                merged = {**ours[0], **entry}
                new_groups.append({**group, "hooks": [*kept, merged]})
                placed = True
            elif kept:
                new_groups.append({**group, "hooks": kept})
        if not placed:
            new_groups.append({"matcher": matcher, "hooks": [dict(entry)]})
        if new_groups != groups or event not in hooks:
            added.append(event)
        hooks[event] = new_groups
    changed = data != before
    if changed:
        _write(path, data)
    return InstallResult(path=str(path), changed=changed, added=added if changed else [])


def with_tool_events(hook_file: HookFile, matchers: Mapping[str, str]) -> HookFile:
    """``hook_file`` that also installs the tool events of ``matchers`` (in matcher groups)."""
    base_install = hook_file.install

    def install(settings_path: str | os.PathLike[str] | None, command: str, scope: Any = "user", *,
                project_dir: str | os.PathLike[str] | None = None, timeout: int = 30,
                events: Sequence[str] | None = None, **kwargs: Any) -> InstallResult:
        wanted = tuple(hook_file.events if events is None else events)
        plain = tuple(e for e in wanted if e not in matchers)
        result = base_install(settings_path, command, scope, project_dir=project_dir, timeout=timeout,
                              events=plain, **kwargs)
        tools = {e: m for e, m in matchers.items() if e in wanted}
        if not tools:
            return result
        path = Path(result.path)
        entry = {"type": "command", "command": check_command(command), "timeout": timeout}
        more = install_tool_events(path, command, tools, entry)
        return result.model_copy(update={"changed": result.changed or more.changed,
                                         "added": [*result.added, *more.added]})

    events = hook_file.events + tuple(e for e in matchers if e not in hook_file.events)
    return dataclasses.replace(hook_file, events=events, install=install)


for _tool, _matchers in TOOL_EVENTS.items():
    if not set(_matchers) <= set(HOOK_FILES[_tool].events):
        HOOK_FILES[_tool] = with_tool_events(HOOK_FILES[_tool], _matchers)
