"""Rows the worker reads and writes: a summary's node properties, and the turns and summaries it
reads as the summarizers' input."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..models import ConversationSummary
from ..providers import SummaryResult, ToolCallForSummary, TurnForSummary
from ..redaction import redact

__all__ = ["complete_row", "conversation_summary", "summary_props", "turn_for_summary"]


def summary_props(result: SummaryResult) -> dict[str, Any]:
    """The summary node's properties; secrets an LLM summarizer wrote are redacted (its input was)."""
    s = result.summary

    def clean(items: Sequence[str]) -> list[str]:
        return [redact(x)[0] for x in items]

    return {
        "text": redact(s.summary)[0],
        "keyFindings": clean(s.key_findings),
        "filesMentioned": clean(s.files_mentioned),
        "toolsUsed": clean(s.tools_used),
        "topics": clean(s.topics),
        "method": result.method,
        "model": result.model,
        "promptTokens": result.prompt_tokens,
        "completionTokens": result.completion_tokens,
        "costUsd": result.cost_usd,
        "fallbackError": result.fallback_error,
    }


def complete_row(row: dict[str, Any]) -> bool:
    """False for a node deleted by a concurrent commit while it was read (its properties are null)."""
    return row.get("id") is not None and row.get("fromIndex") is not None and row.get("toIndex") is not None


def turn_for_summary(row: dict[str, Any]) -> TurnForSummary:
    return TurnForSummary(
        user_message=row["userMessage"] or "",
        assistant_message=row["assistantMessage"] or "",
        tool_calls=tuple(
            ToolCallForSummary(name=c["name"] or "", args=c.get("args"), result=c.get("result"), success=c.get("success"))
            for c in row["toolCalls"]
        ),
        index=row.get("index"),
    )


def conversation_summary(row: dict[str, Any]) -> ConversationSummary:
    return ConversationSummary(
        summary=row["text"] or "",
        key_findings=list(row["keyFindings"] or []),
        files_mentioned=list(row["filesMentioned"] or []),
        tools_used=list(row["toolsUsed"] or []),
        topics=list(row["topics"] or []),
    )
