"""What the memory costs: the LLM calls it made (tokens and estimated cost, per purpose) and, apart
from them, the overhead of the automatic pre-call retrieval (characters added to prompts).

The LLM figures are the usage each provider returned, recorded on the node each call produced (see
:mod:`graphmem.providers.usage`); costs come from :mod:`graphmem.providers.pricing` and are
estimates. Injection tokens are estimated as characters / :data:`CHARS_PER_TOKEN`, the usual
figure for English text with OpenAI's tokenizers (French and code run a little higher).
"""

from __future__ import annotations

from typing import Any

from .db import Database

__all__ = ["CHARS_PER_TOKEN", "injection_overhead", "llm_usage"]

CHARS_PER_TOKEN = 4


def llm_usage(db: Database) -> dict[str, Any]:
    """``{"purposes": [{purpose, calls, prompt_tokens, completion_tokens, cost_usd}], "total": {...}}``
    for summaries, fact extraction, the chat digest and the fact judge (purposes never used are 0)."""
    rows = {r["purpose"]: r for r in db.read("stats/llm_usage")}
    purposes: list[dict[str, Any]] = []
    counts = ("calls", "prompt_tokens", "completion_tokens")
    total: dict[str, Any] = dict.fromkeys(counts, 0) | {"cost_usd": 0.0}
    for name in ("summaries", "fact extraction", "chat digest", "fact judge"):
        r = rows.get(name) or {}
        item: dict[str, Any] = {"purpose": name, "calls": int(r.get("calls") or 0),
                                "prompt_tokens": int(r.get("promptTokens") or 0),
                                "completion_tokens": int(r.get("completionTokens") or 0),
                                "cost_usd": round(float(r.get("costUsd") or 0.0), 6)}
        purposes.append(item)
        for k in (*counts, "cost_usd"):
            total[k] += item[k]
    total["cost_usd"] = round(total["cost_usd"], 6)
    return {"purposes": purposes, "total": total}


def injection_overhead(db: Database) -> dict[str, Any]:
    """The automatic retrieval's overhead: injections logged, characters they added, the estimated
    tokens (characters / :data:`CHARS_PER_TOKEN`) and their mean latency."""
    row = db.read("stats/injections")[0]
    n, chars = int(row["injections"] or 0), int(row["chars"] or 0)
    return {"injections": n, "chars": chars, "estimated_tokens": chars // CHARS_PER_TOKEN,
            "chars_mean": round(chars / n, 1) if n else 0.0,
            "latency_ms_mean": round(float(row["latencyMsMean"] or 0.0), 2)}
