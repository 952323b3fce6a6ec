"""``graphmem hooks install|uninstall|status <claude-code|codex|gemini>``: our entries in the CLIs'
hook files, leaving every other hook alone."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from .common import add_json_flag, emit_json, print_table

__all__ = ["TOOLS", "default_hook_command", "register", "with_environment"]

TOOLS = ("claude-code", "codex", "gemini")
"""The CLIs whose hooks graphmem installs."""


def default_hook_command(tool: str, *, portable: bool = False) -> str:
    """The hook command written into the CLIs' settings.

    Default: ``<this python> -S <graphmem>/runtime/client.py <tool>``: absolute paths (hooks run
    without the person's virtualenv on PATH) and ``-S``, which skips the interpreter's ``site``
    initialisation (site-packages and ``.pth`` files; tens to hundreds of milliseconds) that the
    stdlib-only hook client does not need. ``portable``: ``<graphmem script> hook <tool>``."""
    if not portable:
        from ..runtime import client

        return f"{shlex.quote(sys.executable)} -S {shlex.quote(str(Path(client.__file__).resolve()))} {tool}"
    exe = Path(sys.executable).parent / "graphmem"
    if exe.is_file() and os.access(exe, os.X_OK):
        prog = str(exe)
    else:
        found = shutil.which("graphmem")
        prog = found if found else "graphmem"
    return f"{shlex.quote(prog)} hook {tool}"


def with_environment(command: str, environ: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """``command`` prefixed with ``env NAME=value ...`` for the settings of ``environ`` (default:
    this process's) that the hook must carry (:func:`graphmem.config.hook_environment`): a CLI runs
    its hooks in its own environment, where ``GRAPHMEM_HOME`` or ``GRAPHMEM_NEO4J_URI`` may be unset.
    Returns (command, the secret variables left out)."""
    from ..config import hook_environment

    carried, left_out = hook_environment(environ)
    if not carried:
        return command, left_out
    assignments = " ".join(shlex.quote(f"{k}={v}") for k, v in carried.items())
    return f"env {assignments} {command}", left_out


def register(sub: Any) -> None:
    p = sub.add_parser("hooks", help="install or remove graphmem's hooks in Claude Code, Codex, Gemini CLI")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")
    for verb, help_text in (
        ("install", "merge graphmem's hooks into the CLI's settings (other hooks are kept)"),
        ("uninstall", "remove graphmem's hooks from the CLI's settings (only ours)"),
        ("status", "where graphmem's hooks are installed"),
    ):
        v = verbs.add_parser(verb, help=help_text)
        if verb == "status":
            v.add_argument("tool", nargs="?", choices=TOOLS, default=None)
            v.add_argument("--project-dir", default=None, help="project folder (default: the git root of the current one)")
            add_json_flag(v)
            v.set_defaults(handler=_hooks_status)
            continue
        v.add_argument("tool", choices=TOOLS)
        v.add_argument("--scope", choices=("user", "project", "local"), default="user",
                       help="user settings (default), the project's shared settings, or the local project file")
        v.add_argument("--project-dir", default=None, help="project folder (default: the git root of the current one)")
        v.add_argument("--settings", default=None, help="an explicit settings file instead of the scope's")
        v.add_argument("--command", default=None,
                       help="the hook command (default: this installation's python -S .../runtime/client.py <tool>)")
        if verb == "install":
            v.add_argument("--portable", action="store_true",
                           help="write `<graphmem> hook <tool>` instead of the faster python -S form")
            v.add_argument("--timeout", type=int, default=30, help="the CLI's own timeout for our hook, in seconds")
            v.add_argument("--no-session-start", action="store_true", help="do not add the SessionStart brief")
            v.add_argument("--no-env", action="store_true",
                           help="do not carry this shell's GRAPHMEM_*/NEO4J_* settings in the hook command "
                           "(by default they are written as `env NAME=value ...` before it; never a password)")
        add_json_flag(v)
        v.set_defaults(handler=_hooks_install if verb == "install" else _hooks_uninstall)


def _project_dir(args: argparse.Namespace) -> str:
    from ..paths import find_project_root, normalize_cwd

    return args.project_dir or find_project_root(normalize_cwd(os.getcwd()))


def _settings_path(tool: str, scope: str, project_dir: str) -> Path:
    from ..integrations.hook_files import HOOK_FILES

    return HOOK_FILES[tool].path(scope, project_dir)  # type: ignore[arg-type]


_OUR_COMMAND = re.compile(r"(?:^|[\s/'\"])graphmem['\"]?\s+hook\s+(claude-code|claude|codex|gemini)\b|runtime/client\.py['\"]?\s+(claude-code|codex|gemini)\b")


def _installed_commands(path: Path, tool: str | None = None) -> dict[str, list[str]]:
    """Our hook commands found in a settings file: command -> events."""
    from ..integrations.formats import canonical_agent

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    out: dict[str, list[str]] = {}
    if not isinstance(hooks, dict):
        return out
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for g in groups:
            entries = g.get("hooks") if isinstance(g, dict) else None
            for h in entries if isinstance(entries, list) else []:
                cmd = h.get("command") if isinstance(h, dict) else None
                if not isinstance(cmd, str):
                    continue
                m = _OUR_COMMAND.search(cmd)
                if m is None:
                    continue
                named = m.group(1) or m.group(2)
                found = canonical_agent(named) or named
                if tool is not None and found != tool:
                    continue
                out.setdefault(cmd.strip(), []).append(event)
    return out


def _hooks_install(args: argparse.Namespace) -> int:
    from ..integrations.hook_files import HOOK_FILES

    hook_file = HOOK_FILES[args.tool]
    project = _project_dir(args)
    command = args.command or default_hook_command(args.tool, portable=args.portable)
    left_out: list[str] = []
    if not args.command and not args.no_env:
        command, left_out = with_environment(command)
    path = Path(args.settings) if args.settings else _settings_path(args.tool, args.scope, project)
    events = hook_file.events
    if args.no_session_start:
        events = tuple(e for e in events if e != "SessionStart")
    # an earlier install with another command (another path to graphmem) is replaced, not duplicated
    for old in _installed_commands(path, args.tool):
        if old != command and not old.startswith(command + " "):
            hook_file.uninstall(str(path), old, args.scope, project_dir=project)
    result = hook_file.install(str(path), command, args.scope, project_dir=project, timeout=args.timeout,
                               events=events)
    if args.json:
        emit_json({**result.model_dump(), "command": command, "tool": args.tool, "secrets_left_out": left_out})
        return 0
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if left_out:
        print(f"note: {', '.join(left_out)} not written to {result.path} (secrets stay out of hook files): "
              "set it in the environment the CLI runs in", file=sys.stderr)
    if result.changed:
        print(f"installed graphmem hooks ({', '.join(result.added)}) in {result.path}")
    else:
        print(f"graphmem hooks already installed in {result.path}")
    print(f"command: {command}")
    if hook_file.note:
        print(hook_file.note, file=sys.stderr)
    return 0


def _hooks_uninstall(args: argparse.Namespace) -> int:
    from ..integrations.hook_files import HOOK_FILES

    project = _project_dir(args)
    path = Path(args.settings) if args.settings else _settings_path(args.tool, args.scope, project)
    commands = [args.command] if args.command else list(_installed_commands(path, args.tool))
    removed: list[str] = []
    changed = False
    for cmd in commands:
        r = HOOK_FILES[args.tool].uninstall(str(path), cmd, args.scope, project_dir=project)
        changed = changed or r.changed
        removed.extend(e for e in r.removed if e not in removed)
    if args.json:
        emit_json({"path": str(path), "changed": changed, "removed": removed, "commands": commands})
        return 0
    if changed:
        print(f"removed graphmem hooks ({', '.join(removed)}) from {path}")
    else:
        print(f"no graphmem hooks in {path}")
    return 0


def _hooks_status(args: argparse.Namespace) -> int:
    from ..integrations.hook_files import HOOK_FILES

    project = _project_dir(args)
    rows: list[dict[str, Any]] = []
    for tool in [args.tool] if args.tool else list(TOOLS):
        for scope in HOOK_FILES[tool].scopes:
            path = _settings_path(tool, scope, project)
            cmds = _installed_commands(path, tool)
            rows.append({"tool": tool, "scope": scope, "path": str(path), "installed": bool(cmds),
                         "commands": [{"command": c, "events": e} for c, e in cmds.items()]})
    if args.json:
        emit_json(rows)
        return 0
    print_table(["tool", "scope", "installed", "events", "settings file"],
                [(r["tool"], r["scope"], "yes" if r["installed"] else "no",
                  ",".join(sorted({e for c in r["commands"] for e in c["events"]})) or "-", r["path"]) for r in rows],
                max_width=90)
    return 0
