"""The usage of an LLM call as the provider reports it, priced from the table."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from graphmem.providers.usage import LLMUsage, usage_of


def test_usage_of_a_completion_is_priced() -> None:
    completion = SimpleNamespace(usage=SimpleNamespace(prompt_tokens=1000, completion_tokens=200))
    usage = usage_of("gpt-4o-mini-2024-07-18", completion)
    assert usage.prompt_tokens == 1000 and usage.completion_tokens == 200
    assert usage.cost_usd == pytest.approx((1000 * 0.15 + 200 * 0.60) / 1e6)
    assert usage.params() == {"model": "gpt-4o-mini-2024-07-18", "promptTokens": 1000, "completionTokens": 200,
                              "costUsd": usage.cost_usd}


def test_a_call_without_usage_or_price_still_counts() -> None:
    assert usage_of("gpt-4o-mini", SimpleNamespace(usage=None)) == LLMUsage("gpt-4o-mini")
    local = usage_of("llama3", SimpleNamespace(usage=SimpleNamespace(prompt_tokens=10, completion_tokens=5)))
    assert local == LLMUsage("llama3", 10, 5, None)
