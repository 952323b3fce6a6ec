"""List prices of OpenAI models (USD per 1M tokens) to estimate the cost of a call.

The figures are OpenAI's standard-tier list prices as known when this table was written; they
change, so treat costs as estimates. Unknown models (including anything served by a compatible
server under another name) have no price: their cost is ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["PRICES", "ModelPrice", "estimate_cost", "price_for"]


@dataclass(frozen=True)
class ModelPrice:
    """USD per 1M input (prompt) and output (completion) tokens."""

    input_per_million: float
    output_per_million: float = 0.0


PRICES: Mapping[str, ModelPrice] = {
    # chat
    "gpt-4o-mini": ModelPrice(0.15, 0.60),
    "gpt-4o": ModelPrice(2.50, 10.00),
    "gpt-4.1": ModelPrice(2.00, 8.00),
    "gpt-4.1-mini": ModelPrice(0.40, 1.60),
    "gpt-4.1-nano": ModelPrice(0.10, 0.40),
    "gpt-5": ModelPrice(1.25, 10.00),
    "gpt-5-mini": ModelPrice(0.25, 2.00),
    "gpt-5-nano": ModelPrice(0.05, 0.40),
    "o3": ModelPrice(2.00, 8.00),
    "o3-mini": ModelPrice(1.10, 4.40),
    "o4-mini": ModelPrice(1.10, 4.40),
    "gpt-4-turbo": ModelPrice(10.00, 30.00),
    "gpt-3.5-turbo": ModelPrice(0.50, 1.50),
    # embeddings (input only)
    "text-embedding-3-small": ModelPrice(0.02),
    "text-embedding-3-large": ModelPrice(0.13),
    "text-embedding-ada-002": ModelPrice(0.10),
}

_SNAPSHOT_RE = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def price_for(model: str, prices: Mapping[str, ModelPrice] = PRICES) -> ModelPrice | None:
    """The price of ``model``; a dated snapshot (``gpt-4o-mini-2024-07-18``) has its base model's price."""
    name = model.strip().lower()
    if name in prices:
        return prices[name]
    base = _SNAPSHOT_RE.sub("", name)
    return prices.get(base)


def estimate_cost(
    model: str,
    prompt_tokens: int | None,
    completion_tokens: int | None,
    prices: Mapping[str, ModelPrice] = PRICES,
) -> float | None:
    """Estimated USD cost of a call, or ``None`` when the model or the token counts are unknown."""
    price = price_for(model, prices)
    if price is None or prompt_tokens is None:
        return None
    cost = prompt_tokens * price.input_per_million + (completion_tokens or 0) * price.output_per_million
    return round(cost / 1_000_000, 10)
