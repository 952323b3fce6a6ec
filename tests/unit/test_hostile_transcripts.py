"""Hostile transcripts (issue #8): every importer on mutated files never raises, keeps what is
valid, and warns about what it dropped; the same through ``graphmem import`` and the Stop hook's
incremental reader (``read_new`` with hostile cursors). Property-based (hypothesis)."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.cli.main import main
from graphmem.integrations import (
    ImportedSession,
    ReadCursor,
    parse_aider,
    parse_claude_code,
    parse_codex,
    parse_gemini,
    read_new,
)
from graphmem_devtools.reliability._strategies import hostile_bytes
from tests.data import aider_history, claude_transcript, codex_rollout, gemini_chat

CLAUDE = claude_transcript.generate(n_turns=16)
CODEX = codex_rollout.generate(n_turns=14)
GEMINI = gemini_chat.generate(n_turns=16)
GEMINI_LINES, _ = gemini_chat.jsonl_lines(GEMINI)
AIDER = aider_history.generate(n_sessions=2, turns_per_session=6)

Parser = Callable[[bytes], ImportedSession | list[ImportedSession]]
FORMATS: dict[str, tuple[list[str], Parser]] = {
    "claude-code": (list(CLAUDE.lines), parse_claude_code),
    "codex": (list(CODEX.lines), parse_codex),
    "gemini": (list(GEMINI_LINES), parse_gemini),
    "aider": (AIDER.text.splitlines(), parse_aider),
}
SETTINGS = settings(max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck))

# records of a newer format or unknown kinds, as a future CLI version could write them
FUTURE_RECORDS = [
    json.dumps({"type": "hologram", "version": "99.0.0", "uuid": "f-1", "payload": {"x": 1}}),
    json.dumps({"type": "response_item", "payload": {"type": "quantum_call", "name": "teleport"}}),
    json.dumps({"type": "user", "version": "99.2.0", "message": {"role": "user", "content": [{"type": "future_block"}]},
                "uuid": "f-2"}),
    json.dumps({"record_type": "state", "schema": 42}),
    json.dumps({"id": "m-1", "type": "gemini_v9", "content": [{"unknown": True}]}),
]


def _is_json(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except ValueError:
        return False
    return True


def _sessions(result: ImportedSession | list[ImportedSession]) -> list[ImportedSession]:
    return result if isinstance(result, list) else [result]


def _ids(result: ImportedSession | list[ImportedSession]) -> set[str | None]:
    return {t.source_id for s in _sessions(result) for t in s.turns}


@st.composite
def mutated(draw: st.DrawFn, lines: list[str]) -> tuple[bytes, bool]:
    """A transcript with hostile edits; returns (data, damaged) where damaged says whether a line
    was cut or garbage was added (a warning is then expected for the JSONL formats)."""
    out = list(lines)
    damaged = False
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(["truncate", "reorder", "duplicate", "future", "garbage", "delete"]))
        i = draw(st.integers(0, max(0, len(out) - 1)))
        if not out:
            break
        if op == "truncate":
            cut = draw(st.integers(0, max(0, len(out[i]) - 1)))
            out[i] = out[i][:cut]
            damaged = damaged or 0 < cut < len(lines[0])
        elif op == "reorder":
            j = draw(st.integers(0, len(out) - 1))
            out[i], out[j] = out[j], out[i]
        elif op == "duplicate":
            out.insert(i, out[i])
        elif op == "future":
            out.insert(i, draw(st.sampled_from(FUTURE_RECORDS)))
        elif op == "garbage":
            out.insert(i, draw(hostile_bytes()).decode("utf-8", "surrogateescape"))
            damaged = True
        else:
            del out[i]
    data = "\n".join(out).encode("utf-8", "surrogateescape")
    if draw(st.booleans()):  # cut the file itself mid-line, as a crash while writing would
        data = data[: draw(st.integers(0, len(data)))]
    return data, damaged


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_importers_never_raise_on_mutated_transcripts(fmt: str) -> None:
    lines, parser = FORMATS[fmt]
    full_ids = _ids(parser("\n".join(lines).encode()))

    @SETTINGS
    @given(mutated(lines))
    def check(case: tuple[bytes, bool]) -> None:
        data, _damaged = case
        result = parser(data)  # must not raise
        for s in _sessions(result):
            ids = [t.source_id for t in s.turns]
            assert len(ids) == len(set(ids)), "a duplicated record gave a duplicate turn"
            for t in s.turns:
                assert isinstance(t.user_message, str) and isinstance(t.assistant_message, str)
                t.user_message.encode("utf-8")  # storable: no lone surrogate left
                t.assistant_message.encode("utf-8")

    check()
    assert full_ids


@pytest.mark.parametrize("fmt", ["claude-code", "codex"])
def test_a_transcript_cut_anywhere_keeps_the_turns_before_the_cut(fmt: str) -> None:
    """Imported as far as valid: a cut at byte n yields turns of the full import only, never fewer
    than a cut at an earlier line boundary, and a warning when it fell mid-line."""
    lines, parser = FORMATS[fmt]
    data = ("\n".join(lines) + "\n").encode()
    full = _sessions(parser(data))[0]
    full_ids = [t.source_id for t in full.turns]
    boundaries = [i + 1 for i, b in enumerate(data) if b == ord("\n")]

    @SETTINGS
    @given(st.integers(1, len(data) - 1))
    def check(n: int) -> None:
        s = _sessions(parser(data[:n]))[0]
        ids = [t.source_id for t in s.turns]
        assert set(ids) <= set(full_ids)
        last_boundary = max([b for b in boundaries if b <= n], default=0)
        at_boundary = _sessions(parser(data[:last_boundary]))[0]
        assert len(ids) >= len(at_boundary.turns) - 1  # the cut may only unfinish the last turn
        if n != last_boundary and data[last_boundary:n].strip() and not _is_json(data[last_boundary:n]):
            assert s.warnings, "a line cut mid-way must be reported"

    check()


def test_future_records_are_skipped_with_a_warning() -> None:
    for fmt in ("claude-code", "codex"):
        lines, parser = FORMATS[fmt]
        mixed = list(lines)
        for k, rec in enumerate(FUTURE_RECORDS[:2]):
            mixed.insert(3 + 7 * k, rec)
        s = _sessions(parser("\n".join(mixed).encode()))[0]
        base = _sessions(parser("\n".join(lines).encode()))[0]
        assert [t.source_id for t in s.turns] == [t.source_id for t in base.turns]
        assert any("unknown" in w for w in s.warnings), s.warnings


@pytest.mark.parametrize("fmt", ["claude-code", "codex", "gemini"])
def test_stop_hook_reader_survives_hostile_cursors_and_files(fmt: str, tmp_path: Path) -> None:
    lines, _ = FORMATS[fmt]
    suffix = ".jsonl"
    path = tmp_path / f"session{suffix}"

    @SETTINGS
    @given(mutated(lines), st.one_of(st.none(), st.builds(ReadCursor, offset=st.integers(0, 10**9),
                                                          last_source_id=st.one_of(st.none(), st.text(max_size=20)))),
           st.booleans(), st.one_of(st.none(), st.text(max_size=200)))
    def check(case: tuple[bytes, bool], cursor: ReadCursor | None, final: bool, last: str | None) -> None:
        path.write_bytes(case[0])
        s = read_new(path, cursor, agent=fmt, final=final, last_assistant_message=last)
        assert s.cursor is not None
        again = read_new(path, s.cursor, agent=fmt, final=final)  # reading on from the new cursor
        assert {t.source_id for t in again.turns}.isdisjoint({t.source_id for t in s.turns} - {None}) or final

    check()


def test_cli_import_of_hostile_files_never_prints_a_traceback(tmp_path: Path) -> None:
    """``graphmem import --dry-run`` (no database needed) on mutated and garbage files of every
    format: exit code 0 or 1, one line per problem, never a traceback."""
    files = []
    for fmt, (lines, _) in FORMATS.items():
        suffix = {"gemini": ".json", "aider": ".md"}.get(fmt, ".jsonl")
        files.append((fmt, tmp_path / f"{fmt}-cut{suffix}", ("\n".join(lines)).encode()[: len("\n".join(lines)) // 2]))
        files.append((fmt, tmp_path / f"{fmt}-garbage{suffix}", b"\xff\xfe\x00{\"type\": \"user\", \xc3" * 50))
        files.append((fmt, tmp_path / f"{fmt}-empty{suffix}", b""))
    for fmt, path, data in files:
        path.write_bytes(data)
        for argv in (["import", fmt, str(path), "--dry-run", "--cwd", "/tmp/x"],
                     ["import", str(path), "--dry-run", "--json"]):
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(argv)
            assert code in (0, 1), (argv, code, err.getvalue())
            assert "Traceback" not in err.getvalue() + out.getvalue()
