"""How a summary worker groups, claims and retries (:class:`WorkerConfig`), and what it did
(:class:`WorkerStats`)."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..config import Settings
from ..embedding import LONG_TURN_CHARS, scope_params

__all__ = ["DEFAULT_LLM_BATCH_CHARS", "WorkerConfig", "WorkerStats"]

DEFAULT_LLM_BATCH_CHARS = 1500
"""Level-1 batching with an LLM summarizer when not configured: consecutive turns totalling at most
this many raw characters share one summary (one LLM call)."""


@dataclass(frozen=True)
class WorkerConfig:
    """How a worker groups, claims and retries (defaults = :class:`~graphmem.config.Settings`)."""

    batch_chars: int = 0
    """Level-1 batching: 0 = one summary per turn (the default with the extractive summarizer)."""
    batch_max_turns: int = 8
    batch_wait_seconds: float = 60.0
    """An open batch is closed once its newest turn is this old (the conversation paused)."""
    rollup_threshold_chars: int = 5000
    rollup_growth: float = 4.0
    rollup_min_children: int = 2
    rollup_max_children: int = 64
    lease_seconds: float = 120.0
    max_attempts: int = 5
    max_lost_leases: int = 25
    retry_base_seconds: float = 5.0
    retry_max_seconds: float = 900.0
    claim_batch: int = 4
    poll_seconds: float = 1.0
    embed_batch: int = 64
    plan_limit: int = 500
    """Children read per planning transaction."""
    sessions_per_round: int = 100
    input_max_chars: int = 20_000
    """Characters of each message given to the summarizer (long pastes are cut)."""
    tool_max_chars: int = 2_000
    gc_every_seconds: float = 600.0
    context_window: int = 2
    """Neighbouring turns written into each embedded turn's ``contextText`` (0 = off)."""
    long_turn_chars: int = LONG_TURN_CHARS
    """Turns longer than this (user message + assistant reply) get no neighbour context, in
    ``contextText`` or ``ctxEmbedding`` (0 = every turn does; ``graphmem.embedding.LONG_TURN_CHARS``)."""
    duty_cycle: float = 1.0
    """Fraction of wall time spent working while there is work: below 1 the worker pauses after each
    job (``job time * (1 / duty_cycle - 1)``) to leave CPU to interactive writers and readers."""
    yield_seconds: float = 0.25
    """Take no new job (and start no embedding batch) while a foreground call on this machine
    (store_turn, search, build_context) ran less than this long ago (see :mod:`graphmem.activity`;
    0 = never yield)."""
    max_yield_seconds: float = 2.0
    """Yield at most this long in a row, so a busy foreground slows the worker but never stops it."""
    scope: str | None = None
    """Only work on sessions of this directory and below (a normalised path); None = all."""

    def scope_params(self) -> dict[str, str | None]:
        return scope_params(self.scope)

    @classmethod
    def from_settings(cls, settings: Settings, *, llm: bool | None = None, scope: str | None = None) -> WorkerConfig:
        """From the settings; ``llm`` (default: ``settings.summarizer == "openai"``) picks the
        level-1 batching default when ``summary_batch_chars`` is not set."""
        if llm is None:
            llm = settings.summarizer == "openai"
        batch = settings.summary_batch_chars
        if batch is None:
            batch = DEFAULT_LLM_BATCH_CHARS if llm else 0
        return cls(
            batch_chars=batch,
            batch_max_turns=settings.summary_batch_max_turns,
            batch_wait_seconds=settings.summary_batch_wait_seconds,
            rollup_threshold_chars=settings.rollup_threshold_chars,
            rollup_growth=settings.rollup_growth,
            rollup_min_children=settings.rollup_min_children,
            rollup_max_children=settings.rollup_max_children,
            lease_seconds=settings.worker_lease_seconds,
            max_attempts=settings.worker_max_attempts,
            max_lost_leases=settings.worker_max_lost_leases,
            retry_base_seconds=settings.worker_retry_base_seconds,
            retry_max_seconds=settings.worker_retry_max_seconds,
            claim_batch=settings.worker_claim_batch,
            duty_cycle=settings.worker_duty_cycle,
            yield_seconds=settings.worker_yield_seconds,
            poll_seconds=settings.worker_poll_seconds,
            scope=scope,
        )

    def backoff_seconds(self, errors: int) -> float:
        """The wait before retrying a job that failed ``errors`` times (exponential, capped)."""
        return float(min(self.retry_max_seconds, self.retry_base_seconds * 2 ** max(0, errors - 1)))


@dataclass
class WorkerStats:
    """What one worker did (counters since it started)."""

    summaries: Counter[int] = field(default_factory=Counter)
    """Summaries written, by level."""
    turns_summarized: int = 0
    jobs_planned: int = 0
    errors: int = 0
    jobs_failed: int = 0
    jobs_lost: int = 0
    """Jobs whose lease another worker took over before this one wrote them (nothing written)."""
    jobs_dropped: int = 0
    """Jobs with nothing left to do (session deleted, children already summarized)."""
    turns_embedded: int = 0
    summaries_embedded: int = 0
    yielded_seconds: float = 0.0
    """Time spent waiting for foreground calls on this machine (see :mod:`graphmem.activity`)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    summarize_seconds: float = 0.0
    write_seconds: float = 0.0
    facts_extracted: int = 0
    """Facts the LLM extracted from summarized turns (inserted, updated or found unchanged)."""
    started: float = field(default_factory=time.monotonic)

    @property
    def summaries_written(self) -> int:
        return sum(self.summaries.values())

    def elapsed(self) -> float:
        return max(1e-9, time.monotonic() - self.started)

    def as_dict(self) -> dict[str, Any]:
        secs = self.elapsed()
        return {
            "summaries": self.summaries_written,
            "summaries_by_level": {str(k): v for k, v in sorted(self.summaries.items())},
            "turns_summarized": self.turns_summarized,
            "turns_per_second": round(self.turns_summarized / secs, 2),
            "jobs_planned": self.jobs_planned,
            "errors": self.errors,
            "jobs_failed": self.jobs_failed,
            "jobs_lost": self.jobs_lost,
            "jobs_dropped": self.jobs_dropped,
            "turns_embedded": self.turns_embedded,
            "summaries_embedded": self.summaries_embedded,
            "yielded_seconds": round(self.yielded_seconds, 3),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "summarize_seconds": round(self.summarize_seconds, 3),
            "write_seconds": round(self.write_seconds, 3),
            "elapsed_seconds": round(secs, 3),
        }
