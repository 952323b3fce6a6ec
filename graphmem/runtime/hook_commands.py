"""The prompt hook's memory commands (``remember:``, ``#remember``, ``retiens :``, ``#forget``), run
against the session's project without an LLM. Each answer is one line, which the hook injects as
the prompt's context so the assistant (and the person) see what was stored or forgotten."""

from __future__ import annotations

from ..facts import FactScope
from ..integrations.prompt_commands import PromptCommand
from ..memory import GraphMemory
from ..models import Session

__all__ = ["REMEMBERED_TYPE", "run_prompt_command"]

REMEMBERED_TYPE = "decision"
"""The type of a fact stored from the prompt: a decision or convention of the project (its default
importance puts it among the important facts every prompt of the project is given)."""
_SHOWN = 160


def _quote(text: str) -> str:
    one = " ".join(text.split())
    return f'"{one[:_SHOWN]}..."' if len(one) > _SHOWN else f'"{one}"'


def run_prompt_command(mem: GraphMemory, session: Session, command: PromptCommand) -> str:
    """Run ``command`` for ``session``'s project; returns the one line that says what happened."""
    scope = FactScope.project(session.project_path)
    if command.action == "remember":
        if not command.content:
            return "graphmem: nothing was stored (write the fact after `remember:`)"
        stored = mem.remember(command.content, type=REMEMBERED_TYPE, scope=scope, source="explicit")
        what = {"inserted": "stored", "updated": "updated", "unchanged": "already known, unchanged"}[stored.action]
        return f"graphmem: project fact {what} for {session.project_path}: {_quote(stored.fact.content)}"
    topic = command.content
    if not topic:
        return "graphmem: nothing was forgotten (write a topic after `#forget`)"
    # a fact id names one fact in any scope: only the project's own facts may go from here
    preview = mem.forget(topic, scopes=[scope], dry_run=True)
    if any(f.scope_key != scope.key for f in preview.removed):
        return f"graphmem: nothing was forgotten ({_quote(topic)} is not a fact of this project)"
    if not preview.removed:
        return f"graphmem: nothing was forgotten (no project fact matches {_quote(topic)})"
    result = mem.forget(topic, scopes=[scope], reason="#forget in a coding CLI prompt")
    if not result.removed:
        return f"graphmem: nothing was forgotten (no project fact matches {_quote(topic)})"
    listed = "; ".join(_quote(f.content) for f in result.removed[:5])
    more = f"; and {len(result.removed) - 5} more" if len(result.removed) > 5 else ""
    return f"graphmem: forgot {len(result.removed)} project fact(s) matching {_quote(topic)}: {listed}{more}"
