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

TYPE_CHECKING = False  # not `from typing import ...`: `import graphmem.cli` stays light for the hook path
if TYPE_CHECKING:
    from ..memory import GraphMemory

__all__ = ["COMMANDS", "ENTRY_POINT_GROUP", "EXIT_ERROR", "EXIT_NOT_FOUND", "EXIT_UNAVAILABLE", "EXIT_USAGE", "build_parser",
           "main", "run", "run_for_client"]

Handler = Callable[[argparse.Namespace], int]

# Every command: (name, the module that registers it, its one-line help). A command's module is
# imported only when that command runs (or for the full parser): `graphmem --help`, `graphmem hooks ...`
# or `graphmem stats` never import the search, worker or embedder code. The help strings are the
# modules' own (tests/unit check the two agree).
COMMANDS: list[tuple[str, str, str]] = [
    ("db", "graphmem.cli.db_cmd", "the managed local Neo4j server and the schema"),
    ("sessions", "graphmem.cli.sessions_cmd", "sessions of a directory (default: the current one)"),
    ("turns", "graphmem.cli.sessions_cmd", "turns of a session"),
    ("demo", "graphmem.cli.demo_cmd",
     "start the managed Neo4j, record a coding session with tool calls, print it back"),
    ("search", "graphmem.cli.search_cmd", "search past turns and summaries (hybrid vector + full-text)"),
    ("context", "graphmem.cli.search_cmd", "the context block an agent gets before answering a message"),
    ("reindex", "graphmem.cli.search_cmd", "re-embed every turn and summary with the configured embedder"),
    ("worker", "graphmem.cli.worker_cmd", "the summarizer worker: embeddings, level-1 summaries, roll-ups"),
    ("check", "graphmem.cli.worker_cmd",
     "verify the summary hierarchy's invariants (exit 1 with a report when one is broken)"),
    ("import", "graphmem.cli.import_cmd",
     "import transcripts: graphmem import [claude-code|codex|gemini|aider|auto] PATH..."),
    ("hooks", "graphmem.cli.hooks_cmd", "install or remove graphmem's hooks in Claude Code, Codex, Gemini CLI"),
    ("hook", "graphmem.cli.hook_cmd",
     "run by the CLIs' hooks: graphmem hook <claude-code|codex|gemini> < hook-input.json"),
    ("daemon", "graphmem.cli.daemon_cmd", "the local process that answers the hooks (warm driver and embedder)"),
    ("spool", "graphmem.cli.spool_cmd", "turns kept on disk while Neo4j was unreachable"),
    ("stats", "graphmem.cli.stats_cmd", "counts of sessions, turns, tool calls, summaries, facts; pending work"),
    ("mcp", "graphmem.cli.mcp_cmd", "serve the MCP tools over stdio (claude mcp add graphmem -- graphmem mcp)"),
    ("facts", "graphmem.cli.facts_cmd", "typed facts: add, list, search, forget, expire"),
    ("settings", "graphmem.cli.facts_cmd", "fact-memory settings stored in the database"),
    ("retrievals", "graphmem.cli.facts_cmd", "pre-call injection logs"),
    ("export", "graphmem.cli.export_cmd",
     "export the graph (all sessions, one session or one directory's) as GraphML, GEXF or JSON"),
    ("chat", "graphmem.cli.chat_cmd", "chat agents: live messages, conversations, memory tools"),
    ("serve", "graphmem.cli.serve_cmd", "serve the memory over HTTP: a JSON API (/docs) and the dashboard (/memory)"),
    ("digest", "graphmem.cli.digest_cmd", "chat rooms' live messages digested into facts by an LLM, at fixed hours"),
    ("files", "graphmem.cli.files_cmd", "files the coding agents' tool calls touched"),
    ("notes", "graphmem.cli.notes_cmd", "notes of a Markdown vault (GRAPHMEM_NOTES_VAULT) as a context source"),
]
ENTRY_POINT_GROUP = "graphmem.commands"

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_UNAVAILABLE = 4


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``graphmem`` parser. Without ``command``: every group, each module imported. With one:
    only that command's module (or plugin) is imported; every other command is a stub carrying its
    help line, enough for ``--help`` and for argparse's "invalid choice" message."""
    parser = argparse.ArgumentParser(
        prog="graphmem",
        description="Long-term conversational memory for LLM agents and coding CLIs, stored as a graph in Neo4j.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="group", metavar="<command>")
    wanted = {m for name, m, _ in COMMANDS if command is None or name == command}
    loaded: set[str] = set()
    for name, mod_name, help_text in COMMANDS:
        if name in sub.choices:
            continue  # registered with an earlier command of the same module
        if mod_name in wanted and mod_name not in loaded:
            loaded.add(mod_name)
            try:
                mod = importlib.import_module(mod_name)
            except ModuleNotFoundError as e:
                if e.name == mod_name:
                    continue  # that group is not part of this build
                raise
            mod.register(sub)
        if name not in sub.choices:
            sub.add_parser(name, help=help_text)
    _register_plugins(sub, command)
    return parser


def _register_plugins(sub: argparse._SubParsersAction[argparse.ArgumentParser], command: str | None) -> None:
    """The command groups other distributions register as ``graphmem.commands`` entry points
    (looked up here, not at import time, so the hook fast path never pays for the scan); a
    plugin's code is loaded only for the full parser or when it is the command that runs."""
    from importlib.metadata import entry_points

    taken = set(sub.choices)
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if ep.name in taken:
            continue  # a built-in group keeps its name
        if command is None or ep.name == command:
            register: Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None] = ep.load()
            register(sub)
        else:
            sub.add_parser(ep.name, help=f"(from {ep.dist.name if ep.dist else ep.value.split('.')[0]})")
        taken.add(ep.name)


def main(argv: list[str] | None = None) -> int:
    raw = sys.argv[1:] if argv is None else argv
    if raw[:1] == ["hook"]:  # fast path: the hook client needs neither the parser nor the library
        from ..runtime.client import hook_main

        return hook_main(raw[1:])
    from .daemon_route import through_daemon

    code = through_daemon(raw)  # a read command, answered by a warm daemon when one serves these settings
    if code is not None:
        return code
    return run(raw)


def run_for_client(argv: list[str], *, memory: Callable[[], GraphMemory], cwd: str) -> int | None:
    """Run a command in the daemon for a client (see :mod:`graphmem.cli.daemon_route`): on
    ``memory()`` (the daemon's warm driver and embedder), as if started in ``cwd``. The caller
    captures this thread's output. None when the command exits through argparse (a usage error or
    ``--help``: their layout follows the client's terminal, so the client runs those itself)."""
    from .common import in_process

    with in_process(memory, cwd):
        try:
            return run(argv)
        except SystemExit:
            return None


def _reject_dash_values(parser: argparse.ArgumentParser, raw: list[str]) -> None:
    """``--k=--`` is a usage error: argparse drops the ``--`` and hands the command an empty list."""
    for arg in raw:
        if arg == "--":
            return  # what follows is positional
        option, sep, value = arg.partition("=")
        if sep and value == "--" and option.startswith("-"):
            parser.error(f"argument {option}: '--' is not a value")


def run(raw: list[str]) -> int:
    """Parse ``raw`` and run the command in this process: library errors become one line on stderr
    and an exit code."""
    import logging

    # the driver logs each retry and each failed routing attempt (warnings, errors); without a
    # handler those reach stderr as raw lines: the command's own error says what went wrong
    logging.getLogger("neo4j").setLevel(logging.CRITICAL)
    first = next((a for a in raw if not a.startswith("-")), "")  # the command (top-level options are flags)
    parser = build_parser(first)
    _reject_dash_values(parser, raw)
    args = parser.parse_args(raw)
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
