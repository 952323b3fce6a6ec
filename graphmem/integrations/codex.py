"""Codex CLI rollout importer (``~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``).

Format, from the openai/codex sources (``codex-rs/protocol``: ``RolloutLine``, ``ResponseItem``,
``EventMsg``) and public descriptions of real rollouts:

* each line is ``{"timestamp": ..., "type": ..., "payload": {...}}`` with ``type`` one of
  ``session_meta`` (``id``, ``cwd``, ``timestamp``, ``cli_version``, ``instructions``),
  ``turn_context`` (``cwd``, ``model``, ``turn_id`` ...), ``response_item``, ``event_msg`` and
  ``compacted`` (``message``: the summary). Older rollouts (2025-05..07) have no wrapper: the
  first line is the session meta (``id``, ``timestamp``, ``instructions``) and the next lines are
  bare response items (plus ``{"record_type": "state"}`` lines); both are accepted.
* ``response_item`` payloads: ``message`` (``role`` user/assistant/developer/system,
  ``content``: ``input_text``/``output_text``/``input_image`` parts), ``function_call``
  (``name``, ``arguments`` as a JSON string, ``call_id``), ``function_call_output``
  (``call_id``, ``output``), ``custom_tool_call``/``custom_tool_call_output`` (apply_patch),
  ``local_shell_call``, ``web_search_call``, ``reasoning`` (skipped).
* a tool output is a plain string, a JSON string ``{"output": ..., "metadata": {"exit_code",
  "duration_seconds"}}``, or text starting with ``Exit code: N`` / ``Process exited with code N``
  and ``Wall time: X seconds``; success and duration come from there, else from the matching
  ``event_msg``/``exec_command_end``, else from the record timestamps.
* user messages Codex injects itself (``<environment_context>``, ``<user_instructions>``,
  ``# AGENTS.md instructions``, ``<permissions instructions>`` ...) and ``developer``/``system``
  messages are not prompts. ``event_msg`` ``user_message``/``agent_message`` duplicate the
  response items; they are used only when a file has no response-item messages of that role.
  ``event_msg`` ``task_complete`` ends a turn, ``turn_aborted`` marks it interrupted.

Rollouts carry no per-message id, so a turn's source id is derived from the session id, the
prompt's timestamp and its text (stable across re-imports; identical duplicated lines are
dropped before that). Compaction records become marked turns (see ``COMPACTION_MARKER``).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ._common import (
    COMPACTION_MARKER,
    Diagnostics,
    ImportedSession,
    PendingTool,
    ReadCursor,
    Source,
    TurnBuilder,
    as_dict,
    as_str,
    finalize,
    iter_lines,
    json_text,
    load_json_line,
    parse_ts,
    select_turns,
    short_hash,
    source_path,
    strip_injected_context,
    text_of_blocks,
)
from .claude_code import _checked_start

__all__ = ["AGENT", "parse_codex", "read_new_codex"]

AGENT = "codex"

_INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<user_shell_command>",
    "<subagent_notification>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
)
_RESPONSE_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
        "reasoning",
    }
)
_EXIT_RE = re.compile(r"^(?:Exit code:|Process exited with code)\s*(-?\d+)", re.MULTILINE)
_WALL_RE = re.compile(r"^Wall time:\s*([0-9.]+)\s*(?:seconds|s)\b", re.MULTILINE)
_OUTPUT_RE = re.compile(r"^Output:\n", re.MULTILINE)
_SKIPPED_EVENTS = frozenset(
    {
        "token_count",
        "agent_reasoning",
        "agent_reasoning_raw_content",
        "agent_reasoning_section_break",
        "task_started",
        "exec_command_begin",
        "patch_apply_begin",
        "patch_apply_end",
        "mcp_tool_call_begin",
        "mcp_tool_call_end",
        "web_search_begin",
        "web_search_end",
        "turn_diff",
        "plan_update",
        "entered_review_mode",
        "exited_review_mode",
        "context_compacted",
        "user_message",
        "agent_message",
    }
)


@dataclass(slots=True)
class _Rec:
    offset: int
    lineno: int
    ts: datetime | None
    kind: str
    payload: dict[str, Any]


def parse_codex(
    source: Source,
    *,
    include_incomplete: bool = True,
    skip_nomem: bool = True,
    redact: bool = True,
) -> ImportedSession:
    """Import a whole Codex rollout (see ``parse_claude_code`` for the options)."""
    return _parse(
        source,
        start=0,
        after_source_id=None,
        final=include_incomplete,
        skip_nomem=skip_nomem,
        redact=redact,
        incremental=False,
        previous=None,
    )


def read_new_codex(
    path: str | os.PathLike[str],
    cursor: ReadCursor | None = None,
    *,
    final: bool = False,
    skip_nomem: bool = True,
    redact: bool = True,
    session_id: str | None = None,
    last_assistant_message: str | None = None,
) -> ImportedSession:
    """Turns appended to a rollout since ``cursor`` (same contract as ``read_new_claude_code``;
    a turn is finished by ``task_complete``/``turn_aborted``, a later prompt, ``final`` or the
    Stop hook's ``last_assistant_message``).

    ``session_id`` (e.g. from the hook input) names the session when the unread part of the
    file has no ``session_meta`` line; without it the id is read from the file's first line.
    """
    cursor = cursor or ReadCursor()
    start, reset_warning = _checked_start(path, cursor.offset)
    session = _parse(
        path,
        start=start,
        after_source_id=cursor.last_source_id,
        final=final,
        skip_nomem=skip_nomem,
        redact=redact,
        incremental=True,
        previous=cursor.last_source_id,
        session_hint=session_id,
        tail_text=last_assistant_message,
    )
    if reset_warning:
        session.warnings.insert(0, reset_warning)
    return session


def _normalize(obj: dict[str, Any]) -> tuple[str, dict[str, Any], Any] | None:
    """(kind, payload, timestamp) of a rollout line in any known layout."""
    payload = obj.get("payload")
    kind = obj.get("type")
    if isinstance(kind, str) and isinstance(payload, dict):
        return kind, payload, obj.get("timestamp", payload.get("timestamp"))
    if "record_type" in obj:
        return "state", obj, None
    if isinstance(kind, str) and kind in _RESPONSE_TYPES:
        return "response_item", obj, obj.get("timestamp")
    if kind is None and isinstance(obj.get("id"), str) and ("instructions" in obj or "timestamp" in obj):
        return "session_meta", obj, obj.get("timestamp")
    return None


def _head_meta(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The session meta of a rollout's first lines (used by incremental reads)."""
    diag = Diagnostics()
    for line in iter_lines(path):
        if line.lineno > 5:
            break
        obj = load_json_line(line, diag, incremental=True)
        norm = _normalize(obj) if obj is not None else None
        if norm is not None and norm[0] == "session_meta":
            return norm[1]
    return {}


def _parse(
    source: Source,
    *,
    start: int,
    after_source_id: str | None,
    final: bool,
    skip_nomem: bool,
    redact: bool,
    incremental: bool,
    previous: str | None,
    session_hint: str | None = None,
    tail_text: str | None = None,
) -> ImportedSession:
    diag = Diagnostics()
    records: list[_Rec] = []
    seen: set[str] = set()
    meta: dict[str, Any] = {}
    cwd: str | None = None
    end_offset = start
    unknown: dict[str, int] = {}

    for line in iter_lines(source, start):
        if incremental and not line.terminated:
            break
        end_offset = line.end
        obj = load_json_line(line, diag, incremental=incremental)
        if obj is None:
            continue
        diag.count("records")
        key = short_hash(line.text.strip())
        if key in seen:
            diag.count("duplicates")
            continue
        seen.add(key)
        norm = _normalize(obj)
        if norm is None:
            unknown[str(obj.get("type"))] = unknown.get(str(obj.get("type")), 0) + 1
            continue
        kind, payload, raw_ts = norm
        if kind == "session_meta":
            if not meta:
                meta = payload
            elif payload.get("id") not in (None, meta.get("id")):
                diag.warn("session_meta", "several session_meta records; the first one names the session")
            continue
        if kind == "turn_context":
            cwd = cwd or as_str(payload.get("cwd"))
            continue
        if kind == "state":
            diag.count("skipped:state")
            continue
        if kind not in ("response_item", "event_msg", "compacted"):
            unknown[kind] = unknown.get(kind, 0) + 1
            continue
        records.append(_Rec(line.offset, line.lineno, parse_ts(raw_ts), kind, payload))

    for kind, n in unknown.items():
        diag.warn("unknown_type", f"unknown record type {kind!r} ignored ({n} line(s))")
        diag.count(f"skipped:unknown:{kind}", n)

    path = source_path(source)
    if not meta and incremental and path is not None and start > 0:
        meta = _head_meta(path)
    session_id = as_str(meta.get("id")) or session_hint or _id_from_name(path)
    cwd = as_str(meta.get("cwd")) or cwd

    builders = _Assembler(diag, session_id, late=incremental and start > 0).run(records)
    emitted, held = select_turns(builders, final=final, after_source_id=after_source_id, diag=diag, tail_text=tail_text)
    turns = finalize(emitted, diag, skip_nomem=skip_nomem, redact=redact)
    started = parse_ts(meta.get("timestamp")) or min((r.ts for r in records if r.ts), default=None)
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
        cursor=ReadCursor(
            offset=held.offset if held is not None else end_offset,
            last_source_id=emitted[-1].source_id if emitted else previous,
        ),
    )


_UUID_TAIL = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.IGNORECASE)


def _id_from_name(path: str | None) -> str:
    if path:
        stem = Path(path).stem
        m = _UUID_TAIL.search(stem)
        return m.group(1) if m else stem
    return "codex-" + short_hash("no-session-meta")


def _message_text(payload: dict[str, Any]) -> str:
    return text_of_blocks(payload.get("content")).strip()


def _is_injected(text: str) -> bool:
    return text.startswith(_INJECTED_PREFIXES)


def _parse_output(output: Any) -> tuple[str, bool | None, int | None]:
    """(text, success, duration_ms) of a function call output in any known shape."""
    success: bool | None = None
    duration: int | None = None
    if isinstance(output, dict):
        if isinstance(output.get("success"), bool):
            success = output["success"]
        output = output.get("content", output.get("output", output))
    if isinstance(output, list):
        output = text_of_blocks(output)
    text = output if isinstance(output, str) else json_text(output)
    stripped = text.lstrip()
    if stripped.startswith("{") and '"output"' in stripped:
        try:
            value = json.loads(stripped)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict) and "output" in value:
            md = as_dict(value.get("metadata"))
            code = md.get("exit_code")
            if isinstance(code, int) and not isinstance(code, bool):
                success = code == 0
            secs = md.get("duration_seconds")
            if isinstance(secs, int | float) and not isinstance(secs, bool):
                duration = round(secs * 1000)
            inner = value.get("output")
            text = inner if isinstance(inner, str) else json_text(inner)
            return text, success, duration
    m = _EXIT_RE.search(text)
    if m:
        success = int(m.group(1)) == 0
        w = _WALL_RE.search(text)
        if w:
            try:
                duration = round(float(w.group(1)) * 1000)
            except ValueError:
                duration = None
        o = _OUTPUT_RE.search(text)
        if o:
            text = text[o.end() :]
    return text, success, duration


def _parse_args(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            return raw
    return raw


class _Assembler:
    def __init__(self, diag: Diagnostics, session_id: str, *, late: bool) -> None:
        self.diag = diag
        self.session_id = session_id
        self.late = late
        self.builders: list[TurnBuilder] = []
        self.current: TurnBuilder | None = None
        self.tools: dict[str, PendingTool] = {}
        self.owner: dict[str, TurnBuilder] = {}
        self.pending_outputs: dict[str, _Rec] = {}
        self.use_event_prompts = False
        self.use_event_agent = False

    def run(self, records: list[_Rec]) -> list[TurnBuilder]:
        has_item_prompt = any(
            r.kind == "response_item"
            and r.payload.get("type") == "message"
            and r.payload.get("role") == "user"
            and not _is_injected(_message_text(r.payload))
            for r in records
        )
        has_item_agent = any(
            r.kind == "response_item" and r.payload.get("type") == "message" and r.payload.get("role") == "assistant"
            for r in records
        )
        self.use_event_prompts = not has_item_prompt
        self.use_event_agent = not has_item_agent
        for r in records:
            if r.kind == "response_item":
                self._item(r)
            elif r.kind == "event_msg":
                self._event(r)
            else:
                self._compacted(r)
        if self.pending_outputs:
            self.diag.warn(
                "orphan_results", f"{len(self.pending_outputs)} tool output(s) without a matching call ignored"
            )
            self.diag.count("orphan_tool_results", len(self.pending_outputs))
        return self.builders

    def _open(self, r: _Rec, text: str) -> None:
        sid = "codex:" + short_hash(self.session_id, r.ts.isoformat() if r.ts else f"line{r.lineno}", text)
        b = TurnBuilder(source_id=sid, user_message=text, timestamp=r.ts, offset=r.offset)
        self.builders.append(b)
        self.current = b

    def _target(self, r: _Rec) -> TurnBuilder | None:
        if self.current is not None:
            return self.current
        if self.late:
            self.diag.count("skipped:late_records")
            return None
        self.diag.warn(
            "headless", f"line {r.lineno}: assistant output before any user prompt kept in a turn without prompt"
        )
        b = TurnBuilder(
            source_id="codex:" + short_hash(self.session_id, "headless", r.lineno),
            user_message="",
            timestamp=r.ts,
            offset=r.offset,
        )
        self.builders.append(b)
        self.current = b
        return b

    def _prompt(self, r: _Rec, text: str) -> None:
        text = strip_injected_context(text)
        if not text:
            self.diag.count("skipped:empty_prompt")
            return
        if _is_injected(text):
            self.diag.count("skipped:injected_context")
            return
        if text.startswith("<turn_aborted>"):
            self._abort()
            return
        self._open(r, text)

    def _abort(self) -> None:
        self.diag.count("interrupts")
        if self.current is not None:
            note = "[turn aborted by user]"
            if note not in self.current.notes:
                self.current.notes.append(note)
            self.current.finished = True

    def _item(self, r: _Rec) -> None:
        p = r.payload
        ptype = p.get("type")
        if ptype == "message":
            role = p.get("role")
            text = _message_text(p)
            if role == "user":
                self._prompt(r, text)
            elif role == "assistant":
                if text:
                    turn = self._target(r)
                    if turn is not None:
                        turn.add_text(text)
            else:
                self.diag.count(f"skipped:{role}_message")
        elif ptype in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
            self._call(r, p, str(ptype))
        elif ptype in ("function_call_output", "custom_tool_call_output"):
            self._output(r)
        elif ptype == "reasoning":
            self.diag.count("skipped:reasoning")
        else:
            self.diag.count(f"skipped:item:{ptype}")

    def _call(self, r: _Rec, p: dict[str, Any], ptype: str) -> None:
        turn = self._target(r)
        if turn is None:
            return
        call_id = p.get("call_id") or p.get("id")
        call_id = call_id if isinstance(call_id, str) and call_id else None
        if ptype == "function_call":
            name = as_str(p.get("name")) or "unknown"
            args = _parse_args(p.get("arguments"))
        elif ptype == "custom_tool_call":
            name = as_str(p.get("name")) or "custom_tool"
            args = p.get("input")
        elif ptype == "local_shell_call":
            name = "local_shell"
            args = p.get("action")
        else:
            name = "web_search"
            args = p.get("action")
        if call_id is not None and call_id in self.tools:
            return
        tool = PendingTool(name=name, args=args, source_id=call_id, started=r.ts)
        turn.add_tool(tool)
        if ptype == "web_search_call":
            status = p.get("status")
            tool.finish(None, status == "completed" if isinstance(status, str) else None, r.ts)
        if call_id is not None:
            self.tools[call_id] = tool
            self.owner[call_id] = turn
            pending = self.pending_outputs.pop(call_id, None)
            if pending is not None:
                self._output(pending)

    def _output(self, r: _Rec) -> None:
        call_id = r.payload.get("call_id")
        if not isinstance(call_id, str):
            self.diag.count("orphan_tool_results")
            return
        tool = self.tools.get(call_id)
        if tool is None:
            self.pending_outputs.setdefault(call_id, r)
            return
        text, success, duration = _parse_output(r.payload.get("output"))
        if duration is not None:
            tool.duration_ms = duration
        if success is None:
            success = tool.success if tool.success is not None else True
        tool.finish(text, success, r.ts)
        owner = self.owner.get(call_id)
        if owner is not None and owner.last_event != "text":
            owner.last_event = "tool_result"

    def _event(self, r: _Rec) -> None:
        p = r.payload
        etype = p.get("type")
        if etype == "user_message" and self.use_event_prompts:
            message = as_str(p.get("message")) or ""
            self._prompt(r, message.strip())
        elif etype == "agent_message" and self.use_event_agent:
            message = (as_str(p.get("message")) or "").strip()
            if message:
                turn = self._target(r)
                if turn is not None:
                    turn.add_text(message)
        elif etype == "exec_command_end":
            self._exec_end(p)
        elif etype == "task_complete":
            if self.current is not None:
                self.current.finished = True
                last = (as_str(p.get("last_agent_message")) or "").strip()
                if last and not self.current.texts:
                    self.current.add_text(last)
        elif etype == "turn_aborted":
            self._abort()
        elif etype in _SKIPPED_EVENTS:
            self.diag.count(f"skipped:event:{etype}")
        else:
            self.diag.count(f"skipped:event:{etype}")

    def _exec_end(self, p: dict[str, Any]) -> None:
        call_id = p.get("call_id")
        tool = self.tools.get(call_id) if isinstance(call_id, str) else None
        if tool is None:
            return
        code = p.get("exit_code")
        if isinstance(code, int) and not isinstance(code, bool) and tool.success is None:
            tool.success = code == 0
        dur = p.get("duration")
        if tool.duration_ms is None:
            if isinstance(dur, dict):
                secs, nanos = dur.get("secs", 0), dur.get("nanos", 0)
                if isinstance(secs, int | float) and isinstance(nanos, int | float):
                    tool.duration_ms = round(secs * 1000 + nanos / 1e6)
            elif isinstance(dur, int | float) and not isinstance(dur, bool):
                tool.duration_ms = round(dur * 1000)

    def _compacted(self, r: _Rec) -> None:
        text = (as_str(r.payload.get("message")) or "").strip()
        if not text:
            self.diag.count("skipped:empty_compaction")
            return
        sid = "codex:" + short_hash(self.session_id, "compacted", r.ts.isoformat() if r.ts else r.lineno, text)
        b = TurnBuilder(
            source_id=sid, user_message=COMPACTION_MARKER, timestamp=r.ts, offset=r.offset, kind="compaction"
        )
        b.add_text(text)
        self.builders.append(b)
        self.diag.count("compaction_summaries")
