"""LLM summaries through the official ``openai`` client (OpenAI or any compatible server).

The answer is requested as structured output (``response_format`` ``json_schema``, strict, built
from :class:`~graphmem.models.ConversationSummary`). A server that rejects that (HTTP 400/422)
is asked again in JSON mode (``json_object``), then as plain text; the mode that works is kept.
The content is always validated here with pydantic (leniently: unknown keys dropped, camelCase or
snake_case), so usage is recorded even for answers that turn out invalid.

Transport failures are retried by :mod:`graphmem.providers.retry`; an invalid answer (bad JSON,
wrong shape, refusal, truncated or filtered output) is asked again up to
``max_output_attempts`` times, then :class:`~graphmem.errors.ProviderError` is raised.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import threading
import time
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from pydantic import SecretStr, ValidationError

from ..errors import InvalidInput, ProviderError
from ..models import ConversationSummary, clean_text
from .extractive import files_mentioned, tools_used
from .openai_client import make_openai_client
from .pricing import PRICES, ModelPrice, estimate_cost
from .retry import MalformedResponse, RetryPolicy, call_with_retry
from .summary_types import SummarizableTurn, SummaryResult, TurnForSummary, as_summary_turns
from .text import dedupe

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletion

__all__ = ["DEFAULT_LLM_MODEL", "OpenAISummarizer", "StructuredOutputMode", "summary_json_schema"]

log = logging.getLogger("graphmem.providers")

DEFAULT_LLM_MODEL = "gpt-4o-mini"
StructuredOutputMode = Literal["json_schema", "json_object", "text"]
_MODES: tuple[StructuredOutputMode, ...] = ("json_schema", "json_object", "text")
_FIELDS = {
    "summary": "summary",
    "keyFindings": "key_findings",
    "key_findings": "key_findings",
    "filesMentioned": "files_mentioned",
    "files_mentioned": "files_mentioned",
    "toolsUsed": "tools_used",
    "tools_used": "tools_used",
    "topics": "topics",
}
_MAX_LIST = 12
"""At most this many keyFindings and topics are kept from an LLM answer."""
_FENCE_RE = re.compile(r"^\s*```(?:json|JSON)?\s*\n?(.*?)\n?```\s*$", re.DOTALL)


@cache
def summary_json_schema() -> dict[str, Any]:
    """The strict JSON schema of :class:`ConversationSummary` (camelCase keys, all required)."""
    schema = ConversationSummary.model_json_schema(by_alias=True)
    props = schema.get("properties", {})
    for prop in props.values():
        prop.pop("default", None)
        prop.pop("title", None)
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


_FIELD_RULES = """Reply with one JSON object with exactly these keys:
- "summary": string, at most {sentences} sentences and {chars} characters: what was asked, done and concluded;
- "keyFindings": array of short strings: decisions, root causes, fixes, errors met, facts to remember ([] if none);
- "filesMentioned": array of the file paths mentioned, exactly as written;
- "toolsUsed": array of the tool names used, exactly as written;
- "topics": array of 2 to 6 short noun phrases.
Write summary, keyFindings and topics in the language of the conversation. Never invent facts."""

_TURNS_SYSTEM = (
    "You summarize a segment of a conversation between a user and an AI assistant (often a coding "
    "assistant using tools) for the assistant's long-term memory.\n" + _FIELD_RULES
)
_ROLLUP_SYSTEM = (
    "You merge the summaries of consecutive segments of one conversation (oldest first) into one "
    "higher-level summary for an AI assistant's long-term memory. Keep what matters for later: goals, "
    "decisions, fixes, open problems.\n" + _FIELD_RULES
)


def _clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, keeping its head and tail."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = max(1, (limit * 2) // 3)
    tail = max(0, limit - head - 5)
    return f"{text[:head]} […] {text[-tail:]}" if tail else f"{text[:head]} […]"


def _args_text(args: Any) -> str:
    if args is None:
        return ""
    if isinstance(args, str):
        return args
    return json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)


class _InvalidOutput(Exception):
    """The model answered, but not with a usable summary."""


class OpenAISummarizer:
    """Summaries from a chat model of OpenAI or an OpenAI-compatible server (structured output).

    ``toolsUsed`` is always the tools actually called (the union of the children's for
    roll-ups); ``filesMentioned`` is what the model lists plus what the extractive path finder
    sees. Usage and estimated cost are recorded per result and in running totals.
    """

    method = "llm"

    def __init__(
        self,
        model: str = DEFAULT_LLM_MODEL,
        *,
        api_key: str | SecretStr | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        max_output_attempts: int = 3,
        structured_output: Literal["auto", "json_schema", "json_object", "text"] = "auto",
        temperature: float | None = None,
        max_output_tokens: int | None = None,
        max_input_chars: int = 48_000,
        max_sentences: int = 5,
        max_summary_chars: int = 1200,
        prices: Mapping[str, ModelPrice] | None = None,
        max_files: int = 50,
        deadline: float | None = 300.0,
    ) -> None:
        """``structured_output="auto"`` tries json_schema, then json_object, then text on HTTP
        400/422; a fixed mode never changes. ``temperature`` and ``max_output_tokens`` (sent as
        ``max_completion_tokens``) are omitted unless given, since some models reject them.
        ``prices`` overrides the price table (``{}`` disables cost estimates). ``deadline`` (seconds)
        stops asking again for a valid answer once exceeded; ``retry`` bounds each request.
        """
        if max_output_attempts < 1:
            raise ValueError("max_output_attempts must be >= 1")
        self._model = model
        self.base_url = base_url
        self.retry = retry or RetryPolicy(max_attempts=4, max_elapsed=120.0)
        self.deadline = deadline
        self.max_output_attempts = max_output_attempts
        self.structured_output = structured_output
        self._mode: StructuredOutputMode = "json_schema" if structured_output == "auto" else structured_output
        self.temperature = temperature
        self.max_output_tokens = max_output_tokens
        self.max_input_chars = max_input_chars
        self.max_sentences = max_sentences
        self.max_summary_chars = max_summary_chars
        self.prices: Mapping[str, ModelPrice] = PRICES if prices is None else prices
        self._client: openai.OpenAI = make_openai_client(
            api_key=api_key, base_url=base_url, timeout=timeout, what="OpenAI summarizer"
        )
        self.max_files = max_files
        self._lock = threading.Lock()
        self.calls = 0
        self.total_prompt_tokens = 0
        self.total_completion_tokens = 0
        self.total_cost_usd = 0.0
        """Running totals over every request of this instance, failed summaries included."""

    @property
    def model(self) -> str:
        return self._model

    @property
    def mode(self) -> StructuredOutputMode:
        """The structured-output mode in use (it may have stepped down from json_schema)."""
        return self._mode

    # ------------------------------------------------------------------ prompts

    def _render_turns(self, turns: Sequence[TurnForSummary]) -> str:
        parts: list[tuple[str, str, int]] = []  # (label, text, limit)
        for n, t in enumerate(turns, start=1):
            idx = t.index if t.index is not None else n
            parts.append((f"[Turn {idx}]\nUser: ", t.user_message, 6000))
            for c in t.tool_calls:
                status = "failed" if c.success is False else "ok" if c.success else "?"
                parts.append((f"Tool {c.name} ({status}) args: ", _args_text(c.args), 400))
                if c.result:
                    parts.append(("  result: ", c.result, 600))
            parts.append(("Assistant: ", t.assistant_message, 6000))
        return self._fit(parts)

    def _render_summaries(self, summaries: Sequence[ConversationSummary]) -> str:
        parts: list[tuple[str, str, int]] = []
        for n, s in enumerate(summaries, start=1):
            body = json.dumps(
                s.model_dump(by_alias=True, include=set(ConversationSummary.model_fields)), ensure_ascii=False
            )
            parts.append((f"[Summary {n}]\n", body, 8000))
        return self._fit(parts)

    def _fit(self, parts: list[tuple[str, str, int]]) -> str:
        total = sum(min(len(text), limit) for _, text, limit in parts) or 1
        scale = min(1.0, self.max_input_chars / total)
        return clean_text("\n".join(label + _clip(text, max(120, int(limit * scale))) for label, text, limit in parts))

    def _messages(self, system: str, user: str, mode: StructuredOutputMode) -> list[dict[str, str]]:
        rules = system.format(sentences=self.max_sentences, chars=self.max_summary_chars)
        if mode != "json_schema":
            rules += "\nJSON schema of the answer:\n" + json.dumps(summary_json_schema(), ensure_ascii=False)
        return [{"role": "system", "content": rules}, {"role": "user", "content": user}]

    # ------------------------------------------------------------------ calls

    def _request(self, mode: StructuredOutputMode, messages: list[dict[str, str]]) -> ChatCompletion:
        kwargs: dict[str, Any] = {"model": self._model, "messages": messages}
        if mode == "json_schema":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "ConversationSummary", "strict": True, "schema": summary_json_schema()},
            }
        elif mode == "json_object":
            kwargs["response_format"] = {"type": "json_object"}
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if self.max_output_tokens is not None:
            kwargs["max_completion_tokens"] = self.max_output_tokens
        try:
            completion: ChatCompletion = self._client.chat.completions.create(**kwargs)
        except ValueError as e:  # a 2xx body that is not JSON
            raise MalformedResponse(
                f"malformed chat response ({type(e).__name__}: {e}); is the base URL the /v1 endpoint?"
            ) from e
        return completion

    @staticmethod
    def _parse(completion: ChatCompletion) -> ConversationSummary:
        if not completion.choices:
            raise _InvalidOutput("the answer has no choices")
        choice = completion.choices[0]
        message = choice.message
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise _InvalidOutput(f"the model refused: {str(refusal)[:200]}")
        if choice.finish_reason == "length":
            raise _InvalidOutput("the answer was cut off (finish_reason=length)")
        if choice.finish_reason == "content_filter":
            raise _InvalidOutput("the answer was filtered (finish_reason=content_filter)")
        content = (message.content or "").strip()
        if not content:
            raise _InvalidOutput("the answer is empty")
        fenced = _FENCE_RE.match(content)
        if fenced:
            content = fenced.group(1).strip()
        if not content.startswith("{"):
            start, end = content.find("{"), content.rfind("}")
            if start < 0 or end <= start:
                raise _InvalidOutput(f"the answer is not JSON: {content[:120]!r}")
            content = content[start : end + 1]
        try:
            data = json.loads(content)
        except ValueError as e:
            raise _InvalidOutput(f"invalid JSON: {e}") from e
        if not isinstance(data, dict):
            raise _InvalidOutput(f"expected a JSON object, got {type(data).__name__}")
        fields: dict[str, Any] = {}
        for key, value in data.items():
            name = _FIELDS.get(key)
            if name is None:
                continue
            if name != "summary" and isinstance(value, str):
                value = [value]
            if name != "summary" and isinstance(value, list):
                value = [" ".join(str(v).split()) for v in value if isinstance(v, str | int | float) and str(v).strip()]
            fields[name] = value
        try:
            summary = ConversationSummary(**fields)
        except ValidationError as e:
            raise _InvalidOutput(f"the answer does not match ConversationSummary: {e.errors()[:3]}") from e
        if not summary.summary.strip():
            raise _InvalidOutput("the summary is empty")
        return summary.model_copy(
            update={
                "summary": clean_text(summary.summary.strip()),
                "key_findings": dedupe(clean_text(f) for f in summary.key_findings)[:_MAX_LIST],
                "files_mentioned": dedupe(clean_text(f) for f in summary.files_mentioned),
                "topics": dedupe(clean_text(t) for t in summary.topics)[:_MAX_LIST],
            }
        )

    def _complete(self, system: str, user: str, what: str) -> tuple[ConversationSummary, int, int | None, int | None]:
        """(summary, requests sent, prompt tokens, completion tokens) or ProviderError."""
        prompt_tokens: int | None = None
        completion_tokens: int | None = None
        sent = [0]
        invalid = 0
        first_error: ProviderError | None = None

        def request(mode: StructuredOutputMode, messages: list[dict[str, str]]) -> ChatCompletion:
            sent[0] += 1
            with self._lock:
                self.calls += 1
            return self._request(mode, messages)

        started = time.monotonic()
        while True:
            if self.deadline is not None and sent[0] and time.monotonic() - started > self.deadline:
                raise ProviderError(f"{what}: no valid summary within {self.deadline:.0f}s ({sent[0]} requests)")
            mode = self._mode
            messages = self._messages(system, user, mode)
            try:
                completion = call_with_retry(
                    functools.partial(request, mode, messages),
                    policy=self.retry,
                    what=what,
                )
            except ProviderError as e:
                status = getattr(e.__cause__, "status_code", None)
                if self.structured_output == "auto" and status in (400, 422) and mode != _MODES[-1]:
                    first_error = first_error or e
                    self._mode = _MODES[_MODES.index(mode) + 1]
                    log.warning("%s: the server rejected %s output (%s); trying %s", what, mode, e, self._mode)
                    continue
                if first_error is not None:
                    raise ProviderError(f"{e} (first error: {first_error})") from e
                raise
            usage = completion.usage
            if usage is not None:
                prompt_tokens = (prompt_tokens or 0) + int(usage.prompt_tokens or 0)
                completion_tokens = (completion_tokens or 0) + int(usage.completion_tokens or 0)
                self._account(usage.prompt_tokens, usage.completion_tokens)
            try:
                return self._parse(completion), sent[0], prompt_tokens, completion_tokens
            except _InvalidOutput as e:
                invalid += 1
                if invalid >= self.max_output_attempts:
                    raise ProviderError(
                        f"{what}: no valid summary after {invalid} answer{'s' if invalid > 1 else ''}: {e}"
                    ) from e
                log.warning("%s: invalid answer %d/%d (%s); asking again", what, invalid, self.max_output_attempts, e)

    def _account(self, prompt: int | None, completion: int | None) -> None:
        cost = estimate_cost(self._model, prompt, completion, self.prices)
        with self._lock:
            self.total_prompt_tokens += int(prompt or 0)
            self.total_completion_tokens += int(completion or 0)
            self.total_cost_usd += cost or 0.0

    def _result(
        self, summary: ConversationSummary, sent: int, prompt: int | None, completion: int | None
    ) -> SummaryResult:
        return SummaryResult(
            summary=summary,
            method="llm",
            model=self._model,
            prompt_tokens=prompt,
            completion_tokens=completion,
            cost_usd=estimate_cost(self._model, prompt, completion, self.prices),
            attempts=sent,
        )

    # ------------------------------------------------------------------ API

    def summarize(self, turns: Sequence[SummarizableTurn]) -> SummaryResult:
        """Summarize consecutive turns (oldest first) with the LLM."""
        items = as_summary_turns(turns)
        if not items:
            raise InvalidInput("nothing to summarize: no turns")
        what = f"summarizing {len(items)} turn{'s' if len(items) != 1 else ''} with {self._model}"
        summary, sent, prompt, completion = self._complete(_TURNS_SYSTEM, self._render_turns(items), what)
        summary = summary.model_copy(
            update={
                "tools_used": tools_used(items),
                "files_mentioned": dedupe([*files_mentioned(items), *summary.files_mentioned])[: self.max_files],
            }
        )
        return self._result(summary, sent, prompt, completion)

    def summarize_summaries(self, summaries: Sequence[ConversationSummary]) -> SummaryResult:
        """Roll summaries of one level up into one of the next level with the LLM."""
        if not summaries:
            raise InvalidInput("nothing to summarize: no summaries")
        what = f"rolling up {len(summaries)} summaries with {self._model}"
        summary, sent, prompt, completion = self._complete(_ROLLUP_SYSTEM, self._render_summaries(summaries), what)
        summary = summary.model_copy(
            update={
                "tools_used": dedupe(t for s in summaries for t in s.tools_used),
                "files_mentioned": dedupe(
                    [*(f for s in summaries for f in s.files_mentioned), *summary.files_mentioned]
                )[: self.max_files],
            }
        )
        return self._result(summary, sent, prompt, completion)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def __repr__(self) -> str:
        return f"OpenAISummarizer(model={self._model!r}, base_url={self.base_url!r}, mode={self._mode!r})"
