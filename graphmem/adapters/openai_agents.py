"""An OpenAI Agents SDK session on graphmem: ``GraphMemorySession(session_id, mem)``.

``Runner.run(agent, text, session=GraphMemorySession("chat-42", mem))`` keeps the conversation in a
graphmem session, two ways at once:

- the SDK's input items, exactly as given (messages, function calls and their outputs, reasoning,
  ...), in order: :mod:`graphmem.session_items`. ``get_items`` returns them (the latest ``limit`` in
  order), ``pop_item`` removes the last one: what the SDK replays to the model is what it stored
  (secrets redacted, as everywhere graphmem stores text, unless the memory was made with
  ``redact=False``);
- one graphmem turn per exchange, so that the worker summarises it, ``mem.search`` finds it and
  ``mem.build_context`` brings it back: once the items not yet in a turn hold a user message and end
  with an assistant message, they become a turn (the user texts, the assistant texts, each function
  call with its arguments, call id and output as a tool call). A popped item leaves the turn already
  written from it (turns are the memory of what was said).

``clear_session`` deletes the graphmem session: its items, turns and summaries. The facade is
synchronous, so each method runs it on the loop's default executor.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

from agents.items import TResponseInputItem
from agents.memory import SessionABC, SessionSettings

from .. import session_items
from ..errors import InvalidInput, SessionNotFound
from ..memory import GraphMemory
from ..models import ToolCallIn, foreign_args

__all__ = ["GraphMemorySession", "items_to_turn"]

T = TypeVar("T")


def _text(content: Any) -> str:
    """The text of a message's content: a string, or the text of its parts (``input_text``,
    ``output_text``, ``refusal``)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text") or p.get("refusal") or "") for p in content
                         if isinstance(p, Mapping) and (p.get("text") or p.get("refusal")))
    return ""


def items_to_turn(items: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The turn (``store_turn`` arguments) the items of one exchange make, or None while the exchange
    is not complete (no user message yet, or the last item is not an assistant message)."""
    def role(item: Mapping[str, Any]) -> str | None:
        return item.get("role") if item.get("type", "message") == "message" else None

    if not items or role(items[-1]) != "assistant" or not any(role(i) == "user" for i in items):
        return None
    users: list[str] = []
    answers: list[str] = []
    calls: dict[str, ToolCallIn] = {}
    ordered: list[ToolCallIn] = []
    for item in items:
        kind = item.get("type", "message")
        if kind == "message":
            (users if item.get("role") == "user" else answers if item.get("role") == "assistant" else []).append(
                _text(item.get("content")))
        elif kind == "function_call":
            call = ToolCallIn(name=str(item.get("name") or "").strip() or "function",
                              args=foreign_args(_arguments(item.get("arguments"))),
                              source_id=item.get("call_id"))
            ordered.append(call)
            if item.get("call_id"):
                calls[str(item["call_id"])] = call
        elif kind == "function_call_output":
            found = calls.get(str(item.get("call_id")))
            if found is None:
                found = ToolCallIn(name="function", source_id=item.get("call_id"))
                ordered.append(found)
            output = item.get("output")
            found.result = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        elif kind.endswith("_call"):  # hosted tools (web_search_call, file_search_call, ...)
            ordered.append(ToolCallIn(name=kind.removesuffix("_call"),
                                      args=foreign_args({k: v for k, v in item.items() if k != "type"}),
                                      source_id=item.get("id")))
    return {"user_message": "\n\n".join(u for u in users if u), "assistant_message": "\n\n".join(a for a in answers if a),
            "tool_calls": ordered}


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


class GraphMemorySession(SessionABC):
    """The SDK session ``session_id``, kept in the graphmem session of that id (created on the first
    items, under ``cwd``, for ``agent``)."""

    def __init__(self, session_id: str, mem: GraphMemory, *, cwd: str = "/openai-agents", agent: str = "openai-agents",
                 session_settings: SessionSettings | None = None) -> None:
        if not isinstance(session_id, str) or not session_id:
            raise InvalidInput("session_id: a non-empty string is required")
        self.session_id = session_id
        self.mem = mem
        self.cwd = cwd
        self.agent = agent
        self.session_settings = session_settings

    async def _run(self, work: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(None, work)

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        db = self.mem.db
        rows = await self._run(lambda: session_items.items_after(db, self.session_id) if limit is None
                               else session_items.latest_items(db, self.session_id, limit))
        return [cast(TResponseInputItem, item) for _, item in rows]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        if items:
            await self._run(lambda: self._add(cast(list[Mapping[str, Any]], items)))

    def _add(self, items: list[Mapping[str, Any]]) -> None:
        db = self.mem.db
        self.mem.create_session(self.cwd, agent=self.agent, session_id=self.session_id)
        session_items.append_items(db, self.session_id, items, redact_secrets=self.mem.redact)
        mark = session_items.turn_mark(db, self.session_id)
        pending = session_items.items_after(db, self.session_id, mark)
        turn = items_to_turn([item for _, item in pending])
        if turn is not None and session_items.mark_turn(db, self.session_id, expected=mark, seq=pending[-1][0]):
            self.mem.store_turn(self.session_id, turn["user_message"], turn["assistant_message"], turn["tool_calls"])

    async def pop_item(self) -> TResponseInputItem | None:
        item = await self._run(lambda: session_items.pop_item(self.mem.db, self.session_id))
        return cast(TResponseInputItem, item) if item is not None else None

    async def clear_session(self) -> None:
        def clear() -> None:
            try:
                self.mem.delete_session(self.session_id)
            except SessionNotFound:
                return

        await self._run(clear)
