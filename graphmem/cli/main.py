"""``graphmem``: noun groups with verb subcommands (``graphmem db up``, ``graphmem sessions list``).

Each group lives in its own module and registers itself with :func:`register`; other installed
distributions add groups through the ``graphmem.commands`` entry points (each a ``register``
function: the development tools' ``bench`` and ``reliability``). Library errors
become one clean line on stderr and a non-zero exit code, never a traceback; so does a bad
``GRAPHMEM_*`` setting (one ``graphmem: invalid setting ...`` line per bad value, exit code 2).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable

from ..errors import ConfigError, DatabaseUnavailable, GraphMemError, InvalidInput, InvalidSettings, NotFound

__all__ = ["ENTRY_POINT_GROUP", "GROUPS", "build_parser", "main"]

Handler = Callable[[argparse.Namespace], int]

# Each module defines ``register(subparsers)``; imported lazily so `graphmem hooks ...` stays fast.
GROUPS: list[tuple[str, str]] = [
    ("db", "graphmem.cli.db_cmd"),
    ("sessions", "graphmem.cli.sessions_cmd"),
    ("turns", "graphmem.cli.sessions_cmd"),
    ("demo", "graphmem.cli.demo_cmd"),
]
_OPTIONAL_GROUPS = [
    "graphmem.cli.search_cmd",
    "graphmem.cli.worker_cmd",
    "graphmem.cli.import_cmd",
    "graphmem.cli.hooks_cmd",
    "graphmem.cli.hook_cmd",
    "graphmem.cli.daemon_cmd",
    "graphmem.cli.spool_cmd",
    "graphmem.cli.stats_cmd",
    "graphmem.cli.mcp_cmd",
    "graphmem.cli.facts_cmd",
    "graphmem.cli.export_cmd",
    "graphmem.cli.chat_cmd",
    "graphmem.cli.digest_cmd",
    "graphmem.cli.serve_cmd",
    "graphmem.cli.files_cmd",
]
ENTRY_POINT_GROUP = "graphmem.commands"

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_UNAVAILABLE = 4


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="graphmem",
        description="Long-term conversational memory for LLM agents and coding CLIs, stored as a graph in Neo4j.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="group", metavar="<command>")
    seen: set[str] = set()
    modules = [m for _, m in GROUPS] + _OPTIONAL_GROUPS
    for mod_name in modules:
        if mod_name in seen:
            continue
        seen.add(mod_name)
        try:
            mod = importlib.import_module(mod_name)
        except ModuleNotFoundError as e:
            if e.name == mod_name:
                continue  # that group is not part of this build
            raise
        mod.register(sub)
    _register_plugins(sub)
    return parser


def _register_plugins(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The command groups other distributions register as ``graphmem.commands`` entry points
    (looked up here, not at import time, so the hook fast path never pays for the scan)."""
    from importlib.metadata import entry_points

    taken = set(sub.choices)
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if ep.name in taken:
            continue  # a built-in group keeps its name
        register: Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None] = ep.load()
        register(sub)
        taken.add(ep.name)


def main(argv: list[str] | None = None) -> int:
    raw = sys.argv[1:] if argv is None else argv
    if raw[:1] == ["hook"]:  # fast path: the hook client needs neither the parser nor the library
        from ..runtime.client import hook_main

        return hook_main(raw[1:])
    import logging

    # the driver logs each retry as a warning; without a handler those reach stderr as raw lines
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from .. import __version__

        print(__version__)
        return 0
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        # a group without a verb: show that group's help
        sub_parser: argparse.ArgumentParser | None = getattr(args, "group_parser", None)
        (sub_parser or parser).print_help()
        return EXIT_USAGE
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("graphmem: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except InvalidSettings as e:
        for problem in e.problems:  # a bad GRAPHMEM_* value: one line each
            print(f"graphmem: invalid setting {problem}", file=sys.stderr)
        return EXIT_USAGE
    except GraphMemError as e:
        print(f"graphmem: error: {e}", file=sys.stderr)
        if isinstance(e, NotFound):
            return EXIT_NOT_FOUND
        if isinstance(e, DatabaseUnavailable):
            return EXIT_UNAVAILABLE
        if isinstance(e, InvalidInput | ConfigError):
            return EXIT_USAGE
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
