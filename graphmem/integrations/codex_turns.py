"""Codex rollouts: turns assembled from the normalised records (prompts, messages, tool calls and
their outputs, events, compactions). The reading itself is :mod:`graphmem.integrations.codex`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .transcript import COMPACTION_MARKER, Diagnostics
from .turns import (
    PendingTool,
    TurnBuilder,
    as_dict,
    as_str,
    json_text,
    short_hash,
    strip_injected_context,
    text_of_blocks,
)

__all__ = ["Assembler", "Record"]

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


_INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<user_shell_command>",
    "<subagent_notification>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
)
_EXIT_RE = re.compile(r"^(?:Exit code:|Process exited with code)\s*(-?\d+)", re.MULTILINE)
_WALL_RE = re.compile(r"^Wall time:\s*([0-9.]+)\s*(?:seconds|s)\b", re.MULTILINE)
_OUTPUT_RE = re.compile(r"^Output:\n", re.MULTILINE)


@dataclass(slots=True)
class Record:
    """A response item, event or compaction record with its place in the file."""

    offset: int
    lineno: int
    ts: datetime | None
    kind: str
    payload: dict[str, Any]


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


class Assembler:
    """Walks a rollout's records and builds turns."""

    def __init__(self, diag: Diagnostics, session_id: str, *, late: bool) -> None:
        self.diag = diag
        self.session_id = session_id
        self.late = late
        self.builders: list[TurnBuilder] = []
        self.current: TurnBuilder | None = None
        self.tools: dict[str, PendingTool] = {}
        self.owner: dict[str, TurnBuilder] = {}
        self.pending_outputs: dict[str, Record] = {}
        self.use_event_prompts = False
        self.use_event_agent = False

    def run(self, records: list[Record]) -> list[TurnBuilder]:
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

    def _open(self, r: Record, text: str) -> None:
        sid = "codex:" + short_hash(self.session_id, r.ts.isoformat() if r.ts else f"line{r.lineno}", text)
        b = TurnBuilder(source_id=sid, user_message=text, timestamp=r.ts, offset=r.offset)
        self.builders.append(b)
        self.current = b

    def _target(self, r: Record) -> TurnBuilder | None:
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

    def _prompt(self, r: Record, text: str) -> None:
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

    def _item(self, r: Record) -> None:
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

    def _call(self, r: Record, p: dict[str, Any], ptype: str) -> None:
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

    def _output(self, r: Record) -> None:
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

    def _event(self, r: Record) -> None:
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

    def _compacted(self, r: Record) -> None:
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
