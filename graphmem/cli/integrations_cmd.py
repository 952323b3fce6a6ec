"""Coding-CLI integration commands: ``import``, ``hooks``, ``hook``, ``spool``, ``stats``, ``mcp``,
``daemon``.

* ``graphmem import [claude-code|codex|gemini|aider|auto] PATH...``: transcripts (files or
  folders) into the graph, idempotent on the sources' own ids;
* ``graphmem hooks install|uninstall|status <claude-code|codex|gemini>``: our entries in the
  CLIs' settings files, leaving every other hook alone;
* ``graphmem hook <tool>``: what those entries run (stdin JSON in, context out; always exit 0);
* ``graphmem daemon run|start|stop|status``: the warm local process the hooks talk to;
* ``graphmem spool status|replay``: turns kept on disk while Neo4j was unreachable;
* ``graphmem stats``: what the store holds and what is pending;
* ``graphmem mcp``: the MCP server over stdio (``claude mcp add graphmem -- graphmem mcp``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from .common import Progress, add_json_flag, emit_json, open_memory, print_table

__all__ = ["default_hook_command", "discover_transcripts", "register"]

TOOLS = ("claude-code", "codex", "gemini")
AGENTS = ("claude-code", "codex", "gemini", "aider")
_AGENT_ALIASES = {"claude": "claude-code", "claude_code": "claude-code", "gemini-cli": "gemini", "codex-cli": "codex"}


def register(sub: Any) -> None:
    _register_import(sub)
    _register_hooks(sub)
    _register_daemon(sub)
    _register_spool(sub)

    st = sub.add_parser("stats", help="counts of sessions, turns, tool calls, summaries, facts; pending work")
    add_json_flag(st)
    st.set_defaults(handler=_stats)

    mcp = sub.add_parser(
        "mcp",
        help="serve the MCP tools over stdio (claude mcp add graphmem -- graphmem mcp)",
        description="The MCP server (stdio): memory_search, memory_context, recent_sessions and the fact "
        "tools. Register it with `claude mcp add graphmem -- graphmem mcp` (Claude Code), "
        "`codex mcp add graphmem -- graphmem mcp` (Codex) or `gemini mcp add graphmem graphmem mcp`.",
    )
    mcp.set_defaults(handler=_mcp)


# ----------------------------------------------------------------------------------------------
# import


def _register_import(sub: Any) -> None:
    p = sub.add_parser(
        "import",
        help="import transcripts: graphmem import [claude-code|codex|gemini|aider|auto] PATH...",
        description="Import coding-CLI transcripts (files, or folders searched recursively: *.jsonl, "
        "session-*.json, .aider.chat.history.md). Idempotent: each turn keeps its source id, so "
        "importing again adds nothing. Secrets are redacted before anything is stored.",
    )
    p.add_argument("items", nargs="+", metavar="[AGENT] PATH",
                   help="optional agent (claude-code, codex, gemini, aider, auto), then files or folders")
    p.add_argument("--cwd", default=None,
                   help="working directory of sessions whose transcript does not say (Gemini; Aider default: "
                   "the history file's folder)")
    p.add_argument("--dry-run", action="store_true", help="parse and count, store nothing")
    p.add_argument("--quiet", action="store_true", help="no warnings, no progress bar")
    add_json_flag(p)
    p.set_defaults(handler=_import)


_PATTERNS: dict[str, tuple[str, ...]] = {
    "claude-code": ("*.jsonl",),
    "codex": ("rollout-*.jsonl", "*.jsonl"),
    "gemini": ("session-*.json", "session-*.jsonl"),
    "aider": (".aider.chat.history.md", "*.aider.chat.history.md"),
    "auto": ("*.jsonl", "session-*.json", ".aider.chat.history.md"),
}


def discover_transcripts(agent: str, paths: list[str]) -> list[Path]:
    """The transcript files named by ``paths`` (folders are searched recursively), sorted, unique."""
    out: dict[str, Path] = {}
    for raw in paths:
        p = Path(raw).expanduser()
        if p.is_dir():
            for pattern in _PATTERNS[agent]:
                for f in sorted(p.rglob(pattern)):
                    if f.is_file():
                        out.setdefault(str(f.resolve()), f)
        elif p.is_file():
            out.setdefault(str(p.resolve()), p)
        else:
            raise InvalidInput(f"no such file or folder: {raw}")
    return [out[k] for k in sorted(out)]


def _import(args: argparse.Namespace) -> int:
    from ..integrations import parse_transcript

    items = list(args.items)
    first = _AGENT_ALIASES.get(items[0].lower(), items[0].lower())
    agent = "auto"
    if first in (*AGENTS, "auto") and not Path(items[0]).exists():
        agent = first
        items = items[1:]
    if not items:
        raise InvalidInput("graphmem import: give at least one file or folder")
    files = discover_transcripts(agent, items)
    if not files:
        raise InvalidInput("no transcript files found")
    summary: dict[str, Any] = {"files": 0, "sessions": 0, "turns_read": 0, "created": 0, "skipped": 0,
                               "tool_calls": 0, "failed_files": 0, "redactions": 0, "warnings": []}
    per_file: list[dict[str, Any]] = []
    progress = None if args.quiet else Progress(len(files), "importing")
    mem = None if args.dry_run else open_memory()
    try:
        for f in files:
            entry: dict[str, Any] = {"path": str(f), "sessions": 0, "created": 0, "skipped": 0}
            try:
                sessions = parse_transcript(f, agent=None if agent == "auto" else agent, cwd=args.cwd)
            except InvalidInput as e:
                summary["failed_files"] += 1
                summary["warnings"].append(f"{f}: {e}")
                entry["error"] = str(e)
                per_file.append(entry)
                if progress is not None:
                    progress.advance()
                continue
            summary["files"] += 1
            for s in sessions:
                entry["agent"] = s.agent
                summary["sessions"] += 1
                entry["sessions"] += 1
                summary["turns_read"] += len(s.turns)
                summary["tool_calls"] += sum(len(t.tool_calls) for t in s.turns)
                summary["redactions"] += sum(v for k, v in s.stats.items() if k.startswith("redacted:"))
                summary["warnings"].extend(f"{f}: {w}" for w in s.warnings)
                cwd = s.cwd or args.cwd
                if cwd is None:
                    cwd = os.getcwd()
                    summary["warnings"].append(f"{f}: the transcript does not say its directory; filed under {cwd} "
                                               "(use --cwd)")
                if mem is None or not s.turns:
                    continue
                mem.create_session(cwd, agent=s.agent, session_id=s.session_id, title=s.title,
                                   started_at=s.started_at)
                r = mem.import_turns(s.session_id, s.turns)
                summary["created"] += r.created
                summary["skipped"] += r.skipped
                entry["created"] += r.created
                entry["skipped"] += r.skipped
            per_file.append(entry)
            if progress is not None:
                progress.advance()
    finally:
        if progress is not None:
            progress.close()
        if mem is not None:
            mem.close()
    if args.json:
        emit_json({**summary, "dry_run": args.dry_run, "per_file": per_file})
        return 0
    if not args.quiet:
        for w in summary["warnings"]:
            print(f"warning: {w}", file=sys.stderr)
    verb = "would import" if args.dry_run else "imported"
    print(f"{verb} {summary['files']} file(s), {summary['sessions']} session(s): {summary['turns_read']} turns read, "
          f"{summary['created']} new, {summary['skipped']} already stored, {summary['tool_calls']} tool calls, "
          f"{summary['redactions']} secret(s) redacted"
          + (f", {summary['failed_files']} file(s) unreadable" if summary["failed_files"] else ""))
    return 1 if summary["failed_files"] and not summary["files"] else 0


# ----------------------------------------------------------------------------------------------
# hooks


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


def _register_hooks(sub: Any) -> None:
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
        add_json_flag(v)
        v.set_defaults(handler=_hooks_install if verb == "install" else _hooks_uninstall)
    run = sub.add_parser(
        "hook",
        help="run by the CLIs' hooks: graphmem hook <claude-code|codex|gemini> < hook-input.json",
        description="Reads the hook's JSON on stdin; prints the context to inject (prompt, session start) or "
        "ingests the new transcript records (stop). Always exits 0; prints nothing on failure. "
        "GRAPHMEM_HOOK_BUDGET (seconds, default 1.5) bounds prompt hooks.",
    )
    run.add_argument("tool", choices=TOOLS)
    run.add_argument("--budget", type=float, default=None, help="seconds (default GRAPHMEM_HOOK_BUDGET or 1.5)")
    run.add_argument("--no-daemon", action="store_true", help="handle the hook in this process")
    run.set_defaults(handler=_hook)


def _project_dir(args: argparse.Namespace) -> str:
    from ..paths import find_project_root, normalize_cwd

    return args.project_dir or find_project_root(normalize_cwd(os.getcwd()))


def _settings_path(tool: str, scope: str, project_dir: str) -> Path:
    from ..integrations import claude_settings_path, codex_hooks_path, gemini_settings_path

    if tool == "claude-code":
        return claude_settings_path(scope, project_dir)  # type: ignore[arg-type]
    if tool == "codex":
        return codex_hooks_path(scope, project_dir)  # type: ignore[arg-type]
    return gemini_settings_path(scope, project_dir)  # type: ignore[arg-type]


_OUR_COMMAND = re.compile(r"(?:^|[\s/'\"])graphmem['\"]?\s+hook\s+(claude-code|claude|codex|gemini)\b|runtime/client\.py['\"]?\s+(claude-code|codex|gemini)\b")


def _installed_commands(path: Path, tool: str | None = None) -> dict[str, list[str]]:
    """Our hook commands found in a settings file: command -> events."""
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
                found = _AGENT_ALIASES.get(m.group(1) or m.group(2), m.group(1) or m.group(2))
                if tool is not None and found != tool:
                    continue
                out.setdefault(cmd.strip(), []).append(event)
    return out


def _hooks_install(args: argparse.Namespace) -> int:
    from ..integrations import (
        CLAUDE_EVENTS,
        CODEX_EVENTS,
        GEMINI_EVENTS,
        claude_settings_install,
        codex_hooks_install,
        gemini_settings_install,
    )

    project = _project_dir(args)
    command = args.command or default_hook_command(args.tool, portable=args.portable)
    path = Path(args.settings) if args.settings else _settings_path(args.tool, args.scope, project)
    installer: Any = {"claude-code": claude_settings_install, "codex": codex_hooks_install,
                      "gemini": gemini_settings_install}[args.tool]
    events = {"claude-code": CLAUDE_EVENTS, "codex": CODEX_EVENTS, "gemini": GEMINI_EVENTS}[args.tool]
    if args.no_session_start:
        events = tuple(e for e in events if e != "SessionStart")
    # an earlier install with another command (another path to graphmem) is replaced, not duplicated
    for old in _installed_commands(path, args.tool):
        if old != command and not old.startswith(command + " "):
            _uninstaller(args.tool)(str(path), old, args.scope, project_dir=project)
    result = installer(str(path), command, args.scope, project_dir=project, timeout=args.timeout, events=events)
    if args.json:
        emit_json({**result.model_dump(), "command": command, "tool": args.tool})
        return 0
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if result.changed:
        print(f"installed graphmem hooks ({', '.join(result.added)}) in {result.path}")
    else:
        print(f"graphmem hooks already installed in {result.path}")
    print(f"command: {command}")
    if args.tool == "codex":
        print("Codex: hooks may need `[features] hooks = true` in ~/.codex/config.toml", file=sys.stderr)
    return 0


def _uninstaller(tool: str) -> Any:
    from ..integrations import claude_settings_uninstall, codex_hooks_uninstall, gemini_settings_uninstall

    return {"claude-code": claude_settings_uninstall, "codex": codex_hooks_uninstall,
            "gemini": gemini_settings_uninstall}[tool]


def _hooks_uninstall(args: argparse.Namespace) -> int:
    project = _project_dir(args)
    path = Path(args.settings) if args.settings else _settings_path(args.tool, args.scope, project)
    commands = [args.command] if args.command else list(_installed_commands(path, args.tool))
    removed: list[str] = []
    changed = False
    for cmd in commands:
        r = _uninstaller(args.tool)(str(path), cmd, args.scope, project_dir=project)
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
    project = _project_dir(args)
    rows: list[dict[str, Any]] = []
    for tool in [args.tool] if args.tool else list(TOOLS):
        scopes = ("user", "project", "local") if tool == "claude-code" else ("user", "project")
        for scope in scopes:
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


def _hook(args: argparse.Namespace) -> int:
    from ..runtime.client import hook_main

    argv = [args.tool]
    if args.budget is not None:
        argv += ["--budget", str(args.budget)]
    if args.no_daemon:
        argv.append("--no-daemon")
    return hook_main(argv)


# ----------------------------------------------------------------------------------------------
# daemon


def _register_daemon(sub: Any) -> None:
    p = sub.add_parser("daemon", help="the local process that answers the hooks (warm driver and embedder)")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")
    run = verbs.add_parser("run", help="run the daemon in the foreground")
    run.add_argument("--no-worker", action="store_true", help="do not run the summarizer worker thread")
    run.add_argument("--quiet", action="store_true", help="log warnings only")
    run.set_defaults(handler=_daemon_run)
    start = verbs.add_parser("start", help="start it in the background (the hooks also do, on first use)")
    start.add_argument("--wait", type=float, default=60.0, help="seconds to wait until it answers")
    start.set_defaults(handler=_daemon_start)
    stop = verbs.add_parser("stop", help="stop it")
    stop.set_defaults(handler=_daemon_stop)
    status = verbs.add_parser("status", help="whether it runs, its pid, embedder and spool state")
    add_json_flag(status)
    status.set_defaults(handler=_daemon_status)


def _daemon_run(args: argparse.Namespace) -> int:
    import logging

    from ..runtime.daemon import Daemon

    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    daemon = Daemon(worker=False if args.no_worker else None)
    code = daemon.run()
    if code:
        print(f"graphmem: another daemon serves {daemon.home}", file=sys.stderr)
    return code


def _daemon_start(args: argparse.Namespace) -> int:
    from ..runtime.daemon import start_daemon

    st = start_daemon(wait=args.wait)
    print(f"daemon running (pid {st.pid}) on {st.socket}")
    return 0


def _daemon_stop(args: argparse.Namespace) -> int:
    from ..runtime.daemon import stop_daemon

    print("daemon stopped" if stop_daemon() else "daemon not running")
    return 0


def _daemon_status(args: argparse.Namespace) -> int:
    from ..runtime.daemon import daemon_status

    st = daemon_status()
    if args.json:
        emit_json(st.as_dict())
    else:
        for k, v in st.as_dict().items():
            print(f"{k:>15}: {v}")
    return 0 if st.running else 1


# ----------------------------------------------------------------------------------------------
# spool


def _register_spool(sub: Any) -> None:
    p = sub.add_parser("spool", help="turns kept on disk while Neo4j was unreachable")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")
    st = verbs.add_parser("status", help="how many entries and turns wait, and for which sessions")
    add_json_flag(st)
    st.set_defaults(handler=_spool_status)
    rp = verbs.add_parser("replay", help="store the spooled turns now (exactly once), then empty the spool")
    add_json_flag(rp)
    rp.set_defaults(handler=_spool_replay)


def _spool_status(args: argparse.Namespace) -> int:
    from ..runtime.client import home_dir
    from ..runtime.spool import Spool

    st = Spool(Path(home_dir())).status()
    if args.json:
        emit_json(st.as_dict())
    else:
        print(f"{st.entries} entries, {st.turns} turns ({st.bytes} bytes) in {st.path}"
              + (f"; oldest {st.oldest}" if st.oldest else "")
              + (f"; {st.rejected} rejected in rejected.jsonl" if st.rejected else ""))
        for s in st.sessions:
            print(f"  session {s}")
    return 0


def _spool_replay(args: argparse.Namespace) -> int:
    from ..runtime.client import home_dir
    from ..runtime.spool import Spool

    spool = Spool(Path(home_dir()))
    total = spool.status().entries
    progress = Progress(total, "replaying") if total and not args.json else None
    with open_memory() as mem:
        result = spool.replay(mem, progress=progress.advance if progress else None)
    if progress is not None:
        progress.close()
    if args.json:
        emit_json(result.as_dict())
    elif result.busy:
        print("another process is replaying the spool", file=sys.stderr)
    else:
        print(f"replayed {result.entries} entries: {result.turns_created} turns stored, {result.turns_skipped} "
              f"already stored" + (f", {result.remaining} entries left ({result.error})" if result.remaining else "")
              + (f", {result.rejected} rejected" if result.rejected else ""))
    if result.remaining:
        from ..errors import DatabaseUnavailable

        raise DatabaseUnavailable(result.error or "the spool could not be replayed completely")
    return 0


def replay_spool_quietly(mem: Any) -> str | None:
    """Replay the spool after ``graphmem db up``; a one-line report, or None when it was empty."""
    from ..runtime.client import home_dir
    from ..runtime.spool import Spool

    spool = Spool(Path(home_dir()))
    if not spool.pending():
        return None
    r = spool.replay(mem)
    return (f"spool: {r.entries} entries replayed ({r.turns_created} turns stored)"
            + (f", {r.remaining} left: {r.error}" if r.remaining else ""))


# ----------------------------------------------------------------------------------------------
# stats


def _dir_size(path: Path) -> int | None:
    if not path.is_dir():
        return None
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, f)).st_size
    return total


def _stats(args: argparse.Namespace) -> int:
    from ..config import Settings
    from ..db import managed_server
    from ..runtime.client import home_dir
    from ..runtime.spool import Spool

    settings = Settings.load()
    with open_memory() as mem:
        counts = mem.db.read("stats/counts")[0]
        levels = {int(r["level"]): int(r["count"]) for r in mem.db.read("stats/summaries_by_level")
                  if r["level"] is not None}
        agents = mem.db.read("stats/agents")
        info = mem.db.server_info()
    store: dict[str, Any] = {"neo4j": f"{info.version} ({info.edition})"}
    if settings.managed:
        server = managed_server(settings)
        data = server.server_dir / "data"
        store["data_dir"] = str(data)
        store["bytes"] = _dir_size(data)
    else:
        store["uri"] = settings.neo4j_uri
        store["bytes"] = None
    spool = Spool(Path(home_dir())).status()
    out = {**{k: int(v) for k, v in counts.items()}, "summaries_by_level": levels,
           "agents": agents, "store": store, "spool": {"entries": spool.entries, "turns": spool.turns}}
    if args.json:
        emit_json(out)
        return 0
    rows = [
        ("directories", out["directories"]), ("sessions", out["sessions"]), ("turns", out["turns"]),
        ("tool calls", out["toolCalls"]), ("summaries", out["summaries"]),
        *[(f"  level {lvl}", n) for lvl, n in sorted(levels.items())],
        ("facts (current)", out["facts"]), ("fact versions", out["factVersions"]),
        ("pending turn embeddings", out["pendingTurnEmbeddings"]),
        ("pending summary embeddings", out["pendingSummaryEmbeddings"]),
        ("turns awaiting a summary", out["pendingTurnSummaries"]), ("summary jobs", out["summaryJobs"]),
        ("spooled turns", spool.turns),
        ("store size", _human(store["bytes"]) if store.get("bytes") is not None else "n/a (not the managed server)"),
        ("neo4j", store["neo4j"]),
    ]
    print_table(["what", "count"], rows)
    if agents:
        print()
        print_table(["agent", "sessions", "turns"], [(a["agent"], a["sessions"], a["turns"]) for a in agents])
    return 0


def _human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{int(size)} B"
        size /= 1024
    return f"{n} B"


# ----------------------------------------------------------------------------------------------
# mcp


def _mcp(args: argparse.Namespace) -> int:
    from ..mcp_server import serve

    serve()
    return 0
