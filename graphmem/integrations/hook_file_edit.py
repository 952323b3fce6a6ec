"""The file edits behind ``graphmem hooks install/uninstall`` (pure file edits, no DB): read a CLI's
JSON settings file strictly, merge or remove our hook entries, write it back atomically.

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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..errors import ConfigError, InvalidInput, quoted

__all__ = ["InstallResult", "check_command", "install_entries", "load_settings", "resolve", "uninstall_entries"]


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
# reading and writing


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def load_settings(path: Path) -> tuple[dict[str, Any], bool]:
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


def check_command(command: str) -> str:
    command = command.strip()
    if not command or "\n" in command or "\x00" in command:
        raise InvalidInput(f"invalid hook command {quoted(command)}")
    return command


# ------------------------------------------------------------------------------------------
# merging


def install_entries(
    path: Path,
    command: str,
    events: Sequence[str],
    entry: dict[str, Any],
    warn: list[str],
) -> InstallResult:
    command = check_command(command)
    data, _existed = load_settings(path)
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


def uninstall_entries(path: Path, command: str) -> InstallResult:
    command = check_command(command)
    data, existed = load_settings(path)
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


def resolve(
    settings_path: str | os.PathLike[str] | None,
    default: Path,
) -> Path:
    return Path(settings_path) if settings_path is not None else default
