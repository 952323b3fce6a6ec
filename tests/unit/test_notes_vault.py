"""Reading a Markdown vault: which notes go into memory, their title, tags and wiki links."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.notes import parse_note, scan_vault
from graphmem.notes.vault import link_name


def test_front_matter_inline_tags_title_and_links() -> None:
    n = parse_note("people/David.md", "---\ntitle: David D.\ntags: [Memory, people]\n---\n# Heading\n"
                   "David lives in [[Toulouse|the pink city]], works with [[work/Alice#Role]]. #Family "
                   "`#not-a-tag` and [[Toulouse]] again.\n```\n#nor-this [[Nope]]\n```\n")
    assert n.title == "David D." and n.name == "david"
    assert n.tags == ("memory", "people", "family")
    assert n.links == ("toulouse", "alice")
    assert n.text.startswith("# Heading")  # without the front matter


def test_list_tags_heading_title_and_file_name_title() -> None:
    n = parse_note("x/Plan.md", "---\ntags:\n  - a\n  - memory/work\n---\n# The plan\ntext")
    assert n.tags == ("a", "memory/work") and n.title == "The plan"
    assert parse_note("Notes.md", "just text").title == "Notes"
    assert link_name("Folder/My Note.md") == "my note"


def test_scan_keeps_fixed_and_tagged_notes_only(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / "About.md").write_text("no tag, but fixed")
    (tmp_path / "sub" / "Tagged.md").write_text("text #memory/deep")
    (tmp_path / "sub" / "Other.md").write_text("text #memoryless")
    (tmp_path / ".obsidian" / "x.md").write_text("#memory")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    notes = scan_vault(tmp_path, tag="memory", fixed=["About"])
    assert [(n.path, n.fixed) for n in notes] == [("About.md", True), ("sub/Tagged.md", False)]
    with pytest.raises(FileNotFoundError, match="notes vault not found"):
        scan_vault(tmp_path / "missing", tag="memory")


def test_a_file_name_that_is_not_utf8_is_kept_with_a_replacement_character(tmp_path: Path) -> None:
    # a Latin-1 name reached Neo4j with a lone surrogate and failed the whole sync (UnicodeEncodeError)
    (tmp_path / b"caf\xe9.md".decode(errors="surrogateescape")).write_bytes(b"#memory caf\xe9 body")
    (notes,) = scan_vault(tmp_path, tag="memory")
    assert notes.path == "caf\ufffd.md" and notes.title == "caf\ufffd" and "\ufffd" in notes.text
    notes.path.encode("utf-8")  # storable
