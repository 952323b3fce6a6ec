"""Aider chat history importer (``.aider.chat.history.md`` in the repository root).

Format, from Aider's ``aider/io.py`` (``InputOutput.user_input``, ``ai_output``,
``append_chat_history``, ``tool_output``/``tool_error``):

* each run appends ``# aider chat started at YYYY-MM-DD HH:MM:SS`` (local time);
* user input is written as ``#### <line>`` lines (a multi-line input is one ``####`` line per
  line, each ending with two spaces); an empty input is ``#### <blank>``;
* model output is written verbatim between blank lines;
* tool output, warnings, errors and confirmation questions are written as Markdown quotes
  (``> text``, ending with two spaces; lines inside the model's fenced code blocks, such as
  ``>>>>>>> REPLACE``, are model text), e.g. ``> Applied edit to app.py``,
  ``> Commit 1a2b3c4 fix: ...``, ``> Tokens: 2.1k sent, 300 received.``, ``> Running pytest``.

Mapping: every ``# aider chat started at`` header opens a session (one file holds many); a
``####`` block is a prompt, except slash commands other than ``/ask``, ``/code``,
``/architect``, ``/context`` and ``/chat-mode``, which become tool calls (name = the command,
``args`` = its arguments, ``result`` = the quoted output that follows) attached to the next
prompt's turn. Quoted lines after a prompt become tool calls: ``Applied edit to X`` (``edit``),
``Did not apply edit``/``Failed to apply edit`` (``edit``, failed), ``Commit <sha> <msg>``
(``git_commit``), ``Running <cmd>`` (``run``, followed by its output); token/cost lines are
dropped and other quoted lines are kept in one ``aider`` call per turn. A quoted line inside
the model's own Markdown cannot be told from tool output and is treated as tool output.

Aider writes no ids and no per-message times: the session id hashes the history file's
directory, the header time and its occurrence; a turn's source id hashes the session id, the
prompt's position in the session and its text; turn timestamps are None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from .transcript import (
    Diagnostics,
    ImportedSession,
    ReadCursor,
    ReadOptions,
    Source,
    TranscriptFormat,
    decode,
    file_size,
    read_bytes,
    source_path,
)
from .turns import PendingTool, TurnBuilder, finalize, short_hash, strip_injected_context

__all__ = ["AGENT", "FORMAT", "parse_aider"]

AGENT = "aider"

_HEADER_RE = re.compile(r"^# aider chat started at (.+?)\s*$")
_USER_RE = re.compile(r"^####(?: (.*))?$")
_CHAT_MODES = ("/ask", "/code", "/architect", "/context", "/chat-mode", "/help")
_APPLIED_RE = re.compile(r"^Applied edit to (.+)$")
_FAILED_RE = re.compile(
    r"^(?:Did not apply edit to|Failed to apply edit to|Unable to apply edit to) (.+?)(?: \(.*\))?$"
)
_COMMIT_RE = re.compile(r"^Commit ([0-9a-f]{7,40}) (.*)$")
_RUNNING_RE = re.compile(r"^Running (.+)$")
_NOISE_RE = re.compile(
    r"^(?:Tokens: |Cost: |Main model: |Weak model: |Git repo: |Repo-map: |Aider v\d|Model: |Added .* to the chat\.$)"
)


@dataclass
class _Session:
    started_raw: str | None
    occurrence: int
    line: int
    lines: list[str] = field(default_factory=list)


def parse_aider(
    source: Source,
    *,
    cwd: str | None = None,
    skip_nomem: bool = True,
    redact: bool = True,
) -> list[ImportedSession]:
    """Import every session of an Aider chat history file (oldest first).

    ``cwd`` defaults to the directory holding the history file. Raises ``InvalidInput`` only
    when the file cannot be read; anything else becomes a warning.
    """
    path = source_path(source)
    if cwd is None and path is not None:
        cwd = str(Path(path).resolve().parent)
    text = decode(read_bytes(source)).lstrip("\ufeff")
    sessions = _split_sessions(text.split("\n"))
    size = file_size(source)
    out: list[ImportedSession] = []
    for s in sessions:
        out.append(_session(s, path, cwd, skip_nomem=skip_nomem, redact=redact, size=size))
    return out


def _split_sessions(lines: list[str]) -> list[_Session]:
    sessions: list[_Session] = []
    seen: dict[str, int] = {}
    current: _Session | None = None
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\r")
        m = _HEADER_RE.match(line)
        if m:
            raw = m.group(1)
            seen[raw] = seen.get(raw, 0) + 1
            current = _Session(raw, seen[raw], n)
            sessions.append(current)
            continue
        if current is None:
            if not line.strip():
                continue
            current = _Session(None, 1, n)
            sessions.append(current)
        current.lines.append(line)
    return sessions


def _started(raw: str | None) -> datetime | None:
    if raw is None:
        return None
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.strptime(raw, fmt).astimezone()
        except ValueError:
            continue
    return None


@dataclass
class _Block:
    kind: str  # user | tool | text
    lines: list[str]


def _blocks(lines: list[str]) -> list[_Block]:
    blocks: list[_Block] = []
    in_fence = False
    for line in lines:
        um = None if in_fence else _USER_RE.match(line)
        if um:
            kind, body = "user", (um.group(1) or "")
            body = body[:-2] if body.endswith("  ") else body.rstrip()
        elif not in_fence and (line.startswith("> ") or line.rstrip() == ">"):
            kind, body = "tool", line[2:].rstrip()
        else:
            kind, body = "text", line
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
        if blocks and blocks[-1].kind == kind:
            blocks[-1].lines.append(body)
        else:
            blocks.append(_Block(kind, [body]))
    return blocks


def _session(
    s: _Session,
    path: str | None,
    cwd: str | None,
    *,
    skip_nomem: bool,
    redact: bool,
    size: int | None,
) -> ImportedSession:
    diag = Diagnostics()
    started = _started(s.started_raw)
    if s.started_raw is None:
        diag.warn("no_header", f"line {s.line}: text before the first '# aider chat started at' header")
    elif started is None:
        diag.warn("bad_header", f"line {s.line}: unreadable session start time {s.started_raw!r}")
    session_id = "aider-" + short_hash(cwd or path or "", s.started_raw, s.occurrence)

    builders: list[TurnBuilder] = []
    current: TurnBuilder | None = None
    pending: list[PendingTool] = []
    target: PendingTool | None = None
    generic: dict[int, PendingTool] = {}
    prompt_no = 0

    for block in _blocks(s.lines):
        if block.kind == "user":
            diag.count("records")
            text = "\n".join(block.lines).strip()
            if text in ("", "<blank>"):
                diag.count("skipped:blank_input")
                continue
            if text.startswith("/") and not text.startswith(_CHAT_MODES):
                cmd, _, args = text.partition(" ")
                if cmd in ("/exit", "/quit"):
                    diag.count("skipped:exit")
                    continue
                tool = PendingTool(name=cmd, args=args.strip() or None, source_id=None, started=None)
                pending.append(tool)
                target = tool
                diag.count("commands")
                continue
            prompt_no += 1
            text = strip_injected_context(text)
            current = TurnBuilder(
                source_id="aider:" + short_hash(session_id, prompt_no, text),
                user_message=text,
                timestamp=None,
                offset=prompt_no,
            )
            for tool in pending:
                current.add_tool(tool)
            pending = []
            target = None
            builders.append(current)
        elif block.kind == "tool":
            target = _tool_lines(block.lines, current, target, generic, diag)
        else:
            body = "\n".join(block.lines).strip()
            if not body:
                continue
            if current is None:
                diag.count("skipped:text_before_prompt")
                continue
            current.add_text(body)
            target = None

    for tool in pending:
        if not tool.has_result:
            tool.finish(None, True, None)
    if pending:
        diag.warn("trailing_commands", f"{len(pending)} command(s) after the last prompt not imported")
        diag.count("skipped:trailing_commands", len(pending))
    for b in builders:
        for t in b.tools:
            if not t.has_result:
                t.finish(None, True, None)
    turns = finalize(builders, diag, skip_nomem=skip_nomem, redact=redact)
    return ImportedSession(
        agent=AGENT,
        session_id=session_id,
        cwd=cwd,
        started_at=started,
        title=None,
        source_path=path,
        turns=turns,
        warnings=diag.warnings(),
        stats=diag.stats,
        cursor=ReadCursor(offset=size or 0, last_source_id=turns[-1].source_id if turns else None),
    )


def _append(tool: PendingTool, line: str) -> None:
    tool.result = f"{tool.result}\n{line}" if tool.result else line


def _tool_lines(
    lines: list[str],
    current: TurnBuilder | None,
    target: PendingTool | None,
    generic: dict[int, PendingTool],
    diag: Diagnostics,
) -> PendingTool | None:
    """Turn quoted lines into tool calls; returns the call that further output belongs to."""
    for line in lines:
        if not line.strip():
            continue
        if _NOISE_RE.match(line):
            diag.count("skipped:aider_noise")
            continue
        if current is None or (target is not None and target.name.startswith("/")):
            if target is not None:
                _append(target, line)
                target.has_result = True
                target.success = True
            else:
                diag.count("skipped:tool_output_before_prompt")
            continue
        m = _APPLIED_RE.match(line)
        f = _FAILED_RE.match(line)
        c = _COMMIT_RE.match(line)
        r = _RUNNING_RE.match(line)
        if m or f:
            name = (m or f).group(1).strip()  # type: ignore[union-attr]
            tool = PendingTool(name="edit", args={"file": name}, source_id=None, started=None)
            tool.finish(line, m is not None, None)
            current.add_tool(tool)
            target = None
        elif c:
            tool = PendingTool(
                name="git_commit", args={"sha": c.group(1), "message": c.group(2)}, source_id=None, started=None
            )
            tool.finish(line, True, None)
            current.add_tool(tool)
            target = None
        elif r:
            tool = PendingTool(name="run", args=r.group(1).strip(), source_id=None, started=None)
            tool.has_result = True
            tool.success = True
            current.add_tool(tool)
            target = tool
        elif target is not None:
            _append(target, line)
        else:
            key = id(current)
            out = generic.get(key)
            if out is None:
                out = PendingTool(name="aider", args=None, source_id=None, started=None)
                out.has_result = True
                out.success = True
                current.add_tool(out)
                generic[key] = out
            _append(out, line)
    if current is not None and current.last_event == "tool_use":
        current.last_event = "tool_result"
    return target


def _read(source: Source, opts: ReadOptions) -> list[ImportedSession]:
    return parse_aider(source, cwd=opts.cwd, skip_nomem=opts.skip_nomem, redact=opts.redact)


FORMAT = TranscriptFormat(
    name=AGENT,
    label="Aider",
    read=_read,
    resume=None,
    patterns=(".aider.chat.history.md", "*.aider.chat.history.md"),
    claims_name=lambda name: name.endswith(".md") or "aider.chat.history" in name,
)
"""Aider chat histories (no hooks, so no incremental reading: the whole file is imported again)."""
