"""Summarizers: the protocol, the LLM -> extractive fallback, and the factory."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import replace

from ..config import Settings
from ..errors import ProviderError
from ..models import ConversationSummary
from .extractive import ExtractiveSummarizer
from .openai_summarizer import OpenAISummarizer
from .retry import RetryPolicy
from .summary_types import SummarizableTurn, Summarizer, SummaryResult

__all__ = ["FallbackSummarizer", "make_summarizer"]

log = logging.getLogger("graphmem.providers")


class FallbackSummarizer:
    """``primary`` (an LLM) with ``fallback`` (extractive) when it fails with :class:`ProviderError`.

    A fallback result keeps the fallback's ``method`` (``"extractive"``) and carries the reason
    in ``fallback_error``. After a failure the primary is skipped for ``cooldown`` seconds, so an
    outage does not cost a full retry budget per summary (0 disables this).
    """

    def __init__(self, primary: Summarizer, fallback: Summarizer, *, cooldown: float = 30.0) -> None:
        self.primary = primary
        self.fallback = fallback
        self.cooldown = cooldown
        self._skip_until = 0.0
        self._last_error: str | None = None
        self._lock = threading.Lock()

    def _primary_allowed(self) -> bool:
        with self._lock:
            return time.monotonic() >= self._skip_until

    def _failed(self, e: ProviderError) -> str:
        with self._lock:
            self._last_error = str(e)
            if self.cooldown > 0:
                self._skip_until = time.monotonic() + self.cooldown
            return self._last_error

    def _skipped(self) -> str:
        with self._lock:
            return f"primary summarizer cooling down after: {self._last_error}"

    def summarize(self, turns: Sequence[SummarizableTurn]) -> SummaryResult:
        if self._primary_allowed():
            try:
                return self.primary.summarize(turns)
            except ProviderError as e:
                reason = self._failed(e)
                log.warning("LLM summary failed, using the extractive one: %s", reason)
        else:
            reason = self._skipped()
        return replace(self.fallback.summarize(turns), fallback_error=reason)

    def summarize_summaries(self, summaries: Sequence[ConversationSummary]) -> SummaryResult:
        if self._primary_allowed():
            try:
                return self.primary.summarize_summaries(summaries)
            except ProviderError as e:
                reason = self._failed(e)
                log.warning("LLM roll-up failed, using the extractive one: %s", reason)
        else:
            reason = self._skipped()
        return replace(self.fallback.summarize_summaries(summaries), fallback_error=reason)

    def __repr__(self) -> str:
        return f"FallbackSummarizer({self.primary!r}, {self.fallback!r})"


def make_summarizer(
    settings: Settings,
    *,
    retry: RetryPolicy | None = None,
    timeout: float = 60.0,
    cooldown: float = 30.0,
) -> Summarizer:
    """The summarizer the settings ask for.

    :class:`ExtractiveSummarizer` when ``settings.summarizer == "extractive"`` (default) or when
    ``"openai"`` is asked without a key and without a base URL (logged); otherwise
    ``FallbackSummarizer(OpenAISummarizer(settings.llm_model, ...), ExtractiveSummarizer())``.
    """
    extractive = ExtractiveSummarizer()
    if settings.summarizer != "openai":
        return extractive
    has_key = settings.openai_api_key is not None and bool(settings.openai_api_key.get_secret_value().strip())
    if not has_key and not settings.openai_base_url:
        log.warning("GRAPHMEM_SUMMARIZER=openai but no OpenAI key nor base URL is set: using extractive summaries")
        return extractive
    llm = OpenAISummarizer(
        settings.llm_model,
        api_key=settings.openai_api_key,
        base_url=settings.openai_base_url,
        retry=retry,
        timeout=timeout,
    )
    return FallbackSummarizer(llm, extractive, cooldown=cooldown)
