"""LangChain on graphmem: a chat message history on a session and a retriever over search.

``GraphMemoryChatMessageHistory(mem, session_id)`` is a ``BaseChatMessageHistory`` whose messages are
the turns of one graphmem session, so what a LangChain app says is summarised by the worker, found by
:meth:`~graphmem.GraphMemory.search` and brought back by :meth:`~graphmem.GraphMemory.build_context`
(:meth:`GraphMemoryChatMessageHistory.context`). How messages become turns:

- a human message opens a turn; the AI messages and tool messages after it, up to the next human
  message, belong to it: the AI messages' tool calls become the turn's tool calls (name, arguments,
  the call id), each tool message the result of the call it answers, and the AI texts (joined by a
  blank line) the assistant's answer;
- messages added without their pair are stored at once: a human message alone is a turn with no
  answer yet, AI messages added later without a human one a turn with no user message;
- read back, a turn gives its human message, an AI message carrying its tool calls, one tool message
  per result and the AI answer (each only when there is one). The text of each message is kept (a
  list of content blocks is reduced to its text); message ids, ``additional_kwargs`` and response
  metadata are not. System messages are not conversation and are refused (put them in the prompt).

``GraphMemoryRetriever(mem=mem, scope=..., k=4)`` is a ``BaseRetriever`` over ``mem.search``: one
``Document`` per turn or summary found, with its score, kind, level, session, cwd, project and
timestamp in the metadata; ``invoke(query, k=...)`` changes the number of documents for one call.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.retrievers import BaseRetriever

from ..errors import InvalidInput, SessionNotFound
from ..memory import GraphMemory
from ..models import ToolCallIn, Turn, foreign_args
from ..retrieval import ContextBlock, SearchHit, SearchMode

__all__ = ["GraphMemoryChatMessageHistory", "GraphMemoryRetriever", "messages_to_turns", "turn_to_messages"]


def _text(message: BaseMessage) -> str:
    return message.text if not isinstance(message.content, str) else message.content


def messages_to_turns(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """The turns (``store_turn`` arguments: user, assistant, tool calls) that hold ``messages``."""
    turns: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    answers: list[str] = []
    calls: dict[str, ToolCallIn] = {}

    def close() -> None:
        if current is not None:
            current["assistant_message"] = "\n\n".join(a for a in answers if a)
            turns.append(current)

    for n, message in enumerate(messages):
        if isinstance(message, HumanMessage):
            close()
            current, answers, calls = {"user_message": _text(message), "tool_calls": []}, [], {}
            continue
        if not isinstance(message, AIMessage | ToolMessage):
            raise InvalidInput(f"messages[{n}]: a {message.type} message is not stored in a graphmem session "
                               "(human, AI and tool messages are; put system messages in the prompt)")
        if current is None:
            current, answers, calls = {"user_message": "", "tool_calls": []}, [], {}
        if isinstance(message, AIMessage):
            answers.append(_text(message))
            for call in message.tool_calls:
                stored = ToolCallIn(name=(call["name"] or "").strip() or "tool", args=foreign_args(call["args"]),
                                    source_id=call.get("id"))
                current["tool_calls"].append(stored)
                if call.get("id"):
                    calls[str(call["id"])] = stored
        else:
            stored_call = calls.get(message.tool_call_id)
            if stored_call is None:  # a result without its call in this batch: kept as a call of its own
                stored_call = ToolCallIn(name=(message.name or "").strip() or "tool", source_id=message.tool_call_id)
                current["tool_calls"].append(stored_call)
            stored_call.result = _text(message)
            stored_call.success = message.status != "error"
    close()
    return turns


def turn_to_messages(turn: Turn) -> list[BaseMessage]:
    """The messages a stored turn gives back (see the module's documentation)."""
    out: list[BaseMessage] = []
    if turn.user_message:
        out.append(HumanMessage(turn.user_message))
    if turn.tool_calls:
        ids = [tc.source_id or tc.id for tc in turn.tool_calls]
        out.append(AIMessage("", tool_calls=[{"name": tc.name, "args": _args(tc.args), "id": i, "type": "tool_call"}
                                             for tc, i in zip(turn.tool_calls, ids, strict=True)]))
        out.extend(ToolMessage(tc.result, tool_call_id=i, name=tc.name, status="error" if tc.success is False else "success")
                   for tc, i in zip(turn.tool_calls, ids, strict=True) if tc.result is not None)
    if turn.assistant_message:
        out.append(AIMessage(turn.assistant_message))
    return out


def _args(stored: str) -> dict[str, Any]:
    if not stored:
        return {}
    try:
        value = json.loads(stored)
    except ValueError:
        return {"input": stored}
    return value if isinstance(value, dict) else {"input": value}


class GraphMemoryChatMessageHistory(BaseChatMessageHistory):
    """The messages of the graphmem session ``session_id`` (created on the first message, under
    ``cwd``, for ``agent``)."""

    def __init__(self, mem: GraphMemory, session_id: str, *, cwd: str = "/langchain", agent: str = "langchain") -> None:
        if not isinstance(session_id, str) or not session_id:
            raise InvalidInput("session_id: a non-empty string is required")
        self.mem = mem
        self.session_id = session_id
        self.cwd = cwd
        self.agent = agent

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        try:
            detail = self.mem.load_session(self.session_id)
        except SessionNotFound:
            return []
        return [m for turn in detail.turns for m in turn_to_messages(turn)]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        turns = messages_to_turns(messages)
        if not turns:
            return
        self.mem.create_session(self.cwd, agent=self.agent, session_id=self.session_id)
        for turn in turns:
            self.mem.store_turn(self.session_id, turn["user_message"], turn["assistant_message"], turn["tool_calls"])

    def clear(self) -> None:
        """Delete the session and everything under it (turns, summaries); the next message starts it again."""
        with contextlib.suppress(SessionNotFound):
            self.mem.delete_session(self.session_id)

    def context(self, message: str) -> ContextBlock:
        """What graphmem gives the model before it answers ``message`` in this session: recent turns,
        relevant past turns and summaries, known facts (:meth:`~graphmem.GraphMemory.build_context`)."""
        return self.mem.build_context(self.session_id, message)


class GraphMemoryRetriever(BaseRetriever):
    """Documents from :meth:`~graphmem.GraphMemory.search`: turns and summaries of ``scope``."""

    mem: GraphMemory
    scope: str | None = None
    """``"session:<id>"``, ``"directory:<path>"``, ``"project:<path>"`` or None/``"everything"``."""
    k: int = 4
    mode: SearchMode = "hybrid"
    min_score: float | None = None
    levels: tuple[int, ...] = (0, 1, 2, 3)
    """0: turns, 1+: summaries of that level."""

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                k: int | None = None) -> list[Document]:
        hits = self.mem.search(query, scope=self.scope, k=self.k if k is None else k, mode=self.mode,
                               min_score=self.min_score, levels=self.levels)
        return [_document(hit) for hit in hits]


def _document(hit: SearchHit) -> Document:
    if hit.kind == "turn":
        content = f"User: {hit.user_message or ''}\nAssistant: {hit.assistant_message or ''}"
    else:
        content = hit.text or ""
    metadata: dict[str, Any] = {
        "id": hit.id, "kind": hit.kind, "level": hit.level, "score": hit.score, "relevance": hit.relevance,
        "session_id": hit.session_id, "cwd": hit.cwd, "project_path": hit.project_path,
        "timestamp": hit.timestamp.isoformat() if hit.timestamp else None,
    }
    if hit.index is not None:
        metadata["index"] = hit.index
    return Document(page_content=content, metadata=metadata, id=hit.id)
