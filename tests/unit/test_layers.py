"""The package's layers, read from the source with ``ast``: no import circle among graphmem's
modules, nothing outside ``graphmem/cli/`` imports the CLI, only the top layers import the
facade, and no module is over 500 lines.

Every import counts: module level, inside functions, and under ``if TYPE_CHECKING:``. An import
of ``graphmem.x`` by a module of the package ``graphmem.x`` itself (a package ``__init__``
re-exporting its submodules, a submodule importing a sibling through the package) is not an edge
back to the package; the lazy table of ``graphmem/__init__.py`` is not an import either.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "graphmem"
IGNORED: tuple[str, ...] = ()
"""Modules left out of the checks (none)."""
MAX_LINES = 500
OVER_LIMIT_ELSEWHERE: set[str] = set()
"""Modules allowed over the limit (none)."""
FACADE_USERS = ("graphmem", "graphmem.aio", "graphmem.cli", "graphmem.mcp_server", "graphmem.mcp_tools",
                "graphmem.runtime", "graphmem.service", "graphmem.adapters")
"""The top layers: the only modules that may import :mod:`graphmem.memory` (``graphmem.aio`` is
the asynchronous facade, ``graphmem.adapters`` the framework adapters built on the facades)."""


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        if not name.startswith(IGNORED):
            out[name] = path
    return out


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The graphmem modules ``name`` imports (submodules resolved: ``from .x import y`` is
    ``pkg.x.y`` when that is a module, else ``pkg.x``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if _is_package(path) else name.rpartition(".")[0]
    found: set[str] = set()

    def add(target: str) -> None:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target:
            found.add(target)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("graphmem"):
                    add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            if not module.startswith("graphmem"):
                continue
            for alias in node.names:
                full = f"{module}.{alias.name}"
                add(full if full in known else module)
    found.discard(name)
    # a module importing the package it lives in (or a package its own submodule) is no edge back
    return {t for t in found if not name.startswith(t + ".") and not t.startswith(name + ".")}


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    return {name: _imports(name, path, known) for name, path in mods.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_graph_sees_imports() -> None:
    graph = _graph()
    assert "graphmem.memory" in graph["graphmem.cli.common"]
    assert "graphmem.db" in graph["graphmem.memory"]


def test_no_import_circle() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_nothing_below_the_cli_imports_it() -> None:
    bad = sorted(
        f"{name} imports {target}"
        for name, targets in _graph().items()
        if not name.startswith("graphmem.cli")
        for target in targets
        if target == "graphmem.cli" or target.startswith("graphmem.cli.")
    )
    assert bad == []


def test_only_the_top_layers_import_the_facade() -> None:
    bad = sorted(
        name
        for name, targets in _graph().items()
        if "graphmem.memory" in targets
        and not any(name == top or name.startswith(top + ".") for top in FACADE_USERS[1:])
        and name != "graphmem"
    )
    assert bad == []


@pytest.mark.parametrize("name", sorted(_modules()))
def test_module_size(name: str) -> None:
    path = _modules()[name]
    rel = path.relative_to(ROOT.parent).as_posix()
    lines = len(path.read_text(encoding="utf-8").splitlines())
    if rel in OVER_LIMIT_ELSEWHERE:
        pytest.skip(f"{rel}: {lines} lines, being split elsewhere")
    assert lines <= MAX_LINES, f"{rel} has {lines} lines"
