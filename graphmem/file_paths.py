"""Which files a tool call names, and how a file's path is written (pure functions, no database).

A coding CLI's tool calls name files: Claude Code's ``Read``/``Edit``/``Write``/``MultiEdit``/
``NotebookEdit`` (``file_path``, ``notebook_path``), ``Grep``/``Glob``/``LS`` (``path``); Gemini
CLI's ``read_file``/``write_file``/``replace``/``read_many_files``/``glob``/``grep``...; Codex's
``apply_patch`` (the ``*** Update File:`` lines of the patch); and the path arguments of shell
commands (``Bash``, ``run_shell_command``, Codex's ``shell``/``exec_command``), where a word looks
like a file (it has an extension, or starts with ``/`` or ``./``).

:func:`touched_files` returns ``(path, action)`` pairs, the action one of :data:`ACTIONS`. Paths are
normalised (:func:`normalize_path`) but stay as the call wrote them otherwise: the store resolves a
relative one against the session's working directory and writes it relative to the project root
when it lies inside (``turns/append``), and :func:`project_relative` does the same in Python for a
path about to be used (the ``PreToolUse`` hook, ``graphmem files history``).
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Iterable, Mapping
from typing import Any

from .models import clean_text

__all__ = [
    "ACTIONS",
    "EDIT_ACTIONS",
    "TOOL_ACTIONS",
    "normalize_path",
    "patch_files",
    "project_relative",
    "shell_files",
    "touched_files",
]

ACTIONS = ("read", "edit", "write", "search", "run")
EDIT_ACTIONS = ("edit", "write")
"""The actions that change a file."""

TOOL_ACTIONS: dict[str, str] = {
    # Claude Code
    "Read": "read", "NotebookRead": "read", "Edit": "edit", "MultiEdit": "edit", "NotebookEdit": "edit",
    "Write": "write", "Grep": "search", "Glob": "search", "LS": "search",
    # Gemini CLI
    "read_file": "read", "read_many_files": "read", "write_file": "write", "replace": "edit", "edit": "edit",
    "glob": "search", "grep": "search", "search_file_content": "search", "grep_search": "search",
    "list_directory": "search",
}
"""Tools whose arguments name files by key (:data:`_PATH_KEYS`), and what they do to them."""

_PATH_KEYS = ("file_path", "notebook_path", "absolute_path", "path", "dir_path")
_LIST_KEYS = ("paths", "file_paths")
_SHELL_TOOLS = ("Bash", "run_shell_command", "shell", "local_shell", "exec_command", "container.exec")
_SHELL_KEYS = ("command", "cmd", "script")
_PATCH_TOOLS = ("apply_patch",)
_PATCH_LINE = re.compile(r"^\*\*\* (Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M)
_PATCH_ACTIONS = {"Update": "edit", "Add": "write", "Delete": "write"}
_OPERATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")", "{", "}", "then", "do", "else", "!"})
_REDIRECTS = frozenset({">", ">>", "1>", "2>", "&>", "1>>", "2>>"})
_FILE_NAME = re.compile(r"^[\w@+-][\w.@+-]*\.[A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_]*$")
_NOT_FILES = ("/dev/", "/proc/", "/sys/")
_GLOB = re.compile(r"[*?\[\]{}$`<>|;&'\"\\]")
MAX_FILES_PER_CALL = 20
"""At most this many files are recorded for one tool call (a shell command can name many)."""


def normalize_path(raw: object) -> str | None:
    """``raw`` as a clean POSIX path (``./`` and ``//`` gone, ``a/../b`` folded), or None when it
    names no single file: empty, a glob pattern, a URL, ``~``, a relative path climbing above its
    directory, or over 1,000 characters. A lone surrogate becomes U+FFFD, as in any stored text."""
    if not isinstance(raw, str):
        return None
    text = clean_text(raw).strip()
    if text.startswith("file://"):
        text = text[len("file://"):]
    if not text or len(text) > 1000 or "\x00" in text or "\n" in text:
        return None
    if "://" in text or text.startswith("~") or _GLOB.search(text):
        return None
    path = posixpath.normpath(text)
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    if path in (".", "/") or path == ".." or path.startswith("../"):
        return None
    return path


def project_relative(path: str, cwd: str, project: str) -> str:
    """``path`` (relative to ``cwd`` when not absolute) written as the store keeps it: relative to
    ``project`` when it lies inside, else absolute. ``path`` is expected normalised."""
    full = path if path.startswith("/") else posixpath.join(cwd.rstrip("/") or "/", path)
    full = posixpath.normpath(full)
    root = project.rstrip("/")
    if root and full.startswith(root + "/"):
        return full[len(root) + 1:]
    return full


def _as_args(args: Any) -> Any:
    if isinstance(args, str):
        text = args.strip()
        if text.startswith("{"):
            try:
                return json.loads(text)
            except ValueError:
                return args
    return args


def patch_files(patch: str) -> list[tuple[str, str]]:
    """The files a Codex ``apply_patch`` patch changes, with ``edit`` or ``write``."""
    out: list[tuple[str, str]] = []
    for m in _PATCH_LINE.finditer(patch):
        raw, action = (m.group(2), _PATCH_ACTIONS[m.group(1)]) if m.group(1) else (m.group(3), "write")
        path = normalize_path(raw)
        if path is not None:
            out.append((path, action))
    return out


def _looks_like_file(word: str) -> bool:
    if word.startswith(_NOT_FILES) or word.endswith("/"):
        return False
    if word.startswith(("/", "./")):
        return True
    return bool(_FILE_NAME.match(posixpath.basename(word)))


def _shell_words(command: str) -> list[str]:
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:
        return command.split()


def shell_files(command: str) -> list[str]:
    """The words of a shell command that look like file paths: not the program of each simple
    command, not options, not assignments or patterns; a word after a redirection counts."""
    out: list[str] = []
    first = True
    redirect = False
    for word in _shell_words(command[:4000]):
        if word in _OPERATORS:
            first, redirect = True, False
            continue
        if word in _REDIRECTS:
            redirect = True
            continue
        if first and not redirect:
            first = word in ("sudo", "env", "time", "nice", "exec", "command") or "=" in word
            continue
        redirect = False
        if word.startswith("-") or "=" in word:
            continue
        path = normalize_path(word)
        if path is not None and _looks_like_file(word):
            out.append(path)
    return out


def _shell_text(args: Any) -> str | None:
    if isinstance(args, str):
        return args
    if isinstance(args, list) and all(isinstance(a, str) for a in args):
        # ["bash", "-lc", "script"] runs the script; any other argv is the command itself
        if len(args) >= 3 and args[-2] in ("-c", "-lc") and posixpath.basename(args[0]) in ("bash", "sh", "zsh"):
            return str(args[-1])
        return shlex.join(args)
    if isinstance(args, Mapping):
        for key in _SHELL_KEYS:
            if key in args:
                inner: str | None = _shell_text(args[key])
                return inner
    return None


def _paths_of(args: Mapping[str, Any]) -> Iterable[object]:
    for key in _PATH_KEYS:
        if key in args:
            yield args[key]
            return
    for key in _LIST_KEYS:
        value = args.get(key)
        if isinstance(value, list):
            yield from value
            return


def touched_files(name: str, args: Any) -> list[tuple[str, str]]:
    """The ``(path, action)`` pairs tool call ``name`` with ``args`` (a mapping, a JSON text or a
    patch) names; empty for a tool that names no file. Each path once, at most
    :data:`MAX_FILES_PER_CALL`."""
    args = _as_args(args)
    found: list[tuple[str, str]] = []
    action = TOOL_ACTIONS.get(name)
    if action is not None and isinstance(args, Mapping):
        for raw in _paths_of(args):
            path = normalize_path(raw)
            if path is not None:
                found.append((path, action))
    elif name in _PATCH_TOOLS:
        text = args.get("input") or args.get("patch") if isinstance(args, Mapping) else args
        if isinstance(text, str):
            found = patch_files(text)
    elif name in _SHELL_TOOLS:
        text = _shell_text(args)
        if text:
            found = [(p, "run") for p in shell_files(text)]
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for path, act in found:
        if path not in seen:
            seen.add(path)
            out.append((path, act))
    return out[:MAX_FILES_PER_CALL]
