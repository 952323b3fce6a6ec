"""Fact extraction from turns (and their tool results) by an LLM, when one is configured.

The model is told the rule "store connections, not general knowledge": facts specific to
the user, their people and their project, never what any LLM already knows. Each extracted fact
goes through :func:`~graphmem.facts.corrections.remember_correcting` (similarity update, corrections, TTL) with
``source="extraction"`` and an ``EXTRACTED_FROM`` edge to the turn. Without an LLM, facts come
only from explicit ``remember`` calls.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from ..config import Settings
from ..db import Database, DeferredWrites
from ..embedding import Embedder
from ..errors import ProviderError
from ..providers.openai_client import make_openai_client
from ..providers.retry import RetryPolicy, call_with_retry
from ..providers.usage import UsageSink, usage_of
from ..sessions import get_session
from ..turns import get_turn
from .corrections import remember_correcting
from .model import FACT_TYPES, FactScope, RememberResult

if TYPE_CHECKING:
    import openai

__all__ = ["ExtractedFact", "FactExtractor", "extract_facts_from_turn", "make_fact_extractor"]

SYSTEM_PROMPT = f"""You extract long-term memory facts from one exchange between a user and an AI assistant
(often a coding assistant using tools). Store connections, not general knowledge: keep only what is
specific to the user, the people around them, their projects and decisions (e.g. "David is my brother",
"the API uses PostgreSQL 16"), never what any model already knows ("Paris is in France"). Skip small
talk, greetings and minor variations of the obvious. Tool results may hold facts too.
Reply with one JSON object: {{"facts": [{{"content": str, "type": one of {list(FACT_TYPES)},
"subjects": [short lowercase tags], "ttl": null or a duration like "7d" for temporary states,
"scope": "global" (about the person) or "project" (about this project) or "session"}}]}}.
Write each fact as one self-contained sentence in the language of the conversation. {{"facts": []}} when
nothing is worth remembering."""

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string"},
                    "type": {"type": "string", "enum": list(FACT_TYPES)},
                    "subjects": {"type": "array", "items": {"type": "string"}},
                    "ttl": {"type": ["string", "null"]},
                    "scope": {"type": "string", "enum": ["global", "project", "session"]},
                },
                "required": ["content", "type", "subjects", "ttl", "scope"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["facts"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ExtractedFact:
    content: str
    type: str = "fact"
    subjects: tuple[str, ...] = ()
    ttl: str | None = None
    scope: str = "global"


def _parse(content: str) -> list[ExtractedFact]:
    text = content.strip()
    fenced = re.match(r"^```(?:json)?\s*(.*?)```$", text, re.S)
    if fenced:
        text = fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ProviderError(f"fact extraction: the answer is not JSON: {text[:120]!r}")
    try:
        data = json.loads(text[start : end + 1])
    except ValueError as e:
        raise ProviderError(f"fact extraction: invalid JSON: {e}") from e
    out: list[ExtractedFact] = []
    for item in data.get("facts") or [] if isinstance(data, dict) else []:
        if not isinstance(item, dict) or not str(item.get("content") or "").strip():
            continue
        ftype = item.get("type") if item.get("type") in FACT_TYPES else "fact"
        scope = item.get("scope") if item.get("scope") in ("global", "project", "session") else "global"
        subjects = tuple(str(s) for s in item.get("subjects") or [] if isinstance(s, str | int))
        ttl = item.get("ttl") if isinstance(item.get("ttl"), str) and item.get("ttl") else None
        out.append(ExtractedFact(str(item["content"]).strip(), str(ftype), subjects, ttl, str(scope)))
    return out


class FactExtractor:
    """Extracts facts with a chat model of OpenAI or an OpenAI-compatible server (JSON output)."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | SecretStr | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        max_input_chars: int = 24_000,
    ) -> None:
        self.model = model
        self.retry = retry or RetryPolicy()
        self.max_input_chars = max_input_chars
        self._client: openai.OpenAI = make_openai_client(
            api_key=api_key, base_url=base_url, timeout=timeout, what="fact extractor"
        )
        self._schema_ok = True

    def extract(self, user_message: str, assistant_message: str, tool_results: list[str] | None = None, *,
                on_usage: UsageSink | None = None) -> list[ExtractedFact]:
        """The facts of one turn (see :meth:`extract_text`)."""
        parts = [f"User: {user_message}"]
        for r in tool_results or []:
            parts.append(f"Tool result: {r[:2000]}")
        parts.append(f"Assistant: {assistant_message}")
        return self.extract_text("\n".join(parts), on_usage=on_usage)

    def extract_text(self, body: str, *, instructions: str = SYSTEM_PROMPT,
                     on_usage: UsageSink | None = None) -> list[ExtractedFact]:
        """The facts the model finds in ``body`` (cut to ``max_input_chars``) under ``instructions``
        (a system prompt asking for the same JSON object); ``on_usage`` gets the answered call's usage."""
        messages = [{"role": "system", "content": instructions},
                    {"role": "user", "content": body[: self.max_input_chars]}]

        def call(schema: bool) -> Any:
            kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
            kwargs["response_format"] = (
                {"type": "json_schema", "json_schema": {"name": "Facts", "strict": True, "schema": _SCHEMA}}
                if schema else {"type": "json_object"}
            )
            return self._client.chat.completions.create(**kwargs)

        try:
            completion = call_with_retry(lambda: call(self._schema_ok), policy=self.retry, what="extracting facts")
        except ProviderError as e:
            if not self._schema_ok or getattr(e.__cause__, "status_code", None) not in (400, 422):
                raise
            self._schema_ok = False
            completion = call_with_retry(lambda: call(False), policy=self.retry, what="extracting facts")
        if on_usage is not None:
            on_usage(usage_of(self.model, completion))
        if not completion.choices or not completion.choices[0].message.content:
            return []
        return _parse(completion.choices[0].message.content)

    def close(self) -> None:
        self._client.close()


def make_fact_extractor(settings: Settings) -> FactExtractor | None:
    """A :class:`FactExtractor` when an LLM is configured (``GRAPHMEM_SUMMARIZER=openai`` with a key
    or a base URL), else None: facts then come only from explicit ``remember`` calls."""
    if settings.summarizer != "openai":
        return None
    has_key = settings.openai_api_key is not None and bool(settings.openai_api_key.get_secret_value().strip())
    if not has_key and not settings.openai_base_url:
        return None
    return FactExtractor(settings.llm_model, api_key=settings.openai_api_key, base_url=settings.openai_base_url)


def extract_facts_from_turn(
    db: Database,
    turn_id: str,
    extractor: FactExtractor,
    *,
    embedder: Embedder | None = None,
    deferred: DeferredWrites | None = None,
    redact: bool = True,
) -> list[RememberResult]:
    """Extract facts from a stored turn (messages and tool results) and remember each one, in the
    scope the model chose (project: the turn's project; session: the turn's session); ``embedder``,
    ``deferred`` and ``redact`` as for :func:`~graphmem.facts.store.remember`. The call's usage
    (tokens, estimated cost) is added to the turn's ``extraction*`` properties."""
    turn = get_turn(db, turn_id)
    session = get_session(db, turn.session_id)
    results = [c.result for c in turn.tool_calls if c.result]
    out: list[RememberResult] = []
    found = extractor.extract(turn.user_message, turn.assistant_message, results,
                              on_usage=lambda u: db.write("usage/turn", id=turn.id, **u.params()))
    for fact in found:
        scope = {
            "global": FactScope.global_(),
            "project": FactScope("project", session.project_path),
            "session": FactScope.session(session.id),
        }[fact.scope]
        out.append(
            remember_correcting(db, fact.content, fact.subjects, embedder=embedder, deferred=deferred, redact=redact,
                                type=fact.type, ttl=fact.ttl, scope=scope, source="extraction", turn_id=turn.id)
        )
    return out
