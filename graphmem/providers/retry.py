"""Bounded retries for provider calls (OpenAI and compatible servers).

One policy for embedders and summarizers: retry 408/409/429/5xx answers, timeouts and connection
errors with jittered exponential backoff, honour ``Retry-After`` / ``retry-after-ms`` (seconds or
an HTTP date, capped), stop after ``max_attempts`` (and optionally ``max_elapsed`` seconds), then
raise :class:`~graphmem.errors.ProviderError`. 401/403/400/404 are never retried. The OpenAI
client's own retries must be off (``max_retries=0``) so these are the only ones.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, TypeVar

from ..errors import GraphMemError, ProviderError

if TYPE_CHECKING:
    from tenacity import RetryCallState
    from tenacity.stop import StopBaseT

__all__ = [
    "RETRYABLE_STATUS",
    "MalformedResponse",
    "RetryPolicy",
    "call_with_retry",
    "is_retryable",
    "retry_after_seconds",
    "to_provider_error",
]

log = logging.getLogger("graphmem.providers")

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
"""HTTP statuses worth another attempt (plus any other 5xx)."""


class MalformedResponse(ProviderError):
    """A 2xx answer whose body is not what the API promises (not JSON, wrong shape); retried."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a provider call is retried.

    The wait before attempt ``n + 1`` is ``min(max_backoff, initial_backoff * multiplier**(n-1))``
    scaled by a random factor in ``[1 - jitter, 1]``; when the server sent ``Retry-After``, that
    delay (capped at ``max_retry_after``, plus up to 10 % jitter) is used instead.
    """

    max_attempts: int = 5
    """Total attempts, the first included (>= 1)."""
    initial_backoff: float = 0.5
    max_backoff: float = 20.0
    multiplier: float = 2.0
    jitter: float = 0.5
    """Fraction of the backoff that is randomised (0 = none, 1 = full jitter)."""
    max_retry_after: float = 60.0
    """Longest server-requested delay honoured; longer ones are capped to this."""
    max_elapsed: float | None = None
    """If set, no new attempt starts once the next wait would end after this many seconds."""
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False, repr=False)
    """How a wait between attempts is spent (tests record the waits instead)."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        if not 0.0 <= self.jitter <= 1.0:
            raise ValueError("jitter must be within [0, 1]")

    def backoff(self, attempt: int, rng: random.Random | None = None) -> float:
        """The jittered wait after failed attempt number ``attempt`` (1-based), without Retry-After."""
        base = min(self.max_backoff, self.initial_backoff * self.multiplier ** max(0, attempt - 1))
        r = (rng or _rng).random()
        return max(0.0, base * (1.0 - self.jitter * r))


_rng = random.Random()


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def is_retryable(exc: BaseException) -> bool:
    """True for errors another attempt may cure: 408/409/429/5xx, timeouts, connection errors,
    malformed 2xx answers."""
    import openai

    if isinstance(exc, MalformedResponse):
        return True
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        return status in RETRYABLE_STATUS or status >= 500
    return False


def retry_after_seconds(exc: BaseException, *, now: datetime | None = None) -> float | None:
    """The delay the server asked for (``retry-after-ms``, or ``Retry-After`` in seconds or as an HTTP date)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    raw = str(raw).strip()
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _describe(exc: BaseException) -> str:
    status = _status(exc)
    name = type(exc).__name__
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if len(message) > 300:
        message = message[:300] + "…"
    return f"{name} (HTTP {status}): {message}" if status is not None else f"{name}: {message}"


def to_provider_error(exc: BaseException, what: str, attempts: int = 1) -> GraphMemError:
    """A clear graphmem error for a failed provider call (the caller chains it with ``from``)."""
    if isinstance(exc, MalformedResponse) and attempts > 1:
        return ProviderError(f"{what} failed after {attempts} attempts: {exc}")
    if isinstance(exc, GraphMemError):
        return exc
    status = _status(exc)
    if status == 401:
        return ProviderError(f"{what}: the server rejected the API key (HTTP 401); check GRAPHMEM_OPENAI_API_KEY")
    if status == 403:
        return ProviderError(f"{what}: access denied (HTTP 403): {_describe(exc)}")
    if status == 404:
        return ProviderError(f"{what}: not found (HTTP 404), check the model name and base URL: {_describe(exc)}")
    tries = f" after {attempts} attempt{'s' if attempts != 1 else ''}" if attempts > 1 else ""
    return ProviderError(f"{what} failed{tries}: {_describe(exc)}")


class _Wait:
    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        if exc is not None:
            ra = retry_after_seconds(exc)
            if ra is not None:
                ra = min(ra, self.policy.max_retry_after)
                return ra * (1.0 + 0.1 * _rng.random())
        return self.policy.backoff(state.attempt_number)


def _log_retry(what: str) -> Callable[[RetryCallState], None]:
    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        log.warning(
            "%s: attempt %d failed (%s); retrying in %.2fs",
            what,
            state.attempt_number,
            _describe(exc) if exc is not None else "?",
            wait,
        )

    return before_sleep


def call_with_retry(
    fn: Callable[[], T],
    *,
    policy: RetryPolicy,
    what: str,
    retryable: Callable[[BaseException], bool] = is_retryable,
) -> T:
    """Call ``fn`` under ``policy``; a final failure becomes :class:`ProviderError` (chained).

    Errors that ``retryable`` rejects are not retried; vendor errors among them are wrapped too.
    Exceptions that are neither vendor nor graphmem errors (bugs) propagate unchanged.
    """
    import openai
    from tenacity import Retrying, retry_if_exception, stop_after_attempt, stop_any, stop_before_delay

    stop: StopBaseT = stop_after_attempt(policy.max_attempts)
    if policy.max_elapsed is not None:
        stop = stop_any(stop_after_attempt(policy.max_attempts), stop_before_delay(policy.max_elapsed))
    retrying = Retrying(
        stop=stop,
        wait=_Wait(policy),
        retry=retry_if_exception(retryable),
        reraise=True,
        before_sleep=_log_retry(what),
        sleep=policy.sleep,
    )
    try:
        return retrying(fn)
    except (openai.OpenAIError, GraphMemError) as e:
        attempts = int(retrying.statistics.get("attempt_number", 1))
        err = to_provider_error(e, what, attempts)
        if err is e:
            raise
        raise err from e
