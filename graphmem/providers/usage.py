"""The usage an LLM call reports (tokens) and its estimated cost, handed to whoever records it.

Fact extraction, the chat digest and the fact judge take an ``on_usage`` callback; the operations
that call them record the figures on the node the call produced (the turn facts were extracted
from, the digest, the fact the judge decided on), as the summary worker does on each summary. A
provider that returns no ``usage`` still counts as a call, with unknown tokens and cost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .pricing import PRICES, ModelPrice, estimate_cost

__all__ = ["LLMUsage", "UsageSink", "usage_of"]


@dataclass(frozen=True)
class LLMUsage:
    """One call's tokens as the provider returned them, and the cost from the price table."""

    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None

    def params(self) -> dict[str, Any]:
        """The statement parameters of the ``usage/*`` statements."""
        return {"model": self.model, "promptTokens": self.prompt_tokens,
                "completionTokens": self.completion_tokens, "costUsd": self.cost_usd}


UsageSink = Callable[[LLMUsage], object]
"""Receives the usage of each LLM call."""


def usage_of(model: str, completion: Any, prices: Mapping[str, ModelPrice] = PRICES) -> LLMUsage:
    """The usage of a chat completion (``completion.usage``; absent: unknown tokens and cost)."""
    usage = getattr(completion, "usage", None)
    prompt = getattr(usage, "prompt_tokens", None) if usage is not None else None
    done = getattr(usage, "completion_tokens", None) if usage is not None else None
    prompt_tokens = int(prompt) if isinstance(prompt, int) else None
    completion_tokens = int(done) if isinstance(done, int) else None
    return LLMUsage(model, prompt_tokens, completion_tokens, estimate_cost(model, prompt_tokens, completion_tokens, prices))
