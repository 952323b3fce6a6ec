"""Reproducible, realistic Gemini CLI chat files with the expected import result.

Three shapes, as written by gemini-cli's ChatRecordingService: the legacy whole-file JSON
session, the current JSONL session (metadata line, message records rewritten in place when tool
calls complete, ``$set`` updates, a ``$rewindTo``, a truncated last line) and a ``/chat save``
checkpoint (a list of API ``Content``). Sessions include info/error messages, failing and
cancelled tool calls, a slash command, a ``#nomem`` prompt, French text and emoji.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = ["ExpectedTool", "ExpectedTurn", "GeminiChat", "checkpoint", "generate", "jsonl_lines"]

SESSION_ID = "5c0ffee0-1234-4a5b-8c9d-0e1f2a3b4c5d"
PROJECT_HASH = "9f2c1a7b3e4d5f60718293a4b5c6d7e8f9012345a6b7c8d9e0f1a2b3c4d5e6f7"
BASE = datetime(2025, 10, 3, 8, 15, 0, tzinfo=UTC)

PROMPTS = [
    "List the endpoints defined in server/routes.ts",
    "Pourquoi `npm test` échoue-t-il sur la CI mais pas en local ? 😅",
    "Add input validation to POST /orders with zod",
    "Summarize what src/queue/worker.ts does",
    "Convert the config loader to async/await",
    "Écris un test e2e pour le parcours de paiement 💳",
]
ANSWERS = [
    "There are 7 endpoints: GET /health, GET/POST /orders, GET /orders/:id, ...",
    "La CI utilise Node 18 alors que le code dépend de `Array.prototype.toSorted` (Node 20).",
    "Added a zod schema `OrderInput`; invalid bodies now get a 422 with field errors.",
    "It pulls jobs from Redis, retries 3 times with backoff, then moves them to a dead-letter queue.",
    "The loader now exports `async loadConfig()`; the 4 call sites await it.",
    "Ajouté `e2e/checkout.spec.ts` (Playwright) : panier → paiement → confirmation ✅",
]
TOOL_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("read_file", {"absolute_path": "/work/shop/server/routes.ts"}, "export const routes = [...]"),
    ("run_shell_command", {"command": "npm test", "description": "Run tests"}, "Tests: 2 failed, 40 passed"),
    ("search_file_content", {"pattern": "toSorted"}, "src/cart.ts:14: items.toSorted()"),
    (
        "replace",
        {"file_path": "/work/shop/src/config.ts", "old_string": "function", "new_string": "async function"},
        "OK",
    ),
]


@dataclass
class ExpectedTool:
    id: str
    name: str
    success: bool | None


@dataclass
class ExpectedTurn:
    source_id: str
    user_message: str
    texts: list[str] = field(default_factory=list)
    tool_ids: list[str] = field(default_factory=list)
    nomem: bool = False
    kind: str = "prompt"


@dataclass
class GeminiChat:
    messages: list[dict[str, Any]]
    turns: list[ExpectedTurn]
    tools: dict[str, ExpectedTool]
    session_id: str = SESSION_ID

    def kept_turns(self) -> list[ExpectedTurn]:
        return [t for t in self.turns if not t.nomem and t.kind != "command"]

    def legacy_json(self) -> str:
        return json.dumps(
            {
                "sessionId": SESSION_ID,
                "projectHash": PROJECT_HASH,
                "startTime": BASE.isoformat().replace("+00:00", "Z"),
                "lastUpdated": self.messages[-1]["timestamp"],
                "messages": self.messages,
                "summary": "Fix CI on Node 18 and add order validation",
            },
            ensure_ascii=False,
            indent=2,
        )


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.t = BASE
        self.messages: list[dict[str, Any]] = []
        self.turns: list[ExpectedTurn] = []
        self.tools: dict[str, ExpectedTool] = {}

    def ts(self) -> str:
        self.t += timedelta(milliseconds=self.rng.randint(300, 5000))
        return self.t.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def user(self, text: str, **kw: Any) -> ExpectedTurn:
        m: dict[str, Any] = {
            "id": self.uid(),
            "timestamp": self.ts(),
            "type": "user",
            "content": [{"text": text}] if self.rng.random() < 0.5 else text,
        }
        self.messages.append(m)
        turn = ExpectedTurn(m["id"], text, **kw)
        self.turns.append(turn)
        return turn

    def gemini(self, text: str, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        m: dict[str, Any] = {
            "id": self.uid(),
            "timestamp": self.ts(),
            "type": "gemini",
            "content": text,
            "thoughts": [{"subject": "Planning", "description": "Looking at the files", "timestamp": self.ts()}],
            "tokens": {"input": 5321, "output": 210, "cached": 0, "thoughts": 120, "tool": 0, "total": 5651},
            "model": "gemini-2.5-pro",
        }
        if calls:
            m["toolCalls"] = calls
        self.messages.append(m)
        return m

    def call(self, turn: ExpectedTurn, status: str) -> dict[str, Any]:
        name, args, out = self.rng.choice(TOOL_CALLS)
        cid = f"{name}-{int(self.t.timestamp() * 1000)}-{self.rng.getrandbits(40):010x}"
        response: dict[str, Any] = (
            {"error": f"[Operation Cancelled] {name} failed"} if status == "error" else {"output": out}
        )
        c: dict[str, Any] = {
            "id": cid,
            "name": name,
            "args": args,
            "result": [{"functionResponse": {"id": cid, "name": name, "response": response}}]
            if status != "cancelled"
            else None,
            "status": status,
            "timestamp": self.ts(),
            "displayName": name.replace("_", " ").title(),
            "description": "",
            "resultDisplay": out if status == "success" else None,
            "renderOutputAsMarkdown": False,
        }
        turn.tool_ids.append(cid)
        self.tools[cid] = ExpectedTool(cid, name, {"success": True, "error": False}.get(status))
        return c


def generate(seed: int = 5, n_turns: int = 60) -> GeminiChat:
    g = _Gen(seed)
    for i in range(n_turns):
        text = PROMPTS[i % len(PROMPTS)] + (f" [{i // len(PROMPTS) + 1}]" if i >= len(PROMPTS) else "")
        turn = g.user(text)
        if i % 4 == 1:
            calls = [g.call(turn, "error" if i % 8 == 5 else "success") for _ in range(g.rng.choice([1, 2]))]
            g.gemini("", calls)
        if i % 11 == 7:
            g.gemini("Let me check one more thing.", [g.call(turn, "cancelled")])
            turn.texts.append("Let me check one more thing.")
        if i % 10 == 3:
            g.messages.append({"id": g.uid(), "timestamp": g.ts(), "type": "info", "content": "Request cancelled."})
        if i % 13 == 9:
            g.messages.append({"id": g.uid(), "timestamp": g.ts(), "type": "error", "content": "API error: 429 quota"})
        answer = ANSWERS[i % len(ANSWERS)]
        g.gemini(answer)
        turn.texts.append(answer)
        if i == 12:
            g.user("/stats", kind="command")
        if i == 17:
            t = g.user("scratch thought, do not store #nomem", nomem=True)
            g.gemini("OK.")
            t.texts.append("OK.")
    return GeminiChat(g.messages, g.turns, g.tools)


def jsonl_lines(chat: GeminiChat, *, seed: int = 3) -> tuple[list[str], set[str]]:
    """The chat as a current JSONL session file, with in-place rewrites, ``$set`` lines and a
    rewind of three extra messages (whose ids are returned: they must not be imported)."""
    rng = random.Random(seed)
    lines = [
        json.dumps(
            {
                "sessionId": SESSION_ID,
                "projectHash": PROJECT_HASH,
                "startTime": BASE.isoformat().replace("+00:00", "Z"),
                "lastUpdated": BASE.isoformat().replace("+00:00", "Z"),
                "kind": "main",
            }
        )
    ]
    rewound: set[str] = set()
    for n, m in enumerate(chat.messages):
        if m.get("toolCalls"):
            first = dict(m)
            first["toolCalls"] = [dict(c, status="executing", result=None) for c in m["toolCalls"]]
            lines.append(json.dumps(first, ensure_ascii=False))
        lines.append(json.dumps(m, ensure_ascii=False))
        lines.append(json.dumps({"$set": {"lastUpdated": m["timestamp"]}}))
        if n == len(chat.messages) // 2:
            extra = [
                {
                    "id": f"rewound-{k}",
                    "timestamp": m["timestamp"],
                    "type": "user" if k == 0 else "gemini",
                    "content": f"abandoned {k}",
                }
                for k in range(3)
            ]
            rewound = {e["id"] for e in extra}
            lines.extend(json.dumps(e) for e in extra)
            lines.append(json.dumps({"$rewindTo": "rewound-0"}))
        if rng.random() < 0.02:
            lines.append(json.dumps({"$set": {"summary": "Fix CI on Node 18"}}))
    return lines, rewound


def checkpoint(seed: int = 9, n_turns: int = 20) -> tuple[list[dict[str, Any]], list[str]]:
    """A ``/chat save`` checkpoint (list of ``Content``) and its prompts in order."""
    rng = random.Random(seed)
    history: list[dict[str, Any]] = [
        {"role": "user", "parts": [{"text": "This is the Gemini CLI. We are setting up the context for our chat."}]},
        {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]},
    ]
    prompts: list[str] = []
    for i in range(n_turns):
        p = PROMPTS[i % len(PROMPTS)] + f" ({i})"
        prompts.append(p)
        history.append({"role": "user", "parts": [{"text": p}]})
        if rng.random() < 0.5:
            name, args, out = rng.choice(TOOL_CALLS)
            history.append(
                {
                    "role": "model",
                    "parts": [
                        {"thought": True, "text": "thinking"},
                        {"functionCall": {"name": name, "args": args, "id": f"c{i}"}},
                    ],
                }
            )
            history.append(
                {
                    "role": "user",
                    "parts": [{"functionResponse": {"name": name, "id": f"c{i}", "response": {"output": out}}}],
                }
            )
        history.append({"role": "model", "parts": [{"text": ANSWERS[i % len(ANSWERS)]}]})
    return history, prompts
