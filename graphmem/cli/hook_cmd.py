"""``graphmem hook <tool>``: what the installed hook entries run (stdin JSON in, context out;
always exit 0)."""

from __future__ import annotations

import argparse
from typing import Any

from .hooks_cmd import TOOLS

__all__ = ["register"]


def register(sub: Any) -> None:
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


def _hook(args: argparse.Namespace) -> int:
    from ..runtime.client import hook_main

    argv = [args.tool]
    if args.budget is not None:
        argv += ["--budget", str(args.budget)]
    if args.no_daemon:
        argv.append("--no-daemon")
    return hook_main(argv)
