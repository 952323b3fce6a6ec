"""The Cypher loader: every statement lives in ``cypher/<group>/<name>.cypher``, one per file.

``query("turns/append")`` returns the text (typed ``LiteralString`` for the driver) and
``params("turns/append")`` the ``$parameters`` it uses. :func:`check_params` is called on every
execution, so code that passes a parameter the file does not use, or forgets one it does, fails
at once instead of silently running something else.

Where the files live:

* in a wheel they are shipped as ``graphmem/_cypher/`` (hatch ``force-include``);
* in a source checkout or an editable install they are read from the repository's ``cypher/``.

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

__all__ = ["all_names", "check_params", "cypher_root", "params", "query"]

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
# strings and comments are removed before looking for $params
_STRIP = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|//[^\n]*|/\*.*?\*/", re.S)


@functools.cache
def cypher_root() -> Traversable:
    """The folder that holds the ``.cypher`` files (packaged copy first, then the checkout's)."""
    packaged = resources.files("graphmem") / "_cypher"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / "cypher"
    if checkout.is_dir():
        return checkout
    raise CypherError("cannot find the cypher/ folder (neither packaged nor in a checkout)")


def _file(name: str) -> Traversable:
    if not re.fullmatch(r"[a-z0-9_]+(/[a-z0-9_@.]+)*", name) or ".." in name:
        raise CypherError(f"invalid query name: {name!r}")
    node = cypher_root()
    for part in f"{name}.cypher".split("/"):
        node = node / part
    if not node.is_file():
        raise CypherError(f"no such query file: cypher/{name}.cypher")
    return node


@functools.cache
def query(name: str) -> LiteralString:
    """The text of ``cypher/<name>.cypher`` (cached)."""
    # The text comes from a file we ship, never from user data: that is what LiteralString asserts.
    text = _file(name).read_text(encoding="utf-8").strip()
    return text  # mypy treats LiteralString as str


@functools.cache
def params(name: str) -> frozenset[str]:
    """The ``$parameters`` that ``cypher/<name>.cypher`` uses (outside strings and comments)."""
    return frozenset(_PARAM.findall(_STRIP.sub(" ", query(name))))


def check_params(name: str, given: frozenset[str] | set[str]) -> None:
    """Raise :class:`CypherError` unless ``given`` is exactly the set the file uses."""
    used = params(name)
    if used != given:
        missing = sorted(used - set(given))
        extra = sorted(set(given) - used)
        raise CypherError(f"cypher/{name}.cypher: missing parameters {missing}, unused parameters {extra}")


def all_names() -> list[str]:
    """Every query name under ``cypher/``, sorted."""
    names: list[str] = []

    def walk(node: Traversable, prefix: str) -> None:
        for child in node.iterdir():
            if child.is_dir():
                walk(child, f"{prefix}{child.name}/")
            elif child.name.endswith(".cypher"):
                names.append(prefix + child.name[: -len(".cypher")])

    walk(cypher_root(), "")
    return sorted(names)
