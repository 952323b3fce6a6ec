"""Search scopes: one session, one directory (cwd), one project (git root), or everything.

Every scope maps to a property that turns and summaries carry (``sessionId``, ``cwd``,
``projectPath``); the Cypher files named ``search/<source>_<kind>`` filter on it, and the search
re-checks every hit against it before returning (no hit from outside the scope, ever).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from ..errors import InvalidInput, quoted
from ..facts.model import FactScope
from ..paths import find_project_root, normalize_cwd
from ..sessions import check_id

__all__ = ["MAX_LEVEL", "SCOPE_KINDS", "Scope", "ScopeKind", "check_levels", "parse_scope"]

MAX_LEVEL = 100
"""The highest summary level a search may name (each level covers four times the history of the one
below: far beyond any real memory)."""

ScopeKind = Literal["session", "directory", "project", "everything"]
SCOPE_KINDS: tuple[ScopeKind, ...] = ("session", "directory", "project", "everything")

_FILE_KIND = {"session": "session", "directory": "cwd", "project": "project", "everything": "all"}
_PROPERTY = {"session": "sessionId", "directory": "cwd", "project": "projectPath", "everything": None}


@dataclass(frozen=True)
class Scope:
    """Where to search. Build with :meth:`session`, :meth:`directory`, :meth:`project`,
    :meth:`project_of` or :meth:`everything` (paths are normalised like session cwds)."""

    kind: ScopeKind
    value: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in SCOPE_KINDS:
            raise InvalidInput(f"unknown scope {quoted(self.kind)}; expected one of {', '.join(SCOPE_KINDS)}")
        if self.kind == "everything":
            if self.value is not None:
                raise InvalidInput("the 'everything' scope takes no value")
        elif not isinstance(self.value, str) or not self.value:
            raise InvalidInput(f"the {quoted(self.kind)} scope needs a non-empty value")

    @classmethod
    def session(cls, session_id: str) -> Scope:
        return cls("session", check_id(session_id, "session id"))

    @classmethod
    def directory(cls, cwd: str) -> Scope:
        return cls("directory", normalize_cwd(cwd))

    @classmethod
    def project(cls, project_path: str) -> Scope:
        return cls("project", normalize_cwd(project_path))

    @classmethod
    def project_of(cls, cwd: str, *, worktree_as_project: bool = True) -> Scope:
        """The project (git root) that contains ``cwd``."""
        return cls("project", find_project_root(normalize_cwd(cwd), worktree_as_project=worktree_as_project))

    @classmethod
    def everything(cls) -> Scope:
        return cls("everything")

    @property
    def file_kind(self) -> str:
        """Suffix of the Cypher files for this scope (``session``, ``cwd``, ``project``, ``all``)."""
        return _FILE_KIND[self.kind]

    @property
    def property(self) -> str | None:
        """The node property the scope filters on (``None`` for everything)."""
        return _PROPERTY[self.kind]

    def contains(self, session_id: str | None, cwd: str | None, project_path: str | None) -> bool:
        """Whether a node with these properties lies in the scope (the final check on every hit)."""
        if self.kind == "everything":
            return True
        actual = {"session": session_id, "directory": cwd, "project": project_path}[self.kind]
        return actual == self.value

    def __str__(self) -> str:
        return self.kind if self.value is None else f"{self.kind}:{self.value}"


def parse_scope(spec: Scope | str | None) -> Scope:
    """``"everything"``, ``"session:<id>"``, ``"directory:<path>"`` (or ``cwd:``), ``"project:<path>"``."""
    if spec is None:
        return Scope.everything()
    if isinstance(spec, Scope):
        return spec
    if not isinstance(spec, str):
        if isinstance(spec, FactScope):  # where a fact lives, not where a search looks
            raise InvalidInput(f"scope {spec} is a fact's scope (graphmem.facts.Scope): a search takes "
                               "graphmem.retrieval.Scope or a string such as 'project:<path>'")
        raise InvalidInput(f"scope must be a string such as 'project:<path>', not {type(spec).__name__}")
    kind, sep, value = spec.partition(":")
    kind = {"cwd": "directory", "dir": "directory", "all": "everything"}.get(kind, kind)
    if kind == "everything" and not value:
        return Scope.everything()
    if not sep or not value:
        raise InvalidInput(f"invalid scope {quoted(spec)}: use everything, session:<id>, directory:<path>, project:<path>")
    if kind == "session":
        return Scope.session(value.strip())
    if kind == "directory":
        return Scope.directory(value)
    if kind == "project":
        return Scope.project(value)
    raise InvalidInput(f"unknown scope kind {quoted(kind)}")


def check_levels(levels: Iterable[int]) -> list[int]:
    """The levels a search looks at (0 = turns, 1+ = summaries), sorted and without repeats."""
    items = list(levels) if isinstance(levels, Iterable) and not isinstance(levels, str | bytes | dict) else []
    if not items or any(not isinstance(x, int) or isinstance(x, bool) or not 0 <= x <= MAX_LEVEL for x in items):
        raise InvalidInput(f"levels must be a non-empty list of integers from 0 to {MAX_LEVEL} "
                           "(0 = turns, 1+ = summaries)")
    return sorted(set(items))
