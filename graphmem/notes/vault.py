"""Reading a Markdown vault in Obsidian's layout: which notes go into memory and what they say.

A note goes into memory when it is one of the **fixed notes** (named by its path in the vault) or
when it carries the **memory tag** (``tags:`` in its YAML front matter, or ``#tag`` in the text; a
nested tag such as ``#memory/work`` counts too). For each note: its path relative to the vault
(``/``-separated), its title (front matter ``title``, else its first ``# `` heading, else its file
name), its tags, its text without the front matter, and the notes it links to (``[[Target]]``,
``[[Target|shown text]]``, ``[[Target#heading]]``: the target's file name, without ``.md``).
Hidden folders (``.obsidian``, ``.trash``, ...) are skipped. Nothing here touches the database.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..models import clean_text

__all__ = ["MAX_NOTE_CHARS", "VaultNote", "is_memory_note", "link_name", "parse_note", "scan_vault"]

MAX_NOTE_CHARS = 100_000
"""Characters of a note's text that are kept (a longer note is cut)."""

_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_TAG = re.compile(r"(?<![\w#&/])#([\w][\w/-]*)", re.U)
_LINK = re.compile(r"\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|[^\]\n]*)?\]\]")
_HEADING = re.compile(r"^#[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


@dataclass(frozen=True)
class VaultNote:
    path: str
    title: str
    text: str
    tags: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    fixed: bool = False
    mtime: float = 0.0
    name: str = field(default="")

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", link_name(self.path))


def link_name(path_or_target: str) -> str:
    """How links name a note: its file name without ``.md``, case-folded."""
    base = path_or_target.strip().replace("\\", "/").rsplit("/", 1)[-1]
    if base.lower().endswith(".md"):
        base = base[:-3]
    return base.strip().casefold()


def _front_matter(text: str) -> tuple[dict[str, list[str] | str], str]:
    m = _FRONT.match(text)
    if not m:
        return {}, text
    fields: dict[str, list[str] | str] = {}
    key: str | None = None
    for line in m.group(1).splitlines():
        item = re.match(r"^\s+-\s*(.*)$", line)
        if item and key is not None:  # a YAML list item under the last key
            current = fields.get(key)
            values = current if isinstance(current, list) else []
            values.append(item.group(1).strip().strip("'\""))
            fields[key] = values
            continue
        kv = re.match(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$", line)
        if not kv:
            continue
        key, value = kv.group(1).lower(), kv.group(2).strip()
        if value.startswith("[") and value.endswith("]"):
            fields[key] = [v.strip().strip("'\"") for v in value[1:-1].split(",") if v.strip()]
        elif value:
            fields[key] = value.strip("'\"")
        else:
            fields[key] = []
    return fields, text[m.end():]


def _as_list(value: list[str] | str | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return value
    return [v.strip() for v in re.split(r"[,\s]+", value) if v.strip()]


def parse_note(path: str, raw: str, *, fixed: bool = False, mtime: float = 0.0) -> VaultNote:
    """One note from its vault path and file content."""
    fields, body = _front_matter(raw)
    prose = _CODE.sub(" ", body)
    tags: list[str] = []
    for t in [*_as_list(fields.get("tags")), *_as_list(fields.get("tag")), *_TAG.findall(prose)]:
        t = t.lstrip("#").strip().casefold()
        if t and t not in tags:
            tags.append(t)
    links: list[str] = []
    for target in _LINK.findall(prose):
        name = link_name(target)
        if name and name not in links:
            links.append(name)
    title_field = fields.get("title")
    heading = _HEADING.search(prose)
    title = (title_field if isinstance(title_field, str) and title_field else
             heading.group(1).strip() if heading else Path(path).stem)
    return VaultNote(path=path, title=title, text=body.strip()[:MAX_NOTE_CHARS], tags=tuple(tags),
                     links=tuple(links), fixed=fixed, mtime=mtime)


def is_memory_note(note: VaultNote, tag: str) -> bool:
    """Whether ``note`` carries ``tag`` (or a tag nested under it)."""
    want = tag.lstrip("#").casefold()
    return any(t == want or t.startswith(want + "/") for t in note.tags)


def _files(root: Path) -> Iterator[Path]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            if f.lower().endswith(".md") and not f.startswith("."):
                yield Path(folder) / f


def scan_vault(root: Path, *, tag: str, fixed: Sequence[str] = ()) -> list[VaultNote]:
    """The notes of the vault at ``root`` that go into memory: the ``fixed`` paths and the notes
    tagged ``tag``. ``root`` must be a folder (:class:`FileNotFoundError` otherwise)."""
    if not root.is_dir():
        raise FileNotFoundError(f"notes vault not found: {root}")
    wanted = {clean_text(p.strip().replace("\\", "/").lstrip("/")) for p in fixed if p.strip()}
    wanted |= {w + ".md" for w in wanted if not w.lower().endswith(".md")}
    out: list[VaultNote] = []
    for file in _files(root):
        rel = clean_text(file.relative_to(root).as_posix())  # a name that is not UTF-8 is kept with U+FFFD
        try:
            raw = file.read_text(encoding="utf-8", errors="replace")
            mtime = file.stat().st_mtime
        except OSError:
            continue  # removed or unreadable meanwhile: the next sync sees it
        is_fixed = rel in wanted
        note = parse_note(rel, raw, fixed=is_fixed, mtime=mtime)
        if is_fixed or is_memory_note(note, tag):
            out.append(note)
    return out
