"""Remember with an LLM judge: add, update or no-op against the nearest facts.

The similarity update of :func:`~graphmem.facts.store.remember` misses corrections worded
differently ("David lives in Ordizan", later "Actually David moved to Toulouse": cosine below the
threshold). With an LLM configured, :func:`remember_judged` (through
:func:`graphmem.facts.corrections.remember_correcting`) first gathers the current facts of the
same scope that share a subject with the new one, plus its nearest facts by meaning (at most
:data:`CANDIDATES`), and asks the model one question: is the new statement new (``add``), a
correction or refinement of one of them (``update``: the new fact replaces it, the old one stays as
history behind ``SUPERSEDES {rule: 'llm'}`` with its validity window), or already known
(``noop``: nothing is written)? With no candidate the model is not asked. A model that fails or
answers out of bounds falls back to the remember without a judge, so nothing is lost.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import SecretStr

from ..config import Settings
from ..db import Database, DeferredWrites
from ..embedding import Embedder
from ..errors import ProviderError
from ..providers.openai_client import make_openai_client
from ..providers.retry import RetryPolicy, call_with_retry
from ..providers.usage import LLMUsage, UsageSink, usage_of
from .model import Fact, FactScope, RememberResult
from .store import facts_about, retire_fact, search_facts

if TYPE_CHECKING:
    import openai

__all__ = ["CANDIDATES", "FactJudge", "JudgeDecision", "make_fact_judge", "remember_judged"]

log = logging.getLogger("graphmem.facts")

CANDIDATES = 8

JUDGE_PROMPT = """You keep a long-term memory of facts. A new statement arrives; known facts are listed with
their ids. Decide one action:
- "add": the statement says something none of the known facts says;
- "update": it corrects, replaces or refines ONE known fact (e.g. someone moved, changed jobs, a decision
  was reversed): give that fact's id; the new statement will replace it and the old one is kept as history;
- "noop": a known fact already says the same thing: give its id.
Reply with one JSON object: {"action": "add" | "update" | "noop", "id": the known fact's id or null,
"reason": a few words}."""


@dataclass(frozen=True)
class JudgeDecision:
    action: Literal["add", "update", "noop"]
    target: str | None = None
    reason: str = ""


class FactJudge:
    """Decides add / update / no-op with a chat model of OpenAI or an OpenAI-compatible server."""

    def __init__(self, model: str, *, api_key: str | SecretStr | None = None, base_url: str | None = None,
                 timeout: float = 30.0, retry: RetryPolicy | None = None) -> None:
        self.model = model
        self.retry = retry or RetryPolicy(max_attempts=2)
        self._client: openai.OpenAI = make_openai_client(api_key=api_key, base_url=base_url, timeout=timeout,
                                                          what="fact judge")

    def decide(self, statement: str, known: Sequence[Fact], *, on_usage: UsageSink | None = None) -> JudgeDecision:
        """The model's decision about ``statement`` against ``known``; ``on_usage`` gets the call's usage."""
        listing = "\n".join(f"- id {f.id}: {f.content}" for f in known)
        messages = [{"role": "system", "content": JUDGE_PROMPT},
                    {"role": "user", "content": f"Known facts:\n{listing}\n\nNew statement: {statement}"}]
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages,
                                  "response_format": {"type": "json_object"}}
        completion = call_with_retry(lambda: self._client.chat.completions.create(**kwargs), policy=self.retry,
                                     what="judging a fact")
        if on_usage is not None:
            on_usage(usage_of(self.model, completion))
        text = completion.choices[0].message.content if completion.choices else None
        try:
            data: Any = json.loads(text or "")
        except ValueError as e:
            raise ProviderError(f"fact judge: the answer is not JSON: {(text or '')[:120]!r}") from e
        action = data.get("action") if isinstance(data, dict) else None
        target = data.get("id") if isinstance(data, dict) else None
        ids = {f.id for f in known}
        if action == "add":
            return JudgeDecision("add", None, str(data.get("reason") or ""))
        if action in ("update", "noop") and isinstance(target, str) and target in ids:
            return JudgeDecision(action, target, str(data.get("reason") or ""))
        raise ProviderError(f"fact judge: an answer out of bounds: {str(data)[:160]}")

    def close(self) -> None:
        self._client.close()


def make_fact_judge(settings: Settings) -> FactJudge | None:
    """A :class:`FactJudge` when an LLM is configured (as for fact extraction), else None."""
    if settings.summarizer != "openai":
        return None
    has_key = settings.openai_api_key is not None and bool(settings.openai_api_key.get_secret_value().strip())
    if not has_key and not settings.openai_base_url:
        return None
    return FactJudge(settings.llm_model, api_key=settings.openai_api_key, base_url=settings.openai_base_url)


def _candidates(db: Database, content: str, subjects: Sequence[str], scope: FactScope,
                embedder: Embedder | None, deferred: DeferredWrites | None) -> list[Fact]:
    found: dict[str, Fact] = {}
    for subject in subjects:
        for f in facts_about(db, subject, scopes=[scope.key], limit=CANDIDATES):
            found.setdefault(f.id, f)
    if embedder is not None:
        for f in search_facts(db, content, embedder=embedder, deferred=deferred, scopes=[scope.key],
                              limit=CANDIDATES, touch=False):
            found.setdefault(f.id, f)
    return list(found.values())[:CANDIDATES * 2]


def remember_judged(
    db: Database,
    judge: FactJudge,
    content: str,
    subjects: Sequence[str],
    scope: FactScope,
    *,
    store: Callable[[bool], RememberResult],
    embedder: Embedder | None = None,
    deferred: DeferredWrites | None = None,
) -> RememberResult:
    """Remember ``content`` with the judge's decision first (module docstring). ``store(rule)`` is the
    remember without a judge: called with ``rule=False`` once the model has decided, ``True`` on a
    fallback (then the correction rule applies)."""
    known = _candidates(db, content, [s for s in subjects if isinstance(s, str)], scope, embedder, deferred)
    if not known or not isinstance(content, str) or not content.strip():
        return store(True)
    used: list[LLMUsage] = []
    try:
        decision = judge.decide(content.strip(), known, on_usage=used.append)
    except ProviderError as e:
        log.warning("fact judge unavailable (%s): remember without it", e)
        return store(True)
    result = _decided(db, decision, {f.id: f for f in known}, store)
    for usage in used:  # on the fact the model decided about (the new one, or the known one on a no-op)
        db.write("usage/fact", id=result.fact.id, **usage.params())
    return result


def _decided(db: Database, decision: JudgeDecision, by_id: dict[str, Fact],
             store: Callable[[bool], RememberResult]) -> RememberResult:
    if decision.action == "noop" and decision.target is not None:
        same = by_id[decision.target]
        return RememberResult("unchanged", same, previous=same, reason=f"llm: {decision.reason}".strip())
    result = store(False)
    retire = (decision.action == "update" and decision.target is not None and result.action == "inserted"
              and decision.target != result.fact.id)
    if retire and decision.target is not None and retire_fact(db, result.fact.id, decision.target, rule="llm"):
        old = by_id[decision.target]
        return RememberResult("updated", result.fact, previous=old, reason=f"llm: {decision.reason}".strip(),
                              retired=[old])
    return result
