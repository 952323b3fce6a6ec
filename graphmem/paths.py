"""Working-directory normalisation and project (git root) detection."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import InvalidInput, quoted

__all__ = ["find_project_root", "normalize_cwd"]


def normalize_cwd(cwd: str | os.PathLike[str]) -> str:
    """The canonical form of a working directory: ``~`` expanded, absolute, symlinks resolved,
    no trailing slash (the root stays ``/``). The directory need not exist."""
    if not isinstance(cwd, str | os.PathLike):
        raise InvalidInput(f"a working directory must be a path string, not {type(cwd).__name__}")
    text = os.fspath(cwd)
    if not isinstance(text, str):
        raise InvalidInput(f"a working directory must be a path string, not {type(text).__name__}")
    if not text or "\x00" in text:
        raise InvalidInput(f"invalid working directory: {quoted(text)}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidInput(f"working directory is not valid UTF-8: {quoted(text)}") from e
    p = Path(text).expanduser()
    try:
        resolved = p.resolve(strict=False)
    except (OSError, RuntimeError) as e:  # symlink loops
        raise InvalidInput(f"cannot resolve working directory {quoted(text)}: {e}") from e
    out = str(resolved)
    return out.rstrip("/") or "/"


def find_project_root(cwd: str, *, worktree_as_project: bool = True) -> str:
    """The git root above ``cwd`` (the directory holding ``.git``), or ``cwd`` itself.

    A linked worktree has a ``.git`` *file*; with ``worktree_as_project=False`` its sessions are
    filed under the main repository instead (the ``commondir`` of the worktree's git dir).
    """
    here = Path(cwd)
    for d in (here, *here.parents):
        marker = d / ".git"
        try:
            if marker.is_dir():
                return str(d)
            if marker.is_file():
                if worktree_as_project:
                    return str(d)
                text = marker.read_text(errors="replace").strip()
                if text.startswith("gitdir:"):
                    gitdir = (d / text[len("gitdir:"):].strip()).resolve()
                    common = gitdir / "commondir"
                    if common.is_file():
                        main_git = (gitdir / common.read_text().strip()).resolve()
                        return str(main_git.parent)
                return str(d)
        except OSError:
            continue
    return str(here)
