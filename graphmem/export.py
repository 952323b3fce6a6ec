"""Export the memory graph (or one session, or one directory's sessions) through networkx.

:func:`export_graph` reads each session's subgraph with ``cypher/export/session_graph.cypher`` and
builds a :class:`networkx.MultiDiGraph`; :func:`write_graph` writes it as GraphML (Cytoscape,
Gephi, yEd), GEXF (Gephi) or node-link JSON (d3, ``networkx.node_link_graph``).

The graph, in every format:

* node keys are graphmem's own ids (``Session.id``, ``Turn.id``, ``ToolCall.id``, ``Summary.id``);
  a Directory, which has none, is ``Directory:<path>``;
* node attributes are the Neo4j properties except ``embedding``, ``turnText`` and ``shortTurnText`` (a turn's
  request and reply joined, a copy for search), plus ``labels`` (the Neo4j labels joined by ``:``)
  and ``label`` (a short caption: ``Turn 3: first words``, ``Bash``,
  ``Summary L2``, ...), which Gephi and Cytoscape show on the node;
* edge keys are ``TYPE:source->target``; edge attributes are the relationship's properties plus
  ``label`` (the relationship type, e.g. ``NEXT``);
* datetimes become ISO 8601 strings. GraphML and GEXF have no list type, so lists
  (``keyFindings``, ``topics``, ...) are written there as JSON strings, and characters XML 1.0
  cannot carry (NUL and most C0 controls) become U+FFFD; JSON keeps both as they are.
"""

from __future__ import annotations

import inspect
import io
import json
import re
from dataclasses import dataclass
from typing import IO, Any, Literal

import networkx as nx

from .db import Database
from .errors import InvalidInput, SessionNotFound, quoted
from .paths import normalize_cwd
from .sessions import check_id

__all__ = ["FORMATS", "ExportFormat", "ExportStats", "export_graph", "export_stats", "graph_to_text", "write_graph"]

ExportFormat = Literal["graphml", "gexf", "json"]
FORMATS: tuple[ExportFormat, ...] = ("graphml", "gexf", "json")

CAPTION_CHARS = 40
BATCH = 50
"""Sessions read per query."""
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


@dataclass(frozen=True)
class ExportStats:
    sessions: int
    nodes: int
    edges: int


def _value(v: Any) -> Any:
    """Neo4j values -> plain Python: temporal types to ISO strings, lists element-wise."""
    if isinstance(v, list | tuple):
        return [_value(x) for x in v]
    iso = getattr(v, "iso_format", None)
    if callable(iso):
        return iso()
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return v


def _first_words(text: str | None, n: int = CAPTION_CHARS) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= n else flat[: n - 1].rstrip() + "…"


def _caption(labels: list[str], props: dict[str, Any]) -> str:
    if "Turn" in labels:
        return f"Turn {props.get('index')}: {_first_words(props.get('userMessage'))}"
    if "ToolCall" in labels:
        return str(props.get("name", "tool")) + (" (failed)" if props.get("success") is False else "")
    if "Summary" in labels:
        return f"Summary L{props.get('level')}"
    if "Session" in labels:
        title = props.get("title")
        return f"Session {_first_words(title) if title else str(props.get('id', ''))[:8]}"
    if "Directory" in labels:
        return str(props.get("path", "Directory"))
    return _first_words(str(props.get("name") or props.get("content") or ":".join(labels)))


def _node_key(labels: list[str], props: dict[str, Any], ref: str) -> str:
    if isinstance(props.get("id"), str) and props["id"]:
        return str(props["id"])
    if "Directory" in labels and props.get("path"):
        return f"Directory:{props['path']}"
    return f"{':'.join(labels) or 'Node'}:{ref}"


def _session_ids(db: Database, session_id: str | None, cwd: str | None) -> list[str]:
    if session_id is not None and cwd is not None:
        raise InvalidInput("export one session or one directory, not both")
    if session_id is not None:
        return [check_id(session_id, "session id")]
    if cwd is not None:
        return [r["id"] for r in db.read("export/session_ids_for_cwd", cwd=normalize_cwd(cwd))]
    return [r["id"] for r in db.read("export/session_ids_all")]


def _add_session(graph: nx.MultiDiGraph, keys: dict[str, str], row: dict[str, Any]) -> None:
    for n in row["nodes"]:
        if n["ref"] in keys:
            continue  # a Directory shared by several sessions
        labels = list(n["labels"])
        props = {k: _value(v) for k, v in n["properties"].items() if v is not None}
        key = _node_key(labels, props, n["ref"])
        if key in graph:  # two nodes with the same id property: keep both
            key = f"{':'.join(labels)}:{key}"
        keys[n["ref"]] = key
        graph.add_node(key, **props, labels=":".join(labels), label=_caption(labels, props))
    for r in row["relationships"]:
        src, dst = keys.get(r["source"]), keys.get(r["target"])
        if src is None or dst is None:
            continue
        props = {k: _value(v) for k, v in (r["properties"] or {}).items() if v is not None}
        graph.add_edge(src, dst, key=f"{r['type']}:{src}->{dst}", **props, label=r["type"])


def export_graph(db: Database, *, session_id: str | None = None, cwd: str | None = None) -> nx.MultiDiGraph:
    """The memory as a networkx MultiDiGraph: one session, the sessions of a directory, or all.

    Raises :class:`SessionNotFound` for an unknown ``session_id``; a directory without sessions
    gives an empty graph."""
    graph = nx.MultiDiGraph(name="graphmem")
    keys: dict[str, str] = {}  # Neo4j element id -> node key
    sessions = 0
    ids = _session_ids(db, session_id, cwd)
    for start in range(0, len(ids), BATCH):
        rows = db.read("export/session_graph", sessionIds=ids[start : start + BATCH])
        if session_id is not None and not rows:
            raise SessionNotFound(session_id)
        for row in rows:  # a session deleted since it was listed is simply missing
            sessions += 1
            _add_session(graph, keys, row)
    graph.graph["sessions"] = sessions
    return graph


def _xml_text(value: str) -> str:
    return _XML_INVALID.sub("\ufffd", value)


def _xml_value(v: Any) -> Any:
    if isinstance(v, list):
        return _xml_text(json.dumps(v, ensure_ascii=False))
    if isinstance(v, str):
        return _xml_text(v)
    return v


def _for_xml(graph: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A copy GraphML/GEXF can carry: lists as JSON strings, XML-invalid characters replaced."""
    out = nx.MultiDiGraph(**{k: _xml_value(v) for k, v in graph.graph.items()})
    for n, data in graph.nodes(data=True):
        out.add_node(_xml_text(n), **{k: _xml_value(v) for k, v in data.items()})
    for u, v, k, data in graph.edges(keys=True, data=True):
        out.add_edge(_xml_text(u), _xml_text(v), key=_xml_text(k), **{a: _xml_value(b) for a, b in data.items()})
    return out


def _node_link_kwargs() -> dict[str, str]:
    # networkx 3.4 renamed node_link_data's ``link`` argument to ``edges``
    params = inspect.signature(nx.node_link_data).parameters
    return {"edges": "edges"} if "edges" in params else {"link": "edges"}


def write_graph(graph: nx.MultiDiGraph, fmt: ExportFormat, out: IO[bytes]) -> None:
    """Write ``graph`` to a binary stream in ``fmt`` (UTF-8)."""
    if fmt == "graphml":
        nx.write_graphml(_for_xml(graph), out, encoding="utf-8", infer_numeric_types=True)
    elif fmt == "gexf":
        nx.write_gexf(_for_xml(graph), out, encoding="utf-8")
    elif fmt == "json":
        data = nx.node_link_data(graph, **_node_link_kwargs())
        out.write(json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"))
        out.write(b"\n")
    else:
        raise InvalidInput(f"unknown export format {quoted(fmt)}; choose one of {', '.join(FORMATS)}")


def graph_to_text(graph: nx.MultiDiGraph, fmt: ExportFormat) -> str:
    """The export as a string (small graphs, tests)."""
    buf = io.BytesIO()
    write_graph(graph, fmt, buf)
    return buf.getvalue().decode("utf-8")


def export_stats(graph: nx.MultiDiGraph) -> ExportStats:
    """How many sessions, nodes and edges an exported graph holds."""
    return ExportStats(int(graph.graph.get("sessions", 0)), graph.number_of_nodes(), graph.number_of_edges())
