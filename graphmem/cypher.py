"""The Cypher loader: every statement lives in ``cypher/<group>/<name>.cypher``, one per file.

``query("turns/append")`` returns the text (typed ``LiteralString`` for the driver) and
``params("turns/append")`` the ``$parameters`` it uses. :func:`check_params` is called on every
execution, so code that passes a parameter the file does not use, or forgets one it does, fails
at once instead of silently running something else.

Where graphmem's own files live:

* in a wheel they are shipped as ``graphmem/_cypher/`` (hatch ``force-include``);
* in a source checkout or an editable install they are read from the repository's ``cypher/``.

A :class:`Statements` reads the files of one such folder. The module-level functions use
graphmem's own (:func:`statements`); code outside the library (benchmarks, tests) keeps its
statements in a folder of its own and gives its :class:`Statements` to
:meth:`graphmem.db.Database.with_statements`, so they are never shipped in graphmem's wheel.

Files may start with ``//`` comment lines (the explore queries document themselves that way).
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import LiteralString

from .errors import CypherError

__all__ = ["Statements", "all_names", "check_params", "cypher_root", "params", "query", "statements"]

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
# strings and comments are removed before looking for $params
_STRIP = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|//[^\n]*|/\*.*?\*/", re.S)
_NAME = re.compile(r"[a-z0-9_]+(/[a-z0-9_@.]+)*")


class Statements:
    """The statements of one folder, ``<root>/<group>/<name>.cypher``, by name (texts cached).

    A name the folder does not hold is looked up in ``base`` when one is given (typically graphmem's
    own :func:`statements`), so one :class:`~graphmem.db.Database` view runs both sets."""

    def __init__(self, root: Traversable, *, base: Statements | None = None) -> None:
        self.root = root
        self.base = base
        self._texts: dict[str, LiteralString] = {}
        self._params: dict[str, frozenset[str]] = {}

    def __repr__(self) -> str:
        return f"Statements({self.root!s})"

    def _file(self, name: str) -> Traversable:
        if not _NAME.fullmatch(name) or ".." in name:
            raise CypherError(f"invalid query name: {name!r}")
        node = self.root
        for part in f"{name}.cypher".split("/"):
            node = node / part
        if not node.is_file():
            if self.base is not None:
                return self.base._file(name)
            raise CypherError(f"no such query file: {name}.cypher in {self.root}")
        return node

    def query(self, name: str) -> LiteralString:
        """The text of ``<root>/<name>.cypher``."""
        text = self._texts.get(name)
        if text is None:
            # The text comes from a file we ship, never from user data: that is what LiteralString asserts.
            text = self._texts[name] = self._file(name).read_text(encoding="utf-8").strip()
        return text

    def params(self, name: str) -> frozenset[str]:
        """The ``$parameters`` that ``<root>/<name>.cypher`` uses (outside strings and comments)."""
        used = self._params.get(name)
        if used is None:
            used = self._params[name] = frozenset(_PARAM.findall(_STRIP.sub(" ", self.query(name))))
        return used

    def check_params(self, name: str, given: frozenset[str] | set[str]) -> None:
        """Raise :class:`CypherError` unless ``given`` is exactly the set the file uses."""
        used = self.params(name)
        if used != given:
            missing = sorted(used - set(given))
            extra = sorted(set(given) - used)
            raise CypherError(f"{name}.cypher: missing parameters {missing}, unused parameters {extra}")

    def all_names(self) -> list[str]:
        """Every query name under the root (not the base's), sorted."""
        names: list[str] = []

        def walk(node: Traversable, prefix: str) -> None:
            for child in node.iterdir():
                if child.is_dir():
                    walk(child, f"{prefix}{child.name}/")
                elif child.name.endswith(".cypher"):
                    names.append(prefix + child.name[: -len(".cypher")])

        walk(self.root, "")
        return sorted(names)


@functools.cache
def cypher_root() -> Traversable:
    """The folder that holds graphmem's ``.cypher`` files (packaged copy first, then the checkout's)."""
    packaged = resources.files("graphmem") / "_cypher"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / "cypher"
    if checkout.is_dir():
        return checkout
    raise CypherError("cannot find the cypher/ folder (neither packaged nor in a checkout)")


@functools.cache
def statements() -> Statements:
    """graphmem's own statements (those under :func:`cypher_root`)."""
    return Statements(cypher_root())


def query(name: str) -> LiteralString:
    """The text of graphmem's ``cypher/<name>.cypher`` (cached)."""
    return statements().query(name)


def params(name: str) -> frozenset[str]:
    """The ``$parameters`` that graphmem's ``cypher/<name>.cypher`` uses."""
    return statements().params(name)


def check_params(name: str, given: frozenset[str] | set[str]) -> None:
    """Raise :class:`CypherError` unless ``given`` is exactly the set graphmem's file uses."""
    statements().check_params(name, given)


def all_names() -> list[str]:
    """Every query name under graphmem's ``cypher/``, sorted."""
    return statements().all_names()
