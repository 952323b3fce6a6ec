"""``graphmem export``: the memory graph as GraphML, GEXF or JSON (for Gephi, Cytoscape, d3)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, cast

from ..errors import InvalidInput, quoted
from ..export import FORMATS, ExportFormat, export_graph, export_stats, write_graph
from .common import open_memory

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "export",
        help="export the graph (all sessions, one session or one directory's) as GraphML, GEXF or JSON",
        description=(
            "Export sessions with their turns, tool calls and summaries through networkx. GraphML opens in "
            "Cytoscape, Gephi and yEd; GEXF in Gephi; JSON is networkx's node-link format. Embeddings are left out."
        ),
    )
    p.add_argument("--format", "-f", choices=FORMATS, default="graphml", help="output format (default: graphml)")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--session", metavar="ID", help="only this session")
    scope.add_argument("--cwd", metavar="DIR", help="only the sessions of this directory")
    p.add_argument("--output", "-o", metavar="FILE", help="write here (default: standard output)")
    p.set_defaults(handler=_export, group_parser=p)


def _export(args: argparse.Namespace) -> int:
    fmt = cast(ExportFormat, args.format)
    with open_memory() as mem:
        graph = export_graph(mem.db, session_id=args.session, cwd=args.cwd)
    if args.output:
        target = Path(args.output)
        # write next to the target and rename, so a failed export never leaves half a file
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:100]}.", dir=target.parent)
        except OSError as e:
            raise InvalidInput(f"cannot write the export next to {quoted(args.output)}: {e.strerror}") from e
        try:
            with os.fdopen(fd, "wb") as f:
                write_graph(graph, fmt, f)
            os.replace(tmp, target)
        except OSError as e:
            Path(tmp).unlink(missing_ok=True)
            raise InvalidInput(f"cannot write the export to {quoted(args.output)}: {e.strerror}") from e
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    else:
        write_graph(graph, fmt, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    st = export_stats(graph)
    where = args.output or "standard output"
    print(f"exported {st.sessions} sessions, {st.nodes} nodes, {st.edges} relationships as {fmt} to {where}",
          file=sys.stderr)
    return 0
