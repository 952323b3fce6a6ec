"""Turn assembly shared by the transcript formats (no database code): value helpers, tool calls
waiting for their results, turns being built, which turns a read emits, and their final form
(``#nomem`` opt-out and secret redaction applied).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..models import MAX_DURATION_MS, ToolCallIn, TurnIn, clean_text, foreign_args
from ..redaction import redact_turn_with_kinds
from .transcript import CONTEXT_CLOSE, CONTEXT_OPEN, INTERRUPTED_NOTE, Diagnostics

__all__ = [
    "PendingTool",
    "TurnBuilder",
    "as_dict",
    "as_str",
    "duration_ms",
    "finalize",
    "has_nomem",
    "json_text",
    "parse_ts",
    "select_turns",
    "short_hash",
    "strip_injected_context",
    "text_of_blocks",
]


# --------------------------------------------------------------------------------------------
# values


def parse_ts(value: Any) -> datetime | None:
    """An ISO 8601 string or epoch number (seconds or milliseconds) as an aware datetime."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, int | float):
            seconds = value / 1000.0 if abs(value) > 1e11 else float(value)
            return datetime.fromtimestamp(seconds, UTC)
        if isinstance(value, str) and value.strip():
            dt = datetime.fromisoformat(value.strip())
            return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def duration_ms(start: datetime | None, end: datetime | None) -> int | None:
    """Milliseconds from ``start`` to ``end``, or None when unknown, negative or beyond what a tool
    call can last (:data:`~graphmem.models.MAX_DURATION_MS`: a transcript's broken clock)."""
    if start is None or end is None:
        return None
    ms = round((end - start).total_seconds() * 1000)
    return ms if 0 <= ms <= MAX_DURATION_MS else None


def as_str(value: Any) -> str | None:
    """``value`` if it is a string (cleaned for storage), else None."""
    return clean_text(value) if isinstance(value, str) else None


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a dict, else an empty dict."""
    return value if isinstance(value, dict) else {}


def short_hash(*parts: object) -> str:
    """A stable 20-hex-digit digest of ``parts``."""
    h = hashlib.sha1(usedforsecurity=False)
    for p in parts:
        h.update(str(p).encode("utf-8", errors="surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()[:20]


_CONTEXT_RE = re.compile(re.escape(CONTEXT_OPEN) + r".*?(?:" + re.escape(CONTEXT_CLOSE) + r"|\Z)", re.DOTALL)
_NOMEM_RE = re.compile(r"(?<![\w#])#nomem\b", re.IGNORECASE)


def strip_injected_context(text: str) -> str:
    """``text`` without graphmem-injected context blocks, stripped."""
    if CONTEXT_OPEN in text:
        text = _CONTEXT_RE.sub("", text)
    return text.strip()


def has_nomem(text: str) -> bool:
    """Whether ``text`` carries the ``#nomem`` opt-out marker."""
    return "#" in text and _NOMEM_RE.search(text) is not None


# --------------------------------------------------------------------------------------------
# turn assembly


@dataclass
class PendingTool:
    """A tool call while its result may still arrive."""

    name: str
    args: Any
    source_id: str | None
    started: datetime | None
    result: str | None = None
    success: bool | None = None
    finished: datetime | None = None
    duration_ms: int | None = None
    has_result: bool = False

    def finish(self, result: str | None, success: bool | None, when: datetime | None) -> None:
        """Attach the result (the first result wins; a duplicate result is ignored)."""
        if self.has_result:
            return
        self.has_result = True
        self.result = result
        self.success = success
        self.finished = when
        if self.duration_ms is None:
            self.duration_ms = duration_ms(self.started, when)

    def to_model(self, diag: Diagnostics) -> ToolCallIn:
        """The stored form; a call with no result gets ``success=None`` and a note."""
        result = self.result
        success = self.success
        if not self.has_result:
            result = INTERRUPTED_NOTE
            success = None
            diag.count("interrupted_tools")
        args = foreign_args(self.args)
        return ToolCallIn(
            name=(self.name or "").strip() or "unknown",
            args=args,
            result=result,
            success=success,
            duration_ms=self.duration_ms,
            timestamp=self.started,
            source_id=self.source_id,
        )


@dataclass
class TurnBuilder:
    """A turn being assembled from records."""

    source_id: str
    user_message: str
    timestamp: datetime | None
    offset: int
    kind: str = "prompt"
    """``prompt``, ``command`` (dropped when nothing answered it) or ``compaction``."""
    texts: list[str] = field(default_factory=list)
    tools: list[PendingTool] = field(default_factory=list)
    by_id: dict[str, PendingTool] = field(default_factory=dict)
    last_event: str = "prompt"
    """``prompt``, ``text``, ``tool_use`` or ``tool_result``: the latest thing seen."""
    finished: bool = False
    """Set when the source says the turn ended (e.g. Codex ``task_complete``)."""
    notes: list[str] = field(default_factory=list)

    def add_text(self, text: str) -> None:
        """Append assistant text."""
        if text:
            self.texts.append(text)
            self.last_event = "text"

    def add_tool(self, tool: PendingTool) -> None:
        """Append a tool call (a repeated source id is ignored)."""
        if tool.source_id is not None:
            if tool.source_id in self.by_id:
                return
            self.by_id[tool.source_id] = tool
        self.tools.append(tool)
        self.last_event = "tool_use"

    def has_content(self) -> bool:
        """Whether anything answered the prompt."""
        return bool(self.texts or self.tools or self.notes)

    def complete(self) -> bool:
        """Whether the source said the turn ended (or it is a compaction summary)."""
        return self.kind == "compaction" or self.finished

    def looks_complete(self) -> bool:
        """Heuristic: the turn ended on assistant text with every tool call answered."""
        return self.complete() or (self.last_event == "text" and all(t.has_result for t in self.tools))

    def complete_with(self, final_text: str, diag: Diagnostics) -> bool:
        """Finish the turn with the final assistant text a Stop hook reported.

        If the transcript already holds that text the turn is finished as is; if it lacks it
        (the hook fired before the transcript was flushed) the text is added, provided every
        tool call has its result. Returns whether the turn is now finished.
        """
        text = final_text.strip()
        if not text:
            return self.complete()
        if self.texts and self.texts[-1].strip() == text:
            self.finished = True
        elif all(t.has_result for t in self.tools):
            self.add_text(text)
            self.finished = True
            diag.count("tail_completed_from_hook")
        return self.complete()

    def to_model(self, diag: Diagnostics) -> TurnIn:
        """The stored form."""
        parts = [*self.texts, *self.notes]
        return TurnIn(
            user_message=self.user_message,
            assistant_message="\n\n".join(parts),
            tool_calls=[t.to_model(diag) for t in self.tools],
            timestamp=self.timestamp,
            source_id=self.source_id,
        )


def select_turns(
    builders: list[TurnBuilder],
    *,
    final: bool,
    after_source_id: str | None,
    diag: Diagnostics,
    tail_text: str | None = None,
    heuristic: bool = False,
) -> tuple[list[TurnBuilder], TurnBuilder | None]:
    """The turns to emit, and the first held-back turn (if any).

    A turn is emitted once a later prompt closed it, or the source marked it finished, or
    ``final`` is set; ``tail_text`` (a Stop hook's ``last_assistant_message``) finishes the last
    turn; ``heuristic`` also accepts a last turn that merely looks finished. The first turn that
    is none of these (and every turn after it) is held back for a later read. Command turns that
    nothing answered are dropped. Turns up to ``after_source_id`` are skipped.
    """
    out: list[TurnBuilder] = []
    held: TurnBuilder | None = None
    last_prompt_index = max((i for i, b in enumerate(builders) if b.kind != "compaction"), default=-1)
    if tail_text and last_prompt_index >= 0 and not final:
        builders[last_prompt_index].complete_with(tail_text, diag)
    for i, b in enumerate(builders):
        closed = b.kind == "compaction" or i < last_prompt_index
        done = b.looks_complete() if heuristic else b.complete()
        if not (final or closed or done):
            held = b
            break
        if b.kind == "command" and not b.has_content():
            diag.count("skipped:command_without_answer")
            continue
        out.append(b)
    if after_source_id is not None:
        # positions in the whole file, not in what is emitted now: the cursor's turn may be held back
        # this time (an earlier read finished it with a hook's tail text this one lacks), and the
        # turns before it were delivered all the same
        ids = [b.source_id for b in builders]
        if after_source_id in ids:
            later = {id(b) for b in builders[ids.index(after_source_id) + 1 :]}
            out = [b for b in out if id(b) in later]
    return out, held


def finalize(
    builders: list[TurnBuilder],
    diag: Diagnostics,
    *,
    skip_nomem: bool,
    redact: bool,
) -> list[TurnIn]:
    """Build the turns, dropping ``#nomem`` turns and redacting secrets when asked."""
    turns: list[TurnIn] = []
    for b in builders:
        if skip_nomem and has_nomem(b.user_message):
            diag.count("skipped:nomem_turns")
            continue
        turn = b.to_model(diag)
        diag.count("tool_calls", len(turn.tool_calls))
        if redact:
            turn, kinds = redact_turn_with_kinds(turn)
            for kind in kinds:
                diag.count(f"redacted:{kind}")
        turns.append(turn)
    return turns


def text_of_blocks(content: Any, *, image: str = "[image]") -> str:
    """Text of a string or a list of content blocks (``text`` parts; images as a marker)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            btype = block.get("type")
            text = block.get("text")
            if isinstance(text, str) and btype in (None, "text", "input_text", "output_text"):
                parts.append(text)
            elif btype in ("image", "input_image", "image_url") or "inlineData" in block:
                parts.append(image)
            elif btype == "document":
                parts.append("[document]")
    return "\n".join(p for p in parts if p)


def json_text(value: Any) -> str:
    """A value as text: strings verbatim, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return str(value)
