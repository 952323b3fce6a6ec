"""``graphmem import [claude-code|codex|gemini|aider|auto] PATH...``: transcripts (files or folders)
into the graph, idempotent on the sources' own ids."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from .common import Progress, add_json_flag, emit_json, open_memory

__all__ = ["discover_transcripts", "register"]



def register(sub: Any) -> None:
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




def discover_transcripts(agent: str, paths: list[str]) -> list[Path]:
    """The transcript files named by ``paths`` (folders are searched recursively for the file names
    of ``agent``'s format, or of any format for ``auto``), sorted, unique."""
    from ..integrations.formats import AUTO_PATTERNS, transcript_format

    patterns = AUTO_PATTERNS if agent == "auto" else transcript_format(agent).patterns
    out: dict[str, Path] = {}
    for raw in paths:
        p = Path(raw).expanduser()
        if p.is_dir():
            for pattern in patterns:
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
    from ..integrations.formats import canonical_agent

    items = list(args.items)
    first = "auto" if items[0].lower() == "auto" else canonical_agent(items[0])
    agent = "auto"
    if first is not None and not Path(items[0]).exists():
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
                # a dry run redacts while parsing to count the secrets; an import leaves that to the store,
                # which redacts every stored text once and counts what it replaced
                sessions = parse_transcript(f, agent=None if agent == "auto" else agent, cwd=args.cwd,
                                            redact=args.dry_run)
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
                if mem is None:
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
                summary["redactions"] += r.redactions
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
