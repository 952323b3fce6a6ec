"""The ``PreToolUse`` hook: before a tool reads or changes a file, tell the agent what happened to
that file in earlier sessions of the project — the latest edits with the requests behind them, the
failed tool calls on it and the summaries that mention it (:func:`graphmem.files.file_history`).

Nothing is printed when the file has no such history, when the tool names no file, or when the
directory opts out (``.graphmem-ignore``). The output only adds context: it never carries a
permission decision, so the tool always runs.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..file_paths import TOOL_ACTIONS, touched_files
from ..files import render_file_history
from ..integrations import HookInput, is_ignored_dir, render_context
from ..memory import GraphMemory
from ..paths import normalize_cwd
from ..retrieval.reltime import relative

__all__ = ["pre_tool_context"]

MAX_PRE_TOOL_CHARS = 4000
"""The injected history (tags included) is at most this long: it arrives before every file use."""
EDITS = 5
FAILURES = 3
SUMMARIES = 2


class _Service(Protocol):
    """What the hook needs of :class:`~graphmem.runtime.service.HookService`."""

    def ready(self, mem: GraphMemory) -> GraphMemory: ...

    def _project(self, cwd: str) -> str: ...

    def _search_memory(self) -> GraphMemory: ...


def _tool_input(inp: HookInput) -> tuple[str, Any]:
    extra = inp.model_extra or {}
    name = extra.get("tool_name")
    return (name if isinstance(name, str) else ""), extra.get("tool_input")


def pre_tool_context(service: _Service, tool: str, inp: HookInput) -> str:
    """The hook's stdout for a ``PreToolUse`` payload ('' when there is nothing to say)."""
    name, args = _tool_input(inp)
    if not inp.cwd or name not in TOOL_ACTIONS or is_ignored_dir(inp.cwd):
        return ""
    files = touched_files(name, args)
    if not files:
        return ""
    cwd = normalize_cwd(inp.cwd)
    project = service._project(cwd)
    mem = service.ready(service._search_memory())
    history = mem.file_history(project, files[0][0], cwd=cwd, limit=EDITS, actions=("edit", "write"),
                               failure_limit=FAILURES, summary_limit=SUMMARIES)
    text = render_file_history(history, relative=relative)
    if not text:
        return ""
    return render_context(text, tool=tool, event="pre_tool", limit=MAX_PRE_TOOL_CHARS)
