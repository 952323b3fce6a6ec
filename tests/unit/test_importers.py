"""Transcript importers: Claude Code, Codex, Gemini CLI and Aider, on generated realistic data."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from graphmem.errors import InvalidInput
from graphmem.integrations import (
    COMPACTION_MARKER,
    INTERRUPTED_NOTE,
    ImportedSession,
    ReadCursor,
    detect_agent,
    parse_aider,
    parse_claude_code,
    parse_codex,
    parse_gemini,
    parse_transcript,
    read_new,
)
from tests.data import aider_history, claude_transcript, codex_rollout, gemini_chat

# --------------------------------------------------------------------------------------------
# fixtures


@pytest.fixture(scope="module")
def claude() -> claude_transcript.ClaudeTranscript:
    return claude_transcript.generate()


@pytest.fixture(scope="module")
def claude_session(claude: claude_transcript.ClaudeTranscript) -> ImportedSession:
    return parse_claude_code(claude.data())


@pytest.fixture(scope="module")
def codex() -> codex_rollout.CodexRollout:
    return codex_rollout.generate()


@pytest.fixture(scope="module")
def gemini() -> gemini_chat.GeminiChat:
    return gemini_chat.generate()


def _write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _ids(session: ImportedSession) -> list[str | None]:
    return [t.source_id for t in session.turns]


def _dump(session: ImportedSession) -> list[dict[str, object]]:
    return [t.model_dump() for t in session.turns]


# --------------------------------------------------------------------------------------------
# Claude Code


def test_claude_generated_data_is_large_enough(claude: claude_transcript.ClaudeTranscript) -> None:
    assert len(claude.lines) >= 300
    assert len(claude.turns) >= 40


def test_claude_session_metadata(claude: claude_transcript.ClaudeTranscript, claude_session: ImportedSession) -> None:
    s = claude_session
    assert s.agent == "claude-code"
    assert s.session_id == claude.session_id
    assert s.cwd == claude.cwd
    assert s.title == claude.title
    assert s.started_at is not None and s.started_at.isoformat().startswith("2025-06-02T09:00")


def test_claude_turns_match_expected(
    claude: claude_transcript.ClaudeTranscript, claude_session: ImportedSession
) -> None:
    expected = claude.kept_turns()
    got = claude_session.turns
    assert [t.source_id for t in got] == [e.source_id for e in expected]
    for e, t in zip(expected, got, strict=True):
        if e.source_id == expected[[x.user_message.startswith("Use this key") for x in expected].index(True)].source_id:
            continue  # redacted, checked below
        assert t.user_message == e.user_message
        assert t.assistant_message == e.assistant_message, e.source_id
        assert [c.source_id for c in t.tool_calls] == e.tool_ids
        assert t.timestamp is not None


def test_claude_reimport_is_identical(tmp_path: Path, claude: claude_transcript.ClaudeTranscript) -> None:
    path = _write(tmp_path / f"{claude.session_id}.jsonl", claude.data())
    a = parse_claude_code(path)
    b = parse_claude_code(path)
    c = parse_claude_code(claude.text().split("\n"))  # the same content given as lines
    assert _ids(a) == _ids(b) == _ids(c)
    assert _dump(a) == _dump(b) == _dump(c)
    assert len(set(_ids(a))) == len(a.turns)


def test_claude_tool_joins_and_durations(
    claude: claude_transcript.ClaudeTranscript, claude_session: ImportedSession
) -> None:
    calls = {c.source_id: c for t in claude_session.turns for c in t.tool_calls}
    kept_ids = {i for t in claude.kept_turns() for i in t.tool_ids}
    assert set(calls) == kept_ids
    for tid in kept_ids:
        exp = claude.tools[tid]
        call = calls[tid]
        assert call.name == exp.name
        assert call.success is exp.success, tid
        assert call.duration_ms == exp.duration_ms, tid
        if exp.result is not None:
            assert call.result == exp.result
        assert call.timestamp is not None
    failing = [c for c in calls.values() if c.success is False]
    assert failing and all("Exit code 1" in (c.result or "") for c in failing)
    assert all(isinstance(c.args, dict) for c in calls.values())


def test_claude_interrupted_tool(claude_session: ImportedSession) -> None:
    turn = next(t for t in claude_session.turns if t.user_message == "Run the whole integration suite please.")
    (call,) = turn.tool_calls
    assert call.success is None and call.result == INTERRUPTED_NOTE and call.duration_ms is None
    assert "[Request interrupted by user for tool use]" in turn.assistant_message
    assert claude_session.stats["interrupted_tools"] == 1


def test_claude_split_records_are_merged_not_duplicated(
    claude: claude_transcript.ClaudeTranscript, claude_session: ImportedSession
) -> None:
    assert claude_session.stats["merged_split_records"] > 50
    # every assistant line written a second time under a new uuid (same message.id): no change
    doubled: list[str] = []
    for n, line in enumerate(claude.lines):
        doubled.append(line)
        rec = json.loads(line)
        if rec.get("type") == "assistant":
            rec["uuid"] = f"copy-{n}"
            doubled.append(json.dumps(rec, ensure_ascii=False))
    again = parse_claude_code(doubled)
    assert _dump(again) == _dump(claude_session)
    assert again.stats["merged_split_records"] > claude_session.stats["merged_split_records"]


def test_claude_skipped_records_are_counted(
    claude: claude_transcript.ClaudeTranscript, claude_session: ImportedSession
) -> None:
    st = claude_session.stats
    assert st["skipped:progress"] == claude.generated["progress"]
    assert st["skipped:file-history-snapshot"] == claude.generated["file-history-snapshot"]
    assert st["skipped:sidechain"] == claude.generated["sidechain"]
    assert st["skipped:attachment"] == claude.generated["attachment"]
    assert st["duplicates"] == claude.generated["duplicate"]
    assert st["skipped:system:compact_boundary"] == 1
    assert st["skipped:system:turn_duration"] == claude.generated["turn_duration"]
    assert st["records"] == len(claude.lines)
    assert not any("graphmem-context" in t.user_message for t in claude_session.turns)


def test_claude_truncated_last_line_is_a_warning(claude_session: ImportedSession) -> None:
    assert any("truncated last line" in w for w in claude_session.warnings)
    assert claude_session.stats["truncated_lines"] == 1


def test_claude_compaction_summary_is_a_marked_turn(
    claude: claude_transcript.ClaudeTranscript, claude_session: ImportedSession
) -> None:
    (exp,) = [t for t in claude.turns if t.kind == "compaction"]
    (turn,) = [t for t in claude_session.turns if t.user_message == COMPACTION_MARKER]
    assert turn.source_id == exp.source_id
    assert turn.assistant_message == exp.texts[0]
    assert turn.tool_calls == []


def test_claude_commands_sidechains_and_noise(claude_session: ImportedSession) -> None:
    prompts = [t.user_message for t in claude_session.turns]
    assert "/review PR 42" in prompts
    assert not any("/model" in p or "local-command" in p or "Caveat" in p for p in prompts)
    assert not any("List every TODO under billing/" in p for p in prompts)
    task = next(t for t in claude_session.turns if t.user_message.startswith("Use a subagent"))
    assert task.tool_calls[0].name == "Task" and (task.tool_calls[0].result or "").startswith("Found 3 TODOs")
    assert "Searching for TODO markers." not in task.assistant_message
    assert claude_session.stats["skipped:command_without_answer"] == 1


def test_claude_nomem_and_redaction(claude: claude_transcript.ClaudeTranscript) -> None:
    data = claude.data()
    default = parse_claude_code(data)
    assert not any("#nomem" in t.user_message for t in default.turns)
    assert default.stats["skipped:nomem_turns"] == 1
    secret_turn = next(t for t in default.turns if t.user_message.startswith("Use this key"))
    assert "[REDACTED:openai_api_key]" in secret_turn.user_message
    assert default.stats["redacted:openai_api_key"] == 1
    raw = parse_claude_code(data, skip_nomem=False, redact=False)
    assert any("#nomem" in t.user_message for t in raw.turns)
    assert any("sk-proj-AbC123" in t.user_message for t in raw.turns)
    assert len(raw.turns) == len(default.turns) + 1


def _feed_in_steps(
    path: Path, data: bytes, cuts: list[int], agent: str
) -> tuple[list[str | None], list[ImportedSession]]:
    """Append ``data`` to ``path`` in pieces (cut anywhere, even mid-line) and read_new each time."""
    path.write_bytes(b"")
    cursor: ReadCursor | None = None
    ids: list[str | None] = []
    reads: list[ImportedSession] = []
    prev = 0
    for cut in [*cuts, len(data)]:
        with path.open("ab") as f:
            f.write(data[prev:cut])
        prev = cut
        s = read_new(path, cursor, agent=agent)
        reads.append(s)
        ids += _ids(s)
        cursor = s.cursor
    s = read_new(path, cursor, final=True, agent=agent)
    reads.append(s)
    ids += _ids(s)
    return ids, reads


def test_claude_incremental_reads_add_up_to_a_full_import(
    tmp_path: Path, claude: claude_transcript.ClaudeTranscript
) -> None:
    data = claude.data(with_partial=False)
    full = parse_claude_code(data)
    rng = random.Random(3)
    cuts = sorted(rng.sample(range(1, len(data)), 40))
    ids, reads = _feed_in_steps(tmp_path / f"{claude.session_id}.jsonl", data, cuts, "claude-code")
    assert ids == _ids(full)
    assert all(s.session_id == claude.session_id for s in reads if s.turns)
    assert not any("truncated" in w for s in reads for w in s.warnings)
    by_id = {t.source_id: t.model_dump() for s in reads for t in s.turns}
    assert [by_id[i] for i in ids] == _dump(full)


def test_claude_read_new_holds_an_unfinished_turn(tmp_path: Path, claude: claude_transcript.ClaudeTranscript) -> None:
    # stop right after a tool_use line: the last turn is not finished yet
    lines = claude.lines
    idx = next(i for i, line in enumerate(lines) if '"type":"tool_use"' in line and i > 100)
    path = _write(tmp_path / "s.jsonl", "\n".join(lines[: idx + 1]) + "\n")
    first = read_new(path)
    last_prompt = parse_claude_code(path).turns[-1].source_id
    assert last_prompt not in _ids(first)
    held_offset = first.cursor.offset
    assert 0 < held_offset < path.stat().st_size
    again = read_new(path, first.cursor)
    assert again.turns == [] and again.cursor.offset == held_offset
    # the Stop hook's last_assistant_message does not finish a turn whose tool is still running
    assert read_new(path, first.cursor, last_assistant_message="done").turns == []
    final = read_new(path, first.cursor, final=True)
    assert _ids(final) == [last_prompt]
    assert final.turns[0].tool_calls[-1].success is None


def test_claude_stop_hook_before_the_transcript_is_flushed(tmp_path: Path) -> None:
    """Claude Code may run the Stop hook before the final text reaches the transcript."""
    use = [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}]
    result = [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]
    written = [
        _claude_record("user", "u1", "2025-01-01T10:00:00Z", "build it"),
        _claude_record("assistant", "a1", "2025-01-01T10:00:01Z", [{"type": "text", "text": "Building."}]),
        _claude_record("assistant", "a2", "2025-01-01T10:00:02Z", use),
        _claude_record("user", "r1", "2025-01-01T10:00:09Z", result),
    ]
    late = [
        _claude_record("assistant", "a3", "2025-01-01T10:00:10Z", [{"type": "text", "text": "Built in 7s."}]),
        json.dumps({"type": "system", "subtype": "turn_duration", "uuid": "s1", "timestamp": "2025-01-01T10:00:10Z"}),
    ]
    path = _write(tmp_path / "s.jsonl", "\n".join(written) + "\n")
    assert read_new(path).turns == []  # nothing says the turn ended
    stop = read_new(path, last_assistant_message="Built in 7s.")
    (turn,) = stop.turns
    assert turn.assistant_message == "Building.\n\nBuilt in 7s." and turn.tool_calls[0].duration_ms == 7000
    assert stop.stats["tail_completed_from_hook"] == 1
    with path.open("a") as f:
        f.write("\n".join([*late, _claude_record("user", "u2", "2025-01-01T10:01:00Z", "next")]) + "\n")
    nxt = read_new(path, stop.cursor)
    assert nxt.turns == [] and nxt.stats["skipped:late_records"] == 1
    assert _ids(read_new(path, nxt.cursor, final=True)) == ["u2"]
    # a turn_duration record alone finishes the turn; the flushed text is not added twice
    path2 = _write(tmp_path / "t.jsonl", "\n".join([*written, *late]) + "\n")
    (turn2,) = read_new(path2).turns
    assert turn2.assistant_message == "Building.\n\nBuilt in 7s."
    (turn3,) = read_new(path2, last_assistant_message="Built in 7s.").turns
    assert turn3 == turn2


def test_claude_read_new_recovers_from_a_rewritten_file(
    tmp_path: Path, claude: claude_transcript.ClaudeTranscript
) -> None:
    data = claude.data(with_partial=False)
    path = _write(tmp_path / "s.jsonl", data)
    first = read_new(path, final=True)
    middle = first.turns[len(first.turns) // 2].source_id
    bad_cursor = ReadCursor(offset=len(data) + 1000, last_source_id=middle)
    s = read_new(path, bad_cursor, final=True)
    assert s.warnings and "re-read from the start" in s.warnings[0]
    assert _ids(s) == _ids(first)[_ids(first).index(middle) + 1 :]
    off_line = ReadCursor(offset=5, last_source_id=None)
    s2 = read_new(path, off_line, final=True)
    assert "line start" in s2.warnings[0] and _ids(s2) == _ids(first)


def _claude_record(rtype: str, uid: str, ts: str | int, content: object, **extra: object) -> str:
    role = "assistant" if rtype == "assistant" else "user"
    message: dict[str, object] = {"role": role, "content": content}
    if rtype == "assistant":
        message["id"] = f"msg_{uid}"
    rec: dict[str, object] = {
        "type": rtype,
        "uuid": uid,
        "sessionId": "s-1",
        "cwd": "/w",
        "timestamp": ts,
        "message": message,
    }
    rec.update(extra)
    return json.dumps(rec, ensure_ascii=False)


def test_claude_reordered_records_are_sorted_with_a_warning() -> None:
    lines = [
        _claude_record("user", "u1", "2025-01-01T10:00:00Z", "first question"),
        _claude_record("assistant", "a1", "2025-01-01T10:00:05Z", [{"type": "text", "text": "first answer"}]),
        _claude_record("assistant", "a2", "2025-01-01T10:01:05Z", [{"type": "text", "text": "second answer"}]),
        _claude_record("user", "u2", "2025-01-01T10:01:00Z", "second question"),
    ]
    s = parse_claude_code(lines)
    assert [(t.user_message, t.assistant_message) for t in s.turns] == [
        ("first question", "first answer"),
        ("second question", "second answer"),
    ]
    assert any("out of timestamp order" in w for w in s.warnings)


def test_claude_tool_result_before_its_tool_use_is_still_joined() -> None:
    use = [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]
    result = [{"type": "tool_result", "tool_use_id": "t1", "content": "a\nb"}]
    lines = [
        _claude_record("user", "u1", "2025-01-01T10:00:00Z", "list files"),
        _claude_record("user", "r1", "2025-01-01T10:00:02Z", result),
        _claude_record("assistant", "a1", "2025-01-01T10:00:02Z", use),
        _claude_record("assistant", "a2", "2025-01-01T10:00:03Z", [{"type": "text", "text": "two files"}]),
    ]
    (turn,) = parse_claude_code(lines).turns
    assert turn.tool_calls[0].result == "a\nb" and turn.tool_calls[0].success is True


def test_claude_malformed_content_never_raises() -> None:
    lines = [
        "",
        "null",
        "[1, 2, 3]",
        '"just a string"',
        "{not json",
        json.dumps({"type": 42}),
        json.dumps({"uuid": "x"}),
        json.dumps({"type": "user", "uuid": "u0", "message": "not a dict"}),
        json.dumps({"type": "user", "uuid": "u1", "message": {"content": 12}}),
        json.dumps({"type": "assistant", "uuid": "a0", "message": {"content": [None, 3, {"type": None}]}}),
        _claude_record("user", "u2", "not a date", "a real prompt"),
        json.dumps({"type": "assistant", "uuid": "a1", "message": {"id": 7, "content": [{"type": "tool_use"}]}}),
        json.dumps({"type": "user", "uuid": "r9", "message": {"content": [{"type": "tool_result", "tool_use_id": 5}]}}),
        json.dumps({"type": "brand-new-type-v3", "uuid": "n1", "payload": {}}),
        json.dumps({"type": "user", "uuid": "u3", "message": {"content": [{"type": "text", "text": "\ud800 broken"}]}}),
        _claude_record("assistant", "a2", 1735725600000, "answer with epoch ms timestamp"),
    ]
    s = parse_claude_code(lines)
    assert [t.user_message for t in s.turns] == ["a real prompt", "\ufffd broken"]
    assert s.turns[1].assistant_message == "answer with epoch ms timestamp"
    assert any("brand-new-type-v3" in w for w in s.warnings)
    assert s.stats["invalid_lines"] == 4


def test_claude_invalid_utf8_is_replaced(tmp_path: Path) -> None:
    good = _claude_record("user", "u1", "2025-01-01T10:00:00Z", "caf\u00e9 MARKER").encode()
    data = good.replace(b"MARKER", b"\xff\xfe bytes") + b"\n"
    data += _claude_record("assistant", "a1", "2025-01-01T10:00:01Z", "ok").encode() + b"\n"
    s = parse_claude_code(_write(tmp_path / "s.jsonl", data))
    assert s.turns[0].user_message == "café \ufffd\ufffd bytes"


def test_claude_headless_and_sidechain_only_files() -> None:
    s = parse_claude_code([_claude_record("assistant", "a1", "2025-01-01T10:00:01Z", "resumed answer")])
    assert [(t.user_message, t.assistant_message) for t in s.turns] == [("", "resumed answer")]
    assert any("before any user prompt" in w for w in s.warnings)
    side = [
        _claude_record("user", "u1", "2025-01-01T10:00:00Z", "subagent task", isSidechain=True),
        _claude_record("assistant", "a1", "2025-01-01T10:00:01Z", "subagent done", isSidechain=True),
    ]
    s = parse_claude_code(side)
    assert [t.user_message for t in s.turns] == ["subagent task"]
    assert any("sidechain" in w for w in s.warnings)


def test_claude_incremental_chunk_of_subagent_records_is_skipped(tmp_path: Path) -> None:
    main = [
        _claude_record("user", "u1", "2025-01-01T10:00:00Z", "delegate the search"),
        _claude_record(
            "assistant", "a1", "2025-01-01T10:00:01Z", [{"type": "tool_use", "id": "t1", "name": "Task", "input": {}}]
        ),
    ]
    side = [
        _claude_record("user", "s1", "2025-01-01T10:00:02Z", "search TODOs", isSidechain=True),
        _claude_record("assistant", "s2", "2025-01-01T10:00:03Z", "found 3", isSidechain=True),
    ]
    path = _write(tmp_path / "s.jsonl", "\n".join(main) + "\n")
    first = read_new(path, session_id="s-1")
    with path.open("a") as f:
        f.write("\n".join(side) + "\n")
    second = read_new(path, first.cursor, session_id="s-1")
    assert second.turns == [] and second.stats["skipped:sidechain"] == 2
    assert second.session_id == "s-1"
    (turn,) = read_new(path, second.cursor, final=True).turns
    assert turn.user_message == "delegate the search"


def test_claude_unreadable_file_raises(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput):
        parse_claude_code(tmp_path / "missing.jsonl")
    with pytest.raises(InvalidInput):
        parse_claude_code(tmp_path)
    with pytest.raises(InvalidInput):
        read_new(tmp_path / "missing.jsonl", agent="claude-code")


def _corrupt(lines: list[str], rng: random.Random) -> bytes:
    out = list(lines)
    for _ in range(rng.randint(1, 8)):
        op = rng.randrange(6)
        i = rng.randrange(len(out))
        if op == 0:
            out[i] = out[i][: rng.randrange(len(out[i]) + 1)]
        elif op == 1:
            out.insert(i, rng.choice(["{", "}", "garbage", "{}", "[]", '{"type":"user"}', "\t"]))
        elif op == 2:
            j = rng.randrange(len(out))
            out[i], out[j] = out[j], out[i]
        elif op == 3:
            out.insert(i, out[i])
        elif op == 4:
            del out[i]
        else:
            out[i] = out[i].replace('"', "'", 1)
    data = "\n".join(out).encode()
    if rng.random() < 0.5:
        pos = rng.randrange(len(data))
        data = data[:pos] + bytes([rng.randrange(128, 256)]) + data[pos:]
    if rng.random() < 0.5:
        data = data[: rng.randrange(len(data))]
    return data


@pytest.mark.parametrize("seed", range(25))
def test_jsonl_importers_survive_random_corruption(
    seed: int, claude: claude_transcript.ClaudeTranscript, codex: codex_rollout.CodexRollout
) -> None:
    rng = random.Random(seed)
    for parser, lines in ((parse_claude_code, claude.lines), (parse_codex, codex.lines)):
        s = parser(_corrupt(lines, rng))
        ids = _ids(s)
        assert len(ids) == len(set(ids))
        assert all(isinstance(t.user_message, str) for t in s.turns)


# --------------------------------------------------------------------------------------------
# Codex


def test_codex_import(codex: codex_rollout.CodexRollout) -> None:
    assert len(codex.lines) >= 300
    s = parse_codex(codex.data())
    assert (s.agent, s.session_id, s.cwd) == ("codex", codex.session_id, codex.cwd)
    expected = codex.kept_turns()
    assert [t.user_message for t in s.turns] == [e.user_message for e in expected]
    for e, t in zip(expected, s.turns, strict=True):
        assert t.assistant_message == "\n\n".join(e.texts)
        assert [c.source_id for c in t.tool_calls if c.name != "web_search"] == e.call_ids
    calls = {c.source_id: c for t in s.turns for c in t.tool_calls if c.source_id}
    for cid, exp in codex.tools.items():
        if cid == "web":
            continue
        c = calls[cid]
        assert (c.name, c.success, c.duration_ms) == (exp.name, exp.success, exp.duration_ms), cid
    shell = next(c for c in calls.values() if c.name == "shell" and c.success)
    assert isinstance(shell.args, dict) and shell.args["command"][0] == "bash"
    assert not (shell.result or "").startswith(("{", "Exit code"))
    web = next(c for t in s.turns for c in t.tool_calls if c.name == "web_search")
    assert web.success is True and web.args == {"type": "search", "query": "httpx 0.28 changelog"}
    assert not any(t.user_message.startswith(("<environment_context>", "<user_instructions>")) for t in s.turns)
    assert s.stats["skipped:injected_context"] == 2
    assert any(t.user_message == COMPACTION_MARKER for t in s.turns)
    assert any("future_record" in w for w in s.warnings)
    assert any("truncated" in w for w in s.warnings)
    assert s.stats["duplicates"] == 1 and s.stats["skipped:nomem_turns"] == 1
    aborted = next(t for t in s.turns if t.user_message.startswith("Run the load test"))
    assert aborted.tool_calls[0].success is None and aborted.tool_calls[0].result == INTERRUPTED_NOTE


def test_codex_reimport_and_incremental(tmp_path: Path, codex: codex_rollout.CodexRollout) -> None:
    data = codex.data(with_partial=False)
    path = _write(tmp_path / f"rollout-2025-09-14T16-30-00-{codex.session_id}.jsonl", data)
    full = parse_codex(path)
    assert _dump(full) == _dump(parse_codex(path))
    assert len(set(_ids(full))) == len(full.turns)
    rng = random.Random(8)
    ids, reads = _feed_in_steps(tmp_path / "inc.jsonl", data, sorted(rng.sample(range(1, len(data)), 30)), "codex")
    assert ids == _ids(full)
    assert {s.session_id for s in reads if s.turns} == {codex.session_id}


def test_codex_legacy_layout_and_event_only_files() -> None:
    legacy = [
        json.dumps({"id": "legacy-1", "timestamp": "2025-05-01T10:00:00Z", "instructions": None}),
        json.dumps({"record_type": "state"}),
        json.dumps({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello codex"}]}),
        json.dumps({"type": "function_call", "name": "shell", "arguments": '{"command": ["ls"]}', "call_id": "c1"}),
        json.dumps({"type": "function_call_output", "call_id": "c1", "output": "a.py"}),
        json.dumps({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "one file"}]}),
    ]
    s = parse_codex(legacy)
    assert s.session_id == "legacy-1"
    (t,) = s.turns
    assert (t.user_message, t.assistant_message, t.tool_calls[0].result) == ("hello codex", "one file", "a.py")
    events = [
        json.dumps({"timestamp": "2025-05-01T10:00:00Z", "type": "session_meta", "payload": {"id": "ev-1"}}),
        json.dumps(
            {
                "timestamp": "2025-05-01T10:00:01Z",
                "type": "event_msg",
                "payload": {"type": "user_message", "message": "hi"},
            }
        ),
        json.dumps(
            {
                "timestamp": "2025-05-01T10:00:02Z",
                "type": "event_msg",
                "payload": {"type": "agent_message", "message": "hey"},
            }
        ),
    ]
    (t,) = parse_codex(events).turns
    assert (t.user_message, t.assistant_message) == ("hi", "hey")


# --------------------------------------------------------------------------------------------
# Gemini CLI


def _check_gemini(chat: gemini_chat.GeminiChat, s: ImportedSession) -> None:
    expected = chat.kept_turns()
    assert _ids(s) == [e.source_id for e in expected]
    for e, t in zip(expected, s.turns, strict=True):
        assert t.user_message == e.user_message
        assert t.assistant_message == "\n\n".join(e.texts)
        assert [c.source_id for c in t.tool_calls] == e.tool_ids
        for c in t.tool_calls:
            assert c.source_id is not None
            assert c.success is chat.tools[c.source_id].success
            if c.success is None:
                assert c.result == INTERRUPTED_NOTE


def test_gemini_legacy_json(tmp_path: Path, gemini: gemini_chat.GeminiChat) -> None:
    assert len(gemini.messages) >= 150
    path = _write(tmp_path / "session-2025-10-03T08-15-5c0ffee0.json", gemini.legacy_json())
    s = parse_gemini(path, cwd="/work/shop")
    assert (s.agent, s.session_id, s.cwd) == ("gemini", gemini.session_id, "/work/shop")
    assert s.title == "Fix CI on Node 18 and add order validation"
    _check_gemini(gemini, s)
    assert s.stats["skipped:info"] > 0 and s.stats["skipped:error"] > 0
    assert s.stats["skipped:command_without_answer"] == 1
    assert any(c.success is False for t in s.turns for c in t.tool_calls)
    assert _dump(s) == _dump(parse_gemini(path, cwd="/work/shop"))


def test_gemini_jsonl_with_rewrites_rewind_and_truncation(tmp_path: Path, gemini: gemini_chat.GeminiChat) -> None:
    lines, rewound = gemini_chat.jsonl_lines(gemini)
    assert len(lines) >= 300
    data = "\n".join(lines) + "\n" + lines[-1][:25]
    chats = tmp_path / "tmp" / "abc" / "chats"
    chats.mkdir(parents=True)
    (tmp_path / "tmp" / "abc" / ".project_root").write_text("/work/shop\n")
    s = parse_gemini(_write(chats / "session-2025-10-03T08-15-5c0ffee0.jsonl", data))
    _check_gemini(gemini, s)
    assert s.cwd == "/work/shop"
    assert not rewound & set(_ids(s))
    assert any("truncated" in w for w in s.warnings)
    assert s.stats["rewinds"] == 1 and s.stats["updated_messages"] > 0


def test_gemini_truncated_legacy_file_is_salvaged(gemini: gemini_chat.GeminiChat) -> None:
    text = gemini.legacy_json()
    s = parse_gemini(text[: len(text) // 2].encode())
    assert s.session_id == gemini.session_id
    assert any("salvaged" in w for w in s.warnings)
    full = [e.source_id for e in gemini.kept_turns()]
    assert 5 < len(s.turns) < len(full)
    assert _ids(s)[:-1] == full[: len(s.turns) - 1]


def test_gemini_checkpoint() -> None:
    history, prompts = gemini_chat.checkpoint()
    s = parse_gemini(json.dumps(history).encode())
    assert [t.user_message for t in s.turns][1:] == prompts
    calls = [c for t in s.turns for c in t.tool_calls]
    assert calls and all(c.success is True and c.result for c in calls)


def test_gemini_read_new(tmp_path: Path, gemini: gemini_chat.GeminiChat) -> None:
    path = tmp_path / "session.json"
    half = gemini_chat.GeminiChat(gemini.messages[: len(gemini.messages) // 2], gemini.turns, gemini.tools)
    _write(path, half.legacy_json())
    first = read_new(path)
    _write(path, gemini.legacy_json())
    second = read_new(path, first.cursor, final=True)
    assert _ids(first) + _ids(second) == [e.source_id for e in gemini.kept_turns()]
    assert read_new(path, second.cursor, final=True).turns == []


# --------------------------------------------------------------------------------------------
# Aider


def test_aider_sessions(tmp_path: Path) -> None:
    hist = aider_history.generate()
    path = _write(tmp_path / ".aider.chat.history.md", hist.text)
    sessions = parse_aider(path)
    assert len(hist.text.splitlines()) >= 300
    assert len(sessions) == len(hist.sessions)
    assert len({s.session_id for s in sessions}) == len(sessions)
    for exp, s in zip(hist.sessions, sessions, strict=True):
        assert s.agent == "aider" and s.cwd == str(tmp_path.resolve())
        assert s.started_at is not None and s.started_at.strftime("%Y-%m-%d %H:%M:%S") == exp.started
        kept = [t for t in exp.turns if "#nomem" not in t.user_message]
        assert [t.user_message for t in s.turns] == [t.user_message for t in kept]
        for e, t in zip(kept, s.turns, strict=True):
            assert [c.name for c in t.tool_calls] == e.tool_names
            assert t.assistant_message
    edit = next(c for s in sessions for t in s.turns for c in t.tool_calls if c.name == "edit")
    assert edit.success is True and isinstance(edit.args, dict)
    run = next(c for s in sessions for t in s.turns for c in t.tool_calls if c.name == "/run")
    assert run.args == "pytest -q" and "1 failed, 4 passed" in (run.result or "")
    first = sessions[0].turns[0]
    assert ">>>>>>> REPLACE" in first.assistant_message and "Tokens:" not in json.dumps(first.model_dump(mode="json"))
    again = parse_aider(path)
    assert [_dump(s) for s in again] == [_dump(s) for s in sessions]
    with pytest.raises(InvalidInput):
        read_new(path)


def test_aider_odd_content() -> None:
    text = "stray text before any header\n\n#### orphan prompt  \n\nanswer\n\n# aider chat started at not-a-date\n\n#### <blank>\n"
    sessions = parse_aider(text.encode())
    assert len(sessions) == 2
    assert [t.user_message for t in sessions[0].turns] == ["orphan prompt"]
    assert any("before the first" in w for w in sessions[0].warnings)
    assert sessions[1].turns == [] and any("unreadable session start" in w for w in sessions[1].warnings)


# --------------------------------------------------------------------------------------------
# dispatch and generic robustness


def test_detect_agent_and_parse_transcript(
    tmp_path: Path,
    claude: claude_transcript.ClaudeTranscript,
    codex: codex_rollout.CodexRollout,
    gemini: gemini_chat.GeminiChat,
) -> None:
    files = {
        "claude-code": _write(tmp_path / "a.jsonl", claude.data()),
        "codex": _write(tmp_path / "b.jsonl", codex.data()),
        "gemini": _write(tmp_path / "c.json", gemini.legacy_json()),
        "aider": _write(tmp_path / ".aider.chat.history.md", aider_history.generate().text),
    }
    lines, _ = gemini_chat.jsonl_lines(gemini)
    files_jsonl = _write(tmp_path / "d.jsonl", "\n".join(lines))
    for agent, path in files.items():
        assert detect_agent(path) == agent
        sessions = parse_transcript(path)
        assert sessions and all(s.agent == agent for s in sessions)
    assert detect_agent(files_jsonl) == "gemini"
    with pytest.raises(InvalidInput):
        detect_agent(_write(tmp_path / "x.jsonl", "hello\n"))
    with pytest.raises(InvalidInput):
        parse_transcript(files["codex"], agent="cursor")


@pytest.mark.parametrize("seed", range(6))
def test_every_importer_survives_garbage(seed: int) -> None:
    rng = random.Random(seed)
    blobs = [b"", b"\n\n\n", rng.randbytes(5000), bytes(range(256)) * 10, b"{" * 3000, b"[" * 100_000]
    for blob in blobs:
        parse_claude_code(blob)
        parse_codex(blob)
        parse_gemini(blob)
        parse_aider(blob)
