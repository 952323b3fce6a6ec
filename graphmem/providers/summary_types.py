"""What summarizers take and return, and the :class:`Summarizer` protocol."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from ..models import ConversationSummary, ToolCall, ToolCallIn, Turn, TurnIn, clean_text

__all__ = [
    "SummarizableTurn",
    "Summarizer",
    "SummaryMethod",
    "SummaryResult",
    "ToolCallForSummary",
    "TurnForSummary",
    "as_summary_turns",
]

SummaryMethod = Literal["llm", "extractive"]


@dataclass(frozen=True)
class ToolCallForSummary:
    """A tool call as a summarizer sees it."""

    name: str
    args: Any = None
    """The arguments: a string (JSON or free text, as stored) or a JSON-like structure."""
    result: str | None = None
    success: bool | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", clean_text(self.name))
        if self.result is not None:
            object.__setattr__(self, "result", clean_text(self.result))
        if isinstance(self.args, str):
            object.__setattr__(self, "args", clean_text(self.args))

    @classmethod
    def from_tool_call(cls, call: ToolCall | ToolCallIn) -> ToolCallForSummary:
        return cls(name=call.name, args=call.args, result=call.result, success=call.success)


@dataclass(frozen=True)
class TurnForSummary:
    """One turn to summarize: the user's message, the assistant's answer and the tool calls between.

    Lone surrogates are replaced (:func:`graphmem.models.clean_text`), as the store does.
    """

    user_message: str
    assistant_message: str
    tool_calls: tuple[ToolCallForSummary, ...] = ()
    index: int | None = None
    """Position in the session (1-based), if known; only used to label turns in LLM prompts."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "user_message", clean_text(self.user_message))
        object.__setattr__(self, "assistant_message", clean_text(self.assistant_message))
        if not isinstance(self.tool_calls, tuple):
            object.__setattr__(self, "tool_calls", tuple(self.tool_calls))

    @classmethod
    def from_turn(cls, turn: Turn | TurnIn) -> TurnForSummary:
        """From a stored :class:`~graphmem.models.Turn` or an input :class:`~graphmem.models.TurnIn`."""
        return cls(
            user_message=turn.user_message,
            assistant_message=turn.assistant_message,
            tool_calls=tuple(ToolCallForSummary.from_tool_call(c) for c in turn.tool_calls),
            index=turn.index if isinstance(turn, Turn) else None,
        )


SummarizableTurn = TurnForSummary | Turn | TurnIn


def as_summary_turns(turns: Iterable[SummarizableTurn]) -> list[TurnForSummary]:
    """Turns of any accepted type as :class:`TurnForSummary`."""
    out: list[TurnForSummary] = []
    for t in turns:
        if isinstance(t, TurnForSummary):
            out.append(t)
        elif isinstance(t, Turn | TurnIn):
            out.append(TurnForSummary.from_turn(t))
        else:
            raise TypeError(f"cannot summarize a {type(t).__name__}; pass TurnForSummary, Turn or TurnIn")
    return out


@dataclass(frozen=True)
class SummaryResult:
    """A summary and how it was made.

    ``prompt_tokens`` / ``completion_tokens`` / ``cost_usd`` add up every LLM attempt of the call
    (invalid answers are billed too); they are ``None`` for extractive summaries and when the
    server or the price table does not tell.
    """

    summary: ConversationSummary
    method: SummaryMethod
    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    attempts: int = 1
    """Requests sent (LLM) or 1 (extractive)."""
    fallback_error: str | None = None
    """Set by FallbackSummarizer: why the primary summarizer was not used."""


@runtime_checkable
class Summarizer(Protocol):
    """Makes level-1 summaries of turns and level n+1 summaries of level-n summaries."""

    def summarize(self, turns: Sequence[SummarizableTurn]) -> SummaryResult:
        """Summarize consecutive turns (oldest first)."""
        ...

    def summarize_summaries(self, summaries: Sequence[ConversationSummary]) -> SummaryResult:
        """Roll consecutive summaries of one level (oldest first) up into one of the next level."""
        ...
